package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFloodedProtectedDir: a command fills a protected directory with
// more entries than a scan records, a hook among them, so that guard's
// check would need memory without bound (before, every name was kept:
// enough of them and guard died before restoring anything). The check
// records at most maxEntries, and restores the directory whole from
// the snapshot: the hook is gone, the user's files are back.
func TestFloodedProtectedDir(t *testing.T) {
	old := maxEntries
	maxEntries = 40
	t.Cleanup(func() { maxEntries = old })
	hooks := filepath.Join(t.TempDir(), "ws", ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "post-merge"), []byte("#!/bin/sh\necho the user's\n"), 0o755)
	os.WriteFile(filepath.Join(hooks, "pre-commit.sample"), []byte("#!/bin/sh\n"), 0o644)
	s := takeSnapshot(newResolver(), []protectRoot{{path: hooks, filter: everything}}, time.Time{})
	defer s.close()
	os.Mkdir(filepath.Join(hooks, "flood"), 0o755)
	for i := range 3 * maxEntries {
		os.WriteFile(filepath.Join(hooks, "flood", fmt.Sprintf("f%04d", i)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\necho pwned\n"), 0o755)
	if m, over := scan(hooks, everything, nil); !over || len(m) > maxEntries {
		t.Errorf("scan recorded %d entries (over %v), want at most %d and over", len(m), over, maxEntries)
	}
	vs := s.check()
	if len(vs) != 1 || vs[0].Change != "flooded" || !vs[0].Restored {
		t.Errorf("violations %v, want one flooded, restored", vs)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "pre-commit")); !os.IsNotExist(err) {
		t.Errorf("the planted hook survived: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "post-merge")); string(b) != "#!/bin/sh\necho the user's\n" {
		t.Errorf("post-merge = %q", b)
	}
	if fi, err := os.Stat(filepath.Join(hooks, "post-merge")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("post-merge mode: %v %v", fi, err)
	}

	// Over the bound before the run already: the snapshot is not all of
	// it, so nothing there is taken for created and removed; it is
	// reported unchecked.
	if err := os.Mkdir(filepath.Join(hooks, "flood"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 * maxEntries {
		os.WriteFile(filepath.Join(hooks, "flood", fmt.Sprintf("f%04d", i)), nil, 0o644)
	}
	s = takeSnapshot(newResolver(), []protectRoot{{path: hooks, filter: everything}}, time.Time{})
	defer s.close()
	os.RemoveAll(filepath.Join(hooks, "flood", "f0000"))
	vs = s.check()
	if len(vs) != 1 || vs[0].Change != "unreadable" || vs[0].Restored {
		t.Errorf("violations %v, want one unreadable, not restored", vs)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "flood", "f0079")); err != nil {
		t.Errorf("an entry the snapshot did not record was removed: %v", err)
	}
}

// TestRestoreRaceThroughSymlink: the check looks at a protected
// directory, then removes what the command created in it and puts back
// what it changed. A command of another guard run, still running, swaps
// the directory for a symlink to elsewhere in between: guard, unconfined,
// removed and wrote there. The swap is made at that very moment through
// the test seam beforeRestore; the directory outside must stay as it was.
func TestRestoreRaceThroughSymlink(t *testing.T) {
	setup := func(t *testing.T) (hooks, outside string) {
		dir := t.TempDir()
		hooks = filepath.Join(dir, "ws", ".git", "hooks")
		outside = filepath.Join(dir, "outside")
		for _, d := range []string{hooks, outside} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(hooks, "pre-commit.sample"), []byte("#!/bin/sh\n"), 0o755)
		os.WriteFile(filepath.Join(outside, "victim"), []byte("keep me\n"), 0o600)
		return hooks, outside
	}
	swapAt := func(t *testing.T, hooks, outside string) {
		t.Cleanup(func() { beforeRestore = nil })
		beforeRestore = func(string) {
			beforeRestore = nil
			moved := hooks + ".moved"
			if err := os.Rename(hooks, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, hooks); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("remove a created entry", func(t *testing.T) {
		hooks, outside := setup(t)
		s := takeSnapshot(newResolver(), []protectRoot{{path: hooks, filter: everything}}, time.Time{})
		defer s.close()
		os.WriteFile(filepath.Join(hooks, "victim"), []byte("#!/bin/sh\necho pwned\n"), 0o755)
		swapAt(t, hooks, outside)
		vs := s.check()
		t.Log(vs)
		if b, err := os.ReadFile(filepath.Join(outside, "victim")); err != nil || string(b) != "keep me\n" {
			t.Errorf("the restore removed a file outside: %q %v", b, err)
		}
		if len(vs) == 0 {
			t.Error("no violation reported")
		}
	})
	t.Run("put back a changed entry", func(t *testing.T) {
		hooks, outside := setup(t)
		s := takeSnapshot(newResolver(), []protectRoot{{path: hooks, filter: everything}}, time.Time{})
		defer s.close()
		os.WriteFile(filepath.Join(hooks, "pre-commit.sample"), []byte("#!/bin/sh\necho pwned\n"), 0o755)
		swapAt(t, hooks, outside)
		s.check()
		ents, _ := os.ReadDir(outside)
		if len(ents) != 1 {
			t.Errorf("the restore wrote outside: %v", ents)
		}
	})
	t.Run("control: without a race the restore works", func(t *testing.T) {
		hooks, _ := setup(t)
		s := takeSnapshot(newResolver(), []protectRoot{{path: hooks, filter: everything}}, time.Time{})
		defer s.close()
		os.WriteFile(filepath.Join(hooks, "pre-commit.sample"), []byte("#!/bin/sh\necho pwned\n"), 0o755)
		os.WriteFile(filepath.Join(hooks, "new"), nil, 0o755)
		for _, v := range s.check() {
			if !v.Restored {
				t.Errorf("not restored: %v", v)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(hooks, "pre-commit.sample")); string(b) != "#!/bin/sh\n" {
			t.Errorf("pre-commit.sample = %q", b)
		}
		if _, err := os.Lstat(filepath.Join(hooks, "new")); !os.IsNotExist(err) {
			t.Errorf("new kept: %v", err)
		}
	})
}
