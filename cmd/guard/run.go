package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/hostexec"
	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
	"github.com/guard-sh/guard/sandbox"
)

// runOptions are the flags of `guard -- CMD` and `guard run`.
type runOptions struct {
	reviewFlags
	command        string // -c TEXT
	shell          string
	net            bool
	daemons        bool // --daemons
	allowWrite     []string
	requireSandbox bool
	keepEnv        []string
	wait           string // --wait DURATION ("" = config, then the default)
	asked          string // --asked TOKEN: the hook's rewrite after an agent's prompt
	argv           []string

	// Set by callers that are not the CLI flags (the shell shim):
	runArgv         []string // the exact argv to run (bash -e -o pipefail -c TEXT)
	cwd             string   // the directory to review and run in ("" = current)
	auditProvenance string   // what the audit record says asked ("shell")
}

func (o *runOptions) register(c *cobra.Command) {
	o.reviewFlags.register(c)
	c.Flags().StringVarP(&o.command, "command", "c", "", "run shell `TEXT` (with --shell, default bash) instead of an argv")
	c.Flags().StringVar(&o.shell, "shell", "bash", "the shell that runs -c TEXT: bash, sh or dash (guard reviews bash syntax)")
	c.Flags().BoolVar(&o.net, "net", false, "allow network access (raises the level to at least B)")
	c.Flags().BoolVar(&o.daemons, "daemons", false, "let the command reach local daemons' sockets: docker.sock, tmux, the session bus (raises the level to at least B)")
	c.Flags().StringArrayVar(&o.allowWrite, "allow-write", nil, "also allow writing `PATH` (raises the level to at least B)")
	c.Flags().BoolVar(&o.requireSandbox, "require-sandbox", false, "fail instead of warning when the kernel cannot enforce the whole sandbox")
	c.Flags().StringArrayVar(&o.keepEnv, "keep-env", nil, "pass the secret-looking environment variable `NAME` through")
	c.Flags().StringVar(&o.wait, "wait", "", "without a terminal, wait `DURATION` for 'guard approve' or 'guard deny' (default: [approval] wait in config.toml, else 60s)")
	// The hook's rewrite of a command the user approved in the agent's
	// own prompt carries the approval's token; people never type it.
	c.Flags().StringVar(&o.asked, "asked", "", "the token of an approval given in an agent's prompt (set by 'guard hook')")
	c.Flags().MarkHidden("asked")
	c.Flags().SetInterspersed(false)
}

func newRunCmd(s *streams) *cobra.Command {
	opts := &runOptions{}
	c := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARG...] | run [flags] -c TEXT",
		Short: "Review a command, then run it in the sandbox",
		Long: `Review a command and, when its level allows, run it under the Landlock
sandbox derived from its review. 'guard -- CMD' is the same as 'guard run -- CMD'.

Level A runs at once. B and C need approval. Exit status: the command's own
(signal N gives 128+N); 126 not run (denied, not approved); 127 not found;
125 guard failed.`,
		Example: `  guard -- make test
  guard run -c 'go test ./... 2>&1 | tail -20'
  guard run --net -- curl -fsSL https://example.com`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.argv = args
			return runRun(s, opts)
		},
	}
	opts.register(c)
	return c
}

