package checkpoint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rootOf is the id of the root tree of es, "" when guard does not build
// it (errTreeShape).
func rootOf(es []ientry) string {
	root, _, err := buildTrees(es)
	if err != nil {
		return ""
	}
	return hex.EncodeToString(root[:])
}

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

// readBlobs keeps only content that hashes to the id git recorded: a
// symlink's target and a plain file are packed; a file written since git
// hashed it, one that is now a FIFO or a symlink, and one over the limit
// are left to git; a path with no entry (gone) needs nothing.
func TestReadBlobs(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"same.txt": "as hashed\n", "later.txt": "written since\n", "was-file": "x"})
	os.Symlink("same.txt", filepath.Join(ws, "ln"))
	os.Symlink("same.txt", filepath.Join(ws, "now-link"))
	if err := unix.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, maxPackedBlob+1)
	os.WriteFile(filepath.Join(ws, "big.bin"), big, 0o644)
	entry := func(path string, mode uint32, content string) ientry {
		return ientry{path: path, mode: mode, oid: objectOf(objBlob, []byte(content)).oid}
	}
	es := []ientry{
		{path: "big.bin", mode: modeFile, oid: objectOf(objBlob, big).oid},
		entry("fifo", modeFile, ""),
		entry("later.txt", modeFile, "as git hashed it\n"),
		entry("ln", modeSymlink, "same.txt"),
		entry("now-link", modeFile, "as hashed\n"),
		entry("same.txt", modeFile, "as hashed\n"),
	}
	paths := []string{"big.bin", "fifo", "gone.txt", "later.txt", "ln", "now-link", "same.txt"}
	blobs, rest := readBlobs(ws, es, paths)
	var got []string
	for _, b := range blobs {
		got = append(got, string(b.data))
	}
	if want := []string{"same.txt", "as hashed\n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("blobs %q, want %q", got, want)
	}
	if want := []string{"big.bin", "fifo", "later.txt", "now-link"}; !reflect.DeepEqual(rest, want) {
		t.Errorf("rest %q, want %q", rest, want)
	}
}

// A file git stores otherwise than it is in the work tree (a clean
// filter) is written by git: the checkpoint holds git's content, and
// undo brings the file back as it was.
func TestCheckpointCleanFilter(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	run(t, ws, "config", "filter.up.clean", "tr a-z A-Z")
	run(t, ws, "config", "filter.up.smudge", "tr A-Z a-z")
	write(t, ws, map[string]string{".gitattributes": "*.up filter=up\n", "a.up": "lower\n"})
	run(t, ws, "add", "-A")
	run(t, ws, "commit", "-q", "-m", "filter")
	command(t, st, ws, "0000000000000020", nil, func() {})
	before := snapshotFS(t, ws)
	cp := command(t, st, ws, "0000000000000021", nil, func() {
		write(t, ws, map[string]string{"a.up": "changed\n", "plain.txt": "plain\n"})
	})
	if got := run(t, ws, "cat-file", "-p", cp.After+":a.up"); got != "CHANGED\n" {
		t.Errorf("checkpoint holds %q, want git's clean content", got)
	}
	if got := run(t, ws, "cat-file", "-p", cp.After+":plain.txt"); got != "plain\n" {
		t.Errorf("plain.txt: %q", got)
	}
	undoRestores(t, st, ws, cp, before)
}

