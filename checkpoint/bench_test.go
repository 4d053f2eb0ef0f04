package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// benchRepo is a committed git workspace of n files in 100 directories.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	ws := b.TempDir()
	run(b, ws, "init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		p := filepath.Join(ws, "src", fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst X%d = %d\n", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(b, ws, map[string]string{".gitignore": "build/\n"})
	ageFiles(b, ws)
	// Packed, as a real repository is: the blobs straight into a pack (a
	// loose file each, then git gc, would delete 10,000 files, and on
	// ext4 without a journal every inode allocated in the next 30 to 60 s
	// scans past them: the benchmark would measure its own set-up).
	run(b, ws, "-c", "core.bigFileThreshold=1", "add", "-A")
	run(b, ws, "-c", "gc.auto=0", "commit", "-q", "-m", "bench")
	run(b, ws, "gc", "-q")
	// GUARD_BENCH_SETTLE (a duration) waits before timing starts, for
	// the inodes the machine freed just before (other benchmarks' temp
	// dirs) to age out of that scan.
	if d, err := time.ParseDuration(os.Getenv("GUARD_BENCH_SETTLE")); err == nil {
		time.Sleep(d)
	}
	return ws
}

// ageFiles dates every file an hour back, as files in a real workspace
// are: git re-hashes files as new as its index ("racily clean").
func ageFiles(b *testing.B, ws string) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(ws, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// cpuMeter reports the CPU time (user and system, guard and the git it
// runs) per operation, between stop and start like the benchmark timer:
// on a loaded machine it says more than wall time.
type cpuMeter struct {
	total int64
	mark  int64
	git   int64 // git processes started, at the start
}

func cpuNow() int64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	ns := func(r syscall.Rusage) int64 { return syscall.TimevalToNsec(r.Utime) + syscall.TimevalToNsec(r.Stime) }
	return ns(self) + ns(kids)
}

func startCPU() *cpuMeter { return &cpuMeter{mark: cpuNow(), git: counters.gitRuns.Load()} }

func (m *cpuMeter) stop(b *testing.B) {
	b.StopTimer()
	m.total += cpuNow() - m.mark
}

func (m *cpuMeter) start(b *testing.B) {
	m.mark = cpuNow()
	b.StartTimer()
}

func (m *cpuMeter) report(b *testing.B) {
	m.stop(b)
	b.ReportMetric(float64(m.total)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(counters.gitRuns.Load()-m.git)/float64(b.N), "git-runs/op")
}

// warm takes a first checkpoint, as guard's first command in a
// repository does: it seeds guard's index from the user's and reads every
// directory (not timed: every later command finds them).
func warm(b *testing.B, st, ws string) {
	b.Helper()
	cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: "ffffffff", Time: t0, Budget: DefaultBudget})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cp.Finish(st); err != nil {
		b.Fatal(err)
	}
}

// The cost added to a command that changes nothing, in a 10,000-file git
// workspace: the before tree (Begin) and the after tree (Finish).
func BenchmarkCheckpointUnchanged10k(b *testing.B) {
	st := env(b)
	ws := benchRepo(b, 10000)
	warm(b, st, ws)
	b.ResetTimer()
	m := startCPU()
	for i := 0; i < b.N; i++ {
		cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: fmt.Sprintf("%016x", i+1), Time: t0, Budget: DefaultBudget})
		if err != nil {
			b.Fatal(err)
		}
		if changed, err := cp.Finish(st); err != nil || changed {
			b.Fatalf("Finish = %v, %v", changed, err)
		}
	}
	m.report(b)
}

// The same when the command changes 100 files (the writes themselves are
// not timed), one in each of 100 directories; the user's index is
// refreshed between commands, as after a commit (not timed).
func BenchmarkCheckpoint100Changed10k(b *testing.B) { bench100Changed(b, true) }

// The same without the user's git add -A between commands: guard no
// longer reads the user's index, but git write-tree got slower here after
// a few rounds of it (about 30 ms -> 100 ms, not understood; git's own
// work, not guard's).
func BenchmarkCheckpoint100ChangedNoUserAdd10k(b *testing.B) { bench100Changed(b, false) }