// runRun is the main job: review, decide, record, run in the sandbox,
// record the outcome. No audit record, no run.
func runRun(s *streams, o *runOptions) error {
	text, argv, err := o.commandLine()
	if err != nil {
		return err
	}
	if o.runArgv != nil {
		argv = o.runArgv
	}
	ao, err := o.options()
	if err != nil {
		return err
	}
	// The sandbox helper starts now, alongside the review, the decision
	// and its record: it does nothing before it gets its plan. It is
	// used for a level A run only; any other verdict closes it before
	// anything is asked (and every early return does).
	helper := sandbox.Start(context.Background(), argv[0], runStdio(s))
	defer helper.Close()
	ao.Cwd = o.cwd
	ao.WidenNet = o.net
	ao.WidenDaemons = o.daemons
	for _, w := range o.allowWrite {
		if w == "" || w == "--" {
			// guard --allow-write -- make: the flag took "--" for its path.
			return usagef("give the path right after it: guard --allow-write build -- make", "--allow-write needs a path (got %q)", w)
		}
		abs, err := filepath.Abs(w)
		if err != nil {
			return usagef("pass an absolute or relative path to --allow-write", "bad --allow-write %q: %v", w, err)
		}
		ao.WidenWrite = append(ao.WidenWrite, abs)
	}
	e, err := newEngine()
	if err != nil {
		return err
	}
	// The audit log first: opening it makes guard's state directory on
	// the first run, and the plan, computed from here on, lists the
	// directories above it.
	log, err := openAudit(e.Dirs().State)
	if err != nil {
		return err
	}
	defer log.Close()
	// e.Assess, in its steps: the context gives the likely sandbox,
	// whose plan is computed alongside the review (Speculate; used
	// only if the review's sandbox is that very one).
	ctx, err := e.Context(ao.Cwd, ao.Workspace)
	if err != nil {
		return err
	}
	if !o.net && !o.daemons && len(o.allowWrite) == 0 {
		// --net and --allow-write make the sandbox another one (and
		// the level at least B).
		helper.Speculate(guessSpec(ctx, o), argv)
	}
	pol, err := e.Policy(ctx)
	if err != nil {
		return err
	}
	a := decision.AssessIn(text, ctx, pol, ao)
	a, uncovered := coverDeletes(e, a, ao)
	if a.Verdict.Level != review.A || uncovered != nil {
		// Refused, or asked for (the terminal stays guard's): the
		// helper goes before anything else happens.
		helper.Close()
		helper = nil
	}
	writePolicyWarnings(s.err, a.Warnings)
	if err := checkWorkspace(a); err != nil {
		// Before any consent: asking, then refusing, wastes the user's yes.
		return err
	}
	if err := checkRequired(o, a); err != nil {
		return err
	}
	if helper != nil && !takesCheckpoint(a) {
		// Level A runs without asking, and with no checkpoint to take
		// nothing guard writes before the run is in the plan: it is
		// computed (or the guess taken) alongside the decision and its
		// record instead of after them (a failure between leaves the
		// helper unused, and Close drops the plan).
		helper.Prepare(runSpec(a, o), argv)
	}
	prov := string(a.Input.Provenance)
	if o.auditProvenance != "" {
		prov = o.auditProvenance
	}
	rec := audit.Record{ID: audit.NewID(), Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()), Provenance: prov,
		Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Command: text, Level: a.Verdict.Level, Rules: a.RuleIDs()}

	how := runDecide{wait: -1, token: o.asked}
	if o.wait != "" {
		if how.wait, err = parseWait(o.wait); err != nil {
			return usagef("use --wait 60s, for example, or --wait 0 not to wait", "bad --wait %q: %v", o.wait, err)
		}
	}
	a, cp, decided, err := decideCheckpointed(s, e, a, uncovered, log, how, rec.ID)
	rec.Level, rec.Rules, rec.Decision = a.Verdict.Level, a.RuleIDs(), decided
	if err == nil && decided != audit.ApprovedAuto {
		// Approved by someone, after a wait: the files the review read
		// must still hold what it read (principle 6), or the approval is
		// for something else.
		if changed := a.ChangedInputs(); len(changed) > 0 {
			if cp != nil {
				cp.Discard(e.Dirs().State)
			}
			rec.Decision, rec.Note = audit.Refused, "changed after the review: "+strings.Join(changed, ", ")
			err = &exitError{code: exitNotRun, err: fmt.Errorf("%s changed after the review, before the command ran; nothing was run", strings.Join(changed, ", ")),
				hints: []string{"run the command again to review what it holds now"}}
		}
	}
	if err != nil {
		if rerr := appendAudit(log, rec); rerr != nil {
			return rerr
		}
		return err
	}
	if helper != nil && takesCheckpoint(a) {
		// The plan too, alongside the decision record. After the
		// checkpoint: the snapshot of the protected paths must hold
		// what the checkpoint wrote (.git/refs/guard).
		helper.Prepare(runSpec(a, o), argv)
	}
	sb := a.Verdict.Sandbox
	rec.Sandbox = &sb
	if err := appendAudit(log, rec); err != nil {
		if cp != nil {
			cp.Discard(e.Dirs().State)
		}
		return err
	}
	return execute(s, a, argv, o, log, rec, helper, func() []string { return finishCheckpoint(s, e, a, cp) })
}

