package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/decision"
	"golang.org/x/term"

	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/sandbox"
	"github.com/guard-sh/guard/scan"
)

// initAnswerTimeout is how long guard init waits for each answer: longer
// than a consent prompt, since the user is reading the explanations.
const initAnswerTimeout = 5 * time.Minute

// maxPINInput bounds what --pin-stdin reads.
const maxPINInput = 1 << 10

// initState is what a step found on this machine.
type initState int

const (
	// initOffer: the step can be done here and is not done yet.
	initOffer initState = iota
	// initHave: already in place (a PIN is set, the hook is installed),
	// or a check that passed.
	initHave
	// initAbsent: nothing here to set up (the agent is not installed,
	// not a git repository).
	initAbsent
	// initWarn: a check that found something the user should know (the
	// kernel cannot enforce the whole sandbox).
	initWarn
)

// initFinding is a step's detect result.
type initFinding struct {
	state  initState
	detail string
	// warnings and hints are printed as guard: warning/hint lines after
	// the summary (the kernel check).
	warnings, hints []string
}

// initStep is one row of guard init. A new step is a new row in
// initSteps: a name (also its --flag in non-interactive mode), one
// sentence saying what it does, how to detect whether it applies, and
// how to apply it. A step without apply only reports (the kernel check).
type initStep struct {
	name     string // the flag and the summary's name
	title    string // how the step is shown
	explain  string // one sentence: what it does and why
	question string // asked before apply: "Set the PIN now?"
	later    string // how to do it later, for the summary of a skipped step
	detect   func(*initEnv) initFinding
	// apply makes the change and returns what it did, for the summary.
	// Installers print their own messages on stderr.
	apply func(*initEnv) (string, error)
}

// initOptions are guard init's flags.
type initOptions struct {
	nonInteractive bool
	pinStdin       bool
	// chosen holds one flag per step that can be applied (--shell,
	// --claude, …): with --non-interactive, the steps to do.
	chosen map[string]*bool
}

// initEnv is what the steps may look at and change; tests pass fakes.
type initEnv struct {
	s       *streams
	opts    *initOptions
	root    *cobra.Command // the command tree: installers are run through it
	support sandbox.Support
	euid    int
	cwd     string
	pins    *pin.Store
	tty     *terminal // nil in non-interactive mode
	timeout time.Duration
}

// initSteps are the steps of guard init, in order.
func initSteps() []initStep {
	steps := []initStep{
		{
			name:    "kernel",
			title:   "Kernel",
			explain: "Approved commands run under Landlock and a seccomp filter; this checks what this kernel enforces.",
			detect:  detectKernel,
		},
		{
			name:     "pin",
			title:    "PIN",
			explain:  "Level C commands (force pushes, deletes outside the project, sudo, …) run only after your consent and a PIN that only you know; guard keeps only its argon2id hash.",
			question: "Set the PIN now?",
			later:    "guard pin set",
			detect:   detectPIN,
			apply:    applyPIN,
		},
		{
			name:     "shell",
			title:    "Shell shim",
			explain:  "guard-sh is a shell that reviews every command it is given, so an agent started with SHELL=guard-sh is covered without a hook.",
			question: "Make the guard-sh link?",
			later:    "guard install shell",
			detect:   detectShell,
			apply:    installerStep("shell"),
		},
	}
	for _, t := range agentProtocols {
		steps = append(steps, initStep{
			name:     t.name,
			title:    t.label,
			explain:  fmt.Sprintf("%s asks guard before each tool call: level A commands run in guard's sandbox, the rest wait for your approval.", t.label),
			question: fmt.Sprintf("Add guard's hook to %s's settings?", t.label),
			later:    "guard install " + t.name,
			detect:   detectAgent(t),
			apply:    installerStep(t.name),
		})
	}
	return append(steps, initStep{
		name:     "pre-commit",
		title:    "pre-commit hook",
		explain:  "A git pre-commit hook in this repository refuses a commit that adds shell above level B (scripts, CI files, Makefiles) and shows why.",
		question: "Install the pre-commit hook in this repository?",
		later:    "guard install pre-commit",
		detect:   detectPreCommit,
		apply:    installerStep("pre-commit"),
	})
}

