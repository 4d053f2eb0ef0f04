package checkpoint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSnapshotRaceThroughSymlink: after git hashed a snapshot's changed
// files, guard reads them (to pack their blobs) and has git write the
// ones it could not match. Between the two, a command of another guard
// run swaps a directory of the workspace for a symlink to a directory
// outside holding a file of the same name (a key): guard, unconfined,
// read the key and had its git write it into .git/objects, where the
// next sandboxed command reads it. Nothing outside the workspace may
// reach the object store, whatever the snapshot then records.
func TestSnapshotRaceThroughSymlink(t *testing.T) {
	st := env(t)
	ws, outside := newRepo(t), t.TempDir()
	secret := "-----BEGIN KEY----- the user's, outside the workspace\n"
	write(t, outside, map[string]string{"id": secret})
	command(t, st, ws, "00000000000000e7", nil, func() {}) // guard's index
	t.Cleanup(func() { afterHash = nil })
	afterHash = func() {
		afterHash = nil
		p := filepath.Join(ws, "keys")
		os.RemoveAll(p)
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000e8", Command: "test", Time: t0, Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"keys/id": "the command's own file\n"})
	_, err = cp.Finish(st)
	t.Logf("finish: %v", err)
	out := run(t, ws, "cat-file", "--batch-all-objects", "--batch")
	if strings.Contains(out, "BEGIN KEY") {
		t.Error("guard's git wrote the key outside the workspace into the repository's objects")
	}
}

// Files guard does not pack in memory (over 8 MB, past the 64 MB of a
// snapshot, a symlink git hashed, a file a clean filter converts) are
// written from what guard opened beneath the workspace: streamed into
// one pack, or through git's filters on standard input. The objects are
// whole (git fsck) and undo brings every file back.
func TestSnapshotStreamsBlobs(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	run(t, ws, "config", "filter.up.clean", "tr a-z A-Z")
	run(t, ws, "config", "filter.up.smudge", "tr A-Z a-z")
	write(t, ws, map[string]string{".gitattributes": "*.up filter=up\n"})
	command(t, st, ws, "00000000000000e9", nil, func() {})
	before := snapshotFS(t, ws)
	big := bytes.Repeat([]byte("0123456789abcdef"), (maxPackedBlob+1000)/16)
	files := map[string]string{"data/big.bin": string(big), "data/b.up": "lower\n", "data/small.txt": "small\n"}
	for i := range 9 {
		files[fmt.Sprintf("data/past/%d.bin", i)] = string(big[:maxPackedBlob-i])
	}
	fallbacks := counters.fallbacks.Load()
	cp := command(t, st, ws, "00000000000000ea", nil, func() { write(t, ws, files) })
	if n := counters.fallbacks.Load() - fallbacks; n != 0 {
		t.Errorf("%d snapshots fell back to git add -A, want none", n)
	}
	if len(cp.Changes) != len(files) {
		t.Fatalf("changes %v, want %d added", cp.Changes, len(files))
	}
	if got := run(t, ws, "cat-file", "-p", cp.After+":data/b.up"); got != "LOWER\n" {
		t.Errorf("data/b.up stored as %q, want git's clean content", got)
	}
	if got := strings.TrimSpace(run(t, ws, "cat-file", "-s", cp.After+":data/big.bin")); got != fmt.Sprint(len(big)) {
		t.Errorf("data/big.bin stored with %s bytes, want %d", got, len(big))
	}
	undoRestores(t, st, ws, cp, before)
}

// TestUndoRaceThroughSymlink: undo checks that no directory above a path
// is a symlink, then writes. Between the two, a command of another guard
// run (an agent runs several at once) swaps a directory of the workspace
// for a symlink to elsewhere; undo, unconfined, then wrote, linked,
// made directories and removed files outside the workspace. The swap is
// made at that very moment through the test seam beforeChange; undo must
// leave the directory outside as it was, whatever it reports.
func TestUndoRaceThroughSymlink(t *testing.T) {
	swap := func(t *testing.T, ws, rel, outside string) {
		t.Cleanup(func() { beforeChange = nil })
		beforeChange = func(Action) {
			p := filepath.Join(ws, rel)
			os.RemoveAll(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			beforeChange = nil
		}
	}
	applyRaced := func(t *testing.T, st string, cp *Checkpoint) {
		p, err := PlanUndo(st, cp)
		if err != nil {
			t.Fatal(err)
		}
		if p.Conflicts() != 0 {
			t.Fatalf("conflicts before the race: %+v", p.Actions)
		}
		done, err := p.Apply(st, false, t0)
		t.Logf("done %v, err %v", done, err)
	}

	t.Run("restore a backup into a swapped directory", func(t *testing.T) {
		st := env(t)
		ws, outside := t.TempDir(), t.TempDir()
		write(t, ws, map[string]string{"data/x.desktop": "[Desktop Entry]\nExec=evil\n", "data/keep": "k"})
		target := filepath.Join(ws, "data", "x.desktop")
		cp := command(t, st, ws, "00000000000000e1", []Target{{Path: target}}, func() { os.Remove(target) })
		swap(t, ws, "data", outside)
		applyRaced(t, st, cp)
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Errorf("undo linked into the directory outside: %v", ents)
		}
	})

	t.Run("remove a created file through a swapped directory", func(t *testing.T) {
		st := env(t)
		ws, outside := newRepo(t), t.TempDir()
		cp := command(t, st, ws, "00000000000000e2", nil, func() { write(t, ws, map[string]string{"gen/new.txt": "x"}) })
		write(t, outside, map[string]string{"new.txt": "keep me"})
		swap(t, ws, "gen", outside)
		applyRaced(t, st, cp)
		if b, err := os.ReadFile(filepath.Join(outside, "new.txt")); err != nil || string(b) != "keep me" {
			t.Errorf("undo removed a file outside the workspace: %q %v", b, err)
		}
	})

	t.Run("recreate directories under a swapped directory", func(t *testing.T) {
		st := env(t)
		ws, outside := t.TempDir(), t.TempDir()
		write(t, ws, map[string]string{"data/a.csv": "1\n"})
		os.MkdirAll(filepath.Join(ws, "data", "empty", "deeper"), 0o700)
		data := filepath.Join(ws, "data")
		cp := command(t, st, ws, "00000000000000e3", []Target{{Path: data}}, func() { os.RemoveAll(data) })
		swap(t, ws, "data", outside)
		applyRaced(t, st, cp)
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Errorf("undo made entries in the directory outside: %v", ents)
		}
	})

	t.Run("back up through a swapped directory", func(t *testing.T) {
		// Between the survey (which chose data/key to back up) and the
		// link, data becomes a symlink to a directory outside holding a
		// file of that name (a key): guard linked the key into the
		// backup, and undo would put it in the workspace.
		st := env(t)
		ws, outside := t.TempDir(), t.TempDir()
		write(t, ws, map[string]string{"data/key": "not a secret\n"})
		write(t, outside, map[string]string{"key": "SECRET\n"})
		data := filepath.Join(ws, "data")
		t.Cleanup(func() { beforeLink = nil })
		beforeLink = func() {
			beforeLink = nil
			os.RemoveAll(data)
			os.Symlink(outside, data)
		}
		cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000e5", Command: "test", Time: t0, Deletes: []Target{{Path: data}}, Budget: DefaultBudget})
		t.Logf("Begin: %v", err)
		var ost unix.Stat_t
		if err := unix.Stat(filepath.Join(outside, "key"), &ost); err != nil {
			t.Fatal(err)
		}
		if ost.Nlink != 1 {
			t.Errorf("the file outside got a hard link (%d names): guard backed it up", ost.Nlink)
		}
		if err == nil {
			cp.Discard(st)
		}
	})

	t.Run("control: without a race undo restores", func(t *testing.T) {
		st := env(t)
		ws := t.TempDir()
		write(t, ws, map[string]string{"data/x.desktop": "X\n"})
		target := filepath.Join(ws, "data", "x.desktop")
		cp := command(t, st, ws, "00000000000000e4", []Target{{Path: target}}, func() { os.Remove(target) })
		if _, done := undo(t, st, cp, false); len(done) != 1 {
			t.Fatalf("done = %v", done)
		}
		if b, _ := os.ReadFile(target); string(b) != "X\n" {
			t.Errorf("restored %q", b)
		}
	})
}
