package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/hostexec"
	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/profile"
)

// envGuardShell names the real shell the shim runs (default bash).
const envGuardShell = "GUARD_SHELL"

// shellProvenance is the audit provenance of what the shim runs.
const shellProvenance = "shell"

func newShellCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "shell [-lies] [-e] [-o OPTION] [-c TEXT [NAME [ARG...]]]",
		Short: "A login-shell shim: point SHELL at it and every command is reviewed",
		Long: `guard shell (or a link to guard named guard-sh) accepts the flags agents and
editors pass to a shell and routes the command text through guard's review
and sandbox, exactly like 'guard run -c TEXT' with provenance agent:

  guard-sh -c 'TEXT'       -lc, -ec, -lec, -o pipefail, --login, --norc…
  guard-sh                 on a terminal: a prompt where each line is
                           reviewed before it runs; cd and export persist
                           (but not for the variables guard reads itself:
                           HOME, TMPDIR, USER, XDG_*_HOME, GUARD_*…)
  guard-sh -s < script     the script is read from stdin and reviewed whole

-e, -u, -x and other set options, and -o OPTION, are passed to the real
shell; -l, -i, --norc and --noprofile are accepted and dropped (no startup
files run). The real shell is bash, or $GUARD_SHELL, or --shell PATH. Exit
status and stdin pass through; a command that needs approval and has no
terminal to ask on is refused or queued (exit 126).

Point an agent at it with SHELL=/path/to/guard-sh ('guard install shell'
makes the link).`,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o, err := parseShellArgs(args)
			if err != nil {
				return err
			}
			if o.help {
				return c.Help()
			}
			return runShell(s, o)
		},
	}
}

// shellOptions are a shell's command line, as the shim understands it.
type shellOptions struct {
	command    string // -c TEXT
	hasCommand bool
	stdin      bool // -s
	login      bool // -l, --login: accepted, dropped
	interact   bool // -i: accepted, dropped
	help       bool
	// long are long options passed to the real shell (bash wants them
	// before the short ones); short are set options (-e, +u, -o pipefail,
	// -O extglob) in the order given.
	long, short []string
	// args follow the options: after -c TEXT they are $0, $1…; without
	// -c the first is a script file.
	args  []string
	shell string // --shell PATH
}

// shellSetLetters are the single-letter set options passed through.
const shellSetLetters = "abefhkmnprtuvxBCEHPT"

// parseShellArgs reads a shell's flags: bash's rules, so "-lec TEXT",
// "-e -o pipefail -c TEXT" and "-c TEXT name arg" mean what they mean to
// bash.
func parseShellArgs(args []string) (shellOptions, error) {
	var o shellOptions
	bad := func(format string, a ...any) (shellOptions, error) {
		return o, usagef("guard shell takes bash's flags: -c TEXT, -l, -i, -s, -e, -o OPTION, --login, --norc, --noprofile", format, a...)
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "login":
				o.login = true
			case "norc", "noprofile", "noediting", "debugger":
			case "posix", "restricted", "verbose":
				o.long = append(o.long, "--"+name)
			case "rcfile", "init-file":
				if !hasVal {
					if i+1 >= len(args) {
						return bad("--%s needs a file", name)
					}
					i++
				}
			case "shell":
				if !hasVal {
					if i+1 >= len(args) {
						return bad("--shell needs the path of the real shell")
					}
					i++
					val = args[i]
				}
				if val == "" {
					return bad("--shell needs the path of the real shell")
				}
				o.shell = val
			case "help":
				o.help = true
			case "version":
				// The real shell answers: run it as a command.
				o.args = append(o.args, "--version")
			default:
				return bad("unknown option --%s", name)
			}
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		sign := a[:1]
		for _, l := range a[1:] {
			switch {
			case l == 'c' && sign == "-":
				o.hasCommand = true
			case l == 'l' && sign == "-":
				o.login = true
			case l == 'i' && sign == "-":
				o.interact = true
			case l == 's' && sign == "-":
				o.stdin = true
			case l == 'o' || l == 'O':
				if i+1 >= len(args) {
					return bad("%s%c needs an option name", sign, l)
				}
				i++
				o.short = append(o.short, sign+string(l), args[i])
			case strings.ContainsRune(shellSetLetters, l):
				o.short = append(o.short, sign+string(l))
			default:
				return bad("unknown option %s%c", sign, l)
			}
		}
	}
	rest := args[i:]
	if o.hasCommand {
		if len(rest) == 0 {
			return bad("-c needs the command text")
		}
		o.command, rest = rest[0], rest[1:]
	}
	o.args = append(o.args, rest...)
	return o, nil
}