func newInitCmd(s *streams) *cobra.Command {
	opts := &initOptions{chosen: map[string]*bool{}}
	c := &cobra.Command{
		Use:   "init",
		Short: "Set guard up step by step: kernel check, PIN, agent hooks, pre-commit",
		Long: `A guided first run. guard init checks what this kernel's sandbox enforces,
then offers each step that applies here: the PIN for level C commands, the
guard-sh shell shim, the hooks of the agents it finds (Claude Code in
~/.claude or .claude/, Codex in ~/.codex, Gemini CLI in ~/.gemini) and the
pre-commit hook of the current repository. Each step is explained in one
sentence and nothing changes until you answer y on the terminal. Steps
already done are kept, so running it again is safe.

--non-interactive is for provisioning scripts: nothing is asked, and only
the steps named by flags are done. --pin-stdin reads the PIN (one line)
from stdin; prefer typing it, since a PIN in a script can leak.

Exit status: 0 when every chosen step is done, 125 when one failed, 126
when guard init was cancelled at a prompt.`,
		Example: `  guard init
  printf '%s\n' "$PIN" | guard init --non-interactive --pin-stdin --claude --pre-commit`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return failf([]string{"run guard from a directory that exists"}, "cannot determine the current directory: %v", err)
			}
			d, err := guardDirs()
			if err != nil {
				return err
			}
			env := &initEnv{
				s: s, opts: opts, root: c.Root(),
				support: sandbox.Probe(),
				euid:    os.Geteuid(),
				cwd:     cwd,
				pins:    &pin.Store{ConfigDir: d.Config, StateDir: d.State, Now: time.Now},
				timeout: initAnswerTimeout,
			}
			return runInit(env, initSteps())
		},
	}
	c.Flags().BoolVar(&opts.nonInteractive, "non-interactive", false, "ask nothing; do only the steps named by flags (for provisioning scripts)")
	c.Flags().BoolVar(&opts.pinStdin, "pin-stdin", false, "with --non-interactive: set the PIN from the first line of stdin")
	for _, st := range initSteps() {
		if st.apply == nil || st.name == "pin" {
			continue
		}
		b := new(bool)
		opts.chosen[st.name] = b
		c.Flags().BoolVar(b, st.name, false, fmt.Sprintf("with --non-interactive: %s", strings.TrimSuffix(strings.ToLower(st.question[:1])+st.question[1:], "?")))
	}
	return c
}

// initResult is one line of the summary.
type initResult struct {
	step   initStep
	status string // ok, done, skip, --, warn, FAIL
	detail string
}

// runInit walks the steps: interactive on the terminal, or as the flags
// say with --non-interactive. It prints a summary on stderr.
func runInit(env *initEnv, steps []initStep) error {
	o := env.opts
	if !o.nonInteractive {
		if o.pinStdin {
			return usagef("add --non-interactive: --pin-stdin is for provisioning scripts; without it guard init asks for the PIN on the terminal", "--pin-stdin needs --non-interactive")
		}
		for _, st := range steps {
			if b := o.chosen[st.name]; b != nil && *b {
				return usagef("add --non-interactive to choose steps by flag; without it guard init asks about each step", "--%s needs --non-interactive", st.name)
			}
		}
		t, err := openTerminal()
		if err != nil {
			return noTerminalError(err, "run 'guard init' in a terminal, or 'guard init --non-interactive' with a flag for each step in a script")
		}
		defer t.Close()
		env.tty = t
		t.say("%s\n", t.bold(fmt.Sprintf("guard init: %d steps. Each says what it does; nothing changes unless you answer y.", len(steps))))
	} else if o.pinStdin {
		if f, ok := env.s.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usagef("run 'guard init' without --non-interactive to type the PIN without echo; --pin-stdin is for scripts", "--pin-stdin: stdin is a terminal")
		}
	}

	var results []initResult
	var warnings, hints []string
	cancelled := false
	for i, st := range steps {
		f := st.detect(env)
		warnings = append(warnings, f.warnings...)
		hints = append(hints, f.hints...)
		if cancelled {
			results = append(results, initResult{step: st, status: "skip", detail: "not asked (guard init was cancelled)"})
			continue
		}
		if env.tty != nil {
			env.tty.say("\n%s %s\n", env.tty.bold(fmt.Sprintf("[%d/%d] %s:", i+1, len(steps), st.title)), st.explain)
		}
		var r initResult
		r, cancelled = env.step(st, f)
		results = append(results, r)
	}
	writeInitSummary(env.s.err, results)
	for _, w := range warnings {
		fmt.Fprintf(env.s.err, "guard: warning: %s\n", w)
	}
	for _, h := range hints {
		fmt.Fprintf(env.s.err, "guard: hint: %s\n", h)
	}
	var failed []string
	for _, r := range results {
		if r.status == "FAIL" {
			failed = append(failed, r.step.name)
		}
	}
	switch {
	case len(failed) > 0:
		return failf([]string{"fix what the messages above say, then run 'guard init' again: what is already set up is kept"},
			"guard init: %d %s failed: %s", len(failed), plural(len(failed), "step", "steps"), strings.Join(failed, ", "))
	case cancelled:
		return &exitError{code: exitNotRun, err: errors.New("guard init was cancelled"),
			hints: []string{"run 'guard init' again to go on: what is already set up is kept"}}
	}
	if env.tty != nil {
		fmt.Fprint(env.s.err, initNext)
	}
	return nil
}

