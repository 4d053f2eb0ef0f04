package checkpoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// git reads another object in place of one that refs/replace/ names
// (git replace), and any command that may write the workspace may write
// .git/refs. guard's git reads objects by their ids only: a replaced
// blob neither uncovers a delete (the objects would not hash to their
// ids) nor stops undo, which restores the bytes deleted.
func TestReplaceRefsIgnored(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	before := snapshotFS(t, ws)
	command(t, st, ws, "00000000000000e5", nil, func() {}) // guard's index
	evilFile := filepath.Join(t.TempDir(), "evil")
	if err := os.WriteFile(evilFile, []byte("package main // the attacker's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	evil := strings.TrimSpace(run(t, ws, "hash-object", "-w", evilFile))
	oid := strings.TrimSpace(run(t, ws, "rev-parse", "HEAD:src/main.go"))
	run(t, ws, "replace", "-f", oid, evil)
	src := filepath.Join(ws, "src")
	cp := rmCovered(t, st, ws, "00000000000000e6", src)
	undoRestores(t, st, ws, cp, before)
}

// A command may write .git/refs: one that makes guard's refs symbolic
// refs to the user's refs had guard's git write a tree id into them
// (update-ref follows a symbolic ref), or delete them when guard drops
// a checkpoint: a tag became a tree, a branch was gone. guard writes and
// deletes its own refs, never through a symbolic ref.
func TestRefsNeverDereferenced(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	head := strings.TrimSpace(run(t, ws, "rev-parse", "refs/heads/main"))
	run(t, ws, "tag", "v1")
	run(t, ws, "tag", "v2")
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	run(t, ws, "symbolic-ref", indexRef(seedIndex(st, r)), "refs/tags/v1")
	run(t, ws, "symbolic-ref", refPrefix+"00000000000000eb/after", "refs/tags/v2")
	cp := command(t, st, ws, "00000000000000eb", nil, func() {
		write(t, ws, map[string]string{"README.md": "changed\n"})
	})
	for _, tag := range []string{"refs/tags/v1", "refs/tags/v2"} {
		if got := strings.TrimSpace(run(t, ws, "rev-parse", tag)); got != head {
			t.Errorf("%s = %s, want %s: guard wrote the user's tag", tag, got, head)
		}
	}
	// Dropping the checkpoint deletes guard's refs, not the branch a
	// command pointed them at.
	run(t, ws, "symbolic-ref", refPrefix+cp.ID+"/before", "refs/heads/main")
	if err := cp.Discard(st); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(run(t, ws, "rev-parse", "--verify", "-q", "refs/heads/main")); got != head {
		t.Errorf("refs/heads/main = %q, want %s: dropping a checkpoint deleted the user's branch", got, head)
	}
}

// A command that deletes guard's packs leaves refs/guard/ naming trees
// git no longer has, and the user's git gc fails on them ("bad object").
// The next checkpoint notices (the pack directory changed), deletes the
// refs whose objects are gone and writes its own objects anew: git gc
// works again, and the new checkpoint undoes.
func TestRefsRepairedAfterPackRemoved(t *testing.T) {
	for _, which := range []string{"every pack", "the first pack", "every pack and the record", "every pack, git add -A"} {
		t.Run(which, func(t *testing.T) {
			refsRepaired(t, which != "the first pack", strings.HasSuffix(which, "record"), strings.HasSuffix(which, "add -A"))
		})
	}
}

// refsRepaired: guard's packs, or only the first (blobs and trees later
// checkpoints still name, while their roots are in later packs), gone;
// with noRecord, guard's record of its index too (a user who cleared
// guard's state, a crash): the next snapshot starts without one and must
// still find the refs that reach nothing.
// With addAll, every snapshot is git add -A's (core.ignoreCase).
func refsRepaired(t *testing.T, every, noRecord, addAll bool) {
	st := env(t)
	ws := newRepo(t)
	if addAll {
		run(t, ws, "config", "core.ignoreCase", "true")
	}
	packs := func() []string {
		m, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "pack", "*.pack"))
		// git add -A writes loose objects.
		loose, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "??", "*"))
		return append(m, loose...)
	}
	old := packs()
	// Files as old as in a real workspace: git takes their entries'
	// objects on trust (racily clean ones it would hash again).
	command(t, st, ws, "00000000000000d1", nil, func() { write(t, ws, map[string]string{"a.txt": "1\n"}); age(t, ws) })
	first := packs()
	command(t, st, ws, "00000000000000d2", nil, func() { write(t, ws, map[string]string{"src/b.txt": "2\n"}); age(t, ws) })
	gone := packs()
	if !every {
		gone = first
	}
	for _, p := range gone {
		if !slices.Contains(old, p) {
			for _, ext := range []string{".pack", ".idx", ".rev"} {
				os.Remove(strings.TrimSuffix(p, ".pack") + ext) // what a command may do
			}
		}
	}
	c := exec.Command("git", "gc", "-q")
	c.Dir = ws
	if out, err := c.CombinedOutput(); err == nil {
		t.Fatalf("git gc worked with guard's packs gone: the test removed nothing\n%s", out)
	}
	if noRecord {
		recs, _ := filepath.Glob(filepath.Join(st, "checkpoints", "index-*.json"))
		if len(recs) != 1 {
			t.Fatalf("guard's index records: %q, want one", recs)
		}
		if err := os.Remove(recs[0]); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotFS(t, ws)
	cp := command(t, st, ws, "00000000000000d3", nil, func() { write(t, ws, map[string]string{"README.md": "changed\n"}) })
	run(t, ws, "gc", "-q")
	undoRestores(t, st, ws, cp, before)
}

