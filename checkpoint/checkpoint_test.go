package checkpoint

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// env gives the test a fake home and state dir, no system git config and
// a git identity, and returns the state dir.
func env(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@example.com")
	}
	return filepath.Join(home, ".local", "state", "guard")
}

// run runs git (the test's own, as a user would) in dir.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// write creates files: name → content; a name ending in "*" is made
// executable.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotFS maps every file under dir (but .git) to mode and content.
func snapshotFS(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		switch {
		case info.IsDir():
			m[rel+"/"] = info.Mode().Perm().String()
		case info.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[rel] = "-> " + l
		default:
			data, _ := os.ReadFile(p)
			m[rel] = info.Mode().String() + " " + string(data)
		}
		return nil
	})
	return m
}

// newRepo makes a git workspace with a committed src/ (an executable, a
// symlink, a nested dir), an untracked file, and an ignored build/.
func newRepo(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	run(t, ws, "init", "-q", "-b", "main")
	write(t, ws, map[string]string{
		".gitignore": "build/\n", "src/main.go": "package main\n", "src/run.sh*": "#!/bin/sh\necho hi\n",
		"src/sub/data.bin": "\x00\x01\x02binary", "README.md": "# x\n",
	})
	if err := os.Symlink("main.go", filepath.Join(ws, "src", "link")); err != nil {
		t.Fatal(err)
	}
	run(t, ws, "add", "-A")
	run(t, ws, "commit", "-q", "-m", "init")
	write(t, ws, map[string]string{"src/untracked.txt": "not yet added\n", "build/out.o": "object", "build/bin/tool*": "ELF"})
	return ws
}

// command simulates a command between Begin and Finish.
func command(t testing.TB, stateDir, ws, id string, deletes []Target, do func()) *Checkpoint {
	t.Helper()
	cp, err := Begin(Options{StateDir: stateDir, Workspace: ws, ID: id, Command: "test", Time: t0, Deletes: deletes, Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	do()
	if _, err := cp.Finish(stateDir); err != nil {
		t.Fatal(err)
	}
	return cp
}

func undo(t testing.TB, stateDir string, cp *Checkpoint, force bool) (*Plan, []Action) {
	t.Helper()
	p, err := PlanUndo(stateDir, cp)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Apply(stateDir, force, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return p, done
}

// The agent-style rm -rf src: covered, and undo brings back every file
// byte for byte with its mode, untracked ones included, without touching
// the user's index, HEAD, stash or log.
func TestUndoDeletedTree(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	before := snapshotFS(t, ws)
	index, _ := os.ReadFile(filepath.Join(ws, ".git", "index"))
	status := run(t, ws, "status", "--porcelain")
	src := filepath.Join(ws, "src")
	if got := Cover(st, ws, []Target{{Path: src}}, DefaultBudget); !reflect.DeepEqual(got, []string{src}) {
		t.Fatalf("Cover = %v, want src covered", got)
	}
	cp := command(t, st, ws, "0000000000000001", []Target{{Path: src}}, func() { os.RemoveAll(src) })
	if len(cp.Changes) != 5 {
		t.Errorf("changes = %v, want 5 deleted", cp.Changes)
	}
	// The checkpoint survives gc and stays out of the user's view.
	run(t, ws, "gc", "-q", "--prune=now")
	run(t, ws, "cat-file", "-e", cp.Before)
	run(t, ws, "cat-file", "-e", cp.After)
	if out := run(t, ws, "log", "--all", "--oneline"); strings.Count(out, "\n") != 1 {
		t.Errorf("git log shows guard's commits:\n%s", out)
	}
	for _, args := range [][]string{{"stash", "list"}, {"branch", "--list", "*guard*"}} {
		if out := run(t, ws, args...); out != "" {
			t.Errorf("git %v = %q", args, out)
		}
	}
	_, done := undo(t, st, cp, false)
	if len(done) != 7 { // 5 files, src/ and src/sub/
		t.Errorf("done = %v", done)
	}
	if got := snapshotFS(t, ws); !reflect.DeepEqual(got, before) {
		t.Errorf("after undo:\n%v\nwant\n%v", got, before)
	}
	if idx, _ := os.ReadFile(filepath.Join(ws, ".git", "index")); !bytes.Equal(idx, index) {
		t.Error("the user's index changed")
	}
	if s := run(t, ws, "status", "--porcelain"); s != status {
		t.Errorf("git status = %q, want %q", s, status)
	}
	if _, err := PlanUndo(st, cp); err == nil {
		t.Error("a checkpoint can be undone twice")
	}
}

// A checkpoint writes no loose object: its blobs and trees go into one
// pack (trees.go), where a loose file each was what a checkpoint's time
// went to on this machine (bench_test.go); and undo reads them from
// there, also after git gc.
func TestCheckpointWritesPacks(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	before := snapshotFS(t, ws)
	objects := filepath.Join(ws, ".git", "objects")
	packs := func() int {
		m, _ := filepath.Glob(filepath.Join(objects, "pack", "*.pack"))
		return len(m)
	}
	command(t, st, ws, "0000000000000010", nil, func() {}) // guard's index, as after a first command
	loose := map[string]bool{}
	filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			loose[p] = true
		}
		return nil
	})
	n := packs()
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("src/gen/f%02d.txt", i)] = fmt.Sprintf("generated %d\n", i)
	}
	files["src/main.go"] = "package main // changed\n"
	cp := command(t, st, ws, "0000000000000011", nil, func() { write(t, ws, files) })
	if len(cp.Changes) != 21 {
		t.Fatalf("changes = %v, want 21", cp.Changes)
	}
	if got := packs(); got != n+1 {
		t.Errorf("packs: %d, want %d (one more)", got, n+1)
	}
	filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || loose[p] || filepath.Base(filepath.Dir(p)) == "pack" {
			return nil
		}
		oid := filepath.Base(filepath.Dir(p)) + filepath.Base(p)
		t.Errorf("loose %s object %s", strings.TrimSpace(run(t, ws, "cat-file", "-t", oid)), oid)
		return nil
	})
	run(t, ws, "gc", "-q", "--prune=now")
	undoRestores(t, st, ws, cp, before)
}

