package decision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/review"
)

// testEngine is an engine over a temporary home and project, with the
// real clock and file system.
func testEngine(t *testing.T) *Engine {
	t.Helper()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "proj")
	for _, d := range []string{home, filepath.Join(ws, ".git"), filepath.Join(ws, "build")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state")}
	env := OS()
	env.Getenv = func(k string) string { return vars[k] }
	env.Getwd = func() (string, error) { return ws, nil }
	e, err := New(env)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDecideAskedToken: an approval given in an agent's prompt is used by
// the ladder only with its token, once; a hook's look and a run without
// the token never see it.
func TestDecideAskedToken(t *testing.T) {
	e := testEngine(t)
	a, err := e.Assess("rm -rf build", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict.Level != review.B {
		t.Fatalf("level %s, want B", a.Verdict.Level)
	}
	d, err := e.Decide(a, Who{AskB: true})
	if err != nil || d.Action != Ask {
		t.Fatalf("hook with an ask: %v, %v; want ask", d.Action, err)
	}
	req, token, err := e.EnqueueAsked(a, "hook:test", "s1", "Test Agent")
	if err != nil || len(token) != 32 || req.Asked != "Test Agent" || req.State != approval.Approved {
		t.Fatalf("EnqueueAsked = %+v, %q, %v", req, token, err)
	}
	for _, c := range []struct {
		name string
		who  Who
	}{
		{"a hook looking", Who{}},
		{"a run without the token", Who{Consume: true}},
		{"a run with another token", Who{Consume: true, Token: strings.Repeat("0", 32)}},
	} {
		d, err := e.Decide(a, c.who)
		if err != nil || d.Action != Queue || d.Approval != "" || d.Pending != "" {
			t.Errorf("%s: %v (approval %q, pending %q), %v; want queue", c.name, d.Action, d.Approval, d.Pending, err)
		}
	}
	d, err = e.Decide(a, Who{Consume: true, Token: token})
	if err != nil || d.Action != UseApproval || d.Approval != req.ID || d.Asked != "Test Agent" {
		t.Fatalf("the rewrite: %+v, %v; want use-approval %s", d, err, req.ID)
	}
	d, err = e.Decide(a, Who{Consume: true, Token: token})
	if err != nil || d.Action != Queue || d.Unusable == nil || d.Unusable.State != approval.Consumed {
		t.Errorf("a replay: %v (unusable %v), %v; want queue, naming the used approval", d.Action, d.Unusable, err)
	}
}