// step decides and, when chosen, applies one step. cancelled reports
// that the user ended guard init at its question.
func (env *initEnv) step(st initStep, f initFinding) (r initResult, cancelled bool) {
	r = initResult{step: st, detail: f.detail}
	switch {
	case st.apply == nil: // a check: report only
		r.status = "ok"
		if f.state == initWarn {
			r.status = "warn"
		}
		env.say("  %s\n", f.detail)
	case f.state == initHave:
		r.status = "ok"
		env.say("  %s; nothing to do.\n", f.detail)
	case env.tty == nil: // non-interactive: the flags decide
		if env.chosen(st) {
			return applyInitStep(env, st, r), false
		}
		r.status, r.detail = "skip", env.notChosen(st)
		if f.state == initAbsent {
			r.status, r.detail = "--", f.detail
		}
	case f.state == initAbsent:
		r.status, r.detail = "--", f.detail+"; later: "+st.later
		env.say("  %s; skipped. Later: %s\n", f.detail, st.later)
	default:
		env.say("  %s\n", f.detail)
		yes, err := env.ask(st.question)
		switch {
		case err != nil:
			r.status, r.detail = "skip", "cancelled"
			return r, true
		case !yes:
			r.status, r.detail = "skip", "not chosen; later: "+st.later
		default:
			return applyInitStep(env, st, r), false
		}
	}
	return r, false
}

// initNext is what a newcomer can try once guard init is done.
const initNext = `Next:
  guard check 'rm -rf build'   review a command without running it
  guard -- make test           review a command, then run it in the sandbox
  guard doctor                 what this kernel enforces, and whether the hooks answer
`

// applyInitStep applies st and fills in r.
func applyInitStep(env *initEnv, st initStep, r initResult) initResult {
	detail, err := st.apply(env)
	if err != nil {
		report(env.s.err, err)
		r.status, r.detail = "FAIL", strings.SplitN(err.Error(), "\n", 2)[0]
		return r
	}
	r.status, r.detail = "done", detail
	return r
}

// chosen reports whether st was asked for by flag (non-interactive).
func (env *initEnv) chosen(st initStep) bool {
	if st.name == "pin" {
		return env.opts.pinStdin
	}
	b := env.opts.chosen[st.name]
	return b != nil && *b
}

// notChosen says why a step was left out in non-interactive mode.
func (env *initEnv) notChosen(st initStep) string {
	if st.name == "pin" {
		return "not set (--pin-stdin); level C commands cannot be approved until you run 'guard pin set'"
	}
	return fmt.Sprintf("not chosen (--%s); later: %s", st.name, st.later)
}

// say writes to the terminal in interactive mode; nothing otherwise (the
// summary says it all).
func (env *initEnv) say(format string, args ...any) {
	if env.tty != nil {
		env.tty.say(format, args...)
	}
}

