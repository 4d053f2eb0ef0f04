package profile

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
)

// Principle 7: a program that runs a program is a wrapper, known or not.
// The handlers here cover launchers guard knows (tracers, debuggers,
// benchmark tools, namespace and privilege tools, multicall binaries,
// editors with command options, multiplexer bodies) and the generic rule
// for programs it does not know: an argument that names a program starts a
// command that may run, and an argument that parses as shell with a
// command in it is code that may run.

// shellNames are the shells whose -c runs its first operand as code and
// whose first operand is otherwise a script.
var shellNames = sync.OnceValue(func() []string {
	return []string{"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh", "rbash", "ksh93", "pdksh", "oksh", "lksh", "csh", "tcsh", "hush", "msh"}
})

// hShell: SHELL -c TEXT [ARG0 ARGS…] (-c is a flag: the code is the first
// operand, after any other options and a `--`), SHELL SCRIPT [ARGS…], or a
// shell reading stdin. The table parses shells POSIX-style, so c.a.rest is
// every word from the first operand on.
func hShell(b *builder, c *call) stream {
	if fs, ok := dropPlusOptions(c.fs); ok {
		// +x, +o NAME turn options off; they do not start the operands.
		nc := *c
		nc.fs = fs
		nc.a = parseArgs(fs, shellVal, true)
		return hShell(b, &nc)
	}
	if c.a.has("-n") {
		// noexec: the shell only checks the syntax.
		return stream{}
	}
	c = b.startupFile(c)
	c = b.shellStartOpts(c)
	c = b.shellKeyword(c)
	b.otherSyntax(c)
	rest := c.a.rest
	if c.a.has("-c") {
		if len(rest) == 0 {
			return stream{}
		}
		code := rest[0]
		if !code.known {
			return b.dynamicCode(code, c, c.prog+" -c")
		}
		return b.newShell(c.prog, c.st, code.val, func(inner *state) stream {
			inner.setArgs(rest[1:])
			return b.text(code.val, inner, c.in, c.prog+" -c", span{code.pos, code.end})
		})
	}
	if len(rest) > 0 && !c.a.has("-s") {
		withArgs := *c
		withArgs.st = c.st.clone()
		withArgs.st.setArgs(rest)
		return b.scriptOperand(rest[0], &withArgs, false)
	}
	return b.shellStdin(c, c.prog+" reading stdin")
}

// shellVal are the options of a POSIX shell that take a value.
const shellVal = "-o -O --rcfile --init-file"

// dropPlusOptions removes +X and +o NAME words from a shell's options
// (before the first operand); ok is false when there are none.
func dropPlusOptions(fs []field) ([]field, bool) {
	var out []field
	found := false
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if !f.known || f.val == "--" || !(strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "+")) || f.val == "-" || f.val == "+" {
			out = append(out, fs[i:]...)
			break
		}
		if strings.HasPrefix(f.val, "+") {
			found = true
			if (f.val == "+o" || f.val == "+O") && i+1 < len(fs) {
				i++
			}
			continue
		}
		out = append(out, f)
		if (f.val == "-o" || f.val == "-O" || f.val == "--rcfile" || f.val == "--init-file") && i+1 < len(fs) {
			i++
			out = append(out, fs[i])
		}
	}
	return out, found
}

// hFish: fish's -c/--command takes its code as a value.
func hFish(b *builder, c *call) stream {
	codes := c.a.values("-c", "--command")
	nc := *c
	if len(codes) > 0 {
		nc.a.flags["-c"] = codes
		nc.a.rest = append([]field{codes[0]}, c.a.ops...)
	} else {
		nc.a.rest = c.a.ops
	}
	return hShell(b, &nc)
}

// hMulticall: busybox APPLET ARGS… and toybox APPLET ARGS… run the applet.
func hMulticall(b *builder, c *call) stream {
	if len(c.a.rest) == 0 {
		return stream{kind: streamText}
	}
	return b.exec(c.a.rest, c.st, c.in, c.prog, c.sp)
}

// hCoreutils: coreutils --coreutils-prog=NAME ARGS runs NAME; uutils'
// coreutils NAME ARGS too.
func hCoreutils(b *builder, c *call) stream {
	for i, f := range c.fs {
		if name, ok := strings.CutPrefix(f.val, "--coreutils-prog="); ok && f.known {
			g := f
			g.val = name
			return b.exec(append([]field{g}, c.fs[i+1:]...), c.st, c.in, c.prog, c.sp)
		}
		if !f.known && strings.HasPrefix(f.raw, "--coreutils-prog") {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-name", Program: c.prog, Target: f.display(), Msg: "runs a coreutils program whose name is not static"}, c.sp)
			return stream{kind: streamUnknown}
		}
	}
	return hMulticall(b, c)
}

// launch runs the command after skip positional words (chroot's
// directory, sg's group); with none it starts the user's shell.
func launch(skip int) handler {
	return func(b *builder, c *call) stream {
		inner := c.a.rest
		if len(inner) <= skip && c.a.has("-h", "--help", "-V", "--version") {
			return stream{kind: streamText}
		}
		if len(inner) <= skip {
			b.interactive(c, fmt.Sprintf("starts an interactive shell through %s; what it will run cannot be reviewed", c.prog))
			return stream{kind: streamUnknown}
		}
		return b.exec(inner[skip:], c.st, c.in, c.prog, c.sp)
	}
}

// interactive records a shell or interpreter started on the terminal. A
// program name found among an unknown program's arguments (pgrep -f node)
// is not taken for an interactive session: only what it would run with
// its arguments counts.
func (b *builder) interactive(c *call, msg string) {
	if b.argCmd {
		return
	}
	b.add(Effect{Cap: CapDynamic, Rule: "exec.interactive", Program: c.prog, Msg: msg}, c.sp)
}