// runShell runs what the options ask for.
func runShell(s *streams, o shellOptions) error {
	sh, err := realShell(o.shell)
	if err != nil {
		return err
	}
	base := runOptions{shell: sh}
	base.provenance = "agent"
	flags := append(append([]string(nil), o.long...), o.short...)
	prefix, err := shellReviewPrefix(o.short)
	if err != nil {
		return err
	}
	switch {
	case o.hasCommand:
		if strings.TrimSpace(o.command) == "" {
			return nil // bash -c '' does nothing, successfully
		}
		argv := append(append(append([]string{sh}, flags...), "-c", o.command), o.args...)
		if base.command, err = shellReviewText(sh, prefix+o.command, o.args); err != nil {
			return err
		}
		return runShellLine(s, &base, argv, "")
	case !o.stdin && len(o.args) > 0:
		// A script file (or --version): run the real shell with it, as
		// guard -- bash FILE ARGS would. Reviewing "bash FILE" reviews
		// the file's contents.
		base.argv = append(append([]string{sh}, flags...), o.args...)
		return runRun(s, &base)
	}
	if f, ok := s.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return shellInteractive(s, &base, flags, prefix, f)
	}
	// A script on stdin: review it whole, then run it.
	b, err := io.ReadAll(io.LimitReader(s.in, maxCommandText+1))
	if err != nil {
		return failf(nil, "read the script from stdin: %v", err)
	}
	if len(b) > maxCommandText {
		fmt.Fprintf(s.err, "guard: denied: the script on stdin is larger than %d bytes, too large to review\n", maxCommandText)
		return &exitError{code: exitNotRun, err: errors.New("script too large"), silent: true}
	}
	text := string(b)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	argv := append(append(append([]string{sh}, flags...), "-c", text, sh), o.args...)
	if len(o.args) > 0 {
		if base.command, err = shellReviewText(sh, prefix+text, append([]string{sh}, o.args...)); err != nil {
			return err
		}
	} else {
		base.command = prefix + text
	}
	quiet := *s
	quiet.in = nil // stdin was the script
	return runShellLine(&quiet, &base, argv, "")
}

// inertSetOptions are the set options (-o NAME, or their letters) that do
// not change which commands run or what their words are: errors, tracing,
// globbing off, job control. The shim passes them on unreviewed.
var inertSetOptions = []string{
	"a", "allexport", "b", "notify", "e", "errexit", "f", "noglob", "h", "hashall",
	"m", "monitor", "n", "noexec", "p", "privileged", "t", "onecmd", "u", "nounset",
	"v", "verbose", "x", "xtrace", "B", "braceexpand", "C", "noclobber", "E", "errtrace",
	"H", "histexpand", "P", "physical", "T", "functrace", "pipefail", "posix",
	"history", "ignoreeof", "interactive-comments", "emacs", "vi",
}

