package profile

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
)

// Hidden write targets (issue 14, class 5): writes through a symlink the
// line made, in-place editors, output operands, and persistence that is
// not a dotfile (Python .pth files, tool configs that choose what runs
// later).

// follow resolves p through the symlinks made earlier on the line. A link
// to a place guard does not know is anyParts: p is then anyParts/REST.
func (s *state) follow(p string) string {
	if s == nil || len(s.links) == 0 {
		return p
	}
	for hop := 0; hop < 8; hop++ {
		// The longest link that contains p wins (deterministic, unlike
		// map order).
		best := ""
		for l := range s.links {
			if paths.Within(p, l) && len(l) > len(best) {
				best = l
			}
		}
		if best == "" {
			break
		}
		p = path.Join(s.links[best], strings.TrimPrefix(p, best))
	}
	return p
}

// hLn records the links ln makes, so later writes and reads through them
// reach their targets.
func hLn(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) == 0 || c.st.links == nil {
		return stream{}
	}
	var dir field
	targets := ops
	var link field
	switch {
	case c.a.has("-t", "--target-directory"):
		dir = c.a.values("-t", "--target-directory")[0]
	case len(ops) == 1:
		dir = staticField(".", c.sp)
	default:
		link, targets = ops[len(ops)-1], ops[:len(ops)-1]
	}
	for _, t := range targets {
		lp := ""
		switch {
		case link.known && len(targets) == 1:
			if p, ok := b.ctx.Resolve(c.st.cwd, link.val); ok {
				lp = p
			}
		case link.known:
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(link.val, path.Base(t.val))); ok {
				lp = p
			}
		case dir.known:
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(dir.val, path.Base(t.val))); ok {
				lp = p
			}
		}
		if lp == "" {
			continue
		}
		base := c.st.cwd
		if c.a.has("-s", "--symbolic") && !strings.HasPrefix(t.val, "/") {
			base = path.Dir(lp) // a relative symlink is relative to its directory
		}
		tp, ok := "", false
		if t.known && !t.glob {
			tp, ok = b.ctx.Resolve(base, t.val)
		}
		if !ok {
			// A target guard does not know: what is written through the
			// link could be anywhere.
			c.st.links[lp] = anyParts
			continue
		}
		c.st.links[lp] = c.st.follow(tp)
		if link.known && len(targets) == 1 {
			// The link may be an existing directory: the link is then
			// made inside it.
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(link.val, path.Base(t.val))); ok {
				c.st.links[p] = c.st.follow(tp)
			}
		}
	}
	return stream{}
}

// persistPatterns are persistence files found by name anywhere: Python
// runs every .pth file in a site-packages directory at start-up, and
// sitecustomize/usercustomize modules too.
func persistPattern(p string) bool {
	if !strings.Contains(p, "/site-packages/") && !strings.Contains(p, "/dist-packages/") {
		return false
	}
	base := path.Base(p)
	return strings.HasSuffix(base, ".pth") || base == "sitecustomize.py" || base == "usercustomize.py"
}

// inPlaceFlag reports whether an interpreter edits its file operands in
// place (perl -i, perl -pi.bak, ruby -i).
func inPlaceFlag(a args) bool {
	for _, n := range a.order {
		if n == "-i" || strings.HasPrefix(n, "-i") && !strings.HasPrefix(n, "--") && len(n) > 2 && n[2] == '.' {
			return true
		}
	}
	return false
}

// hInPlace wraps an interpreter's handler: with -i, the file operands
// (after the inline code, or after the script) are edited in place, and
// -iSUFFIX keeps each as a backup (stop: the switches whose value ends a
// cluster, see inPlaceSuffix).
func hInPlace(inner handler, stop string, codeFlags ...string) handler {
	return func(b *builder, c *call) stream {
		if inPlaceFlag(c.a) {
			ops := c.a.ops
			if !c.a.has(codeFlags...) && len(ops) > 0 {
				ops = ops[1:]
			}
			suffix, backup := inPlaceSuffix(c, stop, "")
			for _, f := range ops {
				b.pathEffect(CapWrite, "fs.edit-in-place", c.prog, f, c.st, c.sp, "edits in place")
				if backup {
					b.backupOf(c, f, suffix)
				}
			}
		}
		return inner(b, c)
	}
}

