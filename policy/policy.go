package policy

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Scope says whose file a rule comes from, which decides what it may do.
type Scope int

const (
	// Builtin is guard's embedded default policy.
	Builtin Scope = iota
	// User is the user's own policy ($XDG_CONFIG_HOME/guard/policy.toml):
	// it may raise, deny, lower (allow) and grant.
	User
	// Project is a workspace's .guard.toml: it may only raise and deny.
	// Its allow rules and grants are ignored and reported.
	Project
)

func (s Scope) String() string {
	switch s {
	case Builtin:
		return "builtin"
	case User:
		return "user"
	case Project:
		return "project"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Origin is where a rule or a floor was written.
type Origin struct {
	Scope Scope
	Path  string // the file as given to Parse
	Line  int
}

// String reads "user policy.toml:12": the scope, the file's base name and
// the line.
func (o Origin) String() string {
	return fmt.Sprintf("%s %s:%d", o.Scope, filepath.Base(o.Path), o.Line)
}

// Rule is one policy rule: a match and an effect. A rule matches a
// command line when every part of its match that is set holds (see
// docs/policy.md for how each part is evaluated).
type Rule struct {
	ID          string
	Description string
	Origin      Origin

	// The match.
	Command string   // argv glob: "git push *"
	Regex   string   // over the whole command text
	Paths   []string // doublestar globs over resolved path targets
	Caps    []profile.Cap

	// The effect.
	Deny    bool
	Message string
	Require review.Level // 0, B or C
	Allow   bool

	// Sandbox grants.
	GrantWrite []string // absolute, ~ expanded at apply time
	GrantNet   bool
	NetPorts   []int // with GrantNet: the ports asked for (nil: all)
	KeepEnv    []string

	// Self-tests, checked whenever the policy loads.
	Examples    []string
	NotExamples []string

	// Limits: the rule applies only in Workspace ("" = everywhere) and
	// only before Expires (zero = always). Policy.At drops the rest.
	Workspace string
	Expires   time.Time

	compiled compiled
	pos      rulePos
}

// Loosens reports whether the rule lowers a level or widens the sandbox:
// what a project policy may not do.
func (r *Rule) Loosens() bool {
	return r.Allow || r.grants()
}

func (r *Rule) grants() bool {
	return len(r.GrantWrite) > 0 || r.GrantNet || len(r.KeepEnv) > 0
}

// effective reports whether the rule's loosening parts apply: never for a
// project policy.
func (r *Rule) effectiveLoosening() bool {
	return r.Origin.Scope != Project && r.Loosens()
}

// File is one parsed policy file.
type File struct {
	Path  string
	Scope Scope
	// MinLevel is the file's floor (0 when it sets none).
	MinLevel     review.Level
	MinLevelLine int
	Rules        []*Rule
	// Warnings report what the file asked for and does not get: allow
	// rules and grants in a project policy.
	Warnings []Warning
}

// Policy is the effective policy: the builtin defaults, then the user's
// file, then the project's, in that order.
type Policy struct {
	Files []*File
}

// Rules lists every rule in evaluation order.
func (p *Policy) Rules() []*Rule {
	if p == nil {
		return nil
	}
	var out []*Rule
	for _, f := range p.Files {
		out = append(out, f.Rules...)
	}
	return out
}

// At is the policy as it stands at now in workspace: without the rules
// that have expired or belong to another workspace. The clock is the
// caller's, so Apply stays pure.
func (p *Policy) At(now time.Time, workspace string) *Policy {
	if p == nil {
		return nil
	}
	out := &Policy{Files: make([]*File, len(p.Files))}
	for i, f := range p.Files {
		keep := f.Rules[:0:0]
		for _, r := range f.Rules {
			if r.InForce(now, workspace) {
				keep = append(keep, r)
			}
		}
		if len(keep) == len(f.Rules) {
			out.Files[i] = f
			continue
		}
		c := *f
		c.Rules = keep
		out.Files[i] = &c
	}
	return out
}

// InForce reports whether the rule applies at now in workspace.
func (r *Rule) InForce(now time.Time, workspace string) bool {
	if !r.Expires.IsZero() && !now.Before(r.Expires) {
		return false
	}
	return r.Workspace == "" || r.Workspace == workspace
}

// Warnings lists what the files asked for and do not get.
func (p *Policy) Warnings() []Warning {
	if p == nil {
		return nil
	}
	var out []Warning
	for _, f := range p.Files {
		out = append(out, f.Warnings...)
	}
	return out
}

// Warning is a part of a policy that is ignored, with where it was written.
type Warning struct {
	Origin Origin
	Rule   string
	Msg    string
}

// String reads ".guard.toml:7: rule X: allow is ignored in a project policy
// (a cloned repository cannot loosen guard)".
func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: rule %s: %s", filepath.Base(w.Origin.Path), w.Origin.Line, w.Rule, w.Msg)
}

// Error is a policy file that cannot be used, with the position of what is
// wrong and a hint for fixing it. Error() reads "PATH:LINE:COL: what".
type Error struct {
	Path string
	Line int
	Col  int
	Msg  string
	Hint string
	Err  error // the underlying error, if any
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }
