package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/guard-sh/guard/sandbox/confine"
)

// The helper reports the command's end on the status pipe once it has
// reaped everything the command started; guard then checks and records
// while the helper exits, and reaps it last (Helper.Close). These tests
// play helpers that break that protocol, as a crash or a command that
// kills its helper would, with a shell script in the helper's place:
// fd 3 is the plan (a background cat drains it, so guard's writes of
// the plan and of Go never fail), fd 4 the status pipe.

// fakeHelper writes a helper script running body and returns its path.
func fakeHelper(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-helper")
	if err := os.WriteFile(p, []byte("#!/bin/sh\ncat <&3 >/dev/null &\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runFake runs a plan of /bin/true with the helper at path, as
// Helper.Run does (leaving a reporting helper to Close), and returns the
// result, whether run left the helper exiting, and what reaping it then
// returned.
func runFake(t *testing.T, path string) (res Result, left bool, ws syscall.WaitStatus, reapErr, err error) {
	t.Helper()
	root := t.TempDir()
	ws0 := filepath.Join(root, "ws")
	os.Mkdir(ws0, 0o755)
	argv := []string{"/bin/true"}
	pr := plan(Spec{Workspace: ws0, Home: filepath.Join(root, "home")}, argv, Stdio{})
	l, lerr := launch(context.Background(), path, argv[0], Stdio{}, "")
	var later *launched
	res, err = run(context.Background(), pr, Stdio{}, l, lerr, &later)
	if later != nil {
		left = true
		_, _, _, reapErr = later.reap()
	}
	if l.cmd.ProcessState != nil {
		ws = l.cmd.ProcessState.Sys().(syscall.WaitStatus)
	}
	return res, left, ws, reapErr, err
}

// SortedChildren lists this process's children (zombies included),
// sorted; exported for the package's external tests.
func SortedChildren(t testing.TB) []int {
	t.Helper()
	kids, err := confine.Children()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(kids)
	return kids
}

// Caught waits until h catches the signals of caughtEarly, as it does
// well before guard's review is over; exported for the package's
// external tests (TestSignalBeforeRun).
func (h *Helper) Caught() {
	if l, err := h.launched(); err == nil {
		<-l.caught
	}
}

// TestReportThenCrash: a helper that reports the command's status and
// then dies (here of SIGKILL) leaves the reported status as the result;
// guard still reaps it and whatever was in its group.
func TestReportThenCrash(t *testing.T) {
	kids := SortedChildren(t)
	res, left, ws, reapErr, err := runFake(t, fakeHelper(t, `printf '{"code":3,"ran":true,"signal":0}\n' >&4
kill -KILL $$`))
	if err != nil || !res.Started || res.ExitCode != 3 || res.Signal != 0 {
		t.Errorf("result %+v, %v; want the reported exit 3", res, err)
	}
	if !left || reapErr != nil {
		t.Errorf("left exiting %v, reaped with %v; want the report to leave the helper to Close", left, reapErr)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("helper ended %v; the fake should have been killed", ws)
	}
	if got := SortedChildren(t); !slices.Equal(got, kids) {
		t.Errorf("children left: %v, before: %v", got, kids)
	}
}

// TestReportSignal: a reported signal is the result's, as 128+N.
func TestReportSignal(t *testing.T) {
	res, left, _, _, err := runFake(t, fakeHelper(t, `printf '{"code":143,"ran":true,"signal":15}\n' >&4`))
	if err != nil || !res.Started || res.ExitCode != 143 || res.Signal != syscall.SIGTERM || !left {
		t.Errorf("result %+v, %v, left %v; want SIGTERM, 143", res, err, left)
	}
}

// TestNoReport: a helper that dies without a report (a command that
// SIGKILLs its helper) fails the run as before the report existed: the
// helper's own status, reaped at once, nothing left.
func TestNoReport(t *testing.T) {
	kids := SortedChildren(t)
	res, left, _, _, err := runFake(t, fakeHelper(t, `kill -KILL $$`))
	if err != nil || res.ExitCode != 128+int(syscall.SIGKILL) || res.Signal != syscall.SIGKILL {
		t.Errorf("result %+v, %v; want the helper's SIGKILL, 137", res, err)
	}
	if left {
		t.Error("a helper without a report was left exiting")
	}
	if got := SortedChildren(t); !slices.Equal(got, kids) {
		t.Errorf("children left: %v, before: %v", got, kids)
	}
}

// TestWatchedStderrReport: with stderr watched for denials (a pipe, as
// an agent gives guard), the report still leaves the helper to Close,
// and the result already holds the denial the command wrote; everything
// it wrote reaches guard's stderr.
func TestWatchedStderrReport(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kids := SortedChildren(t)
	line := "cp: cannot create regular file 'x': Permission denied"
	argv := []string{"/bin/sh", "-c", `printf '%s\n' "$0" >&2; exit 1`, line}
	spec := Spec{Workspace: ws, Home: filepath.Join(root, "home")}
	h := Start(context.Background(), argv[0], Stdio{Out: null, Err: w, WatchErr: true})
	h.Prepare(spec, argv)
	res, err := h.Run(spec, argv)
	left := h.exiting != nil
	if cerr := h.Close(); cerr != nil {
		t.Errorf("Close: %v", cerr)
	}
	w.Close()
	if err != nil || res.ExitCode != 1 || !slices.Contains(res.Denials, line) {
		t.Errorf("result %+v, %v; want exit 1 and the denial", res, err)
	}
	if !left {
		// The early path is an optimisation that depends on the copy of
		// stderr ending before guard sees the helper exit; under load the
		// helper can win, and the run settles as before (correctly, a
		// little later). Only what the run reports is asserted.
		t.Log("the helper's exit was seen before the copy ended: settled the old way")
	}
	got, _ := io.ReadAll(r)
	if string(got) != line+"\n" {
		t.Errorf("guard's stderr got %q, want the command's line", got)
	}
	if got := SortedChildren(t); !slices.Equal(got, kids) {
		t.Errorf("children left: %v, before: %v", got, kids)
	}
}

// TestBadReport: a report that is no status fails the run (125), never
// passes for the command's success.
func TestBadReport(t *testing.T) {
	for _, line := range []string{`{"code":0,"ran":true`, `{"code":-1,"ran":true,"signal":0}`, `{"code":0,"ran":true,"signal":99}`} {
		res, left, _, _, err := runFake(t, fakeHelper(t, `printf '%s\n' '`+line+`' >&4`))
		if err == nil || res.ExitCode != codeFailed || res.Started || left {
			t.Errorf("%s: result %+v, %v, left %v; want a failed run", line, res, err, left)
		}
	}
}