// gitProgramKeys are the git configuration keys whose value is a program
// git runs, or that point git at code (hooks, templates, included
// configuration, URL rewrites to ext::). Setting one (git config, git -c,
// GIT_CONFIG_*) is a code-execution hook. Patterns are regular
// expressions over the lower-cased key.
var gitProgramKeys = sync.OnceValue(func() []string {
	return []string{
		`alias\..*`, // "!cmd" aliases run shell commands
		`core\.(hookspath|fsmonitor|pager|editor|sshcommand|gitproxy|askpass|attributesfile|excludesfile|worktree|alternaterefscommand)`,
		`.*\.(command|cmd|helper|program|textconv|clean|smudge|process|driver|path)`, // diff/merge/filter drivers, credential helpers, tool paths
		`diff\.external`, `sequence\.editor`, `credential\..*`, `filter\..*`, `include\..*`, `includeif\..*`,
		`url\..*`, `protocol\..*`, `uploadpack\..*`, `receivepack\..*`,
		`remote\..*\.(uploadpack|receivepack|proxy|url|pushurl|vcs)`, `http\.proxy`, `http\..*\.proxy`,
		`gpg\.program`, `gpg\..*\.program`, `pager\..*`, `interactive\.difffilter`,
		`sendemail\.(sendmailcmd|smtpserver|tocmd|cccmd|headercmd)`, `submodule\..*\.update`,
		`init\.templatedir`, `instaweb\.(httpd|browser)`, `web\.browser`, `safe\.directory`,
		`gui\..*`, `guitool\..*`, `hook\..*`, `merge\..*\.driver`, `diff\..*\.(command|textconv)`,
	}
})

// gitCodeKeyRE is gitProgramKeys as one anchored expression.
func gitCodeKeyRE() string {
	return `^(` + strings.Join(gitProgramKeys(), "|") + `)$`
}

// codeVars are variables whose value is a command line a program runs
// (a pager, an editor, a browser, an ssh or diff command). The value is
// reviewed as the command it is: PAGER=cat is A, PAGER='rm -rf ~' is C.
var codeVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "BAT_PAGER": true, "DELTA_PAGER": true,
		"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "SUDO_EDITOR": true, "KUBE_EDITOR": true,
		"BROWSER": true, "LESSOPEN": true, "LESSCLOSE": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true,
		"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true, "GIT_SSH": true, "RSYNC_RSH": true, "SVN_SSH": true, "CVS_RSH": true,
		// Compilers build tools run through the shell ($(CC) in a recipe).
		"CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true,
		// Pagers, editors, browsers and helpers of query clients (which run
		// with the network): gh, aws, kubectl diff, rsync's daemon
		// connection, cargo's compiler wrappers.
		"GH_PAGER": true, "GH_BROWSER": true, "GH_EDITOR": true, "AWS_PAGER": true, "KUBECTL_EXTERNAL_DIFF": true,
		"RSYNC_CONNECT_PROG": true, "RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "CARGO_BUILD_RUSTC_WRAPPER": true,
		// The compiler and documenter cargo runs in place of rustc and rustdoc.
		"RUSTC": true, "RUSTDOC": true, "CARGO_BUILD_RUSTC": true, "CARGO_BUILD_RUSTDOC": true, "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER": true,
		// fzf runs it through the shell to list its input.
		"FZF_DEFAULT_COMMAND": true,
		// Session 12: pagers and editors of other clients (psql, svn, cvs,
		// hg, bzr, systemctl edit, tig, perldoc).
		"PSQL_PAGER": true, "SVN_EDITOR": true, "CVSEDITOR": true, "HGEDITOR": true, "BZR_EDITOR": true,
		"SYSTEMD_EDITOR": true, "TIG_EDITOR": true, "PERLDOC_PAGER": true,
	}
})

// fileArgVars are the code variables whose program is run with files
// after the words of the value: editors, external diff tools, compiler
// wrappers and compilers, askpass helpers (their prompt).
var fileArgVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "SUDO_EDITOR": true, "KUBE_EDITOR": true, "GH_EDITOR": true, "FCEDIT": true,
		"GIT_EXTERNAL_DIFF": true, "KUBECTL_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
		"RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "CARGO_BUILD_RUSTC_WRAPPER": true, "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER": true,
		"RUSTC": true, "RUSTDOC": true, "CARGO_BUILD_RUSTC": true, "CARGO_BUILD_RUSTDOC": true, "CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true,
	}
})

