package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// age dates the files and directories of the work tree (symlinks
// themselves too) written in the last half hour an hour back, as in a
// workspace a command did not just write: git and guard look again at
// files as new as their index. Older ones are left alone (their ctime
// too).
func age(t *testing.T, ws string) {
	t.Helper()
	now := time.Now()
	old := unix.NsecToTimespec(now.Add(-time.Hour).UnixNano())
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if info, err := d.Info(); err != nil || info.ModTime().Before(now.Add(-30*time.Minute)) {
			return nil
		}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{old, old}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			t.Fatal(err)
		}
		return nil
	})
}

// oracle is the tree git add -A writes through a fresh copy of the user's
// index: what the fast snapshot must equal.
func oracle(t *testing.T, r *repo) string {
	t.Helper()
	// Its objects go to an object directory of its own, inside the git
	// directory (where guard's git may write: confine.go), so that the
	// snapshots after it never find them.
	objs, err := os.MkdirTemp(r.gitDir, "oracle-objects-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(objs) })
	o := *r
	o.env = []string{"GIT_OBJECT_DIRECTORY=" + objs, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(r.commonDir(), "objects")}
	tree, err := o.addAll(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// lsTree maps every path of tree to "mode oid".
func lsTree(t *testing.T, ws, tree string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(run(t, ws, "ls-tree", "-r", "-z", tree), "\x00"), "\x00") {
		if l == "" {
			continue
		}
		meta, path, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		m[path] = f[0] + " " + f[2]
	}
	return m
}

// The fast snapshot writes the same tree as git add -A through a fresh
// copy of the user's index after every kind of change, runs no git when
// nothing changed, and falls back to git add -A only where it says so.
// Its index entries (which Finish diffs) are the tree's.
func TestSnapshotMatchesGitAddAll(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	write(t, ws, map[string]string{"logs/a.log": "ignored\n", "notes.tmp": "ignored by info/exclude\n"})
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n*.log\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "info", "exclude"), []byte("*.tmp\n"), 0o644)
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(ws, filepath.FromSlash(rel)) }
	steps := []struct {
		name     string
		do       func()
		fallback bool
		noGit    bool
	}{
		{name: "first snapshot, seeded from the user's index", do: func() {}},
		{name: "nothing changed", do: func() {}, noGit: true},
		{name: "content changed, same size, same mtime", do: func() {
			st, _ := os.Stat(p("src/main.go"))
			os.WriteFile(p("src/main.go"), []byte("package xxxx\n"), 0o644)
			os.Chtimes(p("src/main.go"), st.ModTime(), st.ModTime())
		}},
		{name: "nothing changed again", do: func() {}, noGit: true},
		{name: "new files: in a known dir, a new dir, ignored ones", do: func() {
			write(t, ws, map[string]string{
				"src/new.go": "new\n", "deep/a/b/c.txt": "c\n", "src/x.log": "ignored\n",
				"build/new.o": "ignored dir\n", "logs/b.log": "ignored\n", "only-ignored/z.log": "z\n",
				":colon": "magic?\n", "star*": "glob?\n", "sp ace/é.txt": "utf8\n",
			})
		}},
		{name: "nothing changed since", do: func() {}, noGit: true},
		{name: "a new file in a directory whose times are put back", do: func() {
			// Only its change time tells: the scan keeps the directory's
			// stat data from when it opened it for its entries.
			var was unix.Stat_t
			if err := unix.Lstat(p("src"), &was); err != nil {
				t.Fatal(err)
			}
			write(t, ws, map[string]string{"src/hidden.go": "hidden\n"})
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, p("src"), []unix.Timespec{was.Atim, was.Mtim}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a file in a directory that held only ignored files", do: func() {
			write(t, ws, map[string]string{"only-ignored/seen.txt": "seen\n"})
		}},
		{name: "deleted file and directory", do: func() {
			os.Remove(p("README.md"))
			os.RemoveAll(p("deep"))
		}},
		{name: "executable bit", do: func() { os.Chmod(p("src/main.go"), 0o755) }},
		{name: "file replaced by a symlink", do: func() {
			os.Remove(p("src/new.go"))
			os.Symlink("main.go", p("src/new.go"))
		}},
		{name: "directory replaced by a symlink to itself moved", do: func() {
			os.Rename(p("src/sub"), p("moved"))
			os.Symlink("../moved", p("src/sub"))
		}},
		{name: "symlink replaced by a directory again", do: func() {
			os.Remove(p("src/sub"))
			os.Rename(p("moved"), p("src/sub"))
		}},
		{name: ".gitignore no longer ignores *.log", do: func() {
			os.WriteFile(p(".gitignore"), []byte("build/\n"), 0o644)
		}},
		{name: "nothing changed since", do: func() {}, noGit: true},
		{name: "info/exclude no longer ignores *.tmp", do: func() {
			os.WriteFile(filepath.Join(ws, ".git", "info", "exclude"), nil, 0o644)
		}},
		{name: "a new .gitignore in a subdirectory", do: func() {
			write(t, ws, map[string]string{"src/.gitignore": "*.gen\n", "src/later.gen": "ignored\n", "src/later.go": "not ignored\n"})
		}},
		{name: "nothing changed since", do: func() {}, noGit: true},
		{name: "a file replaced by a directory", do: func() {
			os.Remove(p("src/run.sh"))
			write(t, ws, map[string]string{"src/run.sh/inner": "x\n"})
		}},
		{name: "a file replaced by an ignored directory", do: func() {
			os.Remove(p("src/main.go"))
			write(t, ws, map[string]string{"src/main.go/inner.gen": "x\n"})
		}},
		{name: "guard's index updated, its record not (a crash between them)", do: func() {
			write(t, ws, map[string]string{"src/crash.txt": "c\n"})
			age(t, ws)
			if _, err := r.git(seedIndex(st, r), nil, strings.NewReader("src/crash.txt\x00"), "update-index", "--add", "-z", "--stdin"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "nothing changed since", do: func() {}, noGit: true},
		// An index that is not the one guard's record was written with is
		// never read: guard's index starts again from the user's.
		{name: "an index guard cannot read", do: func() {
			idx := seedIndex(st, r)
			data, _ := os.ReadFile(idx)
			os.WriteFile(idx, data[:len(data)/2], 0o600) // truncated
		}},
		{name: "after the damaged index", do: func() { write(t, ws, map[string]string{"after.txt": "a\n"}) }},
		{name: "a nested repository", do: func() {
			os.MkdirAll(p("vendor/lib"), 0o755)
			run(t, p("vendor/lib"), "init", "-q")
			write(t, ws, map[string]string{"vendor/lib/f": "f\n"})
			run(t, p("vendor/lib"), "add", "f")
			run(t, p("vendor/lib"), "commit", "-q", "-m", "lib")
		}},
		{name: "nothing changed with a submodule", do: func() {}},
	}
	var prev snapshotResult
	for i, s := range steps {
		s.do()
		if !s.noGit {
			age(t, ws)
		}
		runs, fbs := counters.gitRuns.Load(), counters.fallbacks.Load()
		res, err := r.snapshot(st, nil, r.protect)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		runs, fbs = counters.gitRuns.Load()-runs, counters.fallbacks.Load()-fbs
		if want := oracle(t, r); res.tree != want {
			t.Fatalf("%s: tree %s, git add -A writes %s:\n%s", s.name, res.tree, want, run(t, ws, "diff-tree", "-r", res.tree, want))
		}
		if (fbs > 0) != s.fallback {
			t.Errorf("%s: fell back to git add -A: %v, want %v", s.name, fbs > 0, s.fallback)
		}
		if s.noGit && runs != 0 {
			t.Errorf("%s: %d git runs, want none", s.name, runs)
		}
		if res.entries != nil {
			got := map[string]string{}
			for _, e := range res.entries {
				if inTree(&e) {
					got[e.path] = fmt.Sprintf("%06o %x", e.mode, e.oid)
				}
			}
			if want := lsTree(t, ws, res.tree); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: index entries differ from the tree:\n%v\n%v", s.name, got, want)
			}
		}
		if i > 0 && prev.entries != nil && res.entries != nil {
			want, _ := r.diff(prev.tree, res.tree)
			if got := diffEntries(prev.entries, res.entries); !reflect.DeepEqual(sortChanges(got), sortChanges(want)) {
				t.Errorf("%s: diff %v, git diff-tree %v", s.name, got, want)
			}
		}
		prev = res
	}
	if out := run(t, ws, "status", "--porcelain"); !strings.Contains(out, "?? src/untracked.txt") {
		t.Errorf("the user's index changed: git status says\n%s", out)
	}
}