// ask asks a yes/no question on the terminal: only y or yes is a yes. A
// timeout, ^C or ^D cancels guard init.
func (env *initEnv) ask(question string) (bool, error) {
	ans, err := env.tty.readLine("  "+env.tty.bold(question+" [y/N]")+" ", true, env.timeout)
	if err != nil {
		if errors.Is(err, errAnswerTimeout) {
			env.tty.say("no answer within %s\n", shortDuration(env.timeout))
		}
		return false, err
	}
	return isYes(ans), nil
}

func writeInitSummary(w io.Writer, results []initResult) {
	var b strings.Builder
	b.WriteString("guard init:\n")
	width := 0
	for _, r := range results {
		width = max(width, len(r.step.title))
	}
	for _, r := range results {
		fmt.Fprintf(&b, "  %-4s %-*s  %s\n", r.status, width, r.step.title, r.detail)
	}
	io.WriteString(w, b.String())
}

// detectKernel reports what the sandbox enforces here, through the
// doctor's own check, and warns when it is not all of it.
func detectKernel(env *initEnv) initFinding {
	sec := doctorSandbox(&doctorEnv{support: env.support, euid: env.euid})
	var missing []string
	for _, c := range sec.Checks {
		if c.failed() {
			missing = append(missing, c.Name)
		}
	}
	f := initFinding{state: initHave}
	if len(missing) == 0 {
		f.detail = sec.Summary + ": the sandbox is fully in force"
	} else {
		f.state = initWarn
		f.detail = sec.Summary + ": not enforced here: " + strings.Join(missing, ", ")
		f.warnings = append(f.warnings, "this kernel cannot enforce the whole sandbox (missing: "+strings.Join(missing, ", ")+")")
		f.hints = append(f.hints, sec.Hints...)
		f.hints = append(f.hints, "'guard doctor' shows each feature and what guard cannot stop here")
	}
	if env.euid == 0 {
		f.warnings = append(f.warnings, "guard is running as root: inside its grants a command keeps root's file capabilities; run guard as your own user")
	}
	return f
}

func detectPIN(env *initEnv) initFinding {
	info, err := env.pins.Status()
	switch {
	case err != nil:
		return initFinding{state: initOffer, detail: err.Error()}
	case info.Set:
		return initFinding{state: initHave, detail: "already set ('guard pin change' changes it)"}
	}
	return initFinding{state: initOffer, detail: "not set yet"}
}

// initPINTries is how many times guard init asks for a PIN that is weak
// or not repeated the same, before the step fails.
const initPINTries = 3

// applyPIN sets the PIN: typed twice on the terminal, as 'guard pin set'
// asks it, or one line of stdin with --pin-stdin.
func applyPIN(env *initEnv) (string, error) {
	var p string
	if env.tty != nil {
		var err error
		if p, err = readNewPIN(env.tty, "  New PIN: ", "  Repeat the PIN: ", env.timeout, "guard pin set", initPINTries); err != nil {
			return "", err
		}
	} else {
		var err error
		if p, err = readPINStdin(env.s.in); err != nil {
			return "", err
		}
	}
	if err := env.pins.Set(p); errors.Is(err, pin.ErrExists) {
		return "", failf([]string{"run 'guard pin change' to change it"}, "%v", err)
	} else if err != nil {
		return "", failf(nil, "%v", err)
	}
	return "set; level C commands will ask for it", nil
}

// readPINStdin reads the PIN for --pin-stdin: exactly one line.
func readPINStdin(r io.Reader) (string, error) {
	if r == nil {
		return "", failf([]string{"pipe the PIN into guard init, one line"}, "--pin-stdin: no stdin")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPINInput+1))
	if err != nil {
		return "", failf(nil, "--pin-stdin: read stdin: %v", err)
	}
	if len(data) > maxPINInput {
		return "", failf([]string{"pipe the PIN alone, one line"}, "--pin-stdin: more than %d bytes on stdin", maxPINInput)
	}
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	p := strings.TrimSuffix(string(line), "\r")
	switch {
	case len(bytes.TrimSpace(rest)) > 0:
		return "", failf([]string{"pipe the PIN alone, one line"}, "--pin-stdin: more than one line on stdin")
	case p == "":
		return "", failf([]string{"pipe the PIN into guard init, one line: printf '%s\\n' \"$PIN\" | guard init --non-interactive --pin-stdin"}, "--pin-stdin: no PIN on stdin")
	}
	if err := pin.Validate(p); err != nil {
		return "", failf([]string{
			fmt.Sprintf("use at least %d characters, not one repeated, a sequence like 123456, a pattern like 121212 or a common PIN", pin.MinLength),
		}, "%v", err)
	}
	return p, nil
}

