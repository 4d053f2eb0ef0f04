package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
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

// runParts are what decideCheckpointed needs: the engine, an open audit
// log in the test's state dir, and no terminal (GUARD_TTY points nowhere,
// GUARD_WAIT=0s), so a B is queued rather than asked.
func runParts(t *testing.T) (*decision.Engine, *audit.Log) {
	t.Helper()
	t.Setenv(envTTY, filepath.Join(t.TempDir(), "no-tty"))
	t.Setenv(envApprovalWait, "0s")
	e, err := newEngine()
	if err != nil {
		t.Fatal(err)
	}
	log, err := openAudit(e.Dirs().State)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return e, log
}

// A covered delete runs at A with its checkpoint taken, without asking.
func TestCheckpointedDeleteRunsAtA(t *testing.T) {
	undoWorkspace(t)
	e, log := runParts(t)
	a, err := e.Assess("rm -rf src", assessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, uncovered := coverDeletes(e, a, assessOptions{})
	if a.Verdict.Level != review.A || uncovered == nil || uncovered.Verdict.Level != review.B {
		t.Fatalf("covered %v, uncovered %v", a.Verdict.Level, uncovered)
	}
	var errb bytes.Buffer
	a, cp, dec, err := decideCheckpointed(&streams{err: &errb}, e, a, uncovered, log, runDecide{wait: -1}, "00000000000000c1")
	if err != nil || dec != audit.ApprovedAuto || cp == nil {
		t.Fatalf("decision %s, err %v, checkpoint %v\n%s", dec, err, cp, errb.String())
	}
	if len(cp.Covered) != 1 || a.Verdict.Level != review.A {
		t.Errorf("checkpoint covers %v; level %s", cp.Covered, a.Verdict.Level)
	}
	if strings.Contains(errb.String(), "pending") {
		t.Errorf("a covered delete was queued:\n%s", errb.String())
	}
}

// When the checkpoint cannot be taken, a delete that counted on it is
// decided again without it: B, queued for approval (no terminal here),
// and nothing is checkpointed or deleted.
func TestCheckpointFailureFallsBackToB(t *testing.T) {
	home, _ := undoWorkspace(t)
	e, log := runParts(t)
	a, err := e.Assess("rm -rf src", assessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, uncovered := coverDeletes(e, a, assessOptions{})
	if a.Verdict.Level != review.A {
		t.Fatalf("level %s before the failure", a.Verdict.Level)
	}
	// The state directory breaks between the review and the run.
	dir := filepath.Join(home, ".local", "state", "guard")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "checkpoints"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	a, cp, dec, err := decideCheckpointed(&streams{err: &errb}, e, a, uncovered, log, runDecide{wait: -1}, "00000000000000c2")
	if err == nil || dec != audit.Pending || cp != nil || a.Verdict.Level != review.B {
		t.Fatalf("decision %s, err %v, checkpoint %v, level %s", dec, err, cp, a.Verdict.Level)
	}
	if !strings.Contains(errb.String(), "guard: warning: no checkpoint") || !strings.Contains(errb.String(), "guard: pending: level B") {
		t.Errorf("stderr:\n%s", errb.String())
	}
	if _, err := os.Stat(filepath.Join(a.Ctx.Workspace, "src", "a.go")); err != nil {
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
