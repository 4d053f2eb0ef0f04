package review_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// TestReadOnlyQueryGrant: a read-only query by a known client is A, with
// the network and that client's credential read-only for this command
// (Sandbox.Reveal, not in Hide), and the explanation says so. Anything
// else on the line keeps its own level.
func TestReadOnlyQueryGrant(t *testing.T) {
	ctx := func() *profile.Context {
		return &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
			ConfigDir: "/home/u/.config/guard", StateDir: "/home/u/.local/state/guard"}
	}
	cases := []struct {
		cmd    string
		level  review.Level
		reveal []string
		net    bool
	}{
		{"gh pr list", review.A, []string{"/home/u/.config/gh"}, true},
		{"kubectl get pods", review.A, []string{"/home/u/.kube"}, true},
		{"npm view react", review.A, []string{"/home/u/.npmrc"}, true},
		{"git ls-remote origin", review.A, []string{"/home/u/.config/git/credentials", "/home/u/.git-credentials"}, true},
		{"dig example.com", review.A, nil, true},
		{"gh pr create --fill", review.B, nil, true},                        // not a query: no credential grant
		{"kubectl delete pod x", review.C, nil, true},                       // destroying is C
		{"git status", review.A, nil, false},                                // no network at all
		{"gh pr list | sh", review.C, []string{"/home/u/.config/gh"}, true}, // its output is network data
	}
	for _, c := range cases {
		x := ctx()
		in := review.Input{Text: c.cmd, Context: x, Provenance: review.ProvAgent}
		v := review.Assess(profile.Build(c.cmd, x), in)
		if v.Level != c.level {
			t.Errorf("%s: level %s, want %s", c.cmd, v.Level, c.level)
		}
		want := c.reveal
		if !slices.Equal(v.Sandbox.Reveal, want) {
			t.Errorf("%s: reveal %v, want %v", c.cmd, v.Sandbox.Reveal, want)
		}
		if v.Sandbox.Net != c.net {
			t.Errorf("%s: net %v, want %v", c.cmd, v.Sandbox.Net, c.net)
		}
		for _, r := range c.reveal {
			if slices.Contains(v.Sandbox.Hide, r) {
				t.Errorf("%s: %s is both hidden and revealed", c.cmd, r)
			}
			if !strings.Contains(v.Explanation, "reads ") || !strings.Contains(v.Explanation, r) || !strings.Contains(v.Explanation, "(read-only, this command only)") {
				t.Errorf("%s: explanation does not name the read-only grant of %s:\n%s", c.cmd, r, v.Explanation)
			}
		}
		if len(c.reveal) == 0 && c.level == review.A && slices.Contains(v.Sandbox.Hide, "/home/u/.config/gh") == false {
			t.Errorf("%s: ~/.config/gh is not hidden", c.cmd)
		}
	}
}
