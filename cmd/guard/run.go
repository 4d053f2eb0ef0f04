package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/review"
	"github.com/guard-sh/guard/sandbox"
)

// runOptions are the flags of `guard -- CMD` and `guard run`.
type runOptions struct {
	reviewFlags
	command        string // -c TEXT
	shell          string
	net            bool
	allowWrite     []string
	requireSandbox bool
	keepEnv        []string
	argv           []string

	// Set by callers that are not the CLI flags (the shell shim):
	runArgv         []string // the exact argv to run (bash -e -o pipefail -c TEXT)
	cwd             string   // the directory to review and run in ("" = current)
	auditProvenance string   // what the audit record says asked ("shell")
}

func (o *runOptions) register(c *cobra.Command) {
	o.reviewFlags.register(c)
	c.Flags().StringVarP(&o.command, "command", "c", "", "run shell `TEXT` (with --shell, default bash) instead of an argv")
	c.Flags().StringVar(&o.shell, "shell", "bash", "the shell that runs -c TEXT")
	c.Flags().BoolVar(&o.net, "net", false, "allow network access (raises the level to at least B)")
	c.Flags().StringArrayVar(&o.allowWrite, "allow-write", nil, "also allow writing `PATH` (raises the level to at least B)")
	c.Flags().BoolVar(&o.requireSandbox, "require-sandbox", false, "fail instead of warning when the kernel cannot enforce the whole sandbox")
	c.Flags().StringArrayVar(&o.keepEnv, "keep-env", nil, "pass the secret-looking environment variable `NAME` through")
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

// runRun is the main job: review, decide, run in the sandbox, audit.
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
	ao.cwd = o.cwd
	ao.widenNet = o.net
	for _, w := range o.allowWrite {
		abs, err := absPath(w)
		if err != nil {
			return usagef("pass an absolute or relative path to --allow-write", "bad --allow-write %q: %v", w, err)
		}
		ao.widenWrite = append(ao.widenWrite, abs)
	}
	a, err := assess(text, ao)
	if err != nil {
		return err
	}
	a, uncovered := coverDeletes(a, ao)
	writePolicyWarnings(s.err, a.policyWarnings)
	if err := checkWorkspace(a); err != nil {
		// Before any consent: asking, then refusing, wastes the user's yes.
		return err
	}
	log := openAudit(s)
	if log != nil {
		defer log.Close()
	}
	id := audit.NewID()
	prov := string(a.input.Provenance)
	if o.auditProvenance != "" {
		prov = o.auditProvenance
	}
	rec := audit.Record{ID: id, Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()), Provenance: prov,
		Cwd: a.ctx.Cwd, Workspace: a.ctx.Workspace, Command: text, Level: a.verdict.Level, Rules: ruleIDs(a.verdict)}

	a, cp, decision, err := decideCheckpointed(s, a, uncovered, id)
	rec.Level, rec.Rules, rec.Decision = a.verdict.Level, ruleIDs(a.verdict), decision
	if err != nil {
		appendAudit(s, log, rec)
		return err
	}
	sb := a.verdict.Sandbox
	rec.Sandbox = &sb
	appendAudit(s, log, rec)
	err = execute(s, a, argv, o, log, rec)
	finishCheckpoint(s, a, cp)
	return err
}