// commandLine returns the text to review and the argv to run.
func (o *runOptions) commandLine() (string, []string, error) {
	switch {
	case o.command != "" && len(o.argv) > 0:
		return "", nil, usagef("use either -c 'TEXT' or -- COMMAND ARGS, not both", "both -c and a command were given")
	case o.command != "":
		if err := checkRunShell(o.shell); err != nil {
			return "", nil, err
		}
		return o.command, []string{o.shell, "-c", o.command}, nil
	case len(o.argv) == 0:
		return "", nil, usagef("put the command after --: guard -- make test", "no command to run")
	}
	text, err := parse.Quote(o.argv)
	if err != nil {
		return "", nil, usagef("pass arguments without NUL bytes", "%v", err)
	}
	return text, o.argv, nil
}

// checkRunShell refuses a --shell that would read -c TEXT in another
// syntax than the bash guard reviewed it as (bashSyntaxShell): zsh runs
// the code in a glob qualifier such as *(e:'…':), which bash reads as a
// pattern, and an interpreter reads the text as its own language.
func checkRunShell(sh string) error {
	path, err := exec.LookPath(sh)
	if err != nil {
		return usagef("pass --shell bash, or leave --shell out", "the shell %q for -c was not found: %v", sh, err)
	}
	if err := bashSyntaxShell(path); err != nil {
		return usagef("pass --shell bash (or sh, dash), or leave --shell out: guard reviews -c TEXT as bash", "%v", err)
	}
	return nil
}

// decideRun carries out the engine's decision for the run path: A runs; a
// policy deny refuses; a queued approval is used once; on a terminal the
// user is asked (consent for B, consent and PIN for C); without one the
// request is queued, and guard waits for the user's decision from another
// terminal ([approval] wait) before it exits 126. It returns the audit
// decision and nil only when the command may run.
func decideRun(s *streams, e *decision.Engine, a *assessment, log *audit.Log) (audit.Decision, error) {
	return decideRunWith(s, e, a, log, runDecide{wait: -1})
}

// runDecide are the run path's choices beyond the review.
type runDecide struct {
	// wait for a queued request's decision; negative: [approval] wait
	// from config.toml or GUARD_WAIT.
	wait time.Duration
	// token of an approval given in an agent's prompt (--asked).
	token string
}