// commandText reviews one argument that a program runs as a shell command
// line (hyperfine 'CMD', script -c CMD, entr -s CMD, tar --to-command).
func (b *builder) commandText(f field, c *call, via string) stream {
	if !f.known {
		return b.dynamicCode(f, c, via)
	}
	return b.text(f.val, c.st.clone(), stream{}, via, span{f.pos, f.end})
}

// hHyperfine: every operand is a command line (run by sh -c, or split into
// words with -N); --prepare, --setup, --cleanup and --conclude are too.
func hHyperfine(b *builder, c *call) stream {
	for _, f := range c.a.values("-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "-C", "--conclude") {
		b.commandText(f, c, "hyperfine")
	}
	for _, f := range c.a.ops {
		b.commandText(f, c, "hyperfine")
	}
	return stream{kind: streamText}
}

// hScript: script -c CMD [FILE] runs CMD; FILE (the typescript) is written.
func hScript(b *builder, c *call) stream {
	for _, f := range c.a.ops {
		b.pathEffect(CapWrite, "fs.write", c.prog, f, c.st, c.sp, "writes")
	}
	if codes := c.a.values("-c", "--command"); len(codes) > 0 {
		return b.commandText(codes[0], c, "script -c")
	}
	if c.in.kind != streamNone {
		// Without -c, script starts a shell that reads its commands
		// from script's input.
		b.stdinCode(c, "the shell script starts")
	}
	return launch(len(c.a.rest))(b, c)
}

// hSg: sg GROUP [-c] CMD runs CMD (through sh -c) with GROUP.
func hSg(b *builder, c *call) stream {
	rest := c.a.rest
	if len(rest) < 2 {
		return launch(1)(b, c)
	}
	cmd := rest[1:]
	if cmd[0].known && cmd[0].val == "-c" {
		cmd = cmd[1:]
	}
	return b.shellText(cmd, c, "sg -c")
}

// hEntr: entr [-s] CMD ARGS…; with -s, CMD is a shell command line.
func hEntr(b *builder, c *call) stream {
	if c.a.has("-s") && len(c.a.rest) > 0 {
		return b.commandText(c.a.rest[0], c, "entr -s")
	}
	return launch(0)(b, c)
}

// hCapsh: capsh [OPTIONS] -- ARGS runs /bin/bash ARGS.
func hCapsh(b *builder, c *call) stream {
	for i, f := range c.fs {
		if f.known && f.val == "--" {
			bash := staticField("bash", c.sp)
			for _, o := range c.fs[:i] {
				if o.known && strings.HasPrefix(o.val, "--shell=") {
					bash = staticField(strings.TrimPrefix(o.val, "--shell="), c.sp)
				}
			}
			return b.exec(append([]field{bash}, c.fs[i+1:]...), c.st, c.in, "capsh", c.sp)
		}
	}
	return stream{}
}

// bwrapArgs is how many values each bubblewrap option takes.
var bwrapArgs = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--bind-try": 2, "--ro-bind-try": 2, "--dev-bind-try": 2,
		"--symlink": 2, "--setenv": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--chmod": 2,
		"--chdir": 1, "--tmpfs": 1, "--proc": 1, "--dev": 1, "--dir": 1, "--mqueue": 1, "--unsetenv": 1, "--uid": 1, "--gid": 1,
		"--hostname": 1, "--remount-ro": 1, "--perms": 1, "--size": 1, "--args": 1, "--info-fd": 1, "--seccomp": 1,
		"--add-seccomp-fd": 1, "--exec-label": 1, "--file-label": 1, "--lock-file": 1, "--sync-fd": 1, "--block-fd": 1,
		"--userns-block-fd": 1, "--json-status-fd": 1, "--cap-add": 1, "--cap-drop": 1, "--userns": 1, "--userns2": 1, "--pidns": 1, "--argv0": 1,
	}
})

// hBwrap: bwrap OPTIONS… CMD ARGS… (options take zero, one or two values).
func hBwrap(b *builder, c *call) stream {
	fs := c.fs
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if f.known && f.val == "--" {
			return launch(0)(b, &call{prog: c.prog, a: args{rest: fs[i+1:]}, st: c.st, in: c.in, sp: c.sp})
		}
		if f.known && strings.HasPrefix(f.val, "--") {
			i += bwrapArgs()[f.val]
			continue
		}
		return b.exec(fs[i:], c.st, c.in, c.prog, c.sp)
	}
	return launch(0)(b, &call{prog: c.prog, st: c.st, in: c.in, sp: c.sp})
}

// perfRuns are the perf subcommands that run a command.
var perfRuns = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"record": true, "stat": true, "trace": true, "c2c": true, "mem": true, "lock": true, "sched": true, "kmem": true, "kvm": true, "ftrace": true, "kwork": true, "timechart": true, "top": false}
})

const perfVal = "-e -o -p -t -F -c -C -u -G -r -x -I -j -m --event --output --pid --tid --freq --count --cpu --uid --repeat --field-separator --call-graph --cgroup --filter"

// hPerf: perf record|stat|trace … CMD ARGS runs CMD.
func hPerf(b *builder, c *call) stream {
	rest := c.a.rest
	if len(rest) == 0 || !rest[0].known || !perfRuns()[rest[0].val] {
		return stream{}
	}
	a := parseArgs(rest[1:], perfVal, true)
	if a.has("-p", "--pid", "-t", "--tid") {
		b.add(Effect{Cap: CapProcess, Rule: "proc.trace", Program: c.prog, Msg: "attaches to a running process (it can read its memory and data)"}, c.sp)
	}
	for _, f := range a.values("-o", "--output") {
		b.pathEffect(CapWrite, "fs.write", "perf", f, c.st, c.sp, "writes")
	}
	if len(a.rest) == 0 {
		return stream{}
	}
	return b.exec(a.rest, c.st, c.in, "perf "+rest[0].val, c.sp)
}

