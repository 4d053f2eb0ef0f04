package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUndoHonoursUmask: a file the command deleted without naming it (no
// mode recorded) comes back as git would check it out, 0666 less the
// umask; undo made it 0644 whatever the umask (with umask 077, readable
// by every user).
func TestUndoHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	st := env(t)
	ws := newRepo(t)
	cp := command(t, st, ws, "00000000000000ef", nil, func() {
		if err := os.Remove(filepath.Join(ws, "README.md")); err != nil {
			t.Fatal(err)
		}
	})
	undo(t, st, cp, false)
	if fi, err := os.Lstat(filepath.Join(ws, "README.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("README.md after undo under umask 077: %v %v, want -rw-------", fi.Mode().Perm(), err)
	}
}

// git records a file's executable bit only: checked out, a file is
// 0666 or 0777 less the umask. A private file under a delete target (a
// key at 0600) came back readable by every user after rm -rf and undo.
// A checkpoint records the permissions of the files git holds under a
// covered target, and undo puts them back.
func TestUndoKeepsPermissions(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	files := map[string]os.FileMode{
		"src/keys/deploy.pem": 0o600, "src/keys/tool": 0o700, "src/shared.txt": 0o664, "src/main.go": 0o644,
	}
	write(t, ws, map[string]string{"src/keys/deploy.pem": "-----BEGIN KEY-----\n", "src/keys/tool": "#!/bin/sh\n", "src/shared.txt": "shared\n"})
	for rel, mode := range files {
		if err := os.Chmod(filepath.Join(ws, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotFS(t, ws)
	src := filepath.Join(ws, "src")
	cp := rmCovered(t, st, ws, "00000000000000ec", src)
	undoRestores(t, st, ws, cp, before)
	for rel, mode := range files {
		if st, err := os.Lstat(filepath.Join(ws, rel)); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", rel, st.Mode().Perm(), err, mode)
		}
	}

	// A file the command changed in place keeps its permissions through
	// undo (it writes a new file); an executable bit the
	// command set goes.
	cp = command(t, st, ws, "00000000000000ed", nil, func() {
		write(t, ws, map[string]string{"src/keys/deploy.pem": "-----BEGIN OTHER KEY-----\n"})
		os.Chmod(filepath.Join(ws, "src/keys/deploy.pem"), 0o600)
		os.Chmod(filepath.Join(ws, "src/shared.txt"), 0o775)
	})
	if len(cp.Changes) != 2 {
		t.Fatalf("changes %v, want 2 modified", cp.Changes)
	}
	undoRestores(t, st, ws, cp, before)
	for rel, mode := range map[string]os.FileMode{"src/keys/deploy.pem": 0o600, "src/shared.txt": 0o664} {
		if st, err := os.Lstat(filepath.Join(ws, rel)); err != nil || st.Mode().Perm() != mode {
			t.Errorf("after undo of the edit, %s: %v %v, want %v", rel, st.Mode().Perm(), err, mode)
		}
	}

	// A covered delete whose command makes the key again, readable by
	// all: undo brings the key's bytes back no more readable than Begin
	// found it.
	cp = command(t, st, ws, "00000000000000ee", []Target{{Path: src}}, func() {
		os.RemoveAll(src)
		write(t, ws, map[string]string{"src/keys/deploy.pem": "made again\n"})
		os.Chmod(filepath.Join(ws, "src/keys/deploy.pem"), 0o644)
	})
	undoRestores(t, st, ws, cp, before)
	if st, err := os.Lstat(filepath.Join(ws, "src/keys/deploy.pem")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("after undo of the delete and the new file: %v %v, want 0600", st.Mode().Perm(), err)
	}
}

// Undo writes each file under a short temporary name: a file whose name
// is as long as a name can be (255 bytes) comes back too.
func TestUndoLongName(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	long := "src/" + strings.Repeat("n", 255)
	write(t, ws, map[string]string{long: "long\n"})
	before := snapshotFS(t, ws)
	src := filepath.Join(ws, "src")
	cp := rmCovered(t, st, ws, "00000000000000ee", src)
	undoRestores(t, st, ws, cp, before)
}

// A repository of its own inside the workspace is a submodule entry in
// the checkpoint: undo of its delete makes its directory again, empty,
// as git checks a submodule out (its files are never covered).
func TestUndoSubmoduleEntry(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	nested := filepath.Join(ws, "vendor", "lib")
	write(t, nested, map[string]string{"lib.go": "package lib\n"})
	run(t, nested, "init", "-q", "-b", "main")
	run(t, nested, "add", "-A")
	run(t, nested, "commit", "-q", "-m", "lib")
	command(t, st, ws, "00000000000000f8", nil, func() {})
	cp := command(t, st, ws, "00000000000000f9", nil, func() { os.RemoveAll(nested) })
	if len(cp.Changes) != 1 || cp.Changes[0].Path != "vendor/lib" {
		t.Fatalf("changes = %v, want vendor/lib deleted", cp.Changes)
	}
	undo(t, st, cp, false)
	if ents, err := os.ReadDir(nested); err != nil || len(ents) != 0 {
		t.Errorf("vendor/lib after undo: %v %v, want an empty directory", ents, err)
	}
}

// rmCovered runs rm -rf dir under a checkpoint id, which must cover it.
func rmCovered(t *testing.T, st, ws, id, dir string) *Checkpoint {
	t.Helper()
	cp := command(t, st, ws, id, []Target{{Path: dir}}, func() { os.RemoveAll(dir) })
	if len(cp.Covered) != 1 || cp.Covered[0] != dir {
		t.Fatalf("covered = %v, want %s", cp.Covered, dir)
	}
	return cp
}