// commandLine returns the text to review and the argv to run.
func (o *runOptions) commandLine() (string, []string, error) {
	switch {
	case o.command != "" && len(o.argv) > 0:
		return "", nil, usagef("use either -c 'TEXT' or -- COMMAND ARGS, not both", "both -c and a command were given")
	case o.command != "":
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

// decideRun turns the verdict into a decision: A runs; B and C need
// approval, which this build does not grant yet on its own; deny never.
func decideRun(s *streams, a *assessment) (audit.Decision, error) {
	v := a.verdict
	switch v.Level {
	case review.A:
		if a.userAllowedB {
			// A user allow rule lowered B: it runs without a prompt, in CI
			// and agents too. Say so, so it is never silent.
			fmt.Fprintf(s.err, "guard: note: allowed by your policy (%s)\n", policyRuleNames(a))
		}
		return audit.ApprovedAuto, nil
	case review.Deny:
		r := firstReason(v)
		fmt.Fprintf(s.err, "guard: denied: %s: %s\n", r.Rule, audit.Mask(r.Message))
		return audit.DeniedPolicy, &exitError{code: exitNotRun, err: errors.New("denied by policy"), silent: true}
	}
	return approve(s, a)
}

// approve is the approval ladder for B and C:
//
//  1. an approval from the queue bound to exactly this review (text, cwd,
//     workspace, digest) is used once;
//  2. on a terminal: the explanation and consent (B), plus the PIN (C);
//  3. without a terminal: the request is queued and guard exits 126 with
//     its id, for the human to approve from their terminal.
var approve = func(s *streams, a *assessment) (audit.Decision, error) {
	v := a.verdict
	bind := approval.Binding{Command: a.text, Cwd: a.ctx.Cwd, Workspace: a.ctx.Workspace, Digest: v.Digest}
	req, err := approval.Consume(approvalsDir(), bind, time.Now)
	if err == nil {
		fmt.Fprintf(s.err, "guard: using approval %s (level %s)\n", req.ID, v.Level)
		return audit.ApprovedQueue, nil
	}
	var se *approval.StateError
	pendingID := ""
	if errors.As(err, &se) {
		if errors.Is(err, approval.ErrPending) {
			pendingID = se.ID
		} else {
			fmt.Fprintf(s.err, "guard: note: approval %s cannot be used: %v\n", se.ID, err)
		}
	}
	cfg, err := loadSettings()
	if err != nil {
		return audit.Failed, err
	}
	details := profileDetails(a)
	explanation := audit.Mask(v.Explanation)
	var head func() (string, error)
	if l := openAuditQuiet(); l != nil {
		defer l.Close()
		head = l.Head
	}
	dec, err := askRunConsent(v.Level, explanation, details, head, time.Now, cfg.consentTimeout)
	if err == nil || !errors.Is(err, errNoTerminal) {
		return dec, err
	}
	r := approval.Request{
		Created: time.Now(), Binding: bind, Provenance: string(a.input.Provenance), Level: v.Level,
		Explanation: explanation, Details: details, Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()),
	}
	r1 := firstReason(v)
	fmt.Fprintf(s.err, "guard: %s: %s\n", r1.Rule, audit.Mask(r1.Message))
	if pendingID != "" {
		// Already queued: do not queue (and notify) again.
		fmt.Fprintf(s.err, "guard: pending: level %s is still waiting for approval as %s\n", v.Level, pendingID)
		fmt.Fprintf(s.err, "guard: hint: run 'guard approve %s' in a terminal, then run the same command again\n", pendingID)
		return audit.Pending, &exitError{code: exitNotRun, err: errors.New("pending approval"), silent: true}
	}
	return audit.Pending, queueApproval(s, r, cfg.notify)
}

// profileDetails is the full profile shown on "?" at the prompt, masked.
func profileDetails(a *assessment) string {
	var b strings.Builder
	for _, e := range a.prof.Effects {
		fmt.Fprintf(&b, "%s %-10s %-24s %s\n", review.EffectLevel(e), e.Cap, e.Rule, e.Msg)
	}
	fmt.Fprintf(&b, "sandbox: %s\n", review.DescribeSandbox(a.verdict.Sandbox))
	return audit.Mask(b.String())
}

// openAuditQuiet opens the log for its head hash; nil when unavailable
// (the prompt then says so).
func openAuditQuiet() *audit.Log {
	dir, err := audit.DefaultDir(os.Getenv)
	if err != nil {
		return nil
	}
	l, err := audit.Open(dir)
	if err != nil {
		return nil
	}
	return l
}

// execute runs the approved command in the sandbox and reports.
func execute(s *streams, a *assessment, argv []string, o *runOptions, log *audit.Log, rec audit.Record) error {
	sb := a.verdict.Sandbox
	spec := sandbox.Spec{
		Workspace: a.ctx.Workspace, Home: a.ctx.Home, Dir: a.ctx.Cwd,
		Write: sb.Write, ExtraWrite: sb.ExtraWrite, Net: sb.Net, Hide: sb.Hide, Protect: sb.Protect,
		KeepEnv: append(append([]string(nil), o.keepEnv...), a.keepEnv...), Require: o.requireSandbox,
	}
	start := time.Now()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	res, err := sandbox.Run(ctx, spec, argv, sandbox.Stdio{In: s.in, Out: s.out, Err: s.err, WatchErr: true})
	for _, d := range res.Degraded {
		fmt.Fprintf(s.err, "guard: warning: not enforced on this kernel: %s\n", d)
	}
	if len(res.Degraded) > 0 {
		fmt.Fprintf(s.err, "guard: hint: 'guard doctor' shows what this kernel enforces; --require-sandbox refuses to run without the whole sandbox\n")
	}
	rec.Decision = audit.Ran
	rec.Duration = time.Since(start)
	code := res.ExitCode
	rec.Exit = &code
	if err != nil && !res.Started {
		switch res.ExitCode {
		case exitNotFound:
			rec.Decision = audit.NotFound
			appendAudit(s, log, rec)
			return &exitError{code: exitNotFound, err: fmt.Errorf("%s: command not found", argv[0]), hints: []string{"check the spelling, or that the program is on PATH"}}
		case exitNotRun:
			rec.Decision = audit.Failed
			appendAudit(s, log, rec)
			return &exitError{code: exitNotRun, err: fmt.Errorf("%s: %v", argv[0], err)}
		}
		rec.Decision = audit.Failed
		rec.Note = err.Error()
		appendAudit(s, log, rec)
		hints := []string{"run 'guard doctor' to see what this kernel enforces"}
		return &exitError{code: exitGuardFailed, err: fmt.Errorf("sandbox: %v", err), hints: hints}
	}
	appendAudit(s, log, rec)
	for _, v := range res.Violations {
		fmt.Fprintf(s.err, "guard: error: the command changed a protected path: %s\n", v)
	}
	if len(res.Violations) > 0 {
		fmt.Fprintf(s.err, "guard: hint: protected paths (shell startup files, .git/hooks, .git/config) were restored; writing them needs its own approval\n")
		if code == 0 {
			code = 1
		}
	}
	if code != 0 && len(res.DroppedEnv) > 0 {
		fmt.Fprintf(s.err, "guard: hint: these secret-looking variables were not passed to the command: %s (keep one with --keep-env NAME or a keep_env policy grant)\n", strings.Join(res.DroppedEnv, ", "))
	}
	if code != 0 && len(res.Denials) > 0 {
		fmt.Fprintf(s.err, "guard: hint: the sandbox refused something (%s). It allowed:\n", strings.TrimSpace(res.Denials[0]))
		for _, l := range res.Grants.Lines() {
			fmt.Fprintf(s.err, "guard: hint:   %s\n", l)
		}
		fmt.Fprintf(s.err, "guard: hint: --net or --allow-write PATH widen it (and need your approval)\n")
	}
	return exitCode(code)
}

func firstReason(v review.Verdict) review.Reason {
	if len(v.Reasons) > 0 {
		return v.Reasons[0]
	}
	return review.Reason{Rule: "level", Message: "needs approval"}
}

func ruleIDs(v review.Verdict) []string {
	var ids []string
	for _, r := range v.Reasons {
		ids = append(ids, r.Rule)
	}
	return ids
}

// openAudit opens the audit log; a log that cannot be opened is a loud
// warning, never a silent skip.
func openAudit(s *streams) *audit.Log {
	dir, err := audit.DefaultDir(os.Getenv)
	if err == nil {
		var l *audit.Log
		if l, err = audit.Open(dir); err == nil {
			return l
		}
	}
	fmt.Fprintf(s.err, "guard: warning: audit log unavailable, this decision is not recorded: %v\n", err)
	return nil
}

func appendAudit(s *streams, l *audit.Log, r audit.Record) {
	if l == nil {
		return
	}
	if _, err := l.Append(r); err != nil {
		fmt.Fprintf(s.err, "guard: warning: audit log: %v\n", err)
	}
}

func absPath(p string) (string, error) {
	if strings.HasPrefix(p, "/") {
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return wd + "/" + p, nil
}

// policyRuleNames lists the policy rules that matched, for notes.
func policyRuleNames(a *assessment) string {
	var names []string
	for _, m := range a.policyMatches {
		names = append(names, m.String())
	}
	if len(names) == 0 {
		return "a user allow rule"
	}
	return strings.Join(names, "; ")
}

// checkWorkspace refuses, before anything is asked or run, a writable run
// whose workspace is / or contains the home directory.
func checkWorkspace(a *assessment) error {
	if a.ctx.WorkspaceUsable() || !a.verdict.Sandbox.Write {
		return nil
	}
	return usagef("run guard inside a project directory, or pass --workspace DIR",
		"refusing to run with %s as the workspace: it is / or contains your home directory, so the sandbox would make all of it writable", a.ctx.Workspace)
}
