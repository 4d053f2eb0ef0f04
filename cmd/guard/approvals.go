package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/dirs"
	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/review"
)

// recentApprovals is how far back `guard approvals` lists finished
// requests without --all.
const recentApprovals = 24 * time.Hour

// approvalsOptions are shared by approvals, approve, deny and review.
type approvalsOptions struct {
	dir  string
	now  func() time.Time
	pins *pin.Store
	// auditHead returns the audit log's head hash for the PIN prompt.
	auditHead func() (string, error)
	// record appends an audit record of a queue decision.
	record  func(audit.Record) error
	timeout time.Duration
	ttl     time.Duration
	// grant and scope: approve --grant DURATION --scope S.
	grant time.Duration
	scope string
	// showGrant, when set, says on the terminal what the grant allows,
	// before the question.
	showGrant func(*terminal)
	all       bool
	json      bool
	ids       []string
}

func newApprovalsOptions() *approvalsOptions {
	return &approvalsOptions{now: time.Now, timeout: defaultAnswerTimeout, ttl: approval.DefaultApprovalTTL}
}

// resolve fills in guard's directories (exit 125 without an absolute HOME)
// where a test has not set them.
func (o *approvalsOptions) resolve() error {
	d, err := guardDirs()
	if err != nil {
		return err
	}
	if o.dir == "" {
		o.dir = d.Approvals()
	}
	if o.pins == nil {
		o.pins = &pin.Store{ConfigDir: d.Config, StateDir: d.State, Now: o.now}
	}
	if o.auditHead == nil {
		o.auditHead = func() (string, error) { return auditHead(d.State) }
	}
	if o.record == nil {
		o.record = func(r audit.Record) error { return recordDecision(d.State, r) }
	}
	return nil
}

// auditHead opens the audit log in state just to read its head hash.
func auditHead(state string) (string, error) {
	l, err := audit.Open(state)
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Head()
}

// denyRequest records, then applies, the user's refusal of request id.
func denyRequest(opts *approvalsOptions, id string) error {
	r, err := pendingRequest(opts, id)
	if err != nil {
		return err
	}
	if err := opts.recordQueueDecision(r, audit.Refused, "approval "+id+" denied"); err != nil {
		return err
	}
	if _, err := approval.Deny(opts.dir, id, opts.now); err != nil {
		return failf(nil, "%v", err)
	}
	return nil
}

// recordDecision appends one record to the audit log in state.
func recordDecision(state string, r audit.Record) error {
	return appendRecord(state, r, (*audit.Log).Append)
}

// appendRecord writes r to the audit log in state with add, one of
// audit.Log's appends.
func appendRecord(state string, r audit.Record, add func(*audit.Log, audit.Record) (audit.Record, error)) error {
	l, err := audit.Open(state)
	if err != nil {
		return err
	}
	defer l.Close()
	_, err = add(l, r)
	return err
}

// recordQueueDecision writes the audit record of a decision about queued
// request r (approve, deny, a wrong PIN, revoke). No record, no decision:
// the caller fails when it cannot be written.
func (o *approvalsOptions) recordQueueDecision(r approval.Request, d audit.Decision, note string) error {
	rec := audit.Record{ID: audit.NewID(), Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()), Provenance: "user",
		Cwd: r.Cwd, Workspace: r.Workspace, Command: r.Command, Level: r.Level, Decision: d, Note: note}
	if err := o.record(rec); err != nil {
		return failf([]string{"guard records every decision; make the state directory writable (see 'guard doctor')"}, "audit log: %v; the decision about %s was not recorded", err, r.ID)
	}
	return nil
}

