package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
