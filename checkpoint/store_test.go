package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStoreLinksRefused: a command swaps a directory guard's git writes
// into for a symlink to a directory outside the workspace. guard's git
// runs unconfined after the command and followed it (refs/guard/… files
// appeared in the outside directory). No checkpoint is taken through
// such a link, and nothing is written there.
func TestStoreLinksRefused(t *testing.T) {
	for _, rel := range []string{"refs", "refs/guard", "refs/guard/checkpoints", "refs/guard/index", "objects/pack", "objects/4b", "objects"} {
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
			if !errors.Is(err, errStoreLink) {
				t.Errorf("Begin = %v, want %v", err, errStoreLink)
			}
			if ents, _ := os.ReadDir(outside); len(ents) > 0 {
				t.Errorf("guard's git wrote %d entries outside the repository, first %q", len(ents), ents[0].Name())
			}
		})
	}
}
