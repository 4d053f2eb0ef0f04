package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRunsRegistry: a run that registers while another is live gets a
// cutoff no later than the other's registration; once that one is
// released, a new run gets none. A registration left by a process that
// is gone (unlocked) is removed and does not count. overlapped sees a
// run that registered and finished meanwhile.
func TestRunsRegistry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	first, cut, err := register(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !cut.IsZero() {
		t.Errorf("first run: cutoff %v, want none", cut)
	}
	if first.overlapped() {
		t.Error("first run alone: overlapped")
	}
	began := time.Now()
	second, cut, err := register(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cut.IsZero() || cut.After(began) {
		t.Errorf("second run: cutoff %v, want one before %v", cut, began)
	}
	second.release()
	if !first.overlapped() {
		t.Error("a run registered and released during the first: not overlapped")
	}
	first.release()

	// A stale registration: published, but its lock is gone.
	stale := filepath.Join(dir, runPrefix+"0000000000000000")
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	third, cut, err := register(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer third.release()
	if !cut.IsZero() {
		t.Errorf("after release and a stale entry: cutoff %v, want none", cut)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale registration kept: %v", err)
	}
}

// BenchmarkRegister is what the registry adds to a writing run: register
// before the snapshot, look for overlaps at the check, release.
func BenchmarkRegister(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "runs")
	for b.Loop() {
		reg, _, err := register(dir)
		if err != nil {
			b.Fatal(err)
		}
		reg.overlapped()
		reg.release()
	}
}

// TestRestoreUntrusted: an entry of a snapshot taken while another run
// was live, changed since that run began, is never recreated; what is
// there now is moved aside. Entries older than the cutoff are restored
// as always.
func TestRestoreUntrusted(t *testing.T) {
	root := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(root, 0o755)
	old, planted, modified := filepath.Join(root, "old"), filepath.Join(root, "planted"), filepath.Join(root, "modified")
	for _, p := range []string{old, modified} {
		os.WriteFile(p, []byte("user's\n"), 0o755)
	}
	// ctime cannot be set; the cutoff is placed between the user's
	// files and the planted one instead, once the file system's clock
	// (coarse) has moved on from the user's files.
	var st unix.Stat_t
	unix.Stat(old, &st)
	cutoff := time.Unix(st.Ctim.Unix()).Add(time.Nanosecond)
	probe := filepath.Join(t.TempDir(), "probe")
	for i := 0; ; i++ {
		os.WriteFile(probe, nil, 0o644)
		var pst unix.Stat_t
		unix.Stat(probe, &pst)
		if time.Unix(pst.Ctim.Unix()).After(cutoff) {
			break
		}
		if i > 1e7 {
			t.Skip("the file system's clock does not move")
		}
	}
	os.WriteFile(planted, []byte("#!/bin/sh\necho pwned\n"), 0o755)
	os.WriteFile(modified, []byte("another run's\n"), 0o755)
	unix.Stat(planted, &st)
	if !time.Unix(st.Ctim.Unix()).After(cutoff) {
		t.Skip("the clock did not tick between the writes")
	}
	s := takeSnapshot(newResolver(), []protectRoot{{path: root, filter: everything}}, cutoff)
	defer s.close()
	// The other run restores its state; this run's command removes the
	// user's old hook.
	os.Remove(planted)
	os.WriteFile(modified, []byte("user's\n"), 0o755)
	os.Remove(old)
	vs := s.check()
	got := map[string]Violation{}
	for _, v := range vs {
		got[filepath.Base(v.Path)] = v
	}
	if v := got["old"]; !v.Restored {
		t.Errorf("old (before the cutoff) not restored: %+v", v)
	}
	if _, err := os.Lstat(planted); !os.IsNotExist(err) {
		t.Errorf("planted hook recreated from the snapshot: %v", err)
	}
	if v := got["planted"]; v.Restored || v.RestoreErr == "" {
		t.Errorf("planted: %+v", v)
	}
	if _, err := os.Lstat(modified); !os.IsNotExist(err) {
		t.Errorf("modified: the current one was not moved aside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".guard-changed-modified")); string(b) != "user's\n" {
		t.Errorf("moved aside: %q", b)
	}
}
