package profile

import "strings"

// Session 13, programs that run code they are given or copy trees that
// the tables did not know: watchexec runs its command line with a shell
// (the one -s/--shell names, else $SHELL or sh), ditto copies a
// directory's contents into its destination (merging) or extracts an
// archive there, unison writes (and deletes in) both of its roots and
// runs the commands its options name, and python -m trace runs a script
// and writes its coverage files into -C DIR.

// syncTable: the rows of these programs.
func syncTable() map[string]*spec {
	return map[string]*spec{
		"watchexec": {posix: true, val: "-w --watch -W --watch-non-recursive -F --watch-file -e --exts -f --filter -i --ignore -s --shell -E --env --workdir --project-origin -d --debounce --delay-run --on-busy-update --signal --stop-signal --stop-timeout --filter-file --ignore-file --emit-events-to --poll --wrap-process --color --timings --log-file --filter-prog -j --filter-fn",
			fn: hWatchexec},
		"ditto": {val: "--arch --bom", fn: hDitto, rows: []row{
			{"fs.copy", CapRead, "!-x", "init", "copies"},
			{"fs.write", CapWrite, "", "last", "writes"},
		}},
		"unison": {val: "-sshcmd -servercmd -copyprog -copyprogrest -merge -diff -root -path -ignore -ignorenot -logfile -backupdir -backuploc -backup -backupnot -follow -force -prefer -label -ui -perms -repeat -retry -sshargs -rsrc -confirmbigdel -maxthreads -include -source -addprefsto -fat -rootalias -watch -fastercheckUNSAFE -noupdate -nodeletion -nocreation",
			fn: hUnison},
		// python -m trace: -m is --missing here, --module makes the
		// operand a module.
		"trace": {val: "-C --coverdir -f --file --ignore-module --ignore-dir", fn: hPyTrace, rows: []row{
			{"fs.output", CapWrite, "", "into:-C|--coverdir", "writes its coverage files into"},
			{"fs.output", CapWrite, "", "-f|--file", "writes"},
		}},
	}
}

// hWatchexec: watchexec [OPTIONS] [--] COMMAND… runs COMMAND each time
// files change: its words joined by spaces, as the -c text of the shell
// -s/--shell names (several words: the shell and its options), else of
// $SHELL, else of sh; with -n or --shell=none, as a program and its
// arguments. The command is reviewed as that shell's (hShell prices a
// shell of another syntax; python as a shell is python's inline code).
func hWatchexec(b *builder, c *call) stream {
	st := c.st
	if ds := c.a.values("--workdir"); len(ds) > 0 {
		st = st.clone()
		st.cwd = ""
		if d := ds[len(ds)-1]; d.known {
			if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok {
				st.cwd = p
			}
		}
	}
	cmd := c.a.rest
	if len(cmd) == 0 {
		return stream{}
	}
	var shell []field
	if ss := c.a.values("-s", "--shell"); len(ss) > 0 {
		s := ss[len(ss)-1]
		if s.known {
			for _, w := range strings.Fields(s.val) {
				shell = append(shell, staticField(w, span{s.pos, s.end}))
			}
		} else {
			shell = []field{s}
		}
	} else if v, ok := b.getenv(st, "SHELL"); ok {
		if v == nil {
			shell = []field{{raw: "$SHELL", pos: c.sp.pos, end: c.sp.end}}
		} else {
			shell = []field{staticField(*v, c.sp)}
		}
	} else {
		shell = []field{staticField("sh", c.sp)}
	}
	if c.a.has("-n") || len(shell) == 1 && shell[0].known && shell[0].val == "none" {
		return b.exec(cmd, st, c.in, "watchexec", c.sp)
	}
	line := field{known: true, pos: cmd[0].pos, end: cmd[len(cmd)-1].end}
	vals := make([]string, 0, len(cmd))
	for _, f := range cmd {
		line.known = line.known && f.known && !f.glob
		line.taint = worse(line.taint, f.taint)
		vals = append(vals, f.val)
	}
	line.val = strings.Join(vals, " ")
	if !line.known {
		line.raw = line.val
	}
	argv := append(append(shell, staticField("-c", c.sp)), line)
	return b.exec(argv, st, c.in, "watchexec", c.sp)
}