func bench100Changed(b *testing.B, userAdd bool) {
	st := env(b)
	ws := benchRepo(b, 10000)
	warm(b, st, ws)
	b.ResetTimer()
	m := startCPU()
	for i := 0; i < b.N; i++ {
		m.stop(b)
		if userAdd {
			run(b, ws, "-c", "gc.auto=0", "add", "-A")
		}
		m.start(b)
		cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: fmt.Sprintf("%016x", i+1), Time: t0, Budget: DefaultBudget})
		if err != nil {
			b.Fatal(err)
		}
		m.stop(b)
		for j := 0; j < 100; j++ {
			p := filepath.Join(ws, "src", fmt.Sprintf("d%02d", j), fmt.Sprintf("f%05d.go", j))
			os.WriteFile(p, []byte("package d // "+strconv.Itoa(i)+" "+strconv.Itoa(j)+"\n"), 0o644)
		}
		m.start(b)
		if changed, err := cp.Finish(st); err != nil || !changed {
			b.Fatalf("Finish = %v, %v", changed, err)
		}
	}
	m.report(b)
}

// Where an unchanged snapshot's time goes, on the same workspace: reading
// guard's index (parse-ms) and the lstat of every entry (lstat-ms); the
// whole snapshot is ns/op. A checkpoint takes two snapshots, the second
// without the parse.
func BenchmarkSnapshotParts10k(b *testing.B) {
	st := env(b)
	ws := benchRepo(b, 10000)
	r, err := openRepo(ws)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.snapshot(st, nil, r.protect); err != nil {
		b.Fatal(err)
	}
	var parse, scan time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.snapshot(st, nil, r.protect); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		t := time.Now()
		es, ist, err := readIndex(seedIndex(st, r), nil)
		if err != nil {
			b.Fatal(err)
		}
		parse += time.Since(t)
		t = time.Now()
		if s, err := dirtyEntries(ws, es, ist); err != nil || len(s.dirty) > 0 {
			b.Fatalf("dirty %v, %v", s.dirty, err)
		}
		scan += time.Since(t)
		b.StartTimer()
	}
	b.ReportMetric(float64(parse)/float64(b.N)/1e6, "parse-ms/op")
	b.ReportMetric(float64(scan)/float64(b.N)/1e6, "lstat-ms/op")
}