// undoRestores checks that git finds every object of ws whole and
// connected, then undoes cp and checks that the workspace is before.
func undoRestores(t *testing.T, st, ws string, cp *Checkpoint, before map[string]string) {
	t.Helper()
	run(t, ws, "fsck", "--strict", "--no-dangling")
	undo(t, st, cp, false)
	if got := snapshotFS(t, ws); !reflect.DeepEqual(got, before) {
		t.Errorf("after undo:\n%v\nwant\n%v", got, before)
	}
}

// A file created after the command is not the command's: undo keeps it,
// and removes what the command created, with the directories it made.
func TestUndoKeepsLaterFiles(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	cp := command(t, st, ws, "0000000000000002", nil, func() {
		write(t, ws, map[string]string{"gen/a/out.txt": "generated", "README.md": "changed\n"})
	})
	write(t, ws, map[string]string{"later.txt": "mine"})
	undo(t, st, cp, false)
	for p, want := range map[string]bool{"later.txt": true, "gen": false, "src/untracked.txt": true} {
		if _, err := os.Stat(filepath.Join(ws, p)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", p, err == nil, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "# x\n" {
		t.Errorf("README.md = %q", b)
	}
}

// A path changed since the command is a conflict: kept without force,
// reverted with it.
func TestUndoConflict(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	cp := command(t, st, ws, "0000000000000003", nil, func() {
		write(t, ws, map[string]string{"README.md": "by the command\n", "src/main.go": "package changed\n"})
	})
	write(t, ws, map[string]string{"README.md": "by the user since\n"})
	p, err := PlanUndo(st, cp)
	if err != nil {
		t.Fatal(err)
	}
	if p.Conflicts() != 1 || p.Actions[0].Path != "README.md" || p.Actions[0].Conflict == "" {
		t.Fatalf("plan = %+v", p.Actions)
	}
	if _, err := p.Apply(st, false, t0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "by the user since\n" {
		t.Errorf("conflicting README.md overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src/main.go")); string(b) != "package main\n" {
		t.Errorf("src/main.go not restored: %q", b)
	}
	// Forced, on a fresh checkpoint of the same kind.
	cp = command(t, st, ws, "0000000000000004", nil, func() { write(t, ws, map[string]string{"README.md": "again\n"}) })
	write(t, ws, map[string]string{"README.md": "and the user\n"})
	undo(t, st, cp, true)
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "by the user since\n" {
		t.Errorf("forced undo: README.md = %q", b)
	}
}

// Ignored files under a delete target get hard-link backups within the
// budget; over it the target is not covered.
func TestIgnoredBackup(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	before := snapshotFS(t, ws)
	build := filepath.Join(ws, "build")
	if got := Cover(st, ws, []Target{{Path: build}}, Budget{MaxFiles: 1, MaxBytes: 1 << 20}); len(got) != 0 {
		t.Errorf("over the file budget: Cover = %v", got)
	}
	if got := Cover(st, ws, []Target{{Path: build}}, Budget{MaxFiles: 10, MaxBytes: 3}); len(got) != 0 {
		t.Errorf("over the byte budget: Cover = %v", got)
	}
	if got := Cover(st, ws, []Target{{Path: build, InPlace: true}}, DefaultBudget); len(got) != 0 {
		t.Errorf("an ignored file changed in place: Cover = %v", got)
	}
	if got := Cover(st, ws, []Target{{Path: build}}, DefaultBudget); len(got) != 1 {
		t.Fatalf("Cover = %v, want build covered", got)
	}
	// Over budget, the checkpoint still keeps git's trees, without backups.
	over, err := Begin(Options{StateDir: st, Workspace: ws, ID: "00000000000000e1", Time: t0, Deletes: []Target{{Path: build}}, Budget: Budget{MaxFiles: 1, MaxBytes: 1 << 20}})
	if err != nil || over.Before == "" || len(over.Backups) != 0 || len(over.Covered) != 0 {
		t.Fatalf("over budget: %+v, %v", over, err)
	}
	over.Discard(st)
	cp := command(t, st, ws, "0000000000000005", []Target{{Path: build}}, func() { os.RemoveAll(build) })
	if len(cp.Backups) != 2 || !strings.HasPrefix(cp.BackupDir, st) {
		t.Errorf("backups = %+v in %s", cp.Backups, cp.BackupDir)
	}
	undo(t, st, cp, false)
	if got := snapshotFS(t, ws); !reflect.DeepEqual(got, before) {
		t.Errorf("after undo:\n%v\nwant\n%v", got, before)
	}
}

// A backup changed in place (the hard link shares the bytes) is refused,
// even forced: its old content is gone.
func TestBackupChangedInPlace(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	out := filepath.Join(ws, "build", "out.o")
	cp := command(t, st, ws, "0000000000000006", []Target{{Path: filepath.Join(ws, "build")}}, func() {
		os.WriteFile(out, []byte("overwritten, longer than before"), 0o644)
		os.RemoveAll(filepath.Join(ws, "build"))
	})
	p, _ := undo(t, st, cp, true)
	if p.Conflicts() != 1 {
		t.Errorf("plan = %+v", p.Actions)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a changed backup was restored")
	}
	if _, err := os.Stat(filepath.Join(ws, "build", "bin", "tool")); err != nil {
		t.Error("the intact backup was not restored")
	}
}

// Outside git, every file of a delete target is backed up.
func TestNonGitWorkspace(t *testing.T) {
	st := env(t)
	ws := t.TempDir()
	write(t, ws, map[string]string{"data/a.csv": "1,2\n", "data/run*": "#!/bin/sh\n", "data/deep/x": "x", "keep.txt": "k"})
	os.MkdirAll(filepath.Join(ws, "data", "empty"), 0o750)
	before := snapshotFS(t, ws)
	data := filepath.Join(ws, "data")
	if got := Cover(st, ws, []Target{{Path: data}}, DefaultBudget); len(got) != 1 {
		t.Fatalf("Cover = %v", got)
	}
	cp := command(t, st, ws, "0000000000000007", []Target{{Path: data}}, func() { os.RemoveAll(data) })
	if cp.GitDir != "" || len(cp.Backups) != 3 {
		t.Errorf("checkpoint = %+v", cp)
	}
	undo(t, st, cp, false)
	if got := snapshotFS(t, ws); !reflect.DeepEqual(got, before) {
		t.Errorf("after undo:\n%v\nwant\n%v", got, before)
	}
}

// What Cover refuses: the workspace itself, .git, outside, a nested
// repository, a special file, a missing target (the line may fill it
// first), and a glob whose directory is the workspace.
func TestCoverRefuses(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	nested := filepath.Join(ws, "vendor", "lib")
	os.MkdirAll(nested, 0o755)
	run(t, nested, "init", "-q")
	fifo := filepath.Join(ws, "pipes")
	os.MkdirAll(fifo, 0o755)
	if err := exec.Command("mkfifo", filepath.Join(fifo, "p")).Run(); err != nil {
		t.Skip("no mkfifo")
	}
	targets := []Target{
		{Path: ws}, {Path: filepath.Join(ws, ".git")}, {Path: filepath.Join(ws, ".git", "refs")},
		{Path: filepath.Dir(ws)}, {Path: filepath.Join(ws, "vendor")}, {Path: fifo},
		{Path: filepath.Join(ws, "missing")}, {Path: filepath.Join(ws, "src", "*.go")}, {Path: filepath.Join(ws, "*")},
	}
	got := Cover(st, ws, targets, DefaultBudget)
	sort.Strings(got)
	want := []string{filepath.Join(ws, "src", "*.go")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cover = %v, want %v", got, want)
	}
}

// A line that also writes (moves) what git does not hold could move it
// into a delete target first: then nothing is covered. Writing new paths
// or tracked ones is fine, and so is writing content inside the target;
// a write that may make a symlink there is not (ln -s ~ src/x && rm -rf
// src/*/ follows it).
func TestCoverWritten(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	src := filepath.Join(ws, "src")
	for _, c := range []struct {
		written string
		mayLink bool
		want    int
	}{
		{"build", true, 0},       // mv build src/ && rm -rf src
		{"build/out.o", true, 0}, // an ignored file
		{"new-dir", true, 1},     // does not exist yet
		{"README.md", true, 1},   // tracked
		{"src/untracked.txt", false, 1},
		{"src/new.go", false, 1},
		{"src/untracked.txt", true, 0},
		{"src/new", true, 0},
		{"src", true, 0},
	} {
		got := Cover(st, ws, []Target{{Path: filepath.Join(ws, c.written), Written: true, MayLink: c.mayLink}, {Path: src}}, DefaultBudget)
		if len(got) != c.want {
			t.Errorf("writing %s (may link: %v): Cover = %v, want %d covered", c.written, c.mayLink, got, c.want)
		}
	}
}

// The profile names rm -rf src/*/ and find -L src -delete by src (or
// src/*): they go through a symlink to a directory under it, so one that
// leads outside the target makes it uncovered. Links to files, dangling
// links and links within the target stay covered.
func TestCoverSymlinkToDirectoryOutside(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	outside := t.TempDir()
	write(t, outside, map[string]string{"precious": "x"})
	write(t, ws, map[string]string{"src/sub/inner/f": "y"})
	src := filepath.Join(ws, "src")
	for _, c := range []struct {
		name, dest string
		want       int
	}{
		{"to a directory outside the workspace", outside, 0},
		{"to an ignored directory of the workspace", filepath.Join(ws, "build"), 0},
		{"to the workspace", ws, 0},
		{"to a directory inside the target", filepath.Join(src, "sub", "inner"), 2},
		{"to a file outside", filepath.Join(outside, "precious"), 2},
		{"dangling", filepath.Join(outside, "gone"), 2},
	} {
		l := filepath.Join(src, "l")
		os.Remove(l)
		if err := os.Symlink(c.dest, l); err != nil {
			t.Fatal(err)
		}
		got := Cover(st, ws, []Target{{Path: src}, {Path: filepath.Join(src, "*")}}, DefaultBudget)
		if len(got) != c.want {
			t.Errorf("symlink %s: Cover = %v, want %d covered", c.name, got, c.want)
		}
	}
}

func TestPrune(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	var ids []string
	for i, id := range []string{"00000000000000a1", "00000000000000a2", "00000000000000a3"} {
		cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: id, Time: t0.Add(time.Duration(i) * time.Hour), Budget: DefaultBudget})
		if err != nil {
			t.Fatal(err)
		}
		write(t, ws, map[string]string{"f.txt": id})
		if _, err := cp.Finish(st); err != nil {
			t.Fatal(err)
		}
		// Prune's quick look goes by when a record was written.
		os.Chtimes(filepath.Join(st, "checkpoints", id, "meta.json"), cp.Time, cp.Time)
		ids = append(ids, id)
	}
	removed, err := Prune(st, Retention{Keep: 2}, t0.Add(3*time.Hour))
	if err != nil || !reflect.DeepEqual(removed, []string{ids[0]}) {
		t.Fatalf("Prune = %v, %v", removed, err)
	}
	if out := run(t, ws, "for-each-ref", refPrefix); strings.Contains(out, ids[0]) || !strings.Contains(out, ids[2]) {
		t.Errorf("refs after prune:\n%s", out)
	}
	removed, _ = Prune(st, Retention{Keep: 10, MaxAge: 90 * time.Minute}, t0.Add(3*time.Hour))
	if !reflect.DeepEqual(removed, []string{ids[1]}) {
		t.Errorf("Prune by age = %v", removed)
	}
	u, err := Measure(st)
	if err != nil || u.Checkpoints != 1 {
		t.Errorf("Measure = %+v, %v", u, err)
	}
}

