package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

var grantNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func exactGrant(id, text string) Grant {
	return Grant{
		ID: GrantPrefix + id, Description: "granted by guard approve " + id,
		Workspace: "/home/u/proj", Expires: grantNow.Add(8 * time.Hour),
		Regex: "^rm -rf build$", Caps: []profile.Cap{profile.CapDelete}, Examples: []string{text},
	}
}

// TestGrantLifecycle: a grant is appended to the user's file (the rest
// kept), lowers exactly what it covers in its workspace until it expires,
// and is removed again leaving the file as it was.
func TestGrantLifecycle(t *testing.T) {
	orig := []byte("# my rules\n[[rules]]\nid = \"no-force\"\ncommand = \"git push --force *\"\ndeny = true\n")
	data, err := AppendGrant("/cfg/policy.toml", orig, exactGrant("0a1b2c3d", "rm -rf build"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), string(orig)) {
		t.Errorf("the user's rules were not kept byte for byte:\n%s", data)
	}
	for _, want := range []string{"[[rules]]\nid = 'grant-0a1b2c3d'", "expires = 2026-05-01T20:00:00Z", "workspace = '/home/u/proj'", "allow = true"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("written grant lacks %q:\n%s", want, data)
		}
	}
	p, err := Load(testCtx(), Source{Path: "/cfg/policy.toml", Data: data, Scope: User})
	if err != nil {
		t.Fatal(err)
	}
	level := func(p *Policy, text string) review.Level {
		_, out := run(t, p, text)
		return out.Verdict.Level
	}
	if got := level(p.At(grantNow, "/home/u/proj"), "rm -rf build"); got != review.A {
		t.Errorf("granted command = %s, want A", got)
	}
	if got := level(p.At(grantNow, "/home/u/proj"), "rm -rf src"); got != review.B {
		t.Errorf("another command = %s, want B (the grant is for the exact text)", got)
	}
	if got := level(p.At(grantNow.Add(8*time.Hour), "/home/u/proj"), "rm -rf build"); got != review.B {
		t.Errorf("after expiry = %s, want B", got)
	}
	if got := level(p.At(grantNow, "/home/u/other"), "rm -rf build"); got != review.B {
		t.Errorf("in another workspace = %s, want B", got)
	}
	back, found, err := RemoveRule("/cfg/policy.toml", data, "grant-0a1b2c3d")
	if err != nil || !found || string(back) != string(orig) {
		t.Errorf("RemoveRule = %q, %v, %v; want the original file", back, found, err)
	}
	if _, found, _ := RemoveRule("/cfg/policy.toml", orig, "grant-ffffffff"); found {
		t.Error("RemoveRule found a rule that is not there")
	}
}

// TestGrantInProjectPolicy: the same grant in a project's .guard.toml
// lowers nothing: a cloned repository cannot grant.
func TestGrantInProjectPolicy(t *testing.T) {
	data, err := AppendGrant("/cfg/policy.toml", nil, exactGrant("0a1b2c3d", "rm -rf build"))
	if err != nil {
		t.Fatal(err)
	}
	p := pol(t, "", string(data))
	_, out := run(t, p.At(grantNow, "/home/u/proj"), "rm -rf build")
	if out.Verdict.Level != review.B || out.LoweredFromB || len(p.Warnings()) != 1 {
		t.Errorf("project grant: level %s, lowered %v, warnings %v; want B, ignored and reported", out.Verdict.Level, out.LoweredFromB, p.Warnings())
	}
}

// TestGrantBadLimits: a relative workspace or a grant without its limits
// is refused.
func TestGrantBadLimits(t *testing.T) {
	if _, err := Parse("/cfg/policy.toml", []byte("[[rules]]\nid = \"g\"\ncommand = \"ls\"\nallow = true\nworkspace = \"proj\"\n"), User); err == nil || !strings.Contains(err.Error(), "bad workspace") {
		t.Errorf("relative workspace: %v", err)
	}
	g := exactGrant("0a1b2c3d", "rm -rf build")
	g.Expires = time.Time{}
	if _, err := AppendGrant("/cfg/policy.toml", nil, g); err == nil {
		t.Error("a grant without expiry was written")
	}
}
