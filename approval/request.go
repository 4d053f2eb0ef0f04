package approval

import (
	"errors"
	"fmt"
	"time"

	"github.com/guard-sh/guard/review"
)

// Defaults for how long a request waits and an approval lasts.
const (
	DefaultPendingTTL  = time.Hour
	DefaultApprovalTTL = 15 * time.Minute
)

// State is where a request is in its life.
type State string

const (
	Pending  State = "pending"
	Approved State = "approved"
	Denied   State = "denied"
	Expired  State = "expired"
	Consumed State = "consumed"
	// Revoked: the user withdrew an approval before it was used (or a
	// request before deciding it).
	Revoked State = "revoked"
)

// Binding is what an approval is bound to. Consume matches all four
// fields exactly.
type Binding struct {
	// Command is the exact command text that was reviewed.
	Command string `json:"command"`
	// Cwd and Workspace are absolute paths, as the run path resolved them.
	Cwd       string `json:"cwd"`
	Workspace string `json:"workspace"`
	// Digest is review.Verdict.Digest of the review the user saw.
	Digest string `json:"digest"`
}

// Request is one queued command and what became of it.
type Request struct {
	// ID is 8 lower-case hex digits, set by Add.
	ID string `json:"id"`
	// Created is set by the caller of Add (from its clock).
	Created time.Time `json:"created"`
	// Expires is when a pending request lapses (Add sets Created +
	// DefaultPendingTTL if zero) and, once approved, when the approval
	// lapses.
	Expires time.Time `json:"expires"`
	Binding
	// Provenance says who asked: "agent:claude", "hook", "shell".
	Provenance string       `json:"provenance,omitempty"`
	Level      review.Level `json:"level"`
	// Explanation is shown before the question; Details (the full
	// profile) on request.
	Explanation string `json:"explanation"`
	Details     string `json:"details,omitempty"`
	// Session identifies the agent session that asked, if known.
	Session string `json:"session,omitempty"`

	State State `json:"state"`
	// Decided is when it was approved or denied.
	Decided time.Time `json:"decided,omitzero"`
	// PIN is true when the approval was given with the PIN checked.
	PIN bool `json:"pin,omitempty"`
	// Used is when Consume honoured the approval.
	Used time.Time `json:"used,omitzero"`
	// Asked names the agent whose own prompt asked the user (AddAsked).
	// Such an approval is bound to TokenHash as well: only ConsumeAsked
	// with the token honours it, never Consume or Find, so nothing but
	// the rewritten command the agent runs after its user's yes can use
	// it.
	Asked     string `json:"asked,omitempty"`
	TokenHash string `json:"token_hash,omitempty"`
}

// StateAt is the request's state at t: a pending or approved request past
// its Expires is Expired.
func (r Request) StateAt(t time.Time) State {
	if (r.State == Pending || r.State == Approved) && !t.Before(r.Expires) {
		return Expired
	}
	return r.State
}

// Usable reports whether r may be honoured at t: approved, unexpired,
// unused, and for level C approved with the PIN. This is the one place the
// PIN rule of an approval lives.
func (r Request) Usable(t time.Time) bool {
	return r.StateAt(t) == Approved && (r.Level == review.B || r.Level == review.C && r.PIN)
}

// Grant is how the user approved.
type Grant struct {
	// TTL is how long the approval lasts; zero means DefaultApprovalTTL.
	TTL time.Duration
	// PIN is true when the caller verified the PIN; required for C.
	PIN bool
}

// Errors. Those about one request are *StateError values, which match
// these sentinels with errors.Is.
var (
	// ErrNotFound: no request with that id, or (Consume) none bound to
	// that command.
	ErrNotFound = errors.New("no such approval request")
	ErrPending  = errors.New("approval request is still pending")
	ErrDenied   = errors.New("approval request was denied")
	ErrExpired  = errors.New("approval request has expired")
	ErrUsed     = errors.New("approval was already used")
	ErrApproved = errors.New("approval request was already approved")
	// ErrNeedsPIN: a level C request cannot be approved without the PIN.
	ErrNeedsPIN = errors.New("level C needs the PIN to approve")
)

// StateError says that a request is not in the state an operation needs.
type StateError struct {
	ID    string
	State State
}

func (e *StateError) Error() string {
	switch e.State {
	case Pending:
		return fmt.Sprintf("approval request %s is still pending", e.ID)
	case Consumed:
		return fmt.Sprintf("approval %s was already used", e.ID)
	}
	return fmt.Sprintf("approval request %s is %s", e.ID, e.State)
}

func (e *StateError) Is(target error) bool {
	switch e.State {
	case Pending:
		return target == ErrPending
	case Denied:
		return target == ErrDenied
	case Expired:
		return target == ErrExpired
	case Consumed:
		return target == ErrUsed
	case Approved:
		return target == ErrApproved
	}
	return false
}