// Debugger and editor command options: what in them runs a shell command
// (reviewed as shell text) and what runs code guard does not read.
var (
	gdbShell  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:shell\s+|platform\s+shell\s+|!)(.*)$`) })
	gdbAttach = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:at|att|atta|attac|attach|process\s+attach|pro\s+at)\b`)
	})
	gdbPipe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:pipe|\|)\s.*?\|\s*(.*)$`) })
	gdbScript = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:python|py|pi|python-interactive|guile|gu|source|so|script|command\s+script|eval)\b`)
	})
	// vim: a ! that starts a filter or shell command (:!cmd, :r !cmd,
	// :w !cmd, :%!cmd), and functions or commands that run code.
	vimBang   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s:|%,.$0-9'<>rw])!(.*)$`) })
	vimScript = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(system|systemlist|job_start|jobstart|termopen|libcall|py3?|python3?|pyx|pythonx|lua|luado|luafile|perl|ruby|rubydo|mzscheme|tcl|exe|exec|execute|so|sou|source|runtime|call|term|terminal|let|au|autocmd|cmd|command|func|function|norm|normal)\b`)
	})
	elispShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\((?:shell-command(?:-to-string)?|async-shell-command|compile)\s+"((?:[^"\\]|\\.)*)"`)
	})
)

// debuggerCommand reviews one debugger command (gdb -ex, lldb -o).
func (b *builder) debuggerCommand(f field, c *call) {
	if !f.known {
		b.dynamicCode(f, c, c.prog+" command")
		return
	}
	if m := gdbShell().FindStringSubmatch(f.val); m != nil {
		b.text(m[1], c.st.clone(), stream{}, c.prog+" shell", span{f.pos, f.end})
		return
	}
	if m := gdbPipe().FindStringSubmatch(f.val); m != nil {
		b.text(m[1], c.st.clone(), stream{}, c.prog+" pipe", span{f.pos, f.end})
		return
	}
	if gdbAttach().MatchString(f.val) {
		b.add(Effect{Cap: CapProcess, Rule: "proc.trace", Program: c.prog, Msg: "attaches a debugger to a running process (it can read and change its memory)"}, c.sp)
	}
	if gdbScript().MatchString(f.val) {
		b.add(Effect{Cap: CapDynamic, Rule: "debug.script", Program: c.prog, Target: shorten(f.val), Msg: fmt.Sprintf("runs %s script code, which guard does not review", c.prog)}, c.sp)
	}
}

// debuggerArgs is how a debugger's command line names what it does: the
// words that start the program it runs (gdb --args PROG, lldb -- PROG),
// and whether a second operand is a process to attach to (gdb PROG PID).
type debuggerArgs struct {
	progMarks []string
	pidOp     bool
}

// hDebugger: --args PROG ARGS runs PROG; -ex/-iex commands may run shell
// commands or Python; -x command files are not reviewed; -p attaches to
// another process.
func hDebugger(d debuggerArgs) handler {
	return func(b *builder, c *call) stream { return b.debugger(c, d) }
}

