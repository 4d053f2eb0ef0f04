package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestNewRepositorySymlink: a repository the command swaps for a
// symlink to one outside is not followed: guard, unconfined, would move
// files there.
func TestNewRepositorySymlink(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	outside := t.TempDir()
	run(t, outside, "init", "-q")
	run(t, outside, "config", "core.fsmonitor", "echo mine")
	cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000b1", Time: t0, Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "lib")); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Finish(st); err != nil {
		t.Fatal(err)
	}
	if len(cp.Repos) != 0 {
		t.Errorf("followed the symlink: %+v", cp.Repos)
	}
}

// TestNewRepository: a command that makes a git repository inside the
// workspace (git init sub). Without a commit, git add refuses it ("does
// not have a commit checked out"), which failed every checkpoint of the
// workspace from then on; it is left out, as git status shows it (an
// untracked directory). Every repository the command made is in Repos,
// as new: guard then looks at its code (core.fsmonitor: git and the
// editors that run git there run it).
func TestNewRepository(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000a1", Time: t0, Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	// The command: an empty repository with code in its config, one with
	// a commit and a hook, and a plain one.
	run(t, ws, "init", "-q", "empty")
	run(t, ws, "-C", "empty", "config", "core.fsmonitor", "echo pwned")
	run(t, ws, "init", "-q", "full")
	write(t, filepath.Join(ws, "full"), map[string]string{"f.txt": "x\n", ".git/hooks/post-checkout*": "#!/bin/sh\necho pwned\n"})
	run(t, filepath.Join(ws, "full"), "add", "f.txt")
	run(t, filepath.Join(ws, "full"), "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "x")
	run(t, ws, "init", "-q", "plain")
	write(t, ws, map[string]string{"new.txt": "new\n"})

	changed, err := cp.Finish(st)
	if err != nil || !changed {
		t.Fatalf("finish: changed %v, err %v", changed, err)
	}
	got := map[string]RepoChange{}
	for _, r := range cp.Repos {
		got[r.Path] = r
	}
	for _, p := range []string{"empty", "full", "plain"} {
		if !got[p].New {
			t.Errorf("%s: not found as a new repository: %+v", p, cp.Repos)
		}
	}
	// The next checkpoint of the workspace works (the empty repository
	// used to fail it).
	time.Sleep(1100 * time.Millisecond) // past repoSlack: the first command's changes are old now
	cp2, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000a2", Time: time.Now(), Budget: DefaultBudget})
	if err != nil {
		t.Fatalf("next checkpoint: %v", err)
	}
	// The next command edits a repository that was there: only what it
	// changed is its; the others are not named.
	run(t, filepath.Join(ws, "full"), "config", "core.fsmonitor", "echo pwned")
	if _, err := cp2.Finish(st); err != nil {
		t.Fatalf("next checkpoint: %v", err)
	}
	if len(cp2.Repos) != 1 || cp2.Repos[0].Path != "full" || cp2.Repos[0].New || !reflect.DeepEqual(cp2.Repos[0].Files, []string{"config"}) {
		t.Errorf("second command: %+v, want full's config only", cp2.Repos)
	}
}
