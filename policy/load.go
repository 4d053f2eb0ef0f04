package policy

import (
	_ "embed"
	"fmt"
	"strconv"

	"github.com/guard-sh/guard/profile"
)

//go:embed default.toml
var defaultTOML []byte

// DefaultPath names the embedded default policy in origins and errors.
const DefaultPath = "(builtin)/default.toml"

// Default is guard's embedded default policy.
func Default() *File {
	f, err := Parse(DefaultPath, defaultTOML, Builtin)
	if err != nil {
		// The embedded file is tested; a failure here is a bug.
		panic(fmt.Sprintf("embedded default policy: %v", err))
	}
	return f
}

// Source is one policy file's contents as the caller read it.
type Source struct {
	Path  string
	Data  []byte
	Scope Scope
}

// Load parses the sources, runs every rule's examples against profiles
// built with ctx, and returns the effective policy: the embedded defaults
// followed by the sources in the order given (user, then project). Any
// error fails the whole load: there is never a partial policy.
func Load(ctx *profile.Context, srcs ...Source) (*Policy, error) {
	pol := &Policy{Files: []*File{Default()}}
	for _, s := range srcs {
		f, err := Parse(s.Path, s.Data, s.Scope)
		if err != nil {
			return nil, err
		}
		if _, err := f.Check(ctx); err != nil {
			return nil, err
		}
		pol.Files = append(pol.Files, f)
	}
	return pol, nil
}

// Check runs every rule's examples and not_examples through profile.Build
// with ctx. It returns how many it ran, or an *Error naming the rule and
// the first example that fails.
func (f *File) Check(ctx *profile.Context) (int, error) {
	n := 0
	for _, r := range f.Rules {
		if r.Workspace != "" && r.Workspace != ctx.Workspace {
			// A rule of another workspace: its examples are about paths
			// there, and it does not apply here.
			continue
		}
		for j, ex := range r.Examples {
			n++
			if !r.Matches(profile.Build(ex, ctx), ex, ctx) {
				p := r.pos.at("examples", j)
				return n, &Error{Path: f.Path, Line: p.line, Col: p.col,
					Msg:  fmt.Sprintf("rule %s: example %s does not match", r.ID, strconv.Quote(ex)),
					Hint: "fix the rule's match or the example; 'guard check --explain' shows the commands, paths and caps guard resolved"}
			}
		}
		for j, ex := range r.NotExamples {
			n++
			if r.Matches(profile.Build(ex, ctx), ex, ctx) {
				p := r.pos.at("not_examples", j)
				return n, &Error{Path: f.Path, Line: p.line, Col: p.col,
					Msg:  fmt.Sprintf("rule %s: not_example %s matches", r.ID, strconv.Quote(ex)),
					Hint: "narrow the rule's match or fix the not_example; 'guard check --explain' shows the commands, paths and caps guard resolved"}
			}
		}
	}
	return n, nil
}