func (b *builder) debugger(c *call, d debuggerArgs) stream {
	for _, f := range c.a.values("-ex", "-eval-command", "--eval-command", "-iex", "-init-eval-command", "--init-eval-command", "-o", "--one-line", "-O", "--one-line-before-file", "-k", "--source-on-crash") {
		b.debuggerCommand(f, c)
	}
	for _, f := range c.a.values("-x", "-command", "--command", "-ix", "-init-command", "--init-command", "-s", "--source", "-S", "--source-before-file") {
		b.add(Effect{Cap: CapDynamic, Rule: "debug.script", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("runs a %s command file, which can run shell commands, that guard does not review", c.prog)}, c.sp)
	}
	// gdb PROG PID attaches to PID as -p does.
	pidOp := d.pidOp && len(c.a.ops) == 2 && c.a.ops[1].known && isDigits(c.a.ops[1].val)
	if pidOp || c.a.has("-p", "-pid", "--pid", "--attach-pid", "-n", "--attach-name") {
		b.add(Effect{Cap: CapProcess, Rule: "proc.trace", Program: c.prog, Msg: "attaches a debugger to a running process (it can read and change its memory)"}, c.sp)
	}
	for i, f := range c.fs {
		if f.known && slices.Contains(d.progMarks, f.val) {
			return b.exec(c.fs[i+1:], c.st.clone(), c.in, c.prog+" --args", c.sp)
		}
	}
	if len(c.a.ops) > 0 && c.a.ops[0].known && strings.Contains(c.a.ops[0].val, "/") {
		// The program being debugged (a binary) runs when the session
		// says `run`; where it lives is what counts.
		t, class := b.classify(c.a.ops[0], c.st)
		b.add(Effect{Cap: CapExec, Rule: "exec.path", Program: c.prog, Target: t, Class: class, Msg: "debugs " + describeTarget(t, class)}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// hVim: vim/nvim -c CMD, --cmd CMD and +CMD run Ex commands: a shell
// command in one (:!cmd, :r !cmd) is reviewed, other code (system(),
// :lua, :source) is not reviewed; -S/-l script files and -s keystroke
// files are code; --remote-send/--remote-expr type into another editor.
// hLess: less runs the commands of a +CMD operand at start. In them `!`
// starts a shell command and `|` (after a mark letter) pipes text to
// one: those are reviewed as command lines. A search (+/, +?) or a move
// (+G, +50) runs nothing; any other command (s saves to a file, v starts
// an editor) is code guard does not review.
func hLess(b *builder, c *call) stream {
	for _, f := range c.a.ops {
		if !strings.HasPrefix(f.val, "+") && f.known {
			continue
		}
		if !f.known {
			if strings.HasPrefix(strings.TrimLeft(f.raw, "'\""), "+") {
				b.dynamicCode(f, c, c.prog+" +")
			}
			continue
		}
		v := strings.TrimLeft(f.val, "+")
		if i := strings.IndexAny(v, "!|"); i >= 0 && !strings.ContainsAny(v[:1], "/?&") {
			cmd := v[i+1:]
			if v[i] == '|' && cmd != "" {
				cmd = cmd[1:] // the mark letter
			}
			b.text(cmd, c.st.clone(), stream{}, c.prog+" !", span{f.pos, f.end})
			continue
		}
		if v == "" || strings.ContainsAny(v[:1], "/?&") || strings.Trim(v, "0123456789gGpP%FRrqQjkJKfbduey ") == "" {
			continue
		}
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: shorten(f.val), Msg: fmt.Sprintf("runs %s commands that can save files or start an editor, which guard does not review", c.prog)}, c.sp)
	}
	return stream{kind: streamUnknown}
}

func hVim(b *builder, c *call) stream { return b.vim(c, false) }

// hEx is hVim for the names that start in Ex mode (ex), where -s means
// silent, not a keystroke file.
func hEx(b *builder, c *call) stream { return b.vim(c, true) }

func (b *builder) vim(c *call, exMode bool) stream {
	b.add(Effect{Cap: CapExec, Rule: "dev.build", Program: c.prog, Msg: "opens an editor"}, c.sp)
	cmds := c.a.values("-c", "--cmd")
	for _, f := range c.a.ops {
		if f.known && strings.HasPrefix(f.val, "+") {
			if v := strings.TrimPrefix(f.val, "+"); v != "" && !isDigits(v) && !strings.HasPrefix(v, "/") {
				g := f
				g.val = v
				cmds = append(cmds, g)
			}
		}
	}
	for _, f := range cmds {
		b.vimCommand(f, c)
	}
	if c.a.has("-s") && !exMode && !c.a.has("-e", "-E", "-es", "-Es") && len(c.a.ops) > 0 {
		// -s FILE (outside ex mode, where -s means silent) types the
		// file's keystrokes, which can run anything.
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: c.a.ops[0].display(), Msg: fmt.Sprintf("runs a %s keystroke file, which guard does not review", c.prog)}, c.sp)
	}
	for _, f := range c.a.values("-S", "-l", "-u", "--listen") {
		if f.known && (f.val == "NONE" || f.val == "NORC" || f.val == "DEFAULTS") {
			continue
		}
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("runs a %s script or keystroke file, which guard does not review", c.prog)}, c.sp)
	}
	if c.a.has("--remote-send", "--remote-expr") {
		b.add(Effect{Cap: CapInject, Rule: "inject.editor-remote", Program: c.prog, Msg: "sends keystrokes or code to another running editor, outside the sandbox"}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// vimCommand reviews one Ex command: a shell command in it (:!cmd, :r
// !cmd) as a command line, the files it names, and other code (system(),
// :lua, :source) as code guard does not review.
func (b *builder) vimCommand(f field, c *call) {
	if !f.known {
		b.dynamicCode(f, c, c.prog+" -c")
		return
	}
	v := strings.TrimLeft(f.val, ": ")
	if b.vimFiles(v, f, c) {
		return
	}
	if m := vimBang().FindStringSubmatch(v); m != nil {
		b.text(m[1], c.st.clone(), stream{}, c.prog+" :!", span{f.pos, f.end})
		return
	}
	if vimScript().MatchString(v) {
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: shorten(f.val), Msg: fmt.Sprintf("runs %s commands that can run code guard does not review", c.prog)}, c.sp)
	}
}

// hEmacs: --eval runs Lisp (a shell-command in it is reviewed, the rest is
// code guard does not read); -l/--load/--script/-f load or call code.
func hEmacs(b *builder, c *call) stream {
	if c.prog == "emacsclient" {
		if c.a.has("-e", "--eval") {
			b.add(Effect{Cap: CapInject, Rule: "inject.editor-remote", Program: c.prog, Msg: "evaluates Lisp in a running Emacs, outside the sandbox"}, c.sp)
		}
	} else {
		b.add(Effect{Cap: CapExec, Rule: "dev.build", Program: c.prog, Msg: "opens an editor"}, c.sp)
	}
	for _, f := range c.a.values("--eval", "-eval", "-e") {
		if !f.known {
			b.dynamicCode(f, c, c.prog+" --eval")
			continue
		}
		for _, m := range elispShell().FindAllStringSubmatch(f.val, -1) {
			b.text(strings.ReplaceAll(m[1], `\"`, `"`), c.st.clone(), stream{}, c.prog+" shell-command", span{f.pos, f.end})
		}
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: shorten(f.val), Msg: fmt.Sprintf("runs %s Lisp code, which guard does not review", c.prog)}, c.sp)
	}
	for _, f := range c.a.values("-l", "--load", "--script", "-x", "-f", "--funcall") {
		b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("runs %s Lisp code, which guard does not review", c.prog)}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// tmuxBodies are the tmux commands whose operand is a shell command that