// A command that changes nothing leaves no checkpoint.
func TestNoChangeNoCheckpoint(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	cp := command(t, st, ws, "00000000000000b1", nil, func() {})
	if _, err := Load(st, cp.ID); err == nil {
		t.Error("an empty checkpoint was kept")
	}
	if out := run(t, ws, "for-each-ref", refPrefix); out != "" {
		t.Errorf("ref left behind: %s", out)
	}
}

// Undo never writes or removes through a symlink that replaced a
// directory: not even forced.
func TestUndoNeverFollowsSymlinks(t *testing.T) {
	st := env(t)
	ws := t.TempDir()
	outside := t.TempDir()
	write(t, ws, map[string]string{"data/a.csv": "1\n"})
	data := filepath.Join(ws, "data")
	cp := command(t, st, ws, "00000000000000d1", []Target{{Path: data}}, func() { os.RemoveAll(data) })
	if err := os.Symlink(outside, data); err != nil {
		t.Fatal(err)
	}
	p, done := undo(t, st, cp, true)
	if len(done) != 0 || p.Conflicts() != len(p.Actions) {
		t.Errorf("plan %+v, done %+v", p.Actions, done)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("undo wrote through the symlink: %v", ents)
	}

	// In git, a file the command created under a directory now replaced
	// by a symlink is not removed through it.
	ws = newRepo(t)
	cp = command(t, st, ws, "00000000000000d2", nil, func() { write(t, ws, map[string]string{"gen/x": "x"}) })
	write(t, outside, map[string]string{"x": "keep me"})
	os.RemoveAll(filepath.Join(ws, "gen"))
	os.Symlink(outside, filepath.Join(ws, "gen"))
	undo(t, st, cp, true)
	if b, err := os.ReadFile(filepath.Join(outside, "x")); err != nil || string(b) != "keep me" {
		t.Errorf("undo removed a file through the symlink: %q %v", b, err)
	}
}