// shellReviewPrefix is what the shell options say about the text, written
// as the text would say it, for the review: -O NAME and +O NAME become
// "shopt -s NAME" and "shopt -u NAME" lines (dotglob makes * name .git;
// the review prices shopt in the text). A set option that is not inert
// (-k puts every NAME=value word into the environment: `git status
// GIT_CONFIG_GLOBAL=./x` would run x's core.fsmonitor) is refused.
func shellReviewPrefix(short []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(short); i++ {
		opt := short[i]
		switch opt {
		case "-O", "+O":
			name := short[i+1]
			i++
			verb := "-s"
			if opt == "+O" {
				verb = "-u"
			}
			q, err := parse.Quote([]string{"shopt", verb, name})
			if err != nil {
				return "", usagef("pass shopt option names without NUL bytes", "%v", err)
			}
			b.WriteString(q + "\n")
			continue
		case "-o", "+o":
			opt = short[i+1]
			i++
		default:
			opt = opt[1:]
		}
		if !slices.Contains(inertSetOptions, opt) {
			return "", usagef("drop it: guard shell passes only options that do not change what the text runs (-e, -u, -x, -o pipefail, …, and -O/+O shopt options, which are reviewed)", "guard shell does not pass the set option %s: guard's review does not model it", opt)
		}
	}
	return b.String(), nil
}

// shellReviewText is the text the shim reviews for shell text run with
// positional arguments (args: $0, $1, …): the whole "sh -c TEXT ARG…", so
// that "$1" and "$@" are reviewed as the arguments they stand for (text
// alone would review `"$@"` as a dynamic name, B, whatever the arguments
// run; and an approval of it would fit any arguments). Without arguments
// it is the text itself.
func shellReviewText(sh, text string, args []string) (string, error) {
	if len(args) == 0 {
		return text, nil
	}
	q, err := parse.Quote(append([]string{sh, "-c", text}, args...))
	if err != nil {
		return "", usagef("pass arguments without NUL bytes", "%v", err)
	}
	return q, nil
}