func detectShell(env *initEnv) initFinding {
	for _, d := range shellLinkDirs("") {
		if link := filepath.Join(d, shellLinkName); isGuardLink(link) {
			return initFinding{state: initHave, detail: tildePath(link) + " already links to guard"}
		}
	}
	return initFinding{state: initOffer, detail: "no guard-sh link yet; it goes next to guard, or in ~/.local/bin"}
}

// detectAgent finds an agent by its settings: the user's config dir or
// the project's settings file. Guard's hook already in either is done.
func detectAgent(t *agentProtocol) func(*initEnv) initFinding {
	return func(env *initEnv) initFinding {
		userFile, uerr := t.settingsPath(false)
		projFile := filepath.Join(projectRoot(env.cwd), t.projectDir, t.file)
		for _, p := range []string{userFile, projFile} {
			if p == "" {
				continue
			}
			if data, err := os.ReadFile(p); err == nil && len(t.ourHookCommands(data)) > 0 {
				return initFinding{state: initHave, detail: "guard's hook is in " + tildePath(p)}
			}
		}
		var found, looked []string
		if uerr == nil {
			dir := filepath.Dir(userFile)
			looked = append(looked, tildePath(dir))
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				found = append(found, tildePath(dir))
			}
		}
		rel := filepath.Join(t.projectDir, t.file)
		looked = append(looked, rel)
		if _, err := os.Stat(projFile); err == nil {
			found = append(found, rel)
		}
		if len(found) == 0 {
			return initFinding{state: initAbsent, detail: "not found (" + strings.Join(looked, ", ") + ")"}
		}
		detail := "found " + strings.Join(found, " and ")
		if uerr == nil {
			detail += "; the hook goes in " + tildePath(userFile)
		}
		return initFinding{state: initOffer, detail: detail}
	}
}

// projectRoot is the git top-level of dir, else dir.
func projectRoot(dir string) string {
	if r := decision.GitTopLevel(os.Stat, dir); r != "" {
		return r
	}
	return dir
}

func detectPreCommit(env *initEnv) initFinding {
	dir, err := scan.HooksDir(env.cwd)
	if err != nil {
		return initFinding{state: initAbsent, detail: "not in a git repository"}
	}
	hook := filepath.Join(dir, "pre-commit")
	data, err := os.ReadFile(hook)
	switch {
	case err == nil && bytes.Contains(data, []byte("guard scan --staged")):
		return initFinding{state: initHave, detail: "already in " + displayPath(hook)}
	case err == nil:
		return initFinding{state: initOffer, detail: displayPath(hook) + " exists; it is kept and runs first"}
	case errors.Is(err, fs.ErrNotExist):
		return initFinding{state: initOffer, detail: "in the git repository " + tildePath(projectRoot(env.cwd))}
	}
	return initFinding{state: initOffer, detail: err.Error()}
}

// installerStep applies a step by running 'guard install NAME' from the
// command tree, with its defaults: the very code path of that command,
// messages and hints included.
func installerStep(name string) func(*initEnv) (string, error) {
	return func(env *initEnv) (string, error) {
		c, rest, err := env.root.Find([]string{"install", name})
		if err != nil || len(rest) > 0 || c.Name() != name || !c.HasParent() || c.Parent().Name() != "install" || c.RunE == nil {
			return "", failf([]string{"update guard"}, "this guard has no 'guard install %s'", name)
		}
		if err := c.ParseFlags(nil); err != nil {
			return "", failf(nil, "guard install %s: %v", name, err)
		}
		if err := c.RunE(c, nil); err != nil {
			return "", err
		}
		return "installed ('guard uninstall " + name + "' removes it)", nil
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