func sortChanges(cs []change) []change {
	out := append([]change(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// The git a command's checkpoint runs, once guard's index is warm: none
// when the command changed nothing; update-index and one update-ref
// (naming before and after) when it changed files, and check-ignore for
// a new name (guard stores the pack of blobs and trees itself: no git
// index-pack, no write-tree).
func TestCheckpointGitRuns(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	age(t, ws)
	cmd := func(id string, do func()) (int64, *Checkpoint) {
		runs := counters.gitRuns.Load()
		cp := command(t, st, ws, id, nil, func() {
			do()
			age(t, ws)
		})
		return counters.gitRuns.Load() - runs, cp
	}
	cmd("00000001", func() {}) // seeds guard's index
	if n, _ := cmd("00000002", func() {}); n != 0 {
		t.Errorf("a command that changed nothing ran git %d times, want 0", n)
	}
	n, cp := cmd("00000003", func() {
		write(t, ws, map[string]string{"src/main.go": "package changed\n", "src/new.txt": "new\n"})
		os.Remove(filepath.Join(ws, "README.md"))
	})
	if n != 3 {
		t.Errorf("a command that changed 3 files, one new, ran git %d times, want 3 (check-ignore too)", n)
	}
	want := []Change{{"deleted", "README.md"}, {"modified", "src/main.go"}, {"added", "src/new.txt"}}
	if !reflect.DeepEqual(cp.Changes, want) {
		t.Errorf("changes %v, want %v", cp.Changes, want)
	}
	n, cp = cmd("00000005", func() {
		write(t, ws, map[string]string{"src/main.go": "package again\n", "src/new.txt": "changed\n"})
	})
	if want := []Change{{"modified", "src/main.go"}, {"modified", "src/new.txt"}}; n != 2 || !reflect.DeepEqual(cp.Changes, want) {
		t.Errorf("a command that changed 2 files ran git %d times, want 2; changes %v, want %v", n, cp.Changes, want)
	}
	if n, _ := cmd("00000004", func() {}); n != 0 {
		t.Errorf("a command that changed nothing after one that did ran git %d times, want 0", n)
	}
	// What guard's git wrote (with its malloc tunables) is sound to git.
	if out := run(t, ws, "fsck", "--strict", "--no-dangling", "--no-progress"); out != "" {
		t.Errorf("git fsck: %s", out)
	}
	for _, ref := range []string{refPrefix + "00000003/after", refPrefix + "00000005/after"} {
		run(t, ws, "cat-file", "-e", ref)
	}
}

// parseIndex reads what git writes in index versions 2, 3 and 4 (v4
// compresses each path against the one before), with the skip-worktree
// and intent-to-add flags of v3 and later.
func TestParseIndexVersions(t *testing.T) {
	env(t)
	ws := newRepo(t)
	write(t, ws, map[string]string{"src/sub/deeper/x.txt": "x\n", "src/sub/deeper/y.txt": "y\n", "zz.txt": "z\n"})
	run(t, ws, "add", "src/sub/deeper", "zz.txt")
	run(t, ws, "add", "-N", "src/untracked.txt")
	run(t, ws, "update-index", "--skip-worktree", "README.md")
	want := run(t, ws, "ls-files", "-s", "-z")
	for _, v := range []string{"2", "3", "4"} {
		run(t, ws, "update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(ws, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		// git keeps v3 while an entry has extended flags (v2 is the
		// oracle test's).
		if got, want := data[7], map[string]byte{"2": 3, "3": 3, "4": 4}[v]; got != want {
			t.Fatalf("index version %d, want %d", got, want)
		}
		es, err := parseIndex(data, 20)
		if err != nil {
			t.Fatalf("v%s: %v", v, err)
		}
		var b strings.Builder
		for _, e := range es {
			fmt.Fprintf(&b, "%06o %x %d\t%s\x00", e.mode, e.oid, e.stage, e.path)
			if e.ita != (e.path == "src/untracked.txt") || e.skip != (e.path == "README.md") {
				t.Errorf("v%s: %s: ita %v skip %v", v, e.path, e.ita, e.skip)
			}
		}
		if b.String() != want {
			t.Errorf("v%s: parsed\n%q\ngit ls-files -s\n%q", v, b.String(), want)
		}
	}
}

// The before tree, which Begin does not name for the checkpoint, is kept
// by the index's ref while the command runs: a git gc --prune=now in the
// command does not take the blob of an untracked file it then deletes.
func TestBeforeTreeSurvivesGC(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	path := filepath.Join(ws, "src", "untracked.txt")
	cp := command(t, st, ws, "0000000a", nil, func() {
		run(t, ws, "gc", "-q", "--prune=now")
		os.Remove(path)
	})
	undo(t, st, cp, false)
	if data, err := os.ReadFile(path); err != nil || string(data) != "not yet added\n" {
		t.Errorf("after undo: %q, %v", data, err)
	}
}

// The entry scan shares a directory's entries out in pieces
// (scanChunk): a change in any piece of a big directory is seen, and
// every entry under a directory swapped for a symlink is gone, however
// many pieces it takes; the snapshot is git add -A's.
func TestScanBigDirectory(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	files := map[string]string{}
	n := 2*scanChunk + 50
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("big/f%04d", i)] = fmt.Sprintf("%d\n", i)
		if i < scanChunk+10 {
			files[fmt.Sprintf("link/g%04d", i)] = "g\n"
		}
	}
	write(t, ws, files)
	run(t, ws, "add", "-A")
	run(t, ws, "commit", "-q", "-m", "big")
	age(t, ws)
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.snapshot(st, nil, r.protect); err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(ws, filepath.FromSlash(rel)) }
	changed := []string{"big/f0001", fmt.Sprintf("big/f%04d", scanChunk+3), fmt.Sprintf("big/f%04d", n-1)}
	os.WriteFile(p(changed[0]), []byte("changed in the first piece\n"), 0o644)
	os.WriteFile(p(changed[1]), []byte("changed in the second\n"), 0o644)
	os.Remove(p(changed[2]))
	if err := os.Rename(p("link"), p("elsewhere")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", p("link")); err != nil {
		t.Fatal(err)
	}
	age(t, ws)
	es, ist, err := readIndex(seedIndex(st, r), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := dirtyEntries(ws, es, ist)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.dirty, changed) {
		t.Errorf("dirty %v, want %v", s.dirty, changed)
	}
	if len(s.drop) != scanChunk+10 || !strings.HasPrefix(s.drop[0], "link/") || !strings.HasPrefix(s.drop[len(s.drop)-1], "link/") {
		t.Errorf("dropped %d entries (%v...), want the %d under link/", len(s.drop), s.drop[:min(len(s.drop), 3)], scanChunk+10)
	}
	if _, ok := s.dirs["link"]; ok {
		t.Errorf("the symlink link has directory stat data %v", s.dirs["link"])
	}
	res, err := r.snapshot(st, nil, r.protect)
	if err != nil {
		t.Fatal(err)
	}
	if want := oracle(t, r); res.tree != want {
		t.Fatalf("tree %s, git add -A writes %s:\n%s", res.tree, want, run(t, ws, "diff-tree", "-r", res.tree, want))
	}
}

// An entry whose stat data are the file's is still looked at again when
// it is as new as guard's index (racily clean: a file written again in
// the same clock tick, with the same size, shows no other change), and
// the scan keeps the stat data of its directory for the walker.
func TestScanRacilyClean(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"d/f": "x\n"})
	sd, _, ok := lstatData(filepath.Join(ws, "d", "f"))
	if !ok {
		t.Fatal("no d/f")
	}
	es := []ientry{{path: "d/f", mode: modeFile, stat: sd}}
	idx := sd // the index written in the same tick as the file
	s, err := dirtyEntries(ws, es, idx)
	if err != nil || !reflect.DeepEqual(s.dirty, []string{"d/f"}) {
		t.Errorf("as new as the index: dirty %v, %v; want d/f", s.dirty, err)
	}
	idx.MtimeS++
	if s, err = dirtyEntries(ws, es, idx); err != nil || len(s.dirty) != 0 {
		t.Errorf("older than the index: dirty %v, %v; want none", s.dirty, err)
	}
	if dst, _, _ := lstatData(filepath.Join(ws, "d")); s.dirs["d"] != dst {
		t.Errorf("directory d: kept %v, lstat %v", s.dirs["d"], dst)
	}
}
