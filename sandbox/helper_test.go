package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// children lists this process's children (zombies included).
func children(t *testing.T) []int {
	t.Helper()
	return sandbox.SortedChildren(t)
}

// TestHelperUnused: a helper started ahead of its run and given a plan
// to prepare, then closed (the review refused or must ask), runs
// nothing and leaves no process or zombie behind (TestPreparedReleased:
// nor the plan's private temp dir).
func TestHelperUnused(t *testing.T) {
	f := newFixture(t)
	kids := children(t)
	marker := filepath.Join(f.ws, "ran")
	var out, errb bytes.Buffer
	h := sandbox.Start(context.Background(), "/bin/sh", sandbox.Stdio{Out: &out, Err: &errb})
	// A writing run: preparing it makes a private temp dir.
	h.Prepare(f.spec(), []string{"/bin/sh", "-c", "echo ran > " + marker})
	h.Close()
	if got := children(t); !slices.Equal(got, kids) {
		t.Errorf("children after Close: %v, before Start: %v", got, kids)
	}
	if s := readFile(t, marker); s != "<absent>" {
		t.Errorf("the command of a closed helper ran: %s holds %q", marker, s)
	}
	// Run after Close refuses: the helper is gone.
	if _, err := h.Run(f.spec(), []string{"/bin/sh", "-c", "echo ran > " + marker}); err == nil {
		t.Error("Run after Close: no error")
	}
	if s := readFile(t, marker); s != "<absent>" {
		t.Errorf("Run after Close ran the command: %s holds %q", marker, s)
	}
	if out.Len()+errb.Len() > 0 {
		t.Errorf("output from a closed helper: %q %q", out.String(), errb.String())
	}
}

// TestHelperPrepared: Run with the spec and argv given to Prepare runs
// that plan; with another spec it runs by the spec it is given.
func TestHelperPrepared(t *testing.T) {
	f := newFixture(t)
	kids := children(t)
	marker := filepath.Join(f.ws, "ran")
	argv := []string{"/bin/sh", "-c", "echo ran > " + marker}

	h := sandbox.Start(context.Background(), "/bin/sh", sandbox.Stdio{})
	h.Prepare(f.spec(), argv)
	res, err := h.Run(f.spec(), argv)
	if cerr := h.Close(); cerr != nil {
		t.Errorf("Close after Run: %v", cerr)
	}
	if err != nil || res.ExitCode != 0 || readFile(t, marker) != "ran\n" {
		t.Fatalf("prepared writing run: exit %d, %v; %s holds %q", res.ExitCode, err, marker, readFile(t, marker))
	}
	os.Remove(marker)

	// Prepared writable, run read-only: the write is refused.
	h = sandbox.Start(context.Background(), "/bin/sh", sandbox.Stdio{})
	h.Prepare(f.spec(), argv)
	ro := f.spec()
	ro.Write = false
	res, err = h.Run(ro, argv)
	h.Close()
	if err != nil || res.ExitCode == 0 || readFile(t, marker) != "<absent>" {
		t.Errorf("read-only run after a writable Prepare: exit %d, %v; %s holds %q", res.ExitCode, err, marker, readFile(t, marker))
	}
	if got := children(t); !slices.Equal(got, kids) {
		t.Errorf("children left: %v, before: %v", got, kids)
	}
}

// TestHelperOtherCommand: a helper started for one command does not run
// another (ps would name the wrong one); nothing runs, nothing is left.
func TestHelperOtherCommand(t *testing.T) {
	f := newFixture(t)
	kids := children(t)
	marker := filepath.Join(f.ws, "ran")
	h := sandbox.Start(context.Background(), "/bin/true", sandbox.Stdio{})
	_, err := h.Run(f.spec(), []string{"/bin/sh", "-c", "echo ran > " + marker})
	if err == nil || !strings.Contains(err.Error(), "started for") {
		t.Errorf("Run of another command: %v, want an error", err)
	}
	if s := readFile(t, marker); s != "<absent>" {
		t.Errorf("the other command ran: %s holds %q", marker, s)
	}
	if got := children(t); !slices.Equal(got, kids) {
		t.Errorf("children left: %v, before: %v", got, kids)
	}
}

// TestRunDir: the command runs in Spec.Dir, which the helper moves to
// itself (the plan carries it); a missing one fails before anything
// runs.
func TestRunDir(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "here.sh"), []byte("#!/bin/sh\npwd\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Dir = sub
	// ./here.sh is found relative to Dir.
	o := run(t, spec, "./here.sh")
	if o.err != nil || o.res.ExitCode != 0 || o.stdout != sub+"\n" {
		t.Errorf("./here.sh in %s: %v", sub, o)
	}
	spec.Dir = filepath.Join(f.ws, "missing")
	marker := filepath.Join(f.ws, "ran")
	o = run(t, spec, "/bin/sh", "-c", "echo ran > "+marker)
	if o.err == nil || o.res.Started || o.res.ExitCode != 125 || !strings.Contains(o.err.Error(), "chdir") {
		t.Errorf("run in a missing directory: %v", o)
	}
	if s := readFile(t, marker); s != "<absent>" {
		t.Errorf("ran in a missing directory: %s holds %q", marker, s)
	}
}