// revokePINApprovals withdraws what was approved with a PIN that was just
// changed (guard pin change), each with an audit record: a user changes a
// PIN they think another knows, and whoever knew it could have approved
// level C commands with it, usable for 15 minutes more, or granted one
// for days. That is every approval given with the PIN and not used yet,
// and every standing grant whose approval had the PIN or is no longer in
// the queue (guard cannot tell how it was given). A failure is an error
// the user sees, with what to do by hand.
func revokePINApprovals(s *streams) error {
	d, err := guardDirs()
	if err == nil {
		// Both, whatever the other's outcome: a grant that cannot be
		// revoked (a user policy that does not parse) must not keep the
		// queued approvals usable.
		gerr := revokePINGrants(s, d)
		o := &approvalsOptions{record: func(r audit.Record) error { return recordDecision(d.State, r) }}
		revoked, qerr := approval.RevokePINApprovals(d.Approvals(), time.Now)
		for _, r := range revoked {
			if rerr := o.recordQueueDecision(r, audit.Revoked, "approval "+r.ID+" revoked: the PIN that gave it was changed"); rerr != nil {
				qerr = errors.Join(qerr, rerr)
			}
			fmt.Fprintf(s.err, "guard: revoked approval %s, given with the old PIN\n", r.ID)
		}
		err = errors.Join(gerr, qerr)
	}
	if err != nil {
		return failf([]string{"run 'guard approvals', then 'guard revoke ID' for each approval and grant given with the old PIN"}, "the PIN changed, but what was approved with the old PIN may still be usable: %v", err)
	}
	return nil
}

// revokePINGrants removes the standing grants given with the old PIN (see
// revokePINApprovals).
func revokePINGrants(s *streams, d dirs.Dirs) error {
	path := d.UserPolicy()
	grants, err := standingGrants(path)
	if err != nil {
		return err
	}
	o := &approvalsOptions{record: func(r audit.Record) error { return recordDecision(d.State, r) }}
	for _, g := range grants {
		id := strings.TrimPrefix(g.ID, policy.GrantPrefix)
		r, err := approval.Get(d.Approvals(), id)
		switch {
		case err == nil && !r.PIN:
			continue
		case err != nil && !errors.Is(err, approval.ErrNotFound):
			return err
		}
		if _, err := removeGrant(s, o, path, r, id, "grant "+g.ID+" revoked: the PIN that gave it was changed"); err != nil {
			return err
		}
	}
	return nil
}

// newApprovalsCmd is `guard approvals`: the queue, pending and recent.
func newApprovalsCmd(s *streams) *cobra.Command {
	opts := newApprovalsOptions()
	c := &cobra.Command{
		Use:   "approvals",
		Short: "List commands waiting for approval, and recent decisions",
		Long: `Lists the approval queue: commands an agent asked to run when guard could not
ask you on a terminal, waiting for 'guard approve ID' or 'guard deny ID'.
Pending requests lapse after an hour; an approval lasts 15 minutes and is good
for one run of the exact command, in the same directory and workspace.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			return runApprovals(s, opts)
		},
	}
	c.Flags().BoolVar(&opts.all, "all", false, "list every request kept, not only pending and recent ones")
	c.Flags().BoolVar(&opts.json, "json", false, "print the requests as JSON")
	return c
}

// newApproveCmd is `guard approve ID`: consent (and PIN) on the terminal.
func newApproveCmd(s *streams) *cobra.Command {
	opts := newApprovalsOptions()
	c := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a queued command, on the terminal",
		Long: `Shows a queued command and what it would do, and asks for your consent on the
terminal (and your PIN for level C). An approval is good for one run of the
exact command, in the same directory and workspace, within --for.

With --grant DURATION it also writes a standing grant to your policy
(~/.config/guard/policy.toml, never a project's): an allow rule for this
workspace that expires after DURATION, so the same work runs without asking
until then. --scope says how far it reaches (shown before you confirm);
level C can be granted for its exact text only. 'guard approvals' lists
grants, 'guard revoke ID' removes one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			opts.ids = args
			return runApprove(s, opts)
		},
	}
	c.Flags().DurationVar(&opts.ttl, "for", approval.DefaultApprovalTTL, "how long the approval lasts")
	c.Flags().DurationVar(&opts.grant, "grant", 0, "also allow it without asking for `DURATION` (a standing grant in your policy, at most 7 days; see --scope)")
	c.Flags().StringVar(&opts.scope, "scope", scopeExact, "what a --grant allows, in this workspace only: exact (this command text), command (this program on workspace paths), rule (what this review flagged, on workspace paths); level C: exact only")
	return c
}

// newDenyCmd is `guard deny ID...`.
func newDenyCmd(s *streams) *cobra.Command {
	opts := newApprovalsOptions()
	return &cobra.Command{
		Use:   "deny ID...",
		Short: "Deny queued commands",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			opts.ids = args
			return runDeny(s, opts)
		},
	}
}