// decideRunWith is decideRun with the run path's choices.
func decideRunWith(s *streams, e *decision.Engine, a *assessment, log *audit.Log, how runDecide) (audit.Decision, error) {
	v := a.Verdict
	who := decision.Who{Consume: true, Token: how.token}
	var t *terminal
	if v.Level == review.B || v.Level == review.C {
		// Someone at this terminal can answer B and C; the terminal is
		// closed again before the command runs.
		var err error
		if t, err = openTerminal(); err == nil {
			defer t.Close()
			who.AskB, who.AskC = true, true
		}
	}
	d, err := e.Decide(a, who)
	if err != nil {
		return audit.Failed, failf([]string{"check that guard's state directory is readable ('guard doctor')"}, "%v", err)
	}
	if d.Unusable != nil {
		fmt.Fprintf(s.err, "guard: note: approval %s cannot be used: %v\n", d.Unusable.ID, d.Unusable)
	}
	switch d.Action {
	case decision.Run:
		if a.UserAllowedB {
			// A user allow rule lowered B: it runs without a prompt, in CI
			// and agents too. Say so, so it is never silent.
			fmt.Fprintf(s.err, "guard: note: allowed by your policy (%s)\n", policyRuleNames(a))
		}
		return audit.ApprovedAuto, nil
	case decision.Refuse:
		fmt.Fprintf(s.err, "guard: denied: %s: %s\n", d.Reason.Rule, printable(audit.Mask(d.Reason.Message), true))
		return audit.DeniedPolicy, &exitError{code: exitNotRun, err: errors.New("denied by policy"), silent: true}
	case decision.UseApproval:
		if d.Asked != "" {
			fmt.Fprintf(s.err, "guard: using approval %s (level %s, given in %s's prompt)\n", d.Approval, v.Level, d.Asked)
		} else {
			fmt.Fprintf(s.err, "guard: using approval %s (level %s)\n", d.Approval, v.Level)
		}
		return audit.ApprovedQueue, nil
	case decision.Ask:
		cfg, err := loadSettings()
		if err != nil {
			return audit.Failed, err
		}
		return askRunConsent(t, e, a, log, cfg.consentTimeout)
	}
	// Queue: nobody here can answer. The request waits in the queue and
	// guard waits for the user's decision from their terminal.
	fmt.Fprintf(s.err, "guard: %s: %s\n", d.Reason.Rule, printable(audit.Mask(d.Reason.Message), true))
	cfg, err := loadSettings()
	if err == nil {
		cfg, err = cfg.withEnv(os.Getenv)
	}
	if err != nil {
		return audit.Failed, err
	}
	if how.wait >= 0 {
		cfg.approvalWait = how.wait
	}
	id := d.Pending
	if id != "" {
		// Already queued: do not queue (and notify) again.
		fmt.Fprintf(s.err, "guard: pending: level %s is still waiting for approval as %s\n", v.Level, id)
	} else {
		req, err := e.Enqueue(a, string(a.Input.Provenance), audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()))
		if err != nil {
			return audit.Failed, failf(nil, "%v", err)
		}
		id = req.ID
		announceQueued(s, req, cfg.notify)
	}
	return awaitDecision(s, e, a, id, cfg.approvalWait)
}

// askRunConsent asks on t for consent to a B or C verdict (and the PIN
// for C, under the audit head). It returns the audit decision, and nil
// only when the user approved.
func askRunConsent(t *terminal, e *decision.Engine, a *assessment, log *audit.Log, timeout time.Duration) (audit.Decision, error) {
	pins := &pin.Store{ConfigDir: e.Dirs().Config, StateDir: e.Dirs().State, Now: e.Env().Now}
	return consentToRun(t, a.Verdict.Level, audit.Mask(a.Verdict.Explanation), a.Details(), pins, log.Head, timeout)
}

// consentToRun asks on t: the explanation, consent, and for C the PIN
// under the audit head (head gives it).
func consentToRun(t *terminal, level review.Level, explanation, details string, pins *pin.Store, head func() (string, error), timeout time.Duration) (audit.Decision, error) {
	c := consent{level: level, explanation: explanation, details: details, timeout: timeout, pins: pins}
	if level == review.C {
		c.auditHead = auditHeadText(head)
	}
	out, err := askConsent(t, c)
	if err != nil {
		return audit.Refused, failf(nil, "ask for consent: %v", err)
	}
	if out.result != consentApproved {
		return out.auditDecision(level), consentFailure(out)
	}
	return out.auditDecision(level), nil
}

// outcomeNote is the ran record's note: the protected paths the command
// changed, and what the sandbox did not enforce on this kernel (a run
// without the helper's mounts, say), so the log shows a run that was
// less confined than its decision record says.
func outcomeNote(violations, degraded []string) string {
	var parts []string
	if len(violations) > 0 {
		parts = append(parts, "protected paths changed: "+strings.Join(violations, "; "))
	}
	if len(degraded) > 0 {
		parts = append(parts, "not enforced on this kernel: "+strings.Join(degraded, "; "))
	}
	return strings.Join(parts, " | ")
}