// The writing part of a checkpoint that changed 100 files in 100
// directories (100 blobs and 102 trees), alternating round by round so
// that all see the same machine load: as guard does it (guard-*: git
// update-index --info-only hashes, then guard reads the index and the
// files, builds the trees and stores blobs and trees in one pack it
// writes itself, packwrite.go), as
// guard did it before (loose-*: update-index and write-tree --missing-ok
// writing a deflated loose file per object, with guard's malloc
// tunables), and plain git (plain-*: the same without the tunables, a
// checked write-tree). cpu is git's own CPU time; faults its page
// faults; files the new files under objects/.
func BenchmarkGitWrite100Changed10k(b *testing.B) {
	st := env(b)
	ws := benchRepo(b, 10000)
	warm(b, st, ws)
	r, err := openRepo(ws)
	if err != nil {
		b.Fatal(err)
	}
	idx := seedIndex(st, r)
	// Later -c options win over gitFlags'.
	loose := []string{"-c", "core.bigFileThreshold=512m", "-c", "core.looseCompression=-1"}
	updateIndex := []string{"update-index", "--add", "--remove", "--replace", "-z", "--stdin"}
	variants := []struct {
		name  string
		write func(paths []string) (string, error)
	}{
		{"plain", func(paths []string) (string, error) {
			in := strings.NewReader(strings.Join(paths, "\x00") + "\x00")
			env := []string{"GLIBC_TUNABLES="}
			if _, err := r.git(idx, env, in, append(loose, updateIndex...)...); err != nil {
				return "", err
			}
			out, err := r.git(idx, env, nil, append(loose, "write-tree")...)
			return strings.TrimSpace(string(out)), err
		}},
		{"loose", func(paths []string) (string, error) {
			in := strings.NewReader(strings.Join(paths, "\x00") + "\x00")
			if _, err := r.git(idx, nil, in, append(loose, updateIndex...)...); err != nil {
				return "", err
			}
			out, err := r.git(idx, nil, nil, append(loose, writeTree...)...)
			return strings.TrimSpace(string(out)), err
		}},
		{"guard", func(paths []string) (string, error) {
			before, _, err := readIndex(idx, nil)
			if err != nil {
				return "", err
			}
			res, err := r.writeSnapshot(idx, paths, false, before, changedDirs(paths))
			return res.tree, err
		}},
	}
	type sum struct {
		wall   time.Duration
		cpu    int64
		faults int64
		files  int
	}
	sums := make([]sum, len(variants))
	children := func() (int64, int64) {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
		return syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime), ru.Minflt + ru.Majflt
	}
	objects := filepath.Join(ws, ".git", "objects")
	must(r.git(idx, nil, nil, writeTree...)) // every tree of the index, as guard's record promises
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, v := range variants {
			b.StopTimer()
			var paths []string
			for j := 0; j < 100; j++ {
				rel := fmt.Sprintf("src/d%02d/f%05d.go", j, j)
				os.WriteFile(filepath.Join(ws, filepath.FromSlash(rel)), []byte(fmt.Sprintf("package d // %d %d %s\n", i, j, v.name)), 0o644)
				paths = append(paths, rel)
			}
			files := countFiles(objects)
			b.StartTimer()
			t := time.Now()
			cpu, faults := children()
			got, err := v.write(paths)
			if err != nil {
				b.Fatal(err)
			}
			cpu2, faults2 := children()
			sums[k].wall += time.Since(t)
			sums[k].cpu += cpu2 - cpu
			sums[k].faults += faults2 - faults
			b.StopTimer()
			sums[k].files += countFiles(objects) - files
			if want := strings.TrimSpace(string(must(r.git(idx, nil, nil, "write-tree")))); got != want {
				b.Fatalf("%s wrote tree %s, git's is %s", v.name, got, want)
			}
			b.StartTimer()
		}
	}
	for k, v := range variants {
		b.ReportMetric(float64(sums[k].wall)/float64(b.N)/1e6, v.name+"-ms/op")
		b.ReportMetric(float64(sums[k].cpu)/float64(b.N)/1e6, v.name+"-cpu-ms/op")
		b.ReportMetric(float64(sums[k].faults)/float64(b.N), v.name+"-faults/op")
		b.ReportMetric(float64(sums[k].files)/float64(b.N), v.name+"-files/op")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// countFiles counts the files under dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// What an inotify watcher in place of the second scan would cost on the
// same files (docs/undo.md, "Why not less"): finding every directory
// (getdents), watching each, and closing the watcher, one at a time as
// one guard process would, a command of 20 ms apart (the kernel drops
// the watches after a grace period, which a close right after the
// watches, or after another close, waits for). link-events is what the
// watch on a directory reports when a file in it is hard-linked from
// outside and written through that link: 0, so a watcher cannot stand in
// for the scan while the command may do that.
func BenchmarkInotifyWatch10k(b *testing.B) {
	ws, outside := b.TempDir(), b.TempDir()
	var dirs []string
	for i := 0; i < 10000; i++ {
		d := filepath.Join(ws, "src", fmt.Sprintf("d%02d", i%100))
		if i < 100 {
			os.MkdirAll(d, 0o755)
			dirs = append(dirs, d)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), []byte("package d\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	const mask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
		unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	buf := make([]byte, 64<<10)
	var walk, watch, closing time.Duration
	var closes []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		time.Sleep(100 * time.Millisecond) // the last close's grace period
		b.StartTimer()
		t := time.Now()
		for _, d := range append([]string{ws, filepath.Join(ws, "src")}, dirs...) {
			fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				b.Fatal(err)
			}
			for {
				n, err := unix.Getdents(fd, buf)
				if err != nil {
					b.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			unix.Close(fd)
		}
		walk += time.Since(t)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			b.Fatal(err)
		}
		t = time.Now()
		for _, d := range append([]string{ws, filepath.Join(ws, "src")}, dirs...) {
			if _, err := unix.InotifyAddWatch(fd, d, mask); err != nil {
				b.Fatal(err)
			}
		}
		watch += time.Since(t)
		b.StopTimer()
		time.Sleep(20 * time.Millisecond) // the command
		b.StartTimer()
		t = time.Now()
		unix.Close(fd)
		closes = append(closes, time.Since(t))
		closing += closes[len(closes)-1]
	}
	b.StopTimer()
	b.ReportMetric(float64(walk)/float64(b.N)/1e6, "walk-ms/op")
	b.ReportMetric(float64(watch)/float64(b.N)/1e6, "watch-ms/op")
	b.ReportMetric(float64(closing)/float64(b.N)/1e6, "close-ms/op")
	sort.Slice(closes, func(i, j int) bool { return closes[i] < closes[j] })
	b.ReportMetric(float64(closes[len(closes)/2])/1e6, "close-median-ms")

	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dirs[0], mask); err != nil {
		b.Fatal(err)
	}
	link := filepath.Join(outside, "x")
	if err := os.Link(filepath.Join(dirs[0], "f00000.go"), link); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(link, []byte("changed through the link\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	n, _ := unix.Read(fd, buf)
	b.ReportMetric(float64(max(n, 0)/unix.SizeofInotifyEvent), "link-events")
}

// git status on the same workspace, for scale: a checkpoint scans the
// work tree twice (before and after), as git status does once.
func BenchmarkGitStatus10k(b *testing.B) {
	env(b)
	ws := benchRepo(b, 10000)
	run(b, ws, "status", "--porcelain")
	b.ResetTimer()
	m := startCPU()
	for i := 0; i < b.N; i++ {
		run(b, ws, "-c", "core.fsmonitor=false", "status", "--porcelain")
	}
	m.report(b)
}

// rm -rf src of the 10,000 tracked files: Cover before review, then
// Begin, which reads back every tree and blob under src (undo's
// verifier: a command may have removed or rewritten them), as a
// checkpointed delete of a tracked directory costs before it runs.
func BenchmarkCoverTracked10k(b *testing.B) {
	st := env(b)
	ws := benchRepo(b, 10000)
	warm(b, st, ws)
	targets := []Target{{Path: filepath.Join(ws, "src")}}
	b.ResetTimer()
	m := startCPU()
	for i := 0; i < b.N; i++ {
		cp := coverAndBegin(b, st, ws, targets, i)
		m.stop(b)
		if len(cp.Covered) != 1 {
			b.Fatalf("covered %v", cp.Covered)
		}
		cp.Discard(st)
		m.start(b)
	}
	m.report(b)
}

// coverAndBegin is what guard does for a delete of targets before it
// runs: Cover (before the review), then Begin.
func coverAndBegin(b *testing.B, st, ws string, targets []Target, i int) *Checkpoint {
	if got := Cover(st, ws, targets, DefaultBudget); len(got) != 1 {
		b.Fatalf("Cover = %v", got)
	}
	cp, err := Begin(Options{StateDir: st, Workspace: ws, ID: fmt.Sprintf("%016x", i+1), Time: t0, Deletes: targets, Budget: DefaultBudget})
	if err != nil {
		b.Fatal(err)
	}
	return cp
}

// rm -rf of an ignored directory of 10,000 files: Cover before review,
// then Begin's hard-link backup; reports the files' size and what the
// backup itself takes on disk (directory blocks: the files' blocks are
// shared with the workspace until it deletes them).
func BenchmarkBackupIgnored10k(b *testing.B) {
	st := env(b)
	ws := benchRepo(b, 10)
	build := filepath.Join(ws, "build")
	var size int64
	for i := 0; i < 10000; i++ {
		p := filepath.Join(build, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.o", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		data := make([]byte, 1024)
		os.WriteFile(p, data, 0o644)
		size += int64(len(data))
	}
	targets := []Target{{Path: build}}
	var backupDisk int64
	b.ResetTimer()
	m := startCPU()
	for i := 0; i < b.N; i++ {
		cp := coverAndBegin(b, st, ws, targets, i)
		m.stop(b)
		if len(cp.Backups) != 10000 {
			b.Fatalf("%d backups", len(cp.Backups))
		}
		backupDisk = diskUsage(b, cp.BackupDir)
		cp.Discard(st)
		m.start(b)
	}
	m.report(b)
	b.ReportMetric(float64(size), "files-bytes")
	b.ReportMetric(float64(backupDisk), "backup-disk-bytes")
}

// diskUsage sums the blocks of the directories under dir (the hard links
// themselves take none).
func diskUsage(b *testing.B, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			b.Fatal(err)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && info.IsDir() {
			n += st.Blocks * 512
		}
		return nil
	})
	return n
}
