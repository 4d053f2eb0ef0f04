package audit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/guard-sh/guard/review"
)

// Version is the record format written in every record's "v" field.
const Version = 1

// Record is one line of the audit log: a decision about a request, or the
// outcome of running it. A request usually leaves two records with the same
// ID: the decision (approved-tty, refused, pending, …) and, if it ran, the
// outcome (ran, with Exit and Duration).
type Record struct {
	// V is the record format version; Append sets it.
	V int `json:"v"`
	// Time is when the record was appended; Append sets it from the log's
	// clock, under the lock, so times follow file order.
	Time time.Time `json:"time"`
	// ID is the request id (NewID) that ties a decision to its outcome.
	ID string `json:"id,omitempty"`
	// Session is the agent's session id when a hook provides one, else
	// the parent process ("ppid:1234"); see Session.
	Session string `json:"session,omitempty"`
	// Provenance says where the command came from (a hook, the shell, a
	// user at the terminal).
	Provenance string `json:"provenance,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	Workspace  string `json:"workspace,omitempty"`
	// Command is the command text. Append masks it (Mask) whatever the
	// caller passed.
	Command string `json:"command"`
	// Level and Rules are the verdict: its level and the ids of the rules
	// that fired. Level is omitted when no review happened.
	Level review.Level `json:"level,omitempty"`
	Rules []string     `json:"rules,omitempty"`
	// Decision is what happened; it must be one of Decisions.
	Decision Decision `json:"decision"`
	// Sandbox is the confinement the command was approved to run in, on
	// the approval (decision) record; the outcome under the same id does
	// not repeat it.
	Sandbox *review.Sandbox `json:"sandbox,omitempty"`
	// HideSet and ProtectSet name the set files (sets.go) that hold
	// Sandbox's Hide and Protect lists when those are long: in the log
	// line the lists are null and these carry them. Read puts the lists
	// back; Append fills these in.
	HideSet    string `json:"hide_set,omitempty"`
	ProtectSet string `json:"protect_set,omitempty"`
	// Exit is the child's exit status (signal N → 128+N), for outcomes.
	Exit *int `json:"exit,omitempty"`
	// Duration is how long the child ran, for outcomes.
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Violations are the protected paths the command changed (and guard
	// restored or could not restore), for outcomes.
	Violations []string `json:"violations,omitempty"`
	// Note is free text: why a command failed to start, which approval
	// it used. Append masks it.
	Note string `json:"note,omitempty"`
	// Prev is the SHA-256 (hex) of the previous line's exact bytes,
	// without its newline; "" for the first record of a log. Append sets
	// it.
	Prev string `json:"prev"`
	// Hash is the SHA-256 (hex) of this record's line. It is not stored:
	// Append and Read compute it, and the next record's Prev carries it.
	Hash string `json:"-"`
}

// Decision is what guard decided about a request, or what became of it.
type Decision string

// Decisions, in the order a request meets them.
const (
	// Pending: queued for approval; nothing ran.
	Pending Decision = "pending"
	// ApprovedAuto: level A, runs without asking.
	ApprovedAuto Decision = "approved-auto"
	// ApprovedTTY: the user consented at the terminal.
	ApprovedTTY Decision = "approved-tty"
	// ApprovedPIN: the user consented and gave the PIN.
	ApprovedPIN Decision = "approved-pin"
	// ApprovedQueue: a queued request was approved.
	ApprovedQueue Decision = "approved-queue"
	// Refused: the user said no.
	Refused Decision = "refused"
	// TimedOut: nobody answered in time; nothing ran.
	TimedOut Decision = "timed-out"
	// DeniedPolicy: a policy rule denies the command; nothing ran.
	DeniedPolicy Decision = "denied-policy"
	// DeniedPIN: the PIN was wrong or PIN entry is locked out.
	DeniedPIN Decision = "denied-pin"
	// Ran: the command ran; Exit and Duration say how it ended.
	Ran Decision = "ran"
	// NotFound: the program was not found (exit 127).
	NotFound Decision = "not-found"
	// Failed: guard could not start or confine the command.
	Failed Decision = "failed"
	// Granted: the user gave a standing grant (an expiring allow rule in
	// their policy) with guard approve --grant; Note names the rule.
	Granted Decision = "granted"
	// Revoked: the user withdrew a grant or an unused approval.
	Revoked Decision = "revoked"
	// Undone: guard undo restored a checkpoint; Note says what it did.
	Undone Decision = "undone"
)

// decisionClass groups decisions for summaries.
type decisionClass int

const (
	classApproved decisionClass = iota + 1
	classNotRun                 // refused, timed out or denied
	classPending
	classOutcome
)

// decisions is the table of known decisions. A new decision is a new row.
var decisions = []struct {
	d     Decision
	class decisionClass
}{
	{Pending, classPending},
	{ApprovedAuto, classApproved},
	{ApprovedTTY, classApproved},
	{ApprovedPIN, classApproved},
	{ApprovedQueue, classApproved},
	{Refused, classNotRun},
	{TimedOut, classNotRun},
	{DeniedPolicy, classNotRun},
	{DeniedPIN, classNotRun},
	{Ran, classOutcome},
	{NotFound, classOutcome},
	{Undone, classOutcome},
	{Failed, classOutcome},
	{Granted, classApproved},
	{Revoked, classNotRun},
}

// Decisions lists the known decisions.
func Decisions() []Decision {
	out := make([]Decision, len(decisions))
	for i, d := range decisions {
		out[i] = d.d
	}
	return out
}

func (d Decision) class() decisionClass {
	for _, row := range decisions {
		if row.d == d {
			return row.class
		}
	}
	return 0
}

// ParseDecision reads a decision name such as "approved-tty".
func ParseDecision(s string) (Decision, error) {
	d := Decision(s)
	if d.class() == 0 {
		return "", fmt.Errorf("unknown decision %q", s)
	}
	return d, nil
}

// NewID returns a fresh random request id: 16 hex digits.
func NewID() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Session names the session a request belongs to: the agent's session id
// when a hook provides one, else the parent process ("ppid:1234").
func Session(hookSession string, ppid int) string {
	if hookSession != "" {
		return hookSession
	}
	return "ppid:" + strconv.Itoa(ppid)
}
