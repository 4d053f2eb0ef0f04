package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/review"
)

// undoWorkspace is a fresh home and a git workspace with src/ committed;
// the test runs in it.
func undoWorkspace(t *testing.T) (home, ws string) {
	t.Helper()
	home, ws = fakeHome(t, workdirRoot(t, "undo-"), "src")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.WriteFile(filepath.Join(ws, "src", "a.go"), []byte("package a\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return home, ws
}

// stubApprove records whether the run asked for approval, and refuses.
func stubApprove(t *testing.T) *[]review.Level {
	var asked []review.Level
	old := approve
	approve = func(_ *streams, a *assessment) (audit.Decision, error) {
		asked = append(asked, a.verdict.Level)
		return audit.Refused, &exitError{code: exitNotRun, err: os.ErrPermission}
	}
	t.Cleanup(func() { approve = old })
	return &asked
}

// A covered delete runs at A with its checkpoint taken, without asking.
func TestCheckpointedDeleteRunsAtA(t *testing.T) {
	undoWorkspace(t)
	asked := stubApprove(t)
	a, err := assess("rm -rf src", assessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, uncovered := coverDeletes(a, assessOptions{})
	if a.verdict.Level != review.A || uncovered == nil || uncovered.verdict.Level != review.B {
		t.Fatalf("covered %v, uncovered %v", a.verdict.Level, uncovered)
	}
	var errb bytes.Buffer
	a, cp, dec, err := decideCheckpointed(&streams{err: &errb}, a, uncovered, "00000000000000c1")
	if err != nil || dec != audit.ApprovedAuto || cp == nil || len(*asked) != 0 {
		t.Fatalf("decision %s, err %v, checkpoint %v, asked %v", dec, err, cp, *asked)
	}
	if len(cp.Covered) != 1 || a.verdict.Level != review.A {
		t.Errorf("checkpoint covers %v; level %s", cp.Covered, a.verdict.Level)
	}
}

// When the checkpoint cannot be taken, a delete that counted on it is
// decided again without it: it asks (B), and nothing is checkpointed.
func TestCheckpointFailureFallsBackToB(t *testing.T) {
	home, _ := undoWorkspace(t)
	asked := stubApprove(t)
	a, err := assess("rm -rf src", assessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, uncovered := coverDeletes(a, assessOptions{})
	if a.verdict.Level != review.A {
		t.Fatalf("level %s before the failure", a.verdict.Level)
	}
	// The state directory breaks between the review and the run.
	dir := filepath.Join(home, ".local", "state", "guard")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "checkpoints"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	a, cp, dec, err := decideCheckpointed(&streams{err: &errb}, a, uncovered, "00000000000000c2")
	if err == nil || dec != audit.Refused || cp != nil {
		t.Fatalf("decision %s, err %v, checkpoint %v", dec, err, cp)
	}
	if len(*asked) != 1 || (*asked)[0] != review.B || a.verdict.Level != review.B {
		t.Errorf("asked at %v, level %s; want asked once at B", *asked, a.verdict.Level)
	}
	if !strings.Contains(errb.String(), "guard: warning: no checkpoint") {
		t.Errorf("stderr:\n%s", errb.String())
	}
	if _, err := os.Stat(filepath.Join(a.ctx.Workspace, "src", "a.go")); err != nil {
		t.Error("src was touched")
	}
}

func TestDoctorCheckpoints(t *testing.T) {
	home, ws := undoWorkspace(t)
	state := filepath.Join(home, ".local", "state", "guard")
	if c := doctorCheckpoints(state); !c.OK || !strings.HasPrefix(c.Detail, "none yet") {
		t.Errorf("no checkpoints: %+v", c)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"guard", "run", "-c", "echo x > new.txt"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err != nil {
		t.Fatal(err)
	}
	if c := doctorCheckpoints(state); !c.OK || !strings.HasPrefix(c.Detail, "1 since ") {
		t.Errorf("one checkpoint: %+v", c)
	}
}