// realShell names the shell the shim runs, as given (so $0 is "bash", as
// with bash itself), after resolving it to refuse guard itself (which
// would review and re-run the same text forever).
func realShell(flag string) (string, error) {
	sh := flag
	if sh == "" {
		sh = os.Getenv(envGuardShell)
	}
	if sh == "" {
		sh = "bash"
	}
	hint := "set GUARD_SHELL (or --shell) to a real shell such as /bin/bash"
	path, err := exec.LookPath(sh)
	if err != nil {
		return "", failf([]string{hint}, "the real shell %q was not found: %v", sh, err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if sameFile(path, guardExecutable()) || filepath.Base(path) == "guard-sh" {
		return "", failf([]string{hint}, "the real shell %s is guard itself", path)
	}
	if err := bashSyntaxShell(path); err != nil {
		return "", failf([]string{hint}, "%v", err)
	}
	if err := shellOutsideReach(path); err != nil {
		return "", failf([]string{hint}, "%v", err)
	}
	// A command that starts $SHELL must reach the real shell, not the
	// shim again from inside the sandbox.
	if cur := os.Getenv("SHELL"); cur != "" && (filepath.Base(cur) == "guard-sh" || sameFile(cur, guardExecutable())) {
		os.Setenv("SHELL", path)
	}
	return sh, nil
}

// shellOutsideReach refuses a real shell that the repository or a
// reviewed command could have put there: one in the workspace or a
// temporary directory, by its path or the file it resolves to. Every
// text the shim reviews runs with that program, which need not run
// the text at all: `export GUARD_SHELL=./bin/bash` in an .envrc (A to
// the review), or ./bin first on PATH with the default bash, made a
// repository's ./bin/bash run every command the agent sent.
func shellOutsideReach(path string) error {
	paths := []string{path}
	if r, err := filepath.EvalSymlinks(path); err == nil && r != path {
		paths = append(paths, r)
	}
	e, err := newEngine()
	if err != nil {
		return err
	}
	ctx, err := e.Context("", "")
	if err != nil {
		return err
	}
	// The trees a sandboxed command may write (the workspace, the
	// temporary directories, the caches under home), as for the
	// programs an elevated run may start (sandboxSpec).
	trees := hostexec.CommandTrees(ctx.Home, ctx.Workspace)
	for _, p := range paths {
		if !hostexec.Trusted(filepath.Dir(p), trees) {
			return fmt.Errorf("the real shell %s is inside the workspace, a temporary directory or a cache, where the repository or a command guard ran can change it: it would run every command the shim reviews", p)
		}
	}
	return nil
}

// bashSyntaxShell refuses a real shell that does not read bash syntax
// (profile.BashSyntax): text reviewed as bash and run by zsh, fish or an
// interpreter means something else there (zsh runs code in glob
// qualifiers like *(e:'…':) that bash reads as a pattern). By
// its name and by the name of the file it resolves to (a link named bash
// that leads to zsh is zsh).
func bashSyntaxShell(path string) error {
	names := []string{filepath.Base(path)}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		names = append(names, filepath.Base(r))
	}
	for _, n := range names {
		if !profile.BashSyntax(n) {
			return fmt.Errorf("the real shell %s is %s, not bash or a POSIX sh: guard reviews bash syntax, and %s could run the text differently", path, n, n)
		}
	}
	return nil
}

// runShellLine is runRun for shell text whose argv carries shell options
// and positional arguments (runOptions.commandLine builds only
// [shell, -c, TEXT]), in directory cwd ("" = the current one). The
// reviewed text is o.command; argv is what runs.
func runShellLine(s *streams, o *runOptions, argv []string, cwd string) error {
	line := *o
	line.runArgv, line.cwd, line.auditProvenance = argv, cwd, shellProvenance
	return runRun(s, &line)
}

// shellSession is the state an interactive shim keeps between lines.
type shellSession struct {
	s      *streams
	base   *runOptions
	flags  []string
	prefix string // shellReviewPrefix of the flags, before each line
	cwd    string
	status int
}

// shellInteractive is the prompt loop: each line is reviewed, then run in
// the sandbox. A line of only cd, export, unset, assignments or exit is
// applied by the shim itself (after its review), so it lasts; inside a
// longer line such changes last for that line only.
func shellInteractive(s *streams, base *runOptions, flags []string, prefix string, in *os.File) error {
	fd := int(in.Fd())
	out := io.Writer(in)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		out = tty
	}
	wd, err := os.Getwd()
	if err != nil {
		return failf([]string{"run guard from a directory that exists"}, "cannot determine the current directory: %v", err)
	}
	ss := &shellSession{s: s, base: base, flags: flags, prefix: prefix, cwd: wd}
	keys := &keyReader{f: in}
	var history term.History
	for {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return failf(nil, "set up the terminal: %v", err)
		}
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{keys, out}, ss.prompt())
		if history != nil {
			t.History = history
		}
		if w, h, err := term.GetSize(fd); err == nil && w > 0 {
			t.SetSize(w, h)
		} else {
			t.SetSize(1<<12, 24) // unknown width: do not wrap
		}
		keys.interrupted = false
		line, err := t.ReadLine()
		history = t.History
		term.Restore(fd, old)
		switch {
		case errors.Is(err, io.EOF) && keys.interrupted:
			fmt.Fprint(out, "^C\r\n")
			ss.status = 130
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprint(out, "exit\r\n")
			return exitCode(ss.status)
		case errors.Is(err, term.ErrPasteIndicator):
		case err != nil:
			return failf(nil, "read from the terminal: %v", err)
		}
		if done, code := ss.line(line); done {
			return exitCode(code)
		}
	}
}

// prompt shows the directory, with ~ for the home directory.
func (ss *shellSession) prompt() string {
	d := ss.cwd
	if h := os.Getenv("HOME"); h != "" && (d == h || strings.HasPrefix(d, h+"/")) {
		d = "~" + strings.TrimPrefix(d, h)
	}
	return "guard " + d + "$ "
}

// line reviews and runs one line; done is set by exit.
func (ss *shellSession) line(text string) (done bool, code int) {
	if strings.TrimSpace(text) == "" {
		return false, 0
	}
	o := *ss.base
	o.command = ss.prefix + text
	if b, ok := shellBuiltins(text); ok {
		return ss.builtins(&o, b)
	}
	argv := append(append([]string{o.shell}, ss.flags...), "-c", text)
	ss.status = report(ss.s.err, runShellLine(ss.s, &o, argv, ss.cwd))
	return false, 0
}

