package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox/confine"
)

// TestRunHelperStartedEarly: guard starts its sandbox helper before the
// review. A command the review refuses or must ask about never runs for
// it, and whatever the outcome, no process of guard's is left once run
// returns (the helper killed and reaped, or done).
func TestRunHelperStartedEarly(t *testing.T) {
	home, ws := fakeHome(t, t.TempDir(), ".git", "build")
	if err := os.MkdirAll(filepath.Join(home, ".config", "guard"), 0o755); err != nil {
		t.Fatal(err)
	}
	policy := "[[rules]]\nid = \"no-made\"\ncommand = \"touch denied\"\ndeny = true\nmessage = \"not here\"\n"
	if err := os.WriteFile(filepath.Join(home, ".config", "guard", "policy.toml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		argv   []string
		code   int
		stderr string
		// effect is the path the command creates (or removes, gone).
		effect string
		gone   bool
	}{
		{"denied by policy", []string{"touch", "denied"}, exitNotRun, "guard: denied: policy.no-made", "denied", false},
		{"B queued", []string{"rm", "-rf", "build"}, exitNotRun, "guard: pending: level B", "build", true},
		{"A runs", []string{"touch", "made"}, 0, "", "made", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			kids, err := confine.Children()
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(append([]string{"guard", "--"}, c.argv...), strings.NewReader(""), &out, &errb)
			if code != c.code || !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("exit %d, want %d; stderr (want %q):\n%s", code, c.code, c.stderr, errb.String())
			}
			_, err = os.Stat(filepath.Join(ws, c.effect))
			ran := (err == nil) != c.gone
			if ran != (c.code == 0) {
				t.Errorf("%s: command ran %v, want %v", c.effect, ran, c.code == 0)
			}
			left, err := confine.Children()
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(kids)
			slices.Sort(left)
			if !slices.Equal(left, kids) {
				t.Errorf("guard's children after the run: %v, before: %v", left, kids)
			}
		})
	}
}
