package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGitConfinedToRepository: another command, still running, swaps
// refs/guard/checkpoints for a symlink to a directory outside the
// workspace after realStore's check, just before guard's git writes a
// ref (a git wrapper makes the swap at that moment). guard's git is
// confined to writing beneath the repository: the write is refused,
// nothing appears outside, and the snapshot fails rather than keeping a
// ref it did not write.
func TestGitConfinedToRepository(t *testing.T) {
	if landlockABI() <= 0 {
		t.Skip("no Landlock on this kernel: guard's git runs unconfined (realStore still checks)")
	}
	st := env(t)
	ws := newRepo(t)
	command(t, st, ws, "00000000000000b1", nil, func() { write(t, ws, map[string]string{"a.txt": "1\n"}) })
	outside := t.TempDir()
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	refs := filepath.Join(r.gitDir, "refs", "guard", "checkpoints")
	script := "#!/bin/sh\ncase \"$*\" in *update-ref*)\n" +
		"  mv '" + refs + "' '" + refs + ".moved' && ln -s '" + outside + "' '" + refs + "' || exit 99\n" +
		"esac\nexec '" + r.gitPath + "' \"$@\"\n"
	wrapper := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r.gitPath = wrapper
	write(t, ws, map[string]string{"b.txt": "written while the refs move\n"})
	_, err = r.snapshot(st, nil, func(res snapshotResult) error { return r.keep("00000000000000b2", "", res.tree, res) })
	if err == nil {
		t.Error("the snapshot kept a ref through a symlink out of the repository")
	}
	if target, lerr := os.Readlink(refs); lerr != nil || target != outside {
		t.Fatalf("the wrapper did not swap the refs (%q, %v): the test proves nothing", target, lerr)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("guard's git wrote %q outside the repository", ents[0].Name())
	}
}

// TestStoreLinksRefused: a command swaps a directory guard's git writes
// into for a symlink to a directory outside the workspace. guard's git
// runs unconfined after the command and followed it (refs/guard/… files
// appeared in the outside directory). No checkpoint is taken through
// such a link, and nothing is written there.
// TestCommonDirFixedAtBegin: a command that writes .git/commondir (or
// swaps .git for a gitdir: file) naming another repository of the user
// would have guard's git, after the run, write guard's objects and refs
// there and read that repository's config. The directories are fixed
// when Begin opens the repository; Finish finds them moved and takes
// no checkpoint, and the other repository gets nothing.
func TestCommonDirFixedAtBegin(t *testing.T) {
	for name, move := range map[string]func(ws, other string){
		"commondir": func(ws, other string) {
			write(t, ws, map[string]string{".git/commondir": filepath.Join(other, ".git") + "\n"})
		},
		"gitdir file": func(ws, other string) {
			if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, ".git.moved")); err != nil {
				t.Fatal(err)
			}
			write(t, ws, map[string]string{".git": "gitdir: " + filepath.Join(other, ".git") + "\n"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			other := newRepo(t)
			refsBefore := run(t, other, "for-each-ref")
			objsBefore := run(t, other, "count-objects", "-v")
			cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000c1", Command: "test", Time: t0, Budget: DefaultBudget})
			if err != nil {
				t.Fatal(err)
			}
			write(t, ws, map[string]string{"new.txt": "the command's file\n"})
			move(ws, other)
			if _, err := cp.Finish(st); !errors.Is(err, ErrRepoMoved) {
				t.Errorf("Finish = %v, want the repository reported moved", err)
			}
			if got := run(t, other, "for-each-ref"); got != refsBefore {
				t.Errorf("the other repository's refs changed:\n%s", got)
			}
			if got := run(t, other, "count-objects", "-v"); got != objsBefore {
				t.Errorf("guard's git wrote objects into the other repository:\n%s\nwas\n%s", got, objsBefore)
			}
		})
	}
}

func TestStoreLinksRefused(t *testing.T) {
	for _, rel := range []string{"refs", "refs/guard", "refs/guard/checkpoints", "refs/guard/index", "objects/pack", "objects/4b", "objects", "packed-refs", "logs", "logs/refs/guard"} {
		t.Run(rel, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			command(t, st, ws, "00000000000000a1", nil, func() { write(t, ws, map[string]string{"a.txt": "1\n"}) })
			outside := t.TempDir()
			p := filepath.Join(ws, ".git", filepath.FromSlash(rel))
			if err := os.Rename(p, p+".moved"); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			write(t, ws, map[string]string{"b.txt": "new: the snapshot writes\n"})
			_, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000a2", Command: "test", Time: t0, Budget: DefaultBudget})
			if !errors.Is(err, ErrStoreLink) {
				t.Errorf("Begin = %v, want %v", err, ErrStoreLink)
			}
			if ents, _ := os.ReadDir(outside); len(ents) > 0 {
				t.Errorf("guard's git wrote %d entries outside the repository, first %q", len(ents), ents[0].Name())
			}
		})
	}
}