// A checkpoint writes again only the trees of directories that hold a
// change; every other tree it names must already be in git. Over a
// series of random commands (files added in new nested directories,
// changed, made executable, turned into symlinks, deleted, whole
// directories removed), every object each checkpoint's trees name
// exists, and its root is git write-tree's for the same files.
func TestCheckpointSeriesComplete(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	rng := rand.New(rand.NewSource(7))
	dirs := []string{"src", "src/sub", "a", "a/b", "a/b/c", "z"}
	for n := range 15 {
		id := fmt.Sprintf("00000000000001%02d", n)
		cp := command(t, st, ws, id, nil, func() {
			for range 1 + rng.Intn(6) {
				d := dirs[rng.Intn(len(dirs))]
				p := filepath.Join(ws, d, fmt.Sprintf("f%d", rng.Intn(4)))
				switch rng.Intn(5) {
				case 0, 1:
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.Remove(p)
					os.WriteFile(p, []byte(fmt.Sprintf("%d %d\n", n, rng.Int())), 0o644)
				case 2:
					os.Chmod(p, 0o755)
				case 3:
					os.Remove(p)
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.Symlink("target", p)
				case 4:
					if rng.Intn(3) == 0 {
						os.RemoveAll(filepath.Join(ws, d))
					} else {
						os.Remove(p)
					}
				}
			}
		})
		if cp.After == "" {
			continue // nothing changed
		}
		c := exec.Command("git", "cat-file", "--batch-check")
		c.Dir = ws
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(run(t, ws, "ls-tree", "-r", "-t", cp.After)), "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[1] != "commit" {
				ids = append(ids, f[2])
			}
		}
		c.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
		out, err := c.Output()
		if err != nil || strings.Contains(string(out), "missing") {
			t.Fatalf("command %d: the checkpoint names objects git does not have: %v\n%s", n, err, out)
		}
	}
	run(t, ws, "fsck", "--strict", "--no-dangling")
}

// guard's git runs outside the sandbox: a file name it hands git must
// name that file and nothing else. A file over guard's own blob limit,
// named `"../secret"` (a leading quote is how git's --stdin-paths starts
// a quoted name, which it unquotes), must not make git store the file
// outside the workspace that the unquoted name reaches: the next
// command, which may read .git, would read it there.
func TestCheckpointNamesAreLiteral(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	secret := "the user's secret, outside the workspace\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(ws), "secret"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	command(t, st, ws, "0000000000000040", nil, func() {})
	big := strings.Repeat("x", maxPackedBlob+1)
	cp := command(t, st, ws, "0000000000000041", nil, func() {
		write(t, ws, map[string]string{`"../secret"`: big, `"a\nb"`: big})
	})
	if len(cp.Changes) != 2 {
		t.Errorf("changes = %v, want the two files", cp.Changes)
	}
	c := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	c.Dir = ws
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), secret) {
		t.Error("git stored the file outside the workspace in the repository")
	}
	if got := run(t, ws, "cat-file", "-p", cp.After+`:"../secret"`); got != big {
		t.Errorf("the checkpoint holds %d bytes for the file, want its %d", len(got), len(big))
	}
}

