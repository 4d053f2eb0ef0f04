package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/review"
)

// TestGrantScopes: what each --scope allows once written to the user's
// policy, in the request's workspace only; C is exact-only.
func TestGrantScopes(t *testing.T) {
	w := newHookWorld(t)
	for _, d := range []string{"build", "dist"} {
		if err := os.MkdirAll(filepath.Join(w.proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(w.proj)
	e, err := newEngine()
	if err != nil {
		t.Fatal(err)
	}
	request := func(text string) approval.Request {
		a, err := e.Assess(text, assessOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return approval.Request{ID: "0a1b2c3d", Binding: a.Binding(), Level: a.Verdict.Level}
	}
	level := func(pol []byte, text string) review.Level {
		t.Helper()
		if err := os.WriteFile(e.Dirs().UserPolicy(), pol, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(e.Dirs().UserPolicy())
		a, err := e.Assess(text, assessOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return a.Verdict.Level
	}
	if err := os.MkdirAll(filepath.Dir(e.Dirs().UserPolicy()), 0o700); err != nil {
		t.Fatal(err)
	}
	r := request("rm -rf build")
	// allowed: the grant lowers it to A; otherwise it keeps its level.
	cases := []struct {
		scope   string
		allowed map[string]bool
	}{
		{scopeExact, map[string]bool{"rm -rf build": true, "rm -rf dist": false, "rm -rf ../elsewhere": false}},
		{scopeCommand, map[string]bool{"rm -rf build": true, "rm -rf dist": true, "rm -rf ../elsewhere": false, "git clean -fdx": false}},
		{scopeRule, map[string]bool{"rm -rf build": true, "rm -rf dist": true, "rm -rf ../elsewhere": false}},
	}
	for _, c := range cases {
		plan, err := planGrant(e, r, c.scope, 8*time.Hour)
		if err != nil {
			t.Fatalf("%s: %v", c.scope, err)
		}
		pol, err := policy.AppendGrant(e.Dirs().UserPolicy(), nil, plan.grant)
		if err != nil {
			t.Fatalf("%s: %v", c.scope, err)
		}
		for text, allowed := range c.allowed {
			want := level(nil, text)
			if allowed {
				want = review.A
			}
			if got := level(pol, text); got != want {
				t.Errorf("--scope %s: %q is %s, want %s (rule:\n%s)", c.scope, text, got, want, pol)
			}
		}
	}

	// Level C: exact only.
	rc := request("git push --force origin main")
	if rc.Level != review.C {
		t.Fatalf("level %s, want C", rc.Level)
	}
	for _, scope := range []string{scopeCommand, scopeRule} {
		if _, err := planGrant(e, rc, scope, time.Hour); err == nil || !strings.Contains(err.Error(), "cannot be widened") {
			t.Errorf("C with --scope %s: %v; want refused", scope, err)
		}
	}
	if _, err := planGrant(e, rc, scopeExact, time.Hour); err != nil {
		t.Errorf("C with --scope exact: %v", err)
	}

	// A request whose review changed since (another digest) is not granted.
	stale := r
	stale.Digest = "sha256:other"
	if _, err := planGrant(e, stale, scopeExact, time.Hour); err == nil || !strings.Contains(err.Error(), "reviews differently now") {
		t.Errorf("stale request: %v; want refused", err)
	}
}
