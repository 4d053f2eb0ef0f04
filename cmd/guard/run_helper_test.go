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

// TestOutcomeNote: the ran record says what the sandbox did not enforce
// (Result.Degraded: a run without the helper's mounts), beside the
// protected paths the command changed; before, only the terminal heard
// of it and the log showed a run as confined as its decision.
func TestOutcomeNote(t *testing.T) {
	for _, tc := range []struct {
		violations, degraded []string
		want                 string
	}{
		{nil, nil, ""},
		{[]string{"/h/.bashrc modified (restored)"}, nil, "protected paths changed: /h/.bashrc modified (restored)"},
		{nil, []string{"the helper's mounts (no user namespace)"}, "not enforced on this kernel: the helper's mounts (no user namespace)"},
		{[]string{"a", "b"}, []string{"c"}, "protected paths changed: a; b | not enforced on this kernel: c"},
	} {
		if got := outcomeNote(tc.violations, tc.degraded); got != tc.want {
			t.Errorf("outcomeNote(%q, %q) = %q, want %q", tc.violations, tc.degraded, got, tc.want)
		}
	}
}

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

// TestGuessSpec: the sandbox guard guesses before the review, whose plan
// it computes alongside the review, is the very one the review gives a
// command that reads and writes nothing special (so that plan is used),
// and not that of a command that writes, uses the network or reads a
// secret (their plans are computed afresh).
func TestGuessSpec(t *testing.T) {
	_, ws := fakeHome(t, t.TempDir(), ".git")
	e, err := newEngine()
	if err != nil {
		t.Fatal(err)
	}
	o := &runOptions{}
	for _, c := range []struct {
		text string
		same bool
	}{
		{"true", true},
		{"ls -la", true},
		{"cat README.md", true},
		{"touch made", false},
		{"curl -s https://example.com", false},
		{"cat ~/.netrc", false},
	} {
		a, err := e.Assess(c.text, assessOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := guessSpec(a.Ctx, o).Same(runSpec(a, o)); got != c.same {
			t.Errorf("%q in %s: the guess is its sandbox: %v, want %v\nguess %+v\nrun   %+v", c.text, ws, got, c.same, guessSpec(a.Ctx, o), runSpec(a, o))
		}
	}
}

// TestRunPlanAfterCheckpoint: the plan of a run that takes a checkpoint
// waits for it, so the snapshot of the protected paths holds what the
// checkpoint wrote (.git/refs/guard): the run reports no change to a
// protected path and the checkpoint's refs stay. A plan made before the
// checkpoint (prepared as early as a read-only run's is) fails this.
func TestRunPlanAfterCheckpoint(t *testing.T) {
	_, ws := undoWorkspace(t)
	t.Setenv(envApprovalWait, "0s")
	refs := filepath.Join(ws, ".git", "refs", "guard")
	if _, err := os.Stat(refs); err == nil {
		t.Fatalf("%s exists before the run", refs)
	}
	var out, errb bytes.Buffer
	code := run([]string{"guard", "run", "-c", "echo by-command > src/b.go"}, strings.NewReader(""), &out, &errb)
	if code != 0 || strings.Contains(errb.String(), "protected path") {
		t.Fatalf("exit %d, want 0 with no protected path changed; stderr:\n%s", code, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "src", "b.go")); string(b) != "by-command\n" {
		t.Errorf("src/b.go holds %q (%v): the command did not run", b, err)
	}
	if _, err := os.Stat(refs); err != nil {
		t.Errorf("the checkpoint's refs are gone after the run: %v", err)
	}
}

// TestRunEarlyPlanSeesStateDir: a read-only level A run is planned (its
// plan guessed) alongside its review, but only once guard's state
// directory exists (openAudit makes it on the first run): the grants
// list ~/.local, which the command may then read, while the state
// directory in it stays hidden. (A plan made before openAudit fails the
// first check only when it lists the home directory before openAudit
// makes ~/.local, so this cannot force that race.)
func TestRunEarlyPlanSeesStateDir(t *testing.T) {
	home, _ := fakeHome(t, t.TempDir())
	local := filepath.Join(home, ".local")
	if _, err := os.Stat(local); err == nil {
		t.Fatalf("%s exists before the first run", local)
	}
	var out, errb bytes.Buffer
	code := run([]string{"guard", "--", "ls", "-a", local}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "state") {
		t.Fatalf("ls %s on the first run: exit %d, stdout %q; stderr:\n%s", local, code, out.String(), errb.String())
	}
	errb.Reset()
	state := filepath.Join(local, "state", "guard")
	if code := run([]string{"guard", "--", "ls", state}, strings.NewReader(""), &out, &errb); code == 0 {
		t.Errorf("ls %s: exit 0, want the state directory hidden", state)
	}
}
