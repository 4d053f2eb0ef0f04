package decision

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Options are the inputs of one review besides the text.
type Options struct {
	Cwd        string // "" = the current directory
	Workspace  string // "" = git top-level of cwd, else cwd
	Provenance review.Provenance
	MinLevel   review.Level
	WidenNet   bool
	WidenWrite []string
	// WidenDaemons lets the command reach local daemons' sockets
	// (--daemons).
	WidenDaemons bool
	// Recoverable are the delete targets guard's checkpoint restores
	// (checkpoint.Cover): a workspace delete of one of them is A.
	Recoverable []string
}

// Assessment is a review with everything it was computed from.
type Assessment struct {
	Text    string
	Ctx     *profile.Context
	Profile *profile.Profile
	Input   review.Input
	// Verdict is the review after policy; Reviewed before it.
	Verdict  review.Verdict
	Reviewed review.Verdict
	// Policy is the effective policy applied; Matches the rules that
	// moved the level, in order; Warnings the parts of the policy files
	// that are ignored (a project's allow rules and grants).
	Policy   *policy.Policy
	Matches  []policy.Match
	Warnings []policy.Warning
	// UserAllowedB: review gave B and a user allow rule lowered it to A.
	// Only such a line runs in CI and agents without a prompt.
	UserAllowedB bool
	// KeepEnv are variables user grants keep in the sandbox; NetPorts the
	// ports a grant asked for.
	KeepEnv  []string
	NetPorts []int
}

// Assess runs parse → profile → review → policy on text. A policy file
// that cannot be used is an error: never skipped.
func (e *Engine) Assess(text string, o Options) (*Assessment, error) {
	ctx, err := e.Context(o.Cwd, o.Workspace)
	if err != nil {
		return nil, err
	}
	pol, err := e.Policy(ctx)
	if err != nil {
		return nil, err
	}
	return AssessIn(text, ctx, pol, o), nil
}

// AssessIn is Assess with the context and policy already gathered (guard
// scan builds them once per directory). It does no I/O besides what ctx's
// ReadFile and EvalSymlinks do.
func AssessIn(text string, ctx *profile.Context, pol *policy.Policy, o Options) *Assessment {
	if o.Provenance == "" {
		o.Provenance = review.ProvAgent
	}
	in := review.Input{Text: text, Context: ctx, Provenance: o.Provenance, MinLevel: o.MinLevel, WidenNet: o.WidenNet, WidenWrite: o.WidenWrite, WidenDaemons: o.WidenDaemons, Recoverable: o.Recoverable}
	p := profile.Build(text, ctx)
	v := review.Assess(p, in)
	out := policy.Apply(pol, p, v, in)
	return &Assessment{
		Text: text, Ctx: ctx, Profile: p, Input: in,
		Verdict: out.Verdict, Reviewed: v, Policy: pol, Matches: out.Matches, Warnings: pol.Warnings(),
		UserAllowedB: out.LoweredFromB, KeepEnv: out.KeepEnv, NetPorts: out.NetPorts,
	}
}

// FirstReason is the verdict's main reason (the highest level, first).
func (a *Assessment) FirstReason() review.Reason {
	if len(a.Verdict.Reasons) > 0 {
		return a.Verdict.Reasons[0]
	}
	return review.Reason{Rule: "level", Message: "needs approval"}
}

// RuleIDs are the verdict's rule ids, in order.
func (a *Assessment) RuleIDs() []string {
	var ids []string
	for _, r := range a.Verdict.Reasons {
		ids = append(ids, r.Rule)
	}
	return ids
}

// ChangedInputs returns the files the review read whose contents are no
// longer what it read (one created since counts: it was absent). An
// approval given while a script sat on the screen is for what the script
// held then; checked again right before the command runs, a change means
// the approval is not for what would run.
func (a *Assessment) ChangedInputs() []string {
	var changed []string
	for _, in := range a.Profile.Inputs {
		sum := "absent"
		if a.Ctx.ReadFile != nil {
			if data, err := a.Ctx.ReadFile(in.Path); err == nil {
				h := sha256.Sum256(data)
				sum = hex.EncodeToString(h[:])
			}
		}
		if sum != in.Sum {
			changed = append(changed, in.Path)
		}
	}
	return changed
}