// the tmux server runs, outside this command's sandbox.
var tmuxBodies = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"new-session": true, "new": true, "new-window": true, "neww": true, "split-window": true, "splitw": true,
		"respawn-pane": true, "respawnp": true, "respawn-window": true, "respawnw": true, "display-popup": true, "popup": true,
		"run-shell": true, "run": true, "if-shell": true, "if": true, "pipe-pane": true, "pipep": true,
	}
})

// tmuxVal are the options of each body command that take a value.
var tmuxVal = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"new-session": "-c -e -F -n -s -t -x -y -f", "new-window": "-c -e -F -n -t", "split-window": "-c -e -F -l -t -p",
		"respawn-pane": "-c -e -t", "respawn-window": "-c -e -t", "display-popup": "-b -c -d -e -h -s -S -t -T -w -x -y",
		"run-shell": "-c -d -t", "if-shell": "-t", "pipe-pane": "-t",
		"new": "-c -e -F -n -s -t -x -y -f", "neww": "-c -e -F -n -t", "splitw": "-c -e -F -l -t -p", "respawnp": "-c -e -t",
		"respawnw": "-c -e -t", "popup": "-b -c -d -e -h -s -S -t -T -w -x -y", "run": "-c -d -t", "if": "-t", "pipep": "-t",
	}
})

// hTmux: tmux [-S SOCKET] [-L NAME] CMD [ARGS] [\; CMD …]: each command
// is looked up in tmux's table; a command body (new-window CMD, run-shell
// CMD, if-shell COND CMD) runs through the tmux server, outside guard's
// sandbox: it is reviewed and is terminal injection.
func hTmux(subs map[string]*spec, def *spec) handler {
	return func(b *builder, c *call) stream {
		if sh := c.a.values("-c"); len(sh) > 0 {
			b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: "tmux", Msg: "runs a command through tmux, outside guard's sandbox"}, c.sp)
			b.commandText(sh[0], c, "tmux -c")
		}
		ops := c.a.ops
		start := 0
		for i := 0; i <= len(ops); i++ {
			if i < len(ops) && !(ops[i].known && (ops[i].val == ";" || ops[i].val == `\;`)) {
				continue
			}
			group := ops[start:i]
			start = i + 1
			if len(group) == 0 {
				continue
			}
			name := group[0]
			if !name.known {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-subcommand", Program: "tmux", Target: name.display(), Msg: "runs tmux with a command that is not static"}, c.sp)
				continue
			}
			idx := indexOf(c.fs, name)
			end := len(c.fs)
			if i < len(ops) {
				end = indexOf(c.fs, ops[i])
			}
			words := c.fs[idx+1 : end]
			if tmuxBodies()[name.val] {
				a := parseArgs(words, tmuxVal()[name.val], false)
				body := a.ops
				if name.val == "if-shell" || name.val == "if" {
					if len(body) > 0 {
						b.commandText(body[0], c, "tmux if-shell")
					}
					b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: "tmux", Target: name.val, Msg: "runs a command through tmux (" + name.val + "), outside guard's sandbox"}, c.sp)
					continue
				}
				if len(body) > 0 {
					b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: "tmux", Target: name.val, Msg: "runs a command through tmux (" + name.val + "), outside guard's sandbox"}, c.sp)
					b.shellText(body, c, "tmux "+name.val)
				}
				continue
			}
			s := subs[name.val]
			if s == nil && name.val != "source-file" && name.val != "source" {
				s = def // not a read-only subcommand: the tool's state-changing level
			}
			if s != nil {
				b.apply(s, &call{prog: "tmux", sub: name.val, fs: words, st: c.st, in: c.in, sp: c.sp, via: c.via})
			}
			if name.val == "source-file" || name.val == "source" {
				b.add(Effect{Cap: CapDynamic, Rule: "inject.tmux-run", Program: "tmux", Msg: "runs tmux commands from a file, which guard does not review"}, c.sp)
			}
		}
		return stream{kind: streamUnknown}
	}
}

// hScreen: screen CMD starts CMD in a new session; screen -X CMD sends a
// command to a running session (outside the sandbox): `screen` there
// opens a window running a command, `stuff` types text.
func hScreen(prev handler) handler {
	return func(b *builder, c *call) stream {
		if prev != nil {
			prev(b, c)
		}
		ops := c.a.rest
		if c.a.has("-X") {
			if len(ops) > 0 && ops[0].known && ops[0].val == "screen" {
				b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: "screen", Msg: "opens a window in a running screen session, outside guard's sandbox"}, c.sp)
				a := parseArgs(ops[1:], "-t -T -h", true)
				if len(a.rest) > 0 {
					b.exec(a.rest, c.st.clone(), stream{}, "screen -X screen", c.sp)
				}
			}
			return stream{kind: streamUnknown}
		}
		if c.a.has("-x", "-r", "-R", "-ls", "-list", "-wipe", "-D", "-Q", "-v", "--version", "-h", "--help") || len(ops) == 0 {
			return stream{kind: streamUnknown}
		}
		return b.exec(ops, c.st.clone(), c.in, "screen", c.sp)
	}
}

// hZip: -TT CMD / --unzip-command CMD tests the archive by running CMD
// ({} is the archive's name).
func hZip(b *builder, c *call) stream {
	name := "archive.zip"
	if len(c.a.ops) > 0 && c.a.ops[0].known {
		name = c.a.ops[0].val
	}
	for _, f := range c.a.values("-TT", "--unzip-command") {
		if f.known {
			f.val = strings.ReplaceAll(f.val, "{}", name)
		}
		b.commandText(f, c, "zip -TT")
	}
	return stream{}
}