// shellBuiltin is one cd, export, unset, NAME=VALUE or exit.
type shellBuiltin struct {
	name string   // "cd", "export", "unset", "assign", "exit"
	args []string // static values
}

// shellBuiltins recognises a line made only of builtins the shim applies
// itself, with static (or HOME/variable-resolved) words.
func shellBuiltins(text string) ([]shellBuiltin, bool) {
	sc, err := parse.Bash(text)
	if err != nil || len(sc.Stmts) == 0 {
		return nil, false
	}
	var out []shellBuiltin
	for _, st := range sc.Stmts {
		if st.Background || st.Negated || len(st.Redirs) > 0 {
			return nil, false
		}
		switch n := st.Cmd.(type) {
		case *parse.Decl:
			if n.Variant != "export" || len(n.Opts) > 0 {
				return nil, false
			}
			b := shellBuiltin{name: "export"}
			for _, as := range n.Assigns {
				if as.Array != nil || as.Append {
					return nil, false
				}
				if as.Value == nil {
					continue // export NAME: it is in the environment already or stays unset
				}
				v, ok := shellWord(as.Value)
				if !ok {
					return nil, false
				}
				b.args = append(b.args, as.Name+"="+v)
			}
			out = append(out, b)
		case *parse.Call:
			if len(n.Args) == 0 {
				b := shellBuiltin{name: "assign"}
				for _, as := range n.Assigns {
					if as.Array != nil || as.Append || as.Value == nil {
						return nil, false
					}
					v, ok := shellWord(as.Value)
					if !ok {
						return nil, false
					}
					b.args = append(b.args, as.Name+"="+v)
				}
				out = append(out, b)
				continue
			}
			if len(n.Assigns) > 0 {
				return nil, false
			}
			var words []string
			for _, w := range n.Args {
				v, ok := shellWord(w)
				if !ok {
					return nil, false
				}
				words = append(words, v)
			}
			switch words[0] {
			case "cd", "unset", "exit":
				out = append(out, shellBuiltin{name: words[0], args: words[1:]})
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return out, true
}

// shellWord is a word's value: literal parts, a leading ~ (HOME) and
// variables from the environment. Anything else is not the shim's to
// evaluate.
func shellWord(w *parse.Word) (string, bool) {
	var b strings.Builder
	for i, p := range w.Parts {
		switch {
		case p.Kind == parse.Lit:
			b.WriteString(p.Text)
		case p.Kind == parse.Tilde && p.Text == "" && i == 0:
			b.WriteString(os.Getenv("HOME"))
		case p.Kind == parse.Var:
			b.WriteString(os.Getenv(p.Text))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// applyDecision reviews and decides a line the shim applies itself (cd,
// export, exit…), and records the decision; nil means apply it. No audit
// record, no change.
func (ss *shellSession) applyDecision(o *runOptions, bs []shellBuiltin) error {
	ao, err := o.options()
	if err != nil {
		return err
	}
	ao.Cwd = ss.cwd
	e, err := newEngine()
	if err != nil {
		return err
	}
	a, err := e.Assess(o.command, ao)
	if err != nil {
		return err
	}
	log, err := openAudit(e.Dirs().State)
	if err != nil {
		return err
	}
	defer log.Close()
	rec := audit.Record{ID: audit.NewID(), Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()), Provenance: shellProvenance,
		Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Command: o.command, Level: a.Verdict.Level, Rules: a.RuleIDs(), Note: "applied by the shell shim"}
	if name := guardEnvChanged(bs); name != "" {
		// Whatever its level, the line would move what every later
		// decision of this session rests on: refused.
		rec.Decision = audit.Refused
		rec.Note = "the shell shim does not change " + name + ", part of guard's own environment"
		if rerr := appendAudit(log, rec); rerr != nil {
			return rerr
		}
		fmt.Fprintf(ss.s.err, "guard: denied: %s is part of guard's own environment (its directories, home, temp dir or settings); the shim does not change it for later lines\n", name)
		fmt.Fprintf(ss.s.err, "guard: hint: set it before starting guard-sh, or for one command: %s=VALUE COMMAND\n", name)
		return &exitError{code: exitNotRun, err: errors.New("changes guard's environment"), silent: true}
	}
	rec.Decision, err = decideRun(ss.s, e, a, log)
	if rerr := appendAudit(log, rec); rerr != nil {
		return rerr
	}
	return err
}

// guardEnvChanged is the first variable bs would set or unset in the
// shim's own process that guard's decisions rest on, or "". Those are the
// variables the decision engine reads (guard's config and state
// directories, the home and temp directories and the user its review and
// sandbox are built from), found by asking it, and guard's own GUARD_*.
// Applied by the shim they would last for every later line: export
// TMPDIR=$HOME (level A as a line) would make the home directory a
// temporary one, so rm -rf ~ would need no PIN, and export
// XDG_STATE_HOME=… would move the audit log and the approval queue.
func guardEnvChanged(bs []shellBuiltin) string {
	for _, b := range bs {
		if b.name != "export" && b.name != "assign" && b.name != "unset" {
			continue
		}
		for _, arg := range b.args {
			name, _, _ := strings.Cut(arg, "=")
			if strings.HasPrefix(name, "GUARD_") || engineEnv()[name] {
				return name
			}
		}
	}
	return ""
}

// engineEnv is the set of variables the decision engine reads: it is
// asked for its directories and a context with an environment that
// records every name looked up.
var engineEnv = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	env := decision.OS()
	env.Getenv = func(k string) string {
		names[k] = true
		return "/" // absolute, so every lookup is taken and the next one made
	}
	if e, err := decision.New(env); err == nil {
		e.Context("/", "/")
	}
	return names
})

// builtins reviews the line like any other (so export PATH=… gets the
// level it deserves), then applies it.
func (ss *shellSession) builtins(o *runOptions, bs []shellBuiltin) (bool, int) {
	prev := ss.status // what a bare exit returns
	err := ss.applyDecision(o, bs)
	if err != nil {
		ss.status = report(ss.s.err, err)
		return false, 0
	}
	ss.status = 0
	for _, b := range bs {
		switch b.name {
		case "exit":
			code := prev
			if len(b.args) > 0 {
				n, err := strconv.Atoi(b.args[0])
				if err != nil {
					fmt.Fprintf(ss.s.err, "guard: exit: %s: numeric argument required\n", b.args[0])
					n = 2
				}
				code = n & 0xff
			}
			return true, code
		case "cd":
			ss.cd(b.args)
		case "export", "assign":
			for _, kv := range b.args {
				k, v, _ := strings.Cut(kv, "=")
				os.Setenv(k, v)
			}
		case "unset":
			for _, k := range b.args {
				if !strings.HasPrefix(k, "-") {
					os.Unsetenv(k)
				}
			}
		}
	}
	return false, 0
}

// cd changes the session's directory.
func (ss *shellSession) cd(args []string) {
	dir := os.Getenv("HOME")
	switch {
	case len(args) > 1:
		fmt.Fprintln(ss.s.err, "guard: cd: too many arguments")
		ss.status = 1
		return
	case len(args) == 1 && args[0] == "-":
		dir = os.Getenv("OLDPWD")
	case len(args) == 1:
		dir = args[0]
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ss.cwd, dir)
	}
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(ss.s.err, "guard: cd: %s: no such directory\n", dir)
		ss.status = 1
		return
	}
	os.Setenv("OLDPWD", ss.cwd)
	os.Setenv("PWD", dir)
	ss.cwd = dir
}

// keyReader hands the line editor one byte at a time, so nothing typed
// after a line is swallowed before the command (or a consent prompt) runs,
// and notes Ctrl-C, which the editor reports as end of input.
type keyReader struct {
	f           *os.File
	interrupted bool
}

func (k *keyReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := k.f.Read(p[:1])
	if n == 1 && p[0] == 3 {
		k.interrupted = true
	}
	return n, err
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}