// execute runs the approved command in the sandbox, records the outcome
// and reports.
func execute(s *streams, a *assessment, argv []string, o *runOptions, log *audit.Log, rec audit.Record, helper *sandbox.Helper, after func() []string) error {
	spec := runSpec(a, o)
	start := time.Now()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var res sandbox.Result
	var err error
	if helper != nil {
		res, err = helper.Run(spec, argv)
	} else {
		res, err = sandbox.Run(ctx, spec, argv, runStdio(s))
	}
	for _, d := range res.Degraded {
		fmt.Fprintf(s.err, "guard: warning: not enforced on this kernel: %s\n", d)
	}
	if len(res.Degraded) > 0 {
		fmt.Fprintf(s.err, "guard: hint: 'guard doctor' shows what this kernel enforces; --require-sandbox refuses to run without the whole sandbox\n")
	}
	rec.Decision = audit.Ran
	// The decision record, under the same id, holds the confinement; the
	// outcome does not repeat it (a few kilobytes to encode, and to read
	// back for the next record's hash, on every run).
	rec.Sandbox = nil
	rec.Duration = time.Since(start)
	code := res.ExitCode
	if err != nil && !res.Started {
		var out error
		switch res.ExitCode {
		case exitNotFound:
			rec.Decision = audit.NotFound
			hints := []string{"check the spelling, or that the program is on PATH"}
			if spec.Env != nil {
				if p, err := exec.LookPath(argv[0]); err == nil && !strings.Contains(argv[0], "/") {
					hints = []string{fmt.Sprintf("%s is %s, in a directory sandboxed commands can write (the workspace, a temp dir, a cache); a run that may read a secret, reach a daemon or write outside the workspace never runs a program from there: run it by its path to have it reviewed as the workspace's own program", argv[0], p)}
				}
			}
			out = &exitError{code: exitNotFound, err: fmt.Errorf("%s: command not found", argv[0]), hints: hints}
		case exitNotRun:
			rec.Decision = audit.Failed
			out = &exitError{code: exitNotRun, err: fmt.Errorf("%s: %v", argv[0], err)}
		default:
			rec.Decision, code = audit.Failed, exitGuardFailed
			rec.Note = err.Error()
			out = &exitError{code: exitGuardFailed, err: fmt.Errorf("sandbox: %v", err), hints: []string{"run 'guard doctor' to see what this kernel enforces"}}
		}
		rec.Exit = &code
		if rerr := appendAudit(log, rec); rerr != nil {
			fmt.Fprintf(s.err, "guard: error: %v\n", rerr)
		}
		return out
	}
	restored := true
	for _, v := range res.Violations {
		fmt.Fprintf(s.err, "guard: error: the command changed a protected path: %s\n", printable(v.String(), false))
		rec.Violations = append(rec.Violations, v.String())
		restored = restored && v.Restored
	}
	// The checkpoint's after state; code the command gave other git
	// repositories in the workspace counts as a protected path changed.
	disarmedRepos := after()
	for _, l := range disarmedRepos {
		if strings.HasPrefix(l, storeViolation) {
			fmt.Fprintf(s.err, "guard: error: %s\n", printable(l, false))
		} else {
			fmt.Fprintf(s.err, "guard: error: the command gave a git repository code that git runs outside the sandbox: %s\n", printable(l, false))
		}
		rec.Violations = append(rec.Violations, l)
		restored = restored && !strings.Contains(l, "could not move it aside")
	}
	if len(rec.Violations) > 0 && code == 0 {
		code = 1
	}
	rec.Note = outcomeNote(rec.Violations, res.Degraded)
	// The record carries the status guard itself returns.
	rec.Exit = &code
	if rerr := appendAudit(log, rec); rerr != nil {
		// The command ran; its outcome could not be recorded. Say so
		// loudly; the decision record before it stands.
		fmt.Fprintf(s.err, "guard: error: %v\n", rerr)
	}
	if len(disarmedRepos) > 0 {
		fmt.Fprintf(s.err, "guard: hint: git, and editors that run git in a repository on their own, would have run that code; look at what the command left there, and move a file back only if you put it there yourself\n")
	}
	if len(res.Violations) > 0 {
		what := "were restored"
		if !restored {
			what = "were changed and not all could be restored (see above): check them before you run git or open a new shell"
		}
		fmt.Fprintf(s.err, "guard: hint: protected paths (shell startup files, .git/hooks, .git/config) %s; writing them needs its own approval\n", what)
	}
	if code != 0 && len(res.DroppedEnv) > 0 {
		fmt.Fprintf(s.err, "guard: hint: these variables were not passed to the command (secrets, agent sockets, code the shell or loader would run): %s (keep one with --keep-env NAME or a keep_env policy grant)\n", strings.Join(res.DroppedEnv, ", "))
	}
	if code != 0 && len(res.Denials) > 0 {
		fmt.Fprintf(s.err, "guard: hint: the sandbox refused something (%s). It allowed:\n", printable(strings.TrimSpace(res.Denials[0]), false))
		for _, l := range res.Grants.Lines() {
			fmt.Fprintf(s.err, "guard: hint:   %s\n", l)
		}
		fmt.Fprintf(s.err, "guard: hint: --net or --allow-write PATH widen it (and need your approval)\n")
	}
	// The helper exits alongside the check and the record above, once
	// it has reported the command's end with nothing left; guard kills
	// and reaps anything else left here, and exits without waiting for
	// the end of the helper's mount namespace (Release). Fail closed: if
	// that reap fails, guard cannot vouch that nothing outlives the
	// command, so it exits 125 whatever the command's status (the ran
	// record keeps the status it reported).
	if cerr := helper.Release(); cerr != nil {
		return failf([]string{"'guard doctor' checks the sandbox helper; run the command again"}, "sandbox: the helper could not be reaped after the command: %v", cerr)
	}
	return exitCode(code)
}

