package checkpoint

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitRoot is what git write-tree makes of ws's index, and guard's root
// of the same index.
func gitRoot(t *testing.T, ws string) (git, guard string) {
	t.Helper()
	git = strings.TrimSpace(run(t, ws, "write-tree"))
	es, _, err := readIndex(filepath.Join(ws, ".git", "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return git, rootOf(es)
}

// guard's trees are git write-tree's, on names whose order in the index
// and in a tree differ only by git's rule for directories ("a-b" < "a.c"
// < "a/" < "a0"), and on every kind of entry: executable, symlink,
// submodule, intent-to-add (left out, and a directory of nothing else
// with it), skip-worktree (kept), non-ASCII
// and spaces.
func TestBuildTreesMatchesGit(t *testing.T) {
	env(t)
	ws := newRepo(t)
	write(t, ws, map[string]string{
		"a-b": "1", "a.c": "2", "a/x": "3", "a/b/c": "4", "a0": "5", "a b/é.txt": "6",
		"tool*": "#!/bin/sh\n", "z/.hidden": "7", "z/A": "8", "z/a": "9", "z/_": "10",
	})
	if err := os.Symlink("a/x", filepath.Join(ws, "ln")); err != nil {
		t.Fatal(err)
	}
	run(t, ws, "add", "-A")
	head := strings.TrimSpace(run(t, ws, "rev-parse", "HEAD"))
	run(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+head+",vendor/sub")
	write(t, ws, map[string]string{"later.txt": "not yet", "new/only.txt": "not yet"})
	run(t, ws, "add", "-N", "later.txt", "new/only.txt")
	run(t, ws, "update-index", "--skip-worktree", "a0")
	git, guard := gitRoot(t, ws)
	if guard != git {
		t.Errorf("guard's root %s, git write-tree's %s", guard, git)
	}
}

// The same on random work trees: names from a small alphabet that
// collides in every way the order rules care about.
func TestBuildTreesRandom(t *testing.T) {
	env(t)
	rng := rand.New(rand.NewSource(1))
	parts := []string{"a", "b", "a-", "a.", "a0", "-", ".x", "A", "é", "a b"}
	for round := range 25 {
		ws := t.TempDir()
		run(t, ws, "init", "-q")
		files := map[string]string{}
		taken := map[string]bool{} // files, and the directories above them
		for range 1 + rng.Intn(40) {
			var comps []string
			for range 1 + rng.Intn(4) {
				comps = append(comps, parts[rng.Intn(len(parts))])
			}
			p := strings.Join(comps, "/")
			ok := !taken[p+"/"]
			for i := 1; i < len(comps) && ok; i++ {
				ok = !taken[strings.Join(comps[:i], "/")]
			}
			if !ok {
				continue
			}
			name := p
			if rng.Intn(5) == 0 {
				name += "*"
			}
			files[name] = p
			taken[p] = true
			for i := 1; i < len(comps); i++ {
				taken[strings.Join(comps[:i], "/")+"/"] = true
			}
		}
		write(t, ws, files)
		run(t, ws, "add", "-A")
		if git, guard := gitRoot(t, ws); guard != git {
			t.Errorf("round %d: guard's root %s, git write-tree's %s\nfiles %v", round, guard, git, files)
		}
	}
}

// What git would refuse or write otherwise is not built: an unmerged
// entry, a file and a directory of one name, an empty name, a sparse
// directory entry.
func TestBuildTreesRefuses(t *testing.T) {
	e := func(path string, mode uint32, stage int) ientry { return ientry{path: path, mode: mode, stage: stage} }
	for name, es := range map[string][]ientry{
		"unmerged":       {e("a", modeFile, 1), e("a", modeFile, 2)},
		"file and dir":   {e("a", modeFile, 0), e("a/x", modeFile, 0)},
		"empty name":     {e("a//x", modeFile, 0)},
		"dot":            {e("./x", modeFile, 0)},
		"out of order":   {e("b", modeFile, 0), e("a", modeFile, 0)},
		"sparse dir":     {e("a/", 0o40000, 0)},
		"unknown mode":   {e("a", 0o100600, 0)},
		"twice the same": {e("a", modeFile, 0), e("a", modeFile, 0)},
	} {
		if _, _, err := buildTrees(es); !errors.Is(err, errTreeShape) {
			t.Errorf("%s: err = %v, want errTreeShape", name, err)
		}
	}
}