// A snapshot that stops after git recorded new ids in guard's index and
// before guard wrote their objects (guard killed there) leaves an index
// naming a blob that does not exist. The next checkpoint does not build
// on it: every object its trees name exists (git fsck), and undo works.
func TestCheckpointAfterStopMidSnapshot(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	command(t, st, ws, "0000000000000030", nil, func() {})
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	idx := seedIndex(st, r)
	// What writeSnapshot does up to the objects, then stops.
	write(t, ws, map[string]string{"README.md": "written by a command guard lost\n"})
	if err := saveState(idx+".json", &wtState{Version: stateVersion, GitDir: r.gitDir, Work: r.work, Pending: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.updateIndex(idx, []string{"README.md"}); err != nil {
		t.Fatal(err)
	}
	before := snapshotFS(t, ws)
	cp := command(t, st, ws, "0000000000000031", nil, func() {
		write(t, ws, map[string]string{"src/main.go": "package main // changed\n"})
	})
	for _, tree := range []string{cp.Before, cp.After} {
		for _, l := range strings.Split(strings.TrimSpace(run(t, ws, "ls-tree", "-r", tree)), "\n") {
			f := strings.Fields(l)
			if f[1] == "blob" {
				run(t, ws, "cat-file", "-e", f[2])
			}
		}
	}
	undoRestores(t, st, ws, cp, before)
}

// FuzzBuildTrees: on any index entries (paths from the input, sorted as
// git sorts them), buildTrees either refuses (errTreeShape) or returns
// trees that are well formed: each entry "<mode> <name>\0<id>" with a
// mode git writes, a name that is not empty, ".", ".." or holding "/",
// names in git's tree order, each once; every id it names as a tree is
// one of the trees returned; the root is the last.
// notATree says why sorted index paths are no tree git would write: a
// path git does not add (addable), one named twice, a file with the
// name of a directory, or a NUL; "" when they are one.
func notATree(paths []string) string {
	for i, p := range paths {
		if !addable(p) || strings.ContainsRune(p, 0) {
			return fmt.Sprintf("%q is no path git adds", p)
		}
		if i > 0 && paths[i-1] == p {
			return fmt.Sprintf("%q twice", p)
		}
		// Sorted: a path below p, if any, is where p+"/" would go.
		if j := sort.SearchStrings(paths, p+"/"); j < len(paths) && strings.HasPrefix(paths[j], p+"/") {
			return fmt.Sprintf("%q is a file and a directory", p)
		}
	}
	return ""
}

func FuzzBuildTrees(f *testing.F) {
	f.Add("a\na-b\na.c\na/x\na0\nb/c/d")
	f.Add("a\na/x")
	f.Add("./x\n../y\na//b\n/abs")
	f.Fuzz(func(t *testing.T, s string) {
		paths := strings.Split(s, "\n")
		sort.Strings(paths)
		var es []ientry
		for i, p := range paths {
			e := ientry{path: p, mode: []uint32{modeFile, modeExec, modeSymlink, modeGitlink}[i%4]}
			e.oid[0] = byte(i)
			es = append(es, e)
		}
		root, trees, err := buildTrees(es)
		if err != nil {
			if !errors.Is(err, errTreeShape) {
				t.Fatalf("err = %v", err)
			}
			// Only what git itself would not hold as a tree is refused.
			if why := notATree(paths); why == "" {
				t.Fatalf("buildTrees refused %q (%v), which git holds", paths, err)
			}
			return
		}
		if why := notATree(paths); why != "" {
			t.Fatalf("buildTrees built a tree of %q: %s", paths, why)
		}
		ids := map[[20]byte]bool{}
		for _, tr := range trees {
			ids[tr.oid] = true
		}
		if trees[len(trees)-1].oid != root {
			t.Fatal("the root is not the last tree")
		}
		for _, tr := range trees {
			if objectOf(objTree, tr.data).oid != tr.oid {
				t.Fatal("a tree's id is not its content's")
			}
			last := ""
			for d := tr.data; len(d) > 0; {
				sp := bytes.IndexByte(d, ' ')
				nul := bytes.IndexByte(d, 0)
				if sp < 0 || nul < sp || nul+21 > len(d) {
					t.Fatalf("malformed tree %q", tr.data)
				}
				mode, name := string(d[:sp]), string(d[sp+1:nul])
				var id [20]byte
				copy(id[:], d[nul+1:nul+21])
				d = d[nul+21:]
				switch mode {
				case "100644", "100755", "120000", "160000":
				case "40000":
					if !ids[id] {
						t.Fatalf("tree %q names a tree not built", name)
					}
				default:
					t.Fatalf("mode %q", mode)
				}
				if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
					t.Fatalf("name %q", name)
				}
				key := treeName(name, mode == "40000")
				if last != "" && last >= key {
					t.Fatalf("%q after %q", key, last)
				}
				last = key
			}
		}
	})
}

// buildTrees on the index of the 10,000-file benchmark workspace (100
// directories of 100 files under src/): every tree, as a checkpoint that
// changed a file in each directory builds them.
func BenchmarkBuildTrees10k(b *testing.B) {
	var es []ientry
	for d := 0; d < 100; d++ {
		for i := d; i < 10000; i += 100 {
			e := ientry{path: fmt.Sprintf("src/d%02d/f%05d.go", d, i), mode: modeFile}
			e.oid[0], e.oid[1] = byte(i), byte(i>>8)
			es = append(es, e)
		}
	}
	es = append([]ientry{{path: ".gitignore", mode: modeFile}}, es...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, trees, err := buildTrees(es); err != nil || len(trees) != 102 {
			b.Fatalf("%d trees, %v", len(trees), err)
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
