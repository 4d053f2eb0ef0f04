package policy

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// testCtx is a fake world: home /home/u, workspace /home/u/proj.
func testCtx() *profile.Context {
	return &profile.Context{
		Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
		Env:       map[string]string{"TMPDIR": "/tmp"},
		ConfigDir: "/home/u/.config/guard", StateDir: "/home/u/.local/state/guard",
	}
}

// mustParse parses a policy file for a test; the file text is dedented.
func mustParse(t testing.TB, scope Scope, text string) *File {
	t.Helper()
	name := "policy.toml"
	if scope == Project {
		name = ".guard.toml"
	}
	f, err := Parse("/cfg/"+name, []byte(dedent(text)), scope)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return f
}

// pol builds a policy from a user file and, optionally, a project file,
// running their examples as Load does.
func pol(t testing.TB, user, project string) *Policy {
	t.Helper()
	var srcs []Source
	if user != "" {
		srcs = append(srcs, Source{Path: "/cfg/policy.toml", Data: []byte(dedent(user)), Scope: User})
	}
	if project != "" {
		srcs = append(srcs, Source{Path: "/home/u/proj/.guard.toml", Data: []byte(dedent(project)), Scope: Project})
	}
	p, err := Load(testCtx(), srcs...)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

type opt func(*review.Input)

func untrusted(in *review.Input)  { in.Provenance = review.ProvUntrusted }
func minLevel(l review.Level) opt { return func(in *review.Input) { in.MinLevel = l } }
func widenNet(in *review.Input)   { in.WidenNet = true }

var _ = []opt{untrusted, widenNet}

// run reviews text and applies the policy, as the engine does.
func run(t testing.TB, p *Policy, text string, opts ...opt) (review.Verdict, Outcome) {
	t.Helper()
	ctx := testCtx()
	in := review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent}
	for _, o := range opts {
		o(&in)
	}
	prof := profile.Build(text, ctx)
	v := review.Assess(prof, in)
	return v, Apply(p, prof, v, in)
}

func dedent(s string) string {
	lines := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}

func ruleIDs(v review.Verdict) []string {
	var out []string
	for _, r := range v.Reasons {
		out = append(out, r.Rule+"="+r.Level.String())
	}
	return out
}

func buildFor(text string) *profile.Profile { return profile.Build(text, testCtx()) }