// hDitto: ditto SRC… DST copies each source directory's contents into DST
// by their own names (merging; DST is made when missing), and ditto -x
// ARCHIVE… DST extracts the archives' names there.
func hDitto(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) < 2 {
		return stream{}
	}
	dest := ops[len(ops)-1]
	if c.a.has("-x") {
		b.extractAny(c, dest)
		return stream{}
	}
	if c.a.has("-c") || !dest.known {
		return stream{} // an archive written (the last row), or a destination guard cannot see (its row)
	}
	if dp, ok := b.ctx.Resolve(c.st.cwd, dest.val); ok {
		var srcs []field
		for _, s := range ops[:len(ops)-1] {
			s.val = strings.TrimSuffix(s.val, "/") + "/."
			srcs = append(srcs, s)
		}
		b.intoHeld(c, dp, srcs, false)
	}
	return stream{}
}

// unisonCommands are unison's options whose value is a command it runs.
const unisonCommands = "-sshcmd -servercmd -copyprog -copyprogrest -merge -diff"

// hUnison: unison ROOT1 ROOT2 [OPTIONS] synchronizes the roots both ways:
// each local root gets the other's files by their own names and loses
// those deleted in the other; a root on another machine (ssh://,
// socket://) is sent to. A profile name alone (unison NAME) reads its
// roots and commands from ~/.unison/NAME.prf, which guard does not read.
// The commands of -sshcmd, -servercmd, -copyprog, -merge and -diff are
// reviewed as command lines.
func hUnison(b *builder, c *call) stream {
	for _, f := range c.a.values(strings.Fields(unisonCommands)...) {
		if !f.known {
			b.dynamicCode(f, c, "unison's command option")
			continue
		}
		b.text(f.val, c.st.clone(), stream{}, "unison", span{f.pos, f.end})
	}
	roots := append(append([]field(nil), c.a.values("-root")...), c.a.ops...)
	if len(roots) < 2 {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.script-unreadable", Program: "unison", Target: "~/.unison",
			Msg: "synchronizes the roots and runs the commands a unison profile names, which guard does not read"}, c.sp)
	}
	for _, r := range roots {
		if r.known && strings.Contains(r.val, "://") {
			b.add(Effect{Cap: CapSend, Rule: "net.upload", Program: "unison", Target: r.val, Msg: "synchronizes files with another machine"}, c.sp)
			continue
		}
		b.pathEffect(CapWrite, "fs.write", "unison", r, c.st, c.sp, "synchronizes (writes)")
		if r.known {
			g := r
			g.val = strings.TrimSuffix(r.val, "/") + "/*"
			g.glob = true
			b.pathEffect(CapDelete, "fs.delete", "unison", g, c.st, c.sp, "may delete, propagating deletions,")
			if dp, ok := b.ctx.Resolve(c.st.cwd, r.val); ok {
				b.intoHeld(c, dp, []field{{}}, false) // the other root's names
			}
			b.writeAnyName(c, r, "fs.write", "may write any name into")
		}
	}
	return stream{}
}

// hPipInstall: pip install. A package may hold any name (a .pth file, a
// script), as an archive extracted into --target/--prefix/--root/--src
// may (principle 10). A local project (pip install ., -e DIR, ./pkg) is
// built: pip runs its setup.py or pyproject.toml backend, so a build file
// this line wrote (or a directory it cloned) is code it cannot vouch for.
func hPipInstall(b *builder, c *call) stream {
	for _, d := range c.a.values("-t", "--target", "--prefix", "--root", "--src") {
		b.writeAnyName(c, d, "fs.write", "may install any name into")
	}
	for _, f := range append(c.a.values("-e", "--editable"), c.a.ops...) {
		if f.known && !strings.Contains(f.val, "://") && (f.val == "." || f.val == ".." || strings.Contains(f.val, "/")) {
			if dir, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
				b.projectBuildFiles(c.prog, dir, []string{"setup.py", "pyproject.toml", "setup.cfg"}, c)
			}
		}
	}
	return stream{}
}

// hPyTrace: python -m trace [OPTIONS] SCRIPT ARGS… runs SCRIPT as python
// would (--module: the module SCRIPT names).
func hPyTrace(b *builder, c *call) stream {
	if len(c.a.ops) == 0 || !c.a.ops[0].known {
		return stream{}
	}
	idx := indexOf(c.fs, c.a.ops[0])
	argv := []field{staticField("python3", c.sp)}
	if c.a.has("--module") {
		argv = append(argv, staticField("-m", c.sp))
	}
	return b.exec(append(argv, c.fs[idx:]...), c.st, c.in, "trace", c.sp)
}