// cargoTargetTool: CARGO_TARGET_<triple>_RUNNER runs every test and
// binary cargo runs, _LINKER every link.
func cargoTargetTool(name string) bool {
	return strings.HasPrefix(name, "CARGO_TARGET_") && (strings.HasSuffix(name, "_RUNNER") || strings.HasSuffix(name, "_LINKER"))
}

// reviewCodeVar reviews the value of a code variable as a command line.
// It reports false when the value is not static (the caller records it as
// dynamic code).
func (b *builder) reviewCodeVar(name string, val *string, st *state, at span) bool {
	if val == nil {
		return false
	}
	v := *val
	switch name {
	case "LESSOPEN", "LESSCLOSE":
		v = strings.TrimLeft(v, "|")
		v = strings.ReplaceAll(v, "%s", "file")
	case "BROWSER":
		v = strings.ReplaceAll(strings.ReplaceAll(v, ":", "; "), "%s", "url")
	default:
		if fileArgVars()[name] || cargoTargetTool(name) {
			// The program gets a file to work on after its own words
			// (git's message, the files to compare, the compiler's
			// arguments): GIT_EXTERNAL_DIFF=rm git diff deletes it.
			v += " file"
		}
	}
	b.text(v, st.clone(), stream{}, name, at)
	return true
}

// gitConfigEnv: GIT_CONFIG_KEY_n / GIT_CONFIG_PARAMETERS inject git
// configuration into every git command that sees them: a key that runs a
// program is a code hook (C), and so is one guard cannot read.
func (b *builder) gitConfigEnv(name string, val *string, at span) bool {
	var keys []string
	switch {
	case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
		if val == nil {
			keys = nil
		} else {
			keys = []string{*val}
		}
	case name == "GIT_CONFIG_PARAMETERS":
		if val != nil {
			for _, m := range regexpQuoted().FindAllStringSubmatch(*val, -1) {
				k, _, _ := strings.Cut(m[1], "=")
				keys = append(keys, k)
			}
		}
	case name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG" || name == "GIT_TEMPLATE_DIR" || name == "GIT_EXEC_PATH":
		b.add(Effect{Cap: CapPersistence, Rule: "env.git-config", Target: name, Msg: "sets " + name + ", pointing git at configuration, templates or programs this line does not show"}, at)
		return true
	case name == "GIT_ALLOW_PROTOCOL":
		// ext:: URLs are commands git runs (git clone 'ext::sh -c …');
		// git refuses them unless this list (or protocol.ext.allow) lets
		// them through.
		if val == nil || strings.Contains(*val, "ext") {
			b.add(Effect{Cap: CapPersistence, Rule: "env.git-config", Target: name, Msg: "sets " + name + " so that git runs ext:: URLs, which are commands"}, at)
		}
		return true
	default:
		return false
	}
	code := len(keys) == 0
	for _, k := range keys {
		if re(gitCodeKeys()).MatchString(strings.ToLower(strings.TrimSpace(k))) {
			code = true
		}
	}
	if code {
		b.add(Effect{Cap: CapPersistence, Rule: "env.git-config", Target: name, Msg: "sets " + name + ", injecting git configuration that makes git run other commands"}, at)
	} else {
		b.add(Effect{Cap: CapDynamic, Rule: "env.git-config", Target: name, Msg: "sets " + name + ", injecting git configuration"}, at)
	}
	return true
}

var regexpQuoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'([^']*)'`) })

// hToolConfig: npm/yarn/pnpm/pip/conda/gem/go configuration that chooses
// what runs later (the shell npm runs scripts with, the index pip installs
// from, GOFLAGS) is persistence.
func hToolConfig(b *builder, c *call) stream {
	b.add(Effect{Cap: CapPersistence, Rule: "pkg.config-code", Program: c.prog, Msg: "changes " + c.prog + "'s configuration, which chooses what later commands install or run (script shell, package index, flags)"}, c.sp)
	return stream{}
}