// TestPackGoneWhileSnapshotWrites: guard's earlier pack is deleted while
// a snapshot writes its own (another guard's command running at
// the same time, or a gc). The record written at the end must still let
// the next snapshot see that a pack went: when it held only the pack
// directory's stat data from after the write, the next snapshot trusted
// guard's index, whose entries name the deleted pack's blobs, and the
// user's git gc failed on guard's refs.
func TestPackGoneWhileSnapshotWrites(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	packs := func() []string {
		m, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "pack", "*.pack"))
		return m
	}
	old := packs()
	command(t, st, ws, "00000000000000e1", nil, func() { write(t, ws, map[string]string{"a.txt": "only in e1's pack\n"}); age(t, ws) })
	var first []string
	for _, p := range packs() {
		if !slices.Contains(old, p) {
			first = append(first, strings.TrimSuffix(p, ".pack"))
		}
	}
	if len(first) == 0 {
		t.Fatal("the first checkpoint wrote no pack")
	}
	// git, as guard's snapshot runs it, with the first pack deleted
	// while git update-index hashes the changed files, after the
	// snapshot listed the packs and before guard stores its new one.
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	real := r.gitPath
	var script strings.Builder
	script.WriteString("#!/bin/sh\ncase \"$*\" in *update-index*)\n")
	for _, base := range first {
		for _, ext := range []string{".pack", ".idx", ".rev"} {
			fmt.Fprintf(&script, "  rm -f '%s%s'\n", base, ext)
		}
	}
	fmt.Fprintf(&script, "esac\nexec '%s' \"$@\"\n", real)
	wrapper := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(wrapper, []byte(script.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	r.gitPath = wrapper
	write(t, ws, map[string]string{"b.txt": "written while the pack goes\n"})
	age(t, ws)
	if _, err := r.snapshot(st, nil, r.protect); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first[0] + ".pack"); !os.IsNotExist(err) {
		t.Fatalf("the first pack is still there (%v): the wrapper did not run", err)
	}
	before := snapshotFS(t, ws)
	cp := command(t, st, ws, "00000000000000e3", nil, func() { write(t, ws, map[string]string{"README.md": "changed\n"}) })
	run(t, ws, "gc", "-q")
	undoRestores(t, st, ws, cp, before)
}

// guard's index and record say which objects hold the workspace's
// files; an unchanged workspace reuses them without running git. But the
// objects are in .git/objects, which any command that may write the
// workspace may write: one that removed guard's pack (or rewrote an
// object) left a later rm -rf covered, "recoverable", by objects that
// are gone, and undo could not bring the files back. A delete is covered
// only when every file git holds under it has its object, of its size.
// A removed pack is noticed (the pack directory changed) and guard's
// index starts again, writing every object anew (checkRefs): the delete
// is then covered, by objects that are there, and undo brings the files
// back; a rewritten object is not covered.
func TestCoverNeedsObjects(t *testing.T) {
	healed := map[string]bool{"pack removed": true}
	for name, damage := range map[string]func(t *testing.T, ws string, packs []string){
		"pack removed": func(t *testing.T, ws string, packs []string) {
			for _, p := range packs {
				base := strings.TrimSuffix(p, ".pack")
				for _, ext := range []string{".pack", ".idx", ".rev"} {
					os.Remove(base + ext)
				}
			}
		},
		"object rewritten": func(t *testing.T, ws string, packs []string) {
			loosen(t, ws)
			oid := strings.TrimSpace(run(t, ws, "hash-object", "src/untracked.txt"))
			poison(t, ws, oid, "blob", []byte("not yet added!"))
		},
		// Early among the blobs guard asks git for at once: the answers
		// after it are left unread, and guard must not wait on git.
		"first object rewritten": func(t *testing.T, ws string, packs []string) {
			loosen(t, ws)
			oid := strings.TrimSpace(run(t, ws, "hash-object", "src/main.go"))
			poison(t, ws, oid, "blob", []byte("package main // the attacker's\n"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			old, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "pack", "*.pack"))
			command(t, st, ws, "00000000000000e1", nil, func() {}) // guard's index and its pack
			now, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "pack", "*.pack"))
			var guards []string
			for _, p := range now {
				if !strings.Contains(strings.Join(old, "\n"), p) {
					guards = append(guards, p)
				}
			}
			if len(guards) == 0 {
				t.Fatal("guard wrote no pack")
			}
			damage(t, ws, guards)
			src := filepath.Join(ws, "src")
			cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000e2", Command: "rm -rf src", Time: t0, Deletes: []Target{{Path: src}}, Budget: DefaultBudget})
			if err != nil {
				if healed[name] {
					t.Fatalf("Begin: %v, want the objects written again", err)
				}
				return // no checkpoint: nothing covered
			}
			if healed[name] {
				before := snapshotFS(t, ws)
				if len(cp.Covered) != 1 {
					t.Fatalf("covered = %v, want src: its objects were written again", cp.Covered)
				}
				os.RemoveAll(src)
				if _, err := cp.Finish(st); err != nil {
					t.Fatal(err)
				}
				run(t, ws, "gc", "-q")
				undoRestores(t, st, ws, cp, before)
				return
			}
			defer cp.Discard(st)
			if len(cp.Covered) != 0 {
				t.Errorf("covered = %v, want nothing: src/untracked.txt's object is not whole", cp.Covered)
			}
		})
	}
}