// newReviewCmd is `guard review`: every pending request in turn.
func newReviewCmd(s *streams) *cobra.Command {
	opts := newApprovalsOptions()
	c := &cobra.Command{
		Use:   "review",
		Short: "Walk through pending approvals on the terminal",
		Long: `Shows each pending request in turn and asks: y approves (with your PIN for
level C), n denies, Enter or s leaves it pending.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			return runReview(s, opts)
		},
	}
	c.Flags().DurationVar(&opts.ttl, "for", approval.DefaultApprovalTTL, "how long each approval lasts")
	return c
}

func runApprovals(s *streams, opts *approvalsOptions) error {
	reqs, err := approval.List(opts.dir, opts.now)
	if err != nil {
		return failf(nil, "%v", err)
	}
	now := opts.now()
	var shown []approval.Request
	for _, r := range reqs {
		if opts.all || r.State == approval.Pending || now.Sub(lastChange(r)) < recentApprovals {
			shown = append(shown, r)
		}
	}
	if opts.json {
		if shown == nil {
			shown = []approval.Request{}
		}
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(shown)
	}
	d, err := guardDirs()
	if err != nil {
		return err
	}
	if len(shown) == 0 {
		fmt.Fprintln(s.err, "guard: no approval requests")
		return listGrants(s, d.UserPolicy(), now)
	}
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tLEVEL\tAGE\tCOMMAND")
	pending := 0
	for _, r := range shown {
		st := string(r.State)
		switch r.State {
		case approval.Pending:
			pending++
		case approval.Approved:
			st = fmt.Sprintf("approved (%s left)", shortDuration(r.Expires.Sub(now)))
			if r.Asked != "" {
				st = fmt.Sprintf("asked in %s (%s left)", r.Asked, shortDuration(r.Expires.Sub(now)))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, st, r.Level, shortDuration(now.Sub(r.Created)), printable(r.Command, false))
	}
	tw.Flush()
	if pending > 0 {
		fmt.Fprintln(s.err, "guard: hint: run 'guard approve ID' or 'guard deny ID', or 'guard review' for each in turn")
	}
	return listGrants(s, d.UserPolicy(), now)
}

// lastChange is when a request last changed state.
func lastChange(r approval.Request) time.Time {
	t := r.Created
	for _, u := range []time.Time{r.Decided, r.Used} {
		if u.After(t) {
			t = u
		}
	}
	if r.State == approval.Expired && r.Expires.After(t) {
		t = r.Expires
	}
	return t
}

func runApprove(s *streams, opts *approvalsOptions) error {
	id := opts.ids[0]
	if !approval.ValidID(id) {
		return usagef("run 'guard approvals' to list the ids", "%q is not an approval id", id)
	}
	if opts.ttl <= 0 {
		return usagef("use --for 15m, for example", "--for must be positive")
	}
	// Approving needs a person at a terminal; check that first.
	t, err := openTerminal()
	if err != nil {
		return noTerminalError(err, "run 'guard approve' in a terminal")
	}
	defer t.Close()
	r, err := pendingRequest(opts, id)
	if err != nil {
		return err
	}
	var e *decision.Engine
	var plan grantPlan
	if opts.grant != 0 {
		if e, err = newEngine(); err != nil {
			return err
		}
		if plan, err = planGrant(e, r, opts.scope, opts.grant); err != nil {
			return err
		}
		opts.showGrant = plan.show
	}
	res, err := decideRequest(t, opts, r, false)
	if err != nil {
		return err
	}
	if res.result != consentApproved {
		if err := opts.recordQueueDecision(r, res.auditDecision(r.Level), "approval "+r.ID+" not granted: "+res.result.String()); err != nil {
			return err
		}
		return consentFailure(res)
	}
	if err := approveRequest(s, opts, r); err != nil {
		return err
	}
	if e != nil {
		return writeGrant(s, opts, e, r, plan)
	}
	return nil
}

func runDeny(s *streams, opts *approvalsOptions) error {
	var errs []error
	for _, id := range opts.ids {
		if !approval.ValidID(id) {
			errs = append(errs, fmt.Errorf("%q is not an approval id", id))
			continue
		}
		if r, err := approval.Get(opts.dir, id); err == nil && r.StateAt(opts.now()) == approval.Approved {
			// Approved but not used yet: denying it now withdraws it.
			if err := revoke(s, opts, id); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := denyRequest(opts, id); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(s.err, "guard: denied %s\n", id)
	}
	if len(errs) > 0 {
		return failf([]string{"run 'guard approvals' to list the requests"}, "%v", errors.Join(errs...))
	}
	return nil
}

func runReview(s *streams, opts *approvalsOptions) error {
	if opts.ttl <= 0 {
		return usagef("use --for 15m, for example", "--for must be positive")
	}
	t, err := openTerminal()
	if err != nil {
		return noTerminalError(err, "run 'guard review' in a terminal")
	}
	defer t.Close()
	reqs, err := approval.List(opts.dir, opts.now)
	if err != nil {
		return failf(nil, "%v", err)
	}
	var approved, denied, left int
	seen := 0
walk:
	for _, r := range reqs {
		if r.State != approval.Pending {
			continue
		}
		seen++
		res, err := decideRequest(t, opts, r, true)
		if err != nil {
			return err
		}
		switch res.result {
		case consentApproved:
			if err := approveRequest(s, opts, r); err != nil {
				report(s.err, err)
				left++
				continue
			}
			approved++
		case consentRefused:
			if err := denyRequest(opts, r.ID); err != nil {
				report(s.err, err)
				left++
				continue
			}
			fmt.Fprintf(s.err, "guard: denied %s\n", r.ID)
			denied++
		case consentSkipped:
			left++
		case consentTimedOut:
			fmt.Fprintf(s.err, "guard: no answer within %s; stopping\n", shortDuration(res.timeout))
			left++
			break walk
		default: // wrong PIN, locked out, no PIN: it stays pending
			if err := opts.recordQueueDecision(r, res.auditDecision(r.Level), "approval "+r.ID+" not granted: "+res.result.String()); err != nil {
				return err
			}
			report(s.err, consentFailure(res))
			left++
		}
	}
	if seen == 0 {
		fmt.Fprintln(s.err, "guard: no pending approval requests")
		return nil
	}
	fmt.Fprintf(s.err, "guard: %d approved, %d denied, %d left pending\n", approved, denied, left)
	return nil
}

// pendingRequest loads a request that can still be approved.
func pendingRequest(opts *approvalsOptions, id string) (approval.Request, error) {
	r, err := approval.Get(opts.dir, id)
	if errors.Is(err, approval.ErrNotFound) {
		return r, failf([]string{"run 'guard approvals' to list the requests"}, "no approval request %s", id)
	} else if err != nil {
		return r, failf(nil, "%v", err)
	}
	st := r.StateAt(opts.now())
	switch st {
	case approval.Pending:
		return r, nil
	case approval.Expired:
		return r, failf([]string{"ask the agent to run the command again; it will be queued anew"}, "approval request %s has expired", id)
	}
	return r, failf(nil, "%v", &approval.StateError{ID: id, State: st})
}

// decideRequest shows a request on the terminal and asks for consent (and the
// PIN for C).
func decideRequest(t *terminal, opts *approvalsOptions, r approval.Request, allowSkip bool) (consentOutcome, error) {
	now := opts.now()
	t.say("\n%s\n", t.bold(fmt.Sprintf("guard: approval request %s, level %s, queued %s ago", r.ID, r.Level, shortDuration(now.Sub(r.Created)))))
	t.say("  command:   %s\n", printable(r.Command, false))
	t.say("  cwd:       %s\n", printable(r.Cwd, false))
	t.say("  workspace: %s\n", printable(r.Workspace, false))
	if r.Provenance != "" || r.Session != "" {
		from := r.Provenance
		if r.Session != "" {
			from = strings.TrimPrefix(from+", session "+r.Session, ", ")
		}
		t.say("  from:      %s\n", printable(from, false))
	}
	if opts.showGrant != nil {
		opts.showGrant(t)
	}
	c := consent{
		level:       r.Level,
		explanation: r.Explanation,
		details:     r.Details,
		question:    "Approve this?",
		timeout:     opts.timeout,
		pins:        opts.pins,
		allowSkip:   allowSkip,
	}
	if r.Level == review.C {
		c.auditHead = auditHeadText(opts.auditHead)
	}
	res, err := askConsent(t, c)
	if err != nil {
		return res, failf(nil, "%v", err)
	}
	return res, nil
}

// approveRequest records the approval and says how long it lasts.
func approveRequest(s *streams, opts *approvalsOptions, r approval.Request) error {
	if err := opts.recordQueueDecision(r, consentOutcome{result: consentApproved}.auditDecision(r.Level), fmt.Sprintf("approval %s granted for %s", r.ID, shortDuration(opts.ttl))); err != nil {
		return err
	}
	got, err := approval.Approve(opts.dir, r.ID, approval.Grant{TTL: opts.ttl, PIN: r.Level == review.C}, opts.now)
	if err != nil {
		return failf(nil, "%v", err)
	}
	fmt.Fprintf(s.err, "guard: approved %s until %s; it is good for one run of that exact command\n", got.ID, clock(got.Expires))
	return nil
}

// announceQueued says at once that request req was queued (the pending
// line an agent or a script can watch for) and notifies the user,
// best-effort: a notification that fails is a warning, never a failure.
func announceQueued(s *streams, req approval.Request, notify approval.Notifications) {
	fmt.Fprintf(s.err, "guard: pending: level %s needs approval; queued as %s\n", req.Level, req.ID)
	if err := approval.Notify(context.Background(), req, notify); err != nil {
		fmt.Fprintf(s.err, "guard: warning: approval notification: %v\n", err)
	}
}

// waitPoll is how often a waiting guard reads the queue: the user's
// decision is seen within this, and a poll is one small file read.
const waitPoll = 100 * time.Millisecond

// awaitDecision waits up to wait for the user's decision about request id
// (queued for a's review) from another terminal: approved, the approval is
// consumed and the command runs; denied, it does not (126); no decision
// within wait, the request stays pending and guard exits 126 with the way
// to approve it. It returns the audit decision, and nil only when the
// command may run.
func awaitDecision(s *streams, e *decision.Engine, a *assessment, id string, wait time.Duration) (audit.Decision, error) {
	pending := &exitError{code: exitNotRun, err: errors.New("pending approval"), silent: true}
	hint := func() {
		fmt.Fprintf(s.err, "guard: hint: run 'guard approve %s' in a terminal, then run the same command again\n", id)
	}
	if wait <= 0 {
		hint()
		return audit.Pending, pending
	}
	waitText := shortDuration(wait)
	if wait < time.Second {
		waitText = wait.String()
	}
	fmt.Fprintf(s.err, "guard: waiting up to %s for 'guard approve %s' or 'guard deny %s' in your terminal\n", waitText, id, id)
	dir := e.Dirs().Approvals()
	now := e.Env().Now
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		r, err := approval.Get(dir, id)
		if err != nil {
			return audit.Failed, failf([]string{"check that guard's state directory is readable ('guard doctor')"}, "read approval request %s: %v", id, err)
		}
		switch r.StateAt(now()) {
		case approval.Approved:
			got, err := approval.Consume(dir, a.Binding(), now)
			if err != nil {
				fmt.Fprintf(s.err, "guard: error: approval %s cannot be used: %v\n", id, err)
				return audit.Refused, &exitError{code: exitNotRun, err: errors.New("approval not usable"), silent: true}
			}
			fmt.Fprintf(s.err, "guard: using approval %s (level %s)\n", got.ID, r.Level)
			return audit.ApprovedQueue, nil
		case approval.Denied:
			fmt.Fprintf(s.err, "guard: denied: you denied request %s; nothing was run\n", id)
			return audit.Refused, &exitError{code: exitNotRun, err: errors.New("denied"), silent: true}
		case approval.Pending:
		default:
			fmt.Fprintf(s.err, "guard: error: approval request %s is %s; nothing was run\n", id, r.StateAt(now()))
			return audit.Refused, &exitError{code: exitNotRun, err: errors.New("not approved"), silent: true}
		}
		select {
		case <-deadline.C:
			fmt.Fprintf(s.err, "guard: no decision within %s; %s stays pending\n", waitText, id)
			hint()
			return audit.Pending, pending
		case <-tick.C:
		}
	}
}