// targetsTable: programs whose output operands or edits were hidden.
func targetsTable() map[string]*spec {
	cfg := &spec{fn: hToolConfig}
	sys := func(id, msg string) *spec { return whole(id, CapSystem, msg) }
	return map[string]*spec{
		"ex":   {val: "-c --cmd -S -u -U -i -T -w -W -t -q -r", fn: hEx, rows: []row{{"fs.edit-in-place", CapWrite, "", "ops", "edits"}}}, // ex is vim: -c/+CMD run editor commands (:!cmd)
		"ed":   {val: "-p", rows: []row{{"fs.edit-in-place", CapWrite, "", "ops", "edits"}}, fn: hEd},
		"uniq": {val: "-f -s -w", filter: true, rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.output", CapWrite, "", "ops1", "writes"}}},
		"7z":   sevenZip(), "7za": sevenZip(), "7zr": sevenZip(),
		// Converters and binary tools: the file they write.
		"pandoc":  {val: "-o --output -f --from -r --read -t --to -w --write -s --template --metadata -M -V --variable --resource-path", rows: []row{{"fs.read", CapRead, "", "ops", "reads"}, {"fs.output", CapWrite, "", "-o|--output", "writes"}}},
		"strip":   {val: "-o -K -N -R -F", rows: []row{{"fs.edit-in-place", CapWrite, "!-o", "ops", "strips in place"}, {"fs.output", CapWrite, "", "-o", "writes"}}},
		"objcopy": {val: "-O -I -B -j -R -K -N", rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.output", CapWrite, "", "last", "writes"}}},
		"convert": imageMagick(true), "magick": imageMagick(true), "mogrify": imageMagick(true), "montage": imageMagick(true), "composite": imageMagick(true),
		"stream": imageMagick(true), "identify": imageMagick(false),
		"conjure":     {fn: hImageMagick, rows: []row{{"exec.dynamic-code", CapDynamic, "ops", "", "runs ImageMagick scripts (MSL), which can read and write any file"}}},
		"ffmpeg":      {val: "-i -f -c -c:v -c:a -codec -vf -af -filter_complex -b:v -b:a -r -s -t -ss -to -map -preset -crf -ar -ac -loglevel -v", rows: []row{{"fs.read", CapRead, "", "-i", "reads"}, {"fs.output", CapWrite, "", "last", "writes"}}},
		"wkhtmltopdf": {rows: []row{{"fs.output", CapWrite, "", "last", "writes"}}},
		// The shell's history builtin: -w and -a write the history file named.
		"history": {fn: hHistory, rows: []row{{"fs.output", CapWrite, "-w|-a", "ops", "writes the shell history to"}, {"fs.read", CapRead, "-r|-n", "ops", "reads"}}},
		"systemd-run": {val: "-u --unit -p --property --description --slice -E --setenv --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --on-clock-change --timer-property -M --machine -H --host --uid --gid --nice --working-directory -d --service-type --path-property --socket-property", posix: true, fn: wrap(0), rows: []row{
			{"sys.transient", CapSystem, "", "", "runs a command as a systemd service, outside this session and outside guard's sandbox"},
			{"persist.timer", CapPersistence, "--on-active|--on-boot|--on-startup|--on-unit-active|--on-unit-inactive|--on-calendar|--on-clock-change", "", "schedules a command to run later (a systemd timer)"},
		}},
		"chsh":       whole("persist.login-shell", CapPersistence, "changes your login shell: the program every login runs"),
		"setfacl":    {val: "-m -M -x -X --modify --modify-file --remove --remove-file --set --set-file", fn: hChmod},
		"chacl":      {fn: hChmod},
		"pip-config": cfg,
		"loginctl": {rows: []row{
			{"persist.linger", CapPersistence, "op0~^enable-linger$", "", "lets your services keep running after you log out, and start at boot"},
			{"sys.session", CapSystem, "!op0~^(list-.*|show-.*|session-status|user-status|seat-status|--help|--version)$ !noops", "", "changes login sessions (terminate, kill, lock, linger)"},
		}},
		"fallocate":               {val: "-l -o --length --offset", rows: []row{{"fs.output", CapWrite, "", "ops", "allocates"}}},
		"jar":                     {val: "--file --dir -C -e --main-class -m --manifest --release", fn: chain(hJar, hArgCommands), rows: []row{{"exec.program", CapExec, "", "", "runs jar, the Java archiver"}}},
		"unrar":                   {fn: hExtractInto("op0~^x$|^e$", 2), rows: []row{{"fs.extract", CapWrite, "op0~^x$|^e$", "ops2", "extracts into"}, {"fs.read", CapRead, "", "op1", "reads"}}},
		"update-desktop-database": sys("sys.config", "changes which programs open which files"),
		"xdg-mime":                {rows: []row{{"persist.mime", CapPersistence, "op0~^(default|install)$", "", "changes which program opens a kind of file or URL"}}},
	}
}

func sevenZip() *spec {
	return &spec{val: "-o -p -t -m -w -x -i -v", fn: hExtractInto("op0~^[xe]$", -1, "-o"), rows: []row{
		{"fs.extract", CapWrite, "op0~^[xe]$", "-o", "extracts into"},
		{"fs.extract", CapWrite, "op0~^[xe]$ !-o", "", "extracts files into the current directory"},
		{"fs.output", CapWrite, "op0~^(a|u|d|rn)$", "op1", "writes"},
		{"fs.read", CapRead, "", "ops2", "reads"},
	}}
}

// outputRows are rows added to programs that already have an entry: the
// option or operand that names a file they write.
var outputRows = sync.OnceValue(func() map[string][]row {
	return map[string][]row{
		"iconv": {{"fs.output", CapWrite, "", "-o|--output", "writes"}},
		"shuf":  {{"fs.output", CapWrite, "", "-o|--output", "writes"}},
		"gcc":   {{"fs.output", CapWrite, "", "-o", "writes"}},
		"cc":    {{"fs.output", CapWrite, "", "-o", "writes"}},
		"clang": {{"fs.output", CapWrite, "", "-o", "writes"}},
		"g++":   {{"fs.output", CapWrite, "", "-o", "writes"}},
		"xxd":   {{"fs.output", CapWrite, "", "op1", "writes"}},
		"patch": {{"fs.output", CapWrite, "", "-o|--output", "writes"}},
		"wget":  {{"fs.output", CapWrite, "", "-o|--output-file|-a|--append-output", "writes its log to"}},
		"vim":   {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"vi":    {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"nvim":  {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"nano":  {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"emacs": {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"code":  {{"fs.edit-in-place", CapWrite, "", "ops", "may edit"}},
		"gpg":   {{"fs.output", CapWrite, "", "-o|--output", "writes"}},
		// Session 10: clients that write what a server sent to a file an
		// option names.
		"http": {{"net.download", CapWrite, "", "-o|--output", "writes the response to"}},
		"xh":   {{"net.download", CapWrite, "", "-o|--output", "writes the response to"}},
		"az": {{"net.download", CapWrite, "any~^download(-batch)?$", "-f|--file|--dest|-d|--destination|--destination-path", "downloads into"},
			{"net.download", CapWrite, "op0~^rest$", "--output-file", "writes the response to"}},
		// Session 11: compilers, bundlers and formatters guard has rows
		// for (so the unknown-program rule no longer prices what they
		// are handed) write their output where an option says, or
		// rewrite their operands.
		"tsc": {{"fs.output", CapWrite, "", "--outFile|--outfile|--out|--outDir|--outdir|--declarationDir|--tsBuildInfoFile", "writes its output to"}},
		"deno": {{"fs.output", CapWrite, "any~^compile$", "-o|--output", "writes the compiled program to"},
			// deno bundle SRC OUT (before 2.0), -o/--output and
			// --outdir since 2.4.
			{"fs.output", CapWrite, "op0~^bundle$", "op2 -o|--output", "writes the bundle to"},
			{"fs.output", CapWrite, "op0~^bundle$", "into:--outdir", "writes the bundle into"}},
		"black":   {{"fs.format", CapWrite, "!--check !--diff", "ops", "rewrites"}},
		"rustfmt": {{"fs.format", CapWrite, "!--check", "ops", "rewrites"}},
		"eslint":  {{"fs.format", CapWrite, "--fix", "ops", "rewrites"}},
		"ruff":    {{"fs.format", CapWrite, "op0~^format$ !--check !--diff", "ops1", "rewrites"}, {"fs.format", CapWrite, "op0~^check$ --fix", "ops1", "rewrites"}},
		"isort":   {{"fs.format", CapWrite, "!--check-only !--check !-c !--diff", "ops", "rewrites"}},
	}
})

// specialVar handles an assignment whose value is reviewed as code (a
// pager, an editor) or injects git configuration. It reports whether it
// did; other sensitive variables keep their table row.
func (b *builder) specialVar(name string, val *string, fs []field, st *state, at span) bool {
	b.envOptionCommand(name, val, st, at)
	if writeVars[name] || strings.HasPrefix(name, "GIT_TRACE") {
		// The program writes to the file the value names (git's traces
		// take 1, 2 or a descriptor number too, and only an absolute
		// path as a file).
		if len(fs) == 1 && (val == nil || *val != "" && (writeVars[name] || strings.HasPrefix(*val, "/"))) {
			b.pathEffect(CapWrite, "env.write-file", "", fs[0], st, at, name+" makes the program write")
		}
		return true
	}
	if flags, ok := codeFlagVars()[name]; ok {
		if val == nil || hasCodeFlag(*val, flags) {
			b.add(Effect{Cap: CapDynamic, Rule: "env.code-flags", Target: name, Msg: "sets " + name + " with a flag that loads or runs code in the build (a compiler plugin, a linker or wrapper program, a JVM agent)"}, at)
		}
		return true
	}
	if v, ok := valueCodeVars(name); ok {
		if val == nil || v.runs(*val) {
			b.add(Effect{Cap: CapDynamic, Rule: v.rule, Target: name, Msg: v.msg}, at)
		}
		return true
	}
	if codeVars()[name] || cargoTargetTool(name) {
		if !b.reviewCodeVar(name, val, st, at) {
			if len(fs) > 0 && fs[0].taint.tainted() {
				b.add(Effect{Cap: CapNetCode, Rule: "exec.code-from-network", Target: name, Msg: name + " is set to a command from the network or from decoded data"}, at)
			} else {
				b.add(Effect{Cap: CapDynamic, Rule: "env.code-dynamic", Target: name, Msg: name + " is set to a command that is not static"}, at)
			}
		}
		return true
	}
	if name == "GOFLAGS" {
		b.goflags(val, st, at)
		return true
	}
	if name == "UV_PYTHON" && val != nil && !strings.Contains(*val, "/") {
		return true // a version request (3.12, pypy), not a path
	}
	if moduleVars()[name] && val != nil && b.workspacePaths(*val, st) {
		// PYTHONPATH=. pytest: modules from the workspace are the
		// workspace's code, which runs in the sandbox anyway.
		return true
	}
	return b.gitConfigEnv(name, val, at)
}

// valueCodeVar is a variable some of whose values run code: runs says
// which.
type valueCodeVar struct {
	rule, msg string
	runs      func(string) bool
}

// valueCodeVars are those variables (a switch: nothing built at start).
func valueCodeVars(name string) (valueCodeVar, bool) {
	switch name {
	case "LESS":
		// less runs +CMD at start, and +!CMD in the shell.
		return valueCodeVar{"env.less-command", "sets LESS with a command less runs at start (every pager less is)",
			func(v string) bool { return strings.ContainsAny(v, "!|") }}, true
	case "PYTHONWARNINGS":
		return valueCodeVar{"python.warnings-import", "sets PYTHONWARNINGS with a warning category from a module, which python imports (runs) at start", warningsImport}, true
	case "GOTOOLCHAIN":
		// Any value but local may make go download a toolchain and
		// run it in place of the local one (path: the first go on PATH).
		return valueCodeVar{"env.module-path", "sets GOTOOLCHAIN, a Go toolchain go downloads (or finds on PATH) and runs in place of the local one",
			func(v string) bool { return v != "local" }}, true
	case "GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOSUMDB", "GOINSECURE", "GOPRIVATE", "GONOPROXY":
		// Where go downloads the modules it compiles, and which it does
		// not check against the checksum database.
		return valueCodeVar{"env.module-path", "sets " + name + ", which decides where go downloads the modules it compiles and which it checks",
			func(v string) bool { return v != "" && v != "https://proxy.golang.org,direct" && v != "sum.golang.org" }}, true
	}
	return valueCodeVar{}, false
}

// hPythonWarnings: python -W ACTION:MESSAGE:MODULE.CATEGORY imports
// MODULE at start (as PYTHONWARNINGS does), whatever the script is.
func hPythonWarnings(b *builder, c *call) stream {
	for _, w := range c.a.values("-W") {
		if !w.known || warningsImport(w.val) {
			b.add(Effect{Cap: CapDynamic, Rule: "python.warnings-import", Program: c.prog, Msg: "imports (runs) the module a warning filter's category names, at start"}, c.sp)
		}
	}
	return stream{}
}

// warningsImport reports whether a -W or PYTHONWARNINGS filter list
// (action:message:category:module:line, comma separated) names a
// category spelled MODULE.NAME: python imports MODULE at start to find
// the class (any module on its path: antigravity opens $BROWSER).
func warningsImport(v string) bool {
	for _, filter := range strings.Split(v, ",") {
		parts := strings.Split(filter, ":")
		if len(parts) > 2 && strings.Contains(parts[2], ".") {
			return true
		}
	}
	return false
}

// writeVars name a file the program writes to: a trace, a key log, a
// history (GIT_TRACE* too). A write to ~/.bashrc is one however it is
// asked for.
var writeVars = map[string]bool{
	"SSLKEYLOGFILE": true, "HISTFILE": true, "LESSHISTFILE": true, "NODE_REPL_HISTORY": true, "PYTHON_HISTORY": true,
	"PSQL_HISTORY": true, "MYSQL_HISTFILE": true, "SQLITE_HISTORY": true, "REDISCLI_HISTFILE": true, "PIP_LOG": true,
	"PERF_BUILDID_DIR": true, "GIT_INDEX_FILE": true, "CARGO_TARGET_DIR": true, "CARGO_BUILD_TARGET_DIR": true,
}

// moduleVars are search paths for a language's modules: a directory
// outside the workspace puts code from there into the program.
// Built on first use (TestInitBudget).
var moduleVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"PYTHONPATH": true, "NODE_PATH": true, "PERL5LIB": true, "PERLLIB": true, "RUBYLIB": true, "CLASSPATH": true,
		"DOTNET_STARTUP_HOOKS": true, "CORECLR_PROFILER_PATH": true, "R_PROFILE_USER": true, "JULIA_LOAD_PATH": true, "GEM_PATH": true,
		"BUNDLE_GEMFILE": true, "CARGO_HOME": true, "RUSTUP_TOOLCHAIN": true, "GOENV": true, "GOROOT": true, "PKG_CONFIG_PATH": true, "CMAKE_TOOLCHAIN_FILE": true,
		"PYTHONUSERBASE": true, "PYTHONPYCACHEPREFIX": true, "VIRTUAL_ENV": true, "UV_PYTHON": true, "JULIA_DEPOT_PATH": true, "GEM_HOME": true, "RUBYGEMS_GEMDEPS": true, "DENO_DIR": true,
		"JAVA_HOME": true, "RUSTUP_HOME": true, "DOTNET_ROOT": true, "PYENV_ROOT": true, "GOMODCACHE": true, "GOPATH": true, "VIMRUNTIME": true, "VIM": true, "EMACSLOADPATH": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true}
})

// codeFlagVars are build and JVM option variables, and the flags in them
// that load code into the compiler or the JVM (a plugin, an agent).
var codeFlagVars = sync.OnceValue(func() map[string][]string {
	t := codeFlags()
	return map[string][]string{
		"CFLAGS": t["cc"], "CXXFLAGS": t["cc"], "CPPFLAGS": t["cpp"], "LDFLAGS": t["ld"],
		"CGO_CFLAGS": t["cc"], "CGO_CXXFLAGS": t["cc"], "CGO_LDFLAGS": t["ld"],
		"RUSTFLAGS": t["rustc"], "CARGO_ENCODED_RUSTFLAGS": t["rustc"], "RUSTDOCFLAGS": t["rustdoc"],
		"MAVEN_OPTS": t["jvm"], "GRADLE_OPTS": t["jvm"], "SBT_OPTS": t["jvm"], "JAVA_OPTS": t["jvm"], "ANT_OPTS": t["jvm"],
	}
})

// workspacePaths reports whether every entry of a colon-separated path
// list is in the workspace ("" is the cwd).
func (b *builder) workspacePaths(list string, st *state) bool {
	for _, e := range strings.Split(list, ":") {
		if e == "" {
			e = "."
		}
		p, ok := b.ctx.Resolve(st.cwd, e)
		if !ok || b.ctx.Classify(p) != ClassWorkspace {
			return false
		}
	}
	return true
}

// goflags: GOFLAGS applies its flags to every go command; -toolexec=CMD
// and -exec=CMD make go run CMD (for each compiler tool, each test
// binary). CMD is reviewed as the command it is; other flags are plain.
func (b *builder) goflags(val *string, st *state, at span) {
	if val == nil {
		b.add(Effect{Cap: CapDynamic, Rule: "env.code-dynamic", Target: "GOFLAGS", Msg: "GOFLAGS is set to flags that are not static (they can make go run other programs)"}, at)
		return
	}
	// Each flag is priced as on go's command line (goCodeFlag).
	for _, f := range strings.Fields(*val) {
		flag, v, ok := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if ok && slices.Contains(goCodeFlags, flag) {
			b.goCodeFlag(flag, field{val: v, known: true, pos: at.pos, end: at.end}, st, at)
		}
	}
}

// envAssigns reviews the NAME=VALUE words env puts in a command's
// environment, as the shell's own prefix assignments are.
func (b *builder) envAssigns(fs []field, st *state, sp span) {
	for _, f := range fs {
		name, v, _ := strings.Cut(f.val, "=")
		if !f.known && (f.glob || strings.ContainsAny(name, "$`")) {
			// env "$N=…": the name could be any variable (LD_PRELOAD).
			b.add(Effect{Cap: CapDynamic, Rule: "shell.decl-dynamic", Program: "env", Target: f.display(), Msg: "env sets a variable whose name is not static"}, sp)
			continue
		}
		var val *string
		if f.known {
			val = &v
		}
		if fn, ok := strings.CutPrefix(name, "BASH_FUNC_"); ok && (strings.HasSuffix(fn, "%%") || strings.HasSuffix(fn, "()")) {
			// An exported function: every bash started below defines it
			// (and runs it for the name it takes, ls or cd).
			b.add(Effect{Cap: CapDynamic, Rule: "env.bash-func", Target: name, Msg: "exports a shell function (" + name + ") that every bash it starts defines"}, sp)
			body, isFunc := strings.CutPrefix(strings.TrimSpace(v), "()")
			switch {
			case val == nil || !isFunc:
				b.add(Effect{Cap: CapDynamic, Rule: "env.code-dynamic", Target: name, Msg: name + " is set to a function body that is not static"}, sp)
			default:
				b.text(body, st.clone(), stream{}, name, sp)
			}
			continue
		}
		b.varEffects(name, val, []field{f}, st, sp)
	}
}

// toolConfig is a package tool's config subcommand: reading is A, any
// other verb chooses what runs later.
func toolConfig() *spec {
	// get of a stored credential (npm's //host/:_authToken, yarn's
	// npmAuthToken, pip's index password) prints it.
	get := &spec{rows: []row{{"secrets.token-print", CapSecrets, "op~(auth|token|passw|secret|credential)", "", "prints a credential stored in the tool's settings"}}}
	return subs(&spec{fn: hToolConfig}, map[string]*spec{"get": get, "list": plain(), "ls": plain(), "show": plain(), "debug": plain()})
}

// condaSpec: conda, mamba and micromamba. init edits your shell's startup
// files; config changes channels; remove deletes environments.
func condaSpec() *spec {
	fetch := func(msg string) *spec { return whole("dev.fetch", CapFetch, msg) }
	// -p/--prefix DIR installs the packages' programs into DIR/bin under
	// their own names: a DIR of ~/.local or ~ puts them in your bin
	// directories (as python3 -m venv ~/.local does).
	install := func(msg string) *spec {
		return &spec{val: "-p --prefix -n --name -c --channel --file", fn: hPrefixBin("-p", "--prefix"), rows: []row{{"dev.fetch", CapFetch, "", "", msg}}}
	}
	return subs(whole("pkg.unknown", CapDynamic, "runs a conda command guard does not know"), map[string]*spec{
		"install": install("downloads and installs packages"), "create": install("downloads and installs packages"), "update": install("downloads and updates packages"),
		"upgrade": install("downloads and updates packages"), "search": fetch("queries package channels"),
		"remove": whole("pkg.uninstall", CapDelete, "removes packages or environments"), "uninstall": whole("pkg.uninstall", CapDelete, "removes packages"),
		"clean":  whole("pkg.uninstall", CapDelete, "deletes conda's caches"),
		"init":   whole("persist.shell-init", CapPersistence, "edits your shell's startup files (~/.bashrc…) so conda runs in every new shell"),
		"config": {rows: []row{{"pkg.config-code", CapPersistence, "--add|--append|--prepend|--set|--remove|--remove-key", "", "changes conda's channels or settings, which choose where later installs come from"}}},
		"env":    subs(whole("pkg.unknown", CapDynamic, "runs a conda env command guard does not know"), map[string]*spec{"list": plain(), "export": plain(), "create": fetch("downloads and installs packages"), "update": fetch("downloads and updates packages"), "remove": whole("pkg.uninstall", CapDelete, "deletes an environment")}),
		"list":   plain(), "info": plain(), "activate": plain(), "deactivate": plain(), "run": {val: "-n --name -p --prefix --cwd", posix: true, fn: wrap(0)}, "--version": plain(),
	})
}