// takesCheckpoint reports whether the run of a, once decided, takes a
// checkpoint first (decideCheckpointed): its sandbox may write a usable
// workspace. The plan of such a run waits for the checkpoint.
func takesCheckpoint(a *assessment) bool {
	return a.Verdict.Sandbox.Write && a.Ctx.WorkspaceUsable()
}

// runSpec is the sandbox of the run of a.
func runSpec(a *assessment, o *runOptions) sandbox.Spec {
	return sandboxSpec(a.Ctx, a.Verdict.Sandbox, o, a.KeepEnv)
}

// guessSpec is the likely sandbox of a run in ctx, before its review:
// the one review gives a command that reads no secret and writes
// nothing (the context's hidden and protected lists). Only a review
// that gives this very sandbox uses its plan.
func guessSpec(ctx *profile.Context, o *runOptions) sandbox.Spec {
	return sandboxSpec(ctx, review.Sandbox{Hide: ctx.SecretLocations(), Protect: ctx.ProtectedLocations()}, o, nil)
}

// sandboxSpec is the sandbox sb of a run in ctx, with the variables
// keep (a policy's grants) passed on besides --keep-env's.
func sandboxSpec(ctx *profile.Context, sb review.Sandbox, o *runOptions, keep []string) sandbox.Spec {
	runs, layers := "", ""
	if ctx.StateDir != "" {
		// Hidden from commands with the rest of guard's state.
		runs = filepath.Join(ctx.StateDir, "runs")
		layers = filepath.Join(ctx.StateDir, "layers")
	}
	var env []string // nil: guard's own environment
	if len(sb.Reveal) > 0 || sb.Daemons || len(sb.ExtraWrite) > 0 {
		// A run granted more than any writing command gets (a secret
		// revealed, the daemons, a write outside the workspace) finds
		// its programs only in PATH directories no sandboxed command can
		// write: a gh an earlier command planted in an activated
		// .venv/bin would get gh's token and the network.
		env = hostexec.Env(os.Environ(), hostexec.PATH(os.Getenv("PATH"), hostexec.CommandTrees(ctx.Home, ctx.Workspace)))
	}
	if sh, ok := reviewedShell(ctx); ok {
		if env == nil {
			env = os.Environ()
		}
		env = hostexec.With(env, "SHELL", sh)
	}
	return sandbox.Spec{
		Workspace: ctx.Workspace, Home: ctx.Home, Dir: ctx.Cwd,
		Write: sb.Write, ExtraWrite: sb.ExtraWrite, Net: sb.Net, Daemons: sb.Daemons, Hide: sb.Hide, Reveal: slices.Clone(sb.Reveal), Settings: runSettings(ctx, sb), Protect: sb.Protect,
		KeepEnv: append(append([]string(nil), o.keepEnv...), keep...), Require: o.requireSandbox,
		Runs: runs, Layers: layers, Env: env,
	}
}