// hEd: ed reads its commands from stdin. In them !CMD runs a shell
// command, and so do r !CMD, w !CMD and e !CMD: each is reviewed as a
// command line. Commands guard cannot read (stdin from a file, a pipe of
// unknown data) may run any of those.
func hEd(b *builder, c *call) stream {
	switch c.in.kind {
	case streamNone:
		return stream{}
	case streamText:
		for _, line := range strings.Split(c.in.text, "\n") {
			if m := re(`^[\s0-9,.$';+-]*(?:[rweWE]\s*)?!(.+)$`).FindStringSubmatch(line); m != nil {
				b.text(m[1], c.st.clone(), stream{}, "ed !", c.sp)
				continue
			}
			// w/W/wq FILE write FILE, f FILE names the file a later w
			// writes; r/e/E FILE read it.
			if m := re(`^[\s0-9,.$';+-]*(wq|w|W|f|r|e|E)\s+(\S.*)$`).FindStringSubmatch(line); m != nil {
				f := staticField(strings.TrimSpace(m[2]), c.sp)
				if strings.ContainsAny(m[1], "wWf") {
					b.pathEffect(CapWrite, "fs.write", c.prog, f, c.st, c.sp, "writes")
				} else {
					b.pathEffect(CapRead, "fs.read", c.prog, f, c.st, c.sp, "reads")
				}
			}
		}
		return stream{}
	}
	b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Msg: "runs ed commands from its input, which guard cannot read (they can run shell commands)"}, c.sp)
	return stream{kind: streamUnknown}
}

// outputPipe: an output option whose value starts with | or ! pipes the
// output to that command line (strace -o '|CMD'); then prev.
func outputPipe(prev handler, opts ...string) handler {
	return func(b *builder, c *call) stream {
		for _, f := range c.a.values(opts...) {
			if f.known && (strings.HasPrefix(f.val, "|") || strings.HasPrefix(f.val, "!")) {
				f.val = f.val[1:]
				b.commandText(f, c, c.prog+" "+opts[0]+" |")
			} else if !f.known && strings.ContainsAny(f.raw, "|!") {
				b.dynamicCode(f, c, c.prog+" "+opts[0])
			}
		}
		return prev(b, c)
	}
}

// hProgramOption: the values of these options name a program the tool
// runs (sort --compress-program=PROG): it is reviewed as that program run.
func hProgramOption(opts ...string) handler {
	return func(b *builder, c *call) stream {
		for _, f := range c.a.values(opts...) {
			if !f.known {
				b.dynamicCode(f, c, c.prog+" "+opts[0])
				continue
			}
			b.exec([]field{f}, c.st.clone(), stream{}, c.prog+" "+opts[0], c.sp)
		}
		return stream{}
	}
}

// cmakeTools are the cmake -E tools that stand for a program: the
// program, and the options it gets before cmake's arguments.
var cmakeTools = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"rm": {"rm"}, "remove": {"rm", "-f"}, "remove_directory": {"rm", "-rf"},
		"copy": {"cp"}, "copy_if_different": {"cp"}, "copy_if_newer": {"cp"},
		"copy_directory": {"cp", "-r"}, "copy_directory_if_different": {"cp", "-r"}, "copy_directory_if_newer": {"cp", "-r"},
		"rename": {"mv"}, "make_directory": {"mkdir", "-p"}, "touch": {"touch"}, "touch_nocreate": {"touch", "-c"},
		"create_symlink": {"ln", "-s"}, "create_hardlink": {"ln"}, "tar": {"tar"}, "cat": {"cat"},
		"env": {"env"}, "time": {"time"},
		"md5sum": {"md5sum"}, "sha1sum": {"sha1sum"}, "sha224sum": {"sha256sum"}, "sha256sum": {"sha256sum"}, "sha384sum": {"sha512sum"}, "sha512sum": {"sha512sum"},
		"compare_files": {"cmp"}, "echo": {"echo"}, "echo_append": {"echo"}, "sleep": {"sleep"}, "true": {"true"}, "false": {"false"},
		"environment": {"env"}, "capabilities": {"true"},
	}
})

// hCmake: cmake -E TOOL ARGS is profiled as the program TOOL stands for
// (chdir DIR CMD… runs CMD in DIR); a tool guard does not know, and
// cmake -P SCRIPT (a CMake script can run anything), is code guard does
// not review.
func hCmake(b *builder, c *call) stream {
	for i, f := range c.fs {
		if !f.known {
			continue
		}
		switch f.val {
		case "-P":
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: "cmake", Msg: "runs a CMake script (cmake -P), which can run any command; guard does not review CMake"}, c.sp)
			return stream{kind: streamUnknown}
		case "-E":
			rest := c.fs[i+1:]
			if len(rest) == 0 {
				return stream{}
			}
			tool := rest[0]
			if !tool.known {
				return b.dynamicCode(tool, c, "cmake -E")
			}
			via := "cmake -E " + tool.val
			if tool.val == "chdir" && len(rest) >= 3 {
				st := c.st.clone()
				st.cwd = ""
				if d := rest[1]; d.known {
					if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok {
						st.cwd = p
					}
				}
				return b.exec(rest[2:], st, c.in, via, c.sp)
			}
			as, ok := cmakeTools()[tool.val]
			if !ok {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: "cmake", Target: tool.val, Msg: "runs cmake -E " + tool.val + ", a tool guard does not know"}, c.sp)
				return stream{kind: streamUnknown}
			}
			argv := make([]field, 0, len(as)+len(rest))
			for _, a := range as {
				argv = append(argv, staticField(a, c.sp))
			}
			return b.exec(append(argv, rest[1:]...), c.st, c.in, via, c.sp)
		}
	}
	return stream{}
}

