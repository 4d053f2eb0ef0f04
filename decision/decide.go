package decision

import (
	"errors"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/review"
)

// Action is what happens next with a reviewed command.
type Action int

const (
	// Run: level A, or a B lowered to A by the user's own policy.
	Run Action = iota + 1
	// Refuse: a policy rule denies it. Nothing can approve it.
	Refuse
	// UseApproval: the user approved exactly this review earlier.
	UseApproval
	// Ask: someone here can answer this level (the caller asks).
	Ask
	// Queue: nobody here can answer; the request waits for the user.
	Queue
)

func (a Action) String() string {
	switch a {
	case Run:
		return "run"
	case Refuse:
		return "refuse"
	case UseApproval:
		return "use-approval"
	case Ask:
		return "ask"
	case Queue:
		return "queue"
	}
	return "unknown"
}

// Who says who is present to answer, and whether the caller runs the
// command itself.
type Who struct {
	// AskB: someone here can answer a level B question: a person at a
	// terminal, or an agent whose own prompt asks its user.
	AskB bool
	// AskC: someone here can answer a level C question, which needs the
	// PIN: only a person at guard's own terminal.
	AskC bool
	// Consume: the caller runs the command now, so a matching approval is
	// used up (once, atomically). A hook only looks: the guard run it
	// hands the command to consumes the approval.
	Consume bool
	// Token is the secret of an approval given in an agent's own prompt
	// (EnqueueAsked): the rewritten command the agent runs after its
	// user's yes carries it. With Consume, such an approval bound to
	// exactly this review and this token is used first.
	Token string
}

// Decision is the outcome of Decide.
type Decision struct {
	Action Action
	Level  review.Level
	// Reason is the verdict's first reason (the rule that refuses, or the
	// main reason it needs approval).
	Reason review.Reason
	// Binding is what an approval for this review is bound to.
	Binding approval.Binding
	// Approval is the id of the approval used (UseApproval); Asked the
	// agent whose prompt gave it, when it was given there.
	Approval string
	Asked    string
	// Pending is the id of a request for the same review that is already
	// waiting (Queue): it is not queued again.
	Pending string
	// Unusable is an approval for the same review that exists but cannot
	// be used (denied, expired, used, or a C approved without the PIN).
	Unusable *approval.StateError
}

// Binding is the approval binding of a: the exact text, cwd, workspace and
// verdict digest (which covers the contents of every file the review
// read).
func (a *Assessment) Binding() approval.Binding {
	return approval.Binding{Command: a.Text, Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Digest: a.Verdict.Digest}
}

// Decide is the ladder, the one copy of it:
//
//  1. deny (a policy rule) refuses;
//  2. A runs;
//  3. an approval from the queue bound to exactly this review is used
//     (consumed when who.Consume);
//  4. when someone here can answer this level, ask;
//  5. otherwise queue (or point at the request already pending).
//
// Reading the queue can fail: that is an error, never a lower level.
func (e *Engine) Decide(a *Assessment, who Who) (Decision, error) {
	v := a.Verdict
	d := Decision{Level: v.Level, Reason: a.FirstReason(), Binding: a.Binding()}
	switch v.Level {
	case review.Deny:
		d.Action = Refuse
		return d, nil
	case review.A:
		d.Action = Run
		return d, nil
	case review.B, review.C:
	default:
		return d, fmt.Errorf("decide: unknown level %v", v.Level)
	}
	dir := e.dirs.Approvals()
	if who.Consume && who.Token != "" {
		req, err := approval.ConsumeAsked(dir, d.Binding, who.Token, e.env.Now)
		var se *approval.StateError
		switch {
		case err == nil:
			d.Action, d.Approval, d.Asked = UseApproval, req.ID, req.Asked
			return d, nil
		case errors.As(err, &se):
			d.Unusable = se
		case !errors.Is(err, approval.ErrNotFound):
			return d, fmt.Errorf("read the approval queue: %w", err)
		}
	}
	if who.Consume {
		req, err := approval.Consume(dir, d.Binding, e.env.Now)
		switch {
		case err == nil:
			d.Action, d.Approval = UseApproval, req.ID
			return d, nil
		case errors.Is(err, approval.ErrNotFound):
		default:
			var se *approval.StateError
			if !errors.As(err, &se) {
				return d, fmt.Errorf("read the approval queue: %w", err)
			}
			if se.State == approval.Pending {
				d.Pending = se.ID
			} else {
				d.Unusable = se
			}
		}
	} else {
		approved, pending, err := approval.Find(dir, d.Binding, e.env.Now)
		if err != nil {
			return d, fmt.Errorf("read the approval queue: %w", err)
		}
		if approved != "" {
			d.Action, d.Approval = UseApproval, approved
			return d, nil
		}
		d.Pending = pending
	}
	if v.Level == review.B && who.AskB || v.Level == review.C && who.AskC {
		d.Action = Ask
		return d, nil
	}
	d.Action = Queue
	return d, nil
}

// Enqueue adds a request for a (decided Queue) to the approval queue and
// returns it with its id. provenance and session say who asked.
func (e *Engine) Enqueue(a *Assessment, provenance, session string) (approval.Request, error) {
	req := e.request(a, provenance, session)
	id, err := approval.Add(e.dirs.Approvals(), req)
	if err != nil {
		return req, fmt.Errorf("queue the approval request: %w", err)
	}
	req.ID = id
	return req, nil
}

// request is the queue entry for a, before Add.
func (e *Engine) request(a *Assessment, provenance, session string) approval.Request {
	return approval.Request{
		Created: e.env.Now(), Binding: a.Binding(), Provenance: provenance, Level: a.Verdict.Level,
		Explanation: audit.Mask(a.Verdict.Explanation), Details: a.Details(), Session: session,
	}
}

// EnqueueAsked adds an approval for a (decided Ask, level B) given in
// agent's own prompt and bound to a new token, which it returns: the hook
// puts the token into the rewritten command the agent runs only after its
// user's yes. Nothing else can use the approval (see approval.AddAsked).
func (e *Engine) EnqueueAsked(a *Assessment, provenance, session, agent string) (approval.Request, string, error) {
	token, err := approval.NewToken()
	if err != nil {
		return approval.Request{}, "", err
	}
	req := e.request(a, provenance, session)
	got, err := approval.AddAsked(e.dirs.Approvals(), req, agent, token)
	if err != nil {
		return got, "", fmt.Errorf("queue the agent's approval: %w", err)
	}
	return got, token, nil
}

// Details is the full profile shown on "?" at a prompt, masked.
func (a *Assessment) Details() string {
	var b strings.Builder
	for _, e := range a.Profile.Effects {
		fmt.Fprintf(&b, "%s %-10s %-24s %s\n", review.EffectLevel(e), e.Cap, e.Rule, e.Msg)
	}
	fmt.Fprintf(&b, "sandbox: %s\n", review.DescribeSandbox(a.Verdict.Sandbox))
	return audit.Mask(b.String())
}