// reviewedShell is the SHELL a run gets when the one it would inherit
// does not read bash syntax (zsh, fish): programs the command starts run
// commands given to them with $SHELL (script -c, tmux, fzf --preview,
// entr -s), and guard reviewed those commands as bash. The bash found in
// directories no sandboxed command can write, else /bin/sh; ok is false
// when SHELL is unset or already such a shell.
func reviewedShell(ctx *profile.Context) (string, bool) {
	cur := os.Getenv("SHELL")
	if cur == "" || bashSyntaxShell(cur) == nil {
		return "", false
	}
	if p, err := hostexec.Look("bash", hostexec.PATH(os.Getenv("PATH"), hostexec.CommandTrees(ctx.Home, ctx.Workspace))); err == nil {
		return p, true
	}
	return "/bin/sh", true
}

// runStdio is the command's stdio: guard's own, stderr watched for the
// sandbox's denials.
func runStdio(s *streams) sandbox.Stdio {
	return sandbox.Stdio{In: s.in, Out: s.out, Err: s.err, WatchErr: true}
}

// openAudit opens the audit log in state. A log that cannot be opened is
// an error: no audit record, no run.
func openAudit(state string) (*audit.Log, error) {
	l, err := audit.Open(state)
	if err != nil {
		return nil, auditError(err)
	}
	return l, nil
}

// appendAudit appends r; a record that cannot be written is an error.
func appendAudit(l *audit.Log, r audit.Record) error {
	if _, err := l.Append(r); err != nil {
		return auditError(err)
	}
	return nil
}

func auditError(err error) error {
	return failf([]string{
		"guard records every decision before it runs anything; free disk space or make the state directory a writable directory",
		"'guard doctor' checks guard's files; 'guard log verify' checks the log",
	}, "audit log: %v; nothing was run", err)
}

// policyRuleNames lists the policy rules that matched, for notes.
func policyRuleNames(a *assessment) string {
	var names []string
	for _, m := range a.Matches {
		names = append(names, m.String())
	}
	if len(names) == 0 {
		return "a user allow rule"
	}
	return strings.Join(names, "; ")
}

// probeKernel is sandbox.Probe; tests give it another kernel.
var probeKernel = sandbox.Probe

// checkRequired refuses, before anything is asked, a --require-sandbox
// run this kernel cannot confine whole. (What only the run itself finds
// out, such as mounts refused to the helper, still fails it then.)
func checkRequired(o *runOptions, a *assessment) error {
	if !o.requireSandbox {
		return nil
	}
	if gaps := probeKernel().Gaps(a.Verdict.Sandbox.Net); len(gaps) > 0 {
		return &exitError{code: exitGuardFailed, err: fmt.Errorf("--require-sandbox: this kernel does not enforce the whole sandbox (%s); nothing was run", strings.Join(gaps, "; ")),
			hints: []string{"'guard doctor' shows what this kernel enforces; without --require-sandbox the command runs with what it does enforce, and says what not"}}
	}
	return nil
}

// checkWorkspace refuses, before anything is asked or run, a writable run
// whose workspace is / or contains the home directory.
func checkWorkspace(a *assessment) error {
	if a.Ctx.WorkspaceUsable() || !a.Verdict.Sandbox.Write {
		return nil
	}
	return usagef("run guard inside a project directory, or pass --workspace DIR",
		"refusing to run with %s as the workspace: it is / or contains your home directory, so the sandbox would make all of it writable", a.Ctx.Workspace)
}

// runSettings is what every command may read inside hidden locations
// besides what its review revealed (sb.Reveal: a known client's
// credential for a read-only query): guard's own policy and settings, so
// that guard's read-only subcommands (a pre-commit hook running guard
// scan) work inside the sandbox. The PIN, approvals and audit log stay
// hidden. Passed apart from sb.Reveal (Spec.Settings): they are no
// secret, and must not make every run one with more to give (the cache
// layer's class, sandbox/layer.go).
func runSettings(ctx *profile.Context, sb review.Sandbox) []string {
	var out []string
	for _, r := range ctx.RevealedLocations() {
		if slices.ContainsFunc(sb.Hide, func(h string) bool { return r == h || strings.HasPrefix(r, h+"/") }) {
			out = append(out, r)
		}
	}
	return out
}