// hCompletion: compgen/complete -C CMD and -F FUNC are code the shell
// runs (compgen at once), and the -W word list is expanded as the shell
// expands words: its substitutions run.
func hCompletion(b *builder, c *call) stream {
	for _, f := range c.a.values("-C", "-F") {
		b.commandText(f, c, c.prog+" -C/-F")
	}
	for _, f := range c.a.values("-W") {
		if !f.known {
			b.dynamicCode(f, c, c.prog+" -W")
			continue
		}
		b.promptText(f.val, c.st, span{f.pos, f.end})
	}
	return stream{}
}

// hBind: bind -x 'KEYSEQ: COMMAND' runs COMMAND when the key is pressed.
func hBind(b *builder, c *call) stream {
	for _, f := range c.a.values("-x") {
		if !f.known {
			b.dynamicCode(f, c, "bind -x")
			continue
		}
		v := strings.TrimSpace(f.val)
		// The key sequence is quoted ("\C-a"); the command follows the
		// first colon after it.
		start := 0
		if strings.HasPrefix(v, `"`) {
			if end := strings.Index(v[1:], `"`); end >= 0 {
				start = end + 2
			}
		}
		i := strings.IndexByte(v[start:], ':')
		if i < 0 {
			b.dynamicCode(field{raw: f.val}, c, "bind -x")
			continue
		}
		cmd := strings.TrimSpace(v[start+i+1:])
		if len(cmd) >= 2 && (cmd[0] == '"' || cmd[0] == '\'') && cmd[len(cmd)-1] == cmd[0] {
			cmd = cmd[1 : len(cmd)-1]
		}
		b.text(cmd, c.st.clone(), stream{}, "bind -x", span{f.pos, f.end})
	}
	return stream{}
}

// hM4: m4 runs the shell commands its input asks for with syscmd and
// esyscmd. Input guard can read (a here-string, a file) is searched for
// them and their static arguments reviewed; input it cannot read could
// hold any.
func hM4(b *builder, c *call) stream {
	var texts []string
	unseen := false
	for _, f := range c.a.values("-D", "--define") {
		if f.known {
			texts = append(texts, f.val)
		} else {
			unseen = true
		}
	}
	srcs := []stream{}
	for _, f := range c.a.ops {
		if f.known && f.val == "-" {
			srcs = append(srcs, c.in)
			continue
		}
		srcs = append(srcs, b.fileStream([]field{f}, c.st))
	}
	if len(c.a.ops) == 0 {
		srcs = append(srcs, c.in)
	}
	for _, s := range srcs {
		switch {
		case s.tainted():
			b.add(Effect{Cap: CapNetCode, Rule: "exec.code-from-network", Program: c.prog, Msg: "runs m4 macros (which can run shell commands) from the network or from decoded data"}, c.sp)
		case s.kind == streamText:
			texts = append(texts, s.text)
		case s.kind != streamNone:
			unseen = true
		}
	}
	for _, t := range texts {
		// Macros that reach syscmd without writing its name (indir,
		// builtin, defn, quotes split in the name), or that read another
		// file (include), leave code guard cannot see.
		if re(`\b(indir|builtin|defn|include|sinclude|changequote|changeword|m4_)`).MatchString(t) {
			unseen = true
		}
		if !strings.Contains(t, "syscmd") {
			continue
		}
		found := false
		for _, m := range re(`e?syscmd\(([^()]*)\)`).FindAllStringSubmatch(t, -1) {
			found = true
			arg := strings.TrimSpace(m[1])
			// m4's quotes: `…' (and [ ] in autoconf's m4sugar).
			if len(arg) >= 2 && (arg[0] == '`' && arg[len(arg)-1] == '\'' || arg[0] == '[' && arg[len(arg)-1] == ']') {
				arg = arg[1 : len(arg)-1]
			}
			b.text(arg, c.st.clone(), stream{}, "m4 syscmd", c.sp)
		}
		if !found {
			unseen = true
		}
	}
	if unseen {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Msg: "runs m4 macros guard cannot read; m4 runs the shell commands they ask for (syscmd, esyscmd)"}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// hPagerOption: the values of a program's pager options are command
// lines it runs (man -P 'rm -rf ~' is rm).
func hPagerOption(opts ...string) handler {
	return func(b *builder, c *call) stream {
		for _, f := range c.a.values(opts...) {
			b.commandText(f, c, c.prog+" "+opts[0])
		}
		return stream{}
	}
}

// hDifftool: git difftool --extcmd CMD / -x CMD runs CMD on each file.
func hDifftool(b *builder, c *call) stream {
	for _, f := range c.a.values("-x", "--extcmd") {
		b.commandText(f, c, "git difftool --extcmd")
	}
	return stream{}
}

// hRsync: -e/--rsh runs a local command to reach the other side (it is
// reviewed here); --rsync-path is a command run on the remote machine;
// --remove-source-files deletes the source operands after the transfer.
func hRsync(prev handler) handler {
	return func(b *builder, c *call) stream {
		if prev != nil {
			prev(b, c)
		}
		for _, f := range c.a.values("-e", "--rsh") {
			b.commandText(f, c, "rsync -e")
		}
		for _, f := range c.a.values("--rsync-path") {
			if !f.known {
				b.dynamicCode(f, c, "rsync --rsync-path")
				continue
			}
			prevRemote := b.ctx.Remote
			b.ctx.Remote = true
			b.text(f.val, &state{vars: map[string]*string{}, funcs: map[string]*parse.Stmt{}}, stream{}, "rsync --rsync-path (remote)", span{f.pos, f.end})
			b.ctx.Remote = prevRemote
		}
		if c.a.has("--remove-source-files", "--remove-sent-files") {
			for _, f := range c.a.selectTargets("init") {
				if f.known && re(`^[^/]*[^/\\]:`).MatchString(f.val) {
					// A remote source: the delete is on the other machine.
					b.add(Effect{Cap: CapSend, Rule: "fs.source-delete", Program: "rsync", Target: f.val, Msg: "deletes the source files on the other machine after copying them"}, c.sp)
					continue
				}
				b.pathEffect(CapDelete, "fs.source-delete", "rsync", f, c.st, c.sp, "deletes, after copying, the source files")
			}
		}
		return stream{}
	}
}

// verbWords are subcommand verbs of many command-line tools that are also
// the names of programs with their own rows (init, pass, at, mount,
// halt…). The generic rule does not take them for a program when they are
// the argument of a program guard does not know: `vagrant halt` and
// `poetry init` are that tool's verbs, not the machine's.
var verbWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"init": true, "pass": true, "op": true, "at": true, "batch": true, "write": true, "wall": true,
		"mount": true, "umount": true, "service": true, "halt": true, "reboot": true, "shutdown": true,
		"poweroff": true, "script": true, "install": true, "link": true, "set": true, "help": true, "test": true,
		"read": true, "type": true, "hash": true, "wait": true, "jobs": true, "alias": true, "unalias": true,
		"ip": true, "route": true, "uninstall": true, "add": true, "remove": true, "info": true, "search": true,
		"show": true, "upgrade": true, "update": true, "get": true, "list": true, "fetch": true, "download": true,
	}
})

// namesProgram reports whether an argument names a program: a command in
// guard's tables, or a path in a bin directory.
func namesProgram(v string) bool {
	if v == "" || verbWords()[v] {
		return false
	}
	if strings.Contains(v, "/") {
		return path.IsAbs(v) && inBinDir(path.Dir(v)) && path.Base(v) != ""
	}
	return specFor(v) != nil
}

// argumentCommands applies principle 7 to a program guard has no row for:
// the first argument that names a program starts a command that may run
// with the arguments after it, and an argument (or an --option=value)
// that parses as shell text starting with a program is code that may run.
// Both are reviewed as commands; an unknown program found that way is not
// searched again.
func (b *builder) argumentCommands(prog string, fs []field, st *state, in stream, sp span) {
	if b.argCmd {
		return
	}
	b.argCmd = true
	defer func() { b.argCmd = false }()
	first, verb := true, false
	for i, f := range fs {
		if !f.known || f.glob {
			first = false
			continue
		}
		v := f.val
		if strings.HasPrefix(v, "-") {
			if _, val, ok := strings.Cut(v, "="); ok {
				b.argumentCode(prog, val, f, st, sp)
			}
			continue
		}
		if strings.ContainsAny(v, " \t\n;|&") {
			b.argumentCode(prog, v, f, st, sp)
			first = false
			continue
		}
		if first && verbWords()[v] {
			// `port install sudo`: a subcommand verb first; what follows
			// is its data (package names), not a command line.
			verb = true
		}
		first = false
		if !verb && namesProgram(v) {
			b.add(Effect{Cap: CapExec, Rule: "exec.argument-command", Program: prog, Target: v, Msg: fmt.Sprintf("may run %s, named in its arguments", v)}, sp)
			b.exec(fs[i:], st.clone(), in, prog, sp)
			return
		}
	}
}

// argumentCode reviews an argument that parses as shell with a program
// in it; text with no program at a command's start is data.
func (b *builder) argumentCode(prog, text string, f field, st *state, sp span) {
	// Interactive tools take "!CMD" for a shell escape (lftp -c '!rm…',
	// ftp, sftp -b): the command is what follows the bang.
	text = re(`(^|[;\n])(\s*)!([^\s=!])`).ReplaceAllString(text, "${1}${2}${3}")
	if !strings.ContainsAny(text, " \t\n;|&") {
		if namesProgram(text) && strings.Contains(text, "/") {
			b.exec([]field{staticField(text, span{f.pos, f.end})}, st.clone(), stream{}, prog, sp)
		}
		return
	}
	s, err := parse.DefaultLimits.Bash(text)
	if err != nil {
		// A shell runs the commands before a syntax error: text that
		// does not parse but names a program at a command's start may
		// still run it, and guard cannot review it.
		for _, seg := range re(`[;&|\n]`).Split(text, -1) {
			if w := strings.Fields(seg); len(w) > 0 && namesProgram(strings.Trim(w[0], "'\"(){}`$")) {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: prog, Target: shorten(text), Msg: "may run the shell command in its argument, which guard cannot parse"}, sp)
				return
			}
		}
		return
	}
	if !slices.ContainsFunc(s.Stmts, startsWithProgram) {
		return
	}
	b.add(Effect{Cap: CapExec, Rule: "exec.argument-code", Program: prog, Target: shorten(text), Msg: "may run the shell command in its argument"}, sp)
	b.text(text, st.clone(), stream{}, prog+" argument", span{f.pos, f.end})
}

// startsWithProgram reports whether a statement's first command names a
// program ("open host; rm -rf ~" holds one in its second statement).
func startsWithProgram(st *parse.Stmt) bool {
	call := firstCall(st)
	if call == nil || len(call.Args) == 0 {
		return false
	}
	name, ok := call.Args[0].Value()
	return ok && namesProgram(name)
}

// firstCall is the first simple command a statement runs.
func firstCall(st *parse.Stmt) *parse.Call {
	switch c := st.Cmd.(type) {
	case *parse.Call:
		return c
	case *parse.Pipeline:
		if len(c.Stmts) > 0 {
			return firstCall(c.Stmts[0])
		}
	case *parse.Block:
		if len(c.Stmts) > 0 {
			return firstCall(c.Stmts[0])
		}
	}
	return nil
}
