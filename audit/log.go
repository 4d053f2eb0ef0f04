package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// File names inside the audit directory.
const (
	// FileName is the current log. Rotated logs are FileName.1 (oldest),
	// FileName.2, …
	FileName = "audit.log"
	// lockName is the lock every writer takes (and readers share); a
	// separate file, so rotation can rename the log under it.
	lockName = "audit.lock"
	// tornName keeps the bytes of a torn last line that Append set aside.
	tornName = "audit.torn"
)

// DefaultMaxSize is the size past which Append rotates the log.
const DefaultMaxSize = 32 << 20

// Log is an open audit log. Open it before the sandbox starts; Append the
// outcome after the child exits. Its files are close-on-exec, so the child
// never holds them. Append reopens the log only when another process rotated
// it, so a guard process that cannot open paths any more can still append
// unless a rotation happened in between. A Log is safe for use by several
// goroutines, and any number of processes may append to the same directory.
type Log struct {
	// Clock is the time source for records; nil means time.Now. Tests
	// inject a fake.
	Clock func() time.Time
	// MaxSize is the size in bytes past which Append rotates the log; 0
	// means never.
	MaxSize int64

	dir  string
	mu   sync.Mutex
	lock *os.File // dir/audit.lock, flocked around every append
	f    *os.File // dir/audit.log, reopened when another process rotates it
	// end is where this Log's last append left f, and the hash of
	// that line: the next append starts from there without reading the
	// line back, unless the file has changed since (another process
	// appended, rotated or cut it).
	end struct {
		f    *os.File
		size int64
		hash string
	}
	// reserved is how far this Log has disk space allocated past f's
	// end (reserve).
	reserved struct {
		f  *os.File
		to int64
	}
}

// Open opens the audit log in dir, creating the directory (0700) and the log
// (0600) if needed, and tightening their modes if they are wider.
func Open(dir string) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	if err := tighten(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	lock, err := openPrivate(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l := &Log{MaxSize: DefaultMaxSize, dir: dir, lock: lock}
	if err := l.flock(syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, err
	}
	defer l.funlock()
	// The directory is synced only when the log is created: the entry
	// of an existing log is already durable, and the sync cost every
	// decision a disk flush.
	l.f, err = openPrivate(l.path(), os.O_RDWR|os.O_APPEND)
	created := errors.Is(err, fs.ErrNotExist)
	if created {
		l.f, err = openPrivate(l.path(), os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL)
	}
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	if created {
		if err := syncDir(dir); err != nil {
			l.Close()
			return nil, fmt.Errorf("open audit log: %w", err)
		}
	}
	return l, nil
}

// Dir is the directory the log lives in.
func (l *Log) Dir() string { return l.dir }

// Now reads the log's clock. The run path measures a child's Duration with
// it, so audit stays the only reader of the clock.
func (l *Log) Now() time.Time {
	if l.Clock != nil {
		return l.Clock()
	}
	return time.Now()
}

// Close releases the log's files.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.lock.Close()
	if l.f != nil {
		err = errors.Join(err, l.f.Close())
	}
	return err
}

// Append writes r as one line at the end of the log and returns it with V,
// Time, Prev and Hash filled in and Command and Note masked. It takes an
// exclusive lock, computes Prev from the line at the end of the file under
// that lock, writes the line in one write and syncs it to disk before it
// returns: a record Append returned is durable, and concurrent writers never
// lose or interleave records.
//
// A torn last line left by a crash (not newline-terminated, or not a
// record) is set aside in audit.torn before the new record is chained.
func (l *Log) Append(r Record) (Record, error) {
	return l.append(r, r.Decision != Ran)
}

// AppendUnsynced is Append without waiting for the disk. It is only for a
// record that lets nothing happen by itself: a hook's answer that rewrites
// the command into guard run, which writes and syncs its own decision
// record before anything runs. That sync writes this earlier line of the
// same file to disk with it; a crash before it loses a record of
// something that never ran (a missing last line, which Verify reports
// and Append repairs, never a broken chain).
func (l *Log) AppendUnsynced(r Record) (Record, error) {
	return l.append(r, false)
}

func (l *Log) append(r Record, sync bool) (Record, error) {
	if r.Decision.class() == 0 {
		return Record{}, fmt.Errorf("append audit record: unknown decision %q", r.Decision)
	}
	r.V = Version
	r.Command = Mask(r.Command)
	r.Note = Mask(r.Note)

	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flock(syscall.LOCK_EX); err != nil {
		return Record{}, err
	}
	defer l.funlock()
	// The line names long sandbox lists by their set files, written (and
	// synced) under the lock, so Prune never removes a set between its
	// check here and the line naming it. r itself keeps the lists.
	w, err := l.compactSets(r)
	if err != nil {
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	if err := l.current(); err != nil {
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	size, prev, err := l.tail()
	if err != nil {
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	if size == 0 {
		if prev, err = rotatedHead(l.dir); err != nil {
			return Record{}, fmt.Errorf("append audit record: %w", err)
		}
	}
	r.Time = l.Now().UTC()
	r.Prev = prev
	w.Time, w.Prev = r.Time, r.Prev
	r.HideSet, r.ProtectSet = w.HideSet, w.ProtectSet
	line, err := encode(w)
	if err != nil {
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	if l.MaxSize > 0 && size > 0 && size+int64(len(line)) > l.MaxSize {
		if err := l.rotate(); err != nil {
			return Record{}, fmt.Errorf("append audit record: rotate: %w", err)
		}
		size = 0
	}
	if err := writeOnce(l.f, line); err != nil {
		// Leave no partial line behind: the record was not written.
		l.f.Truncate(size)
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	// A decision is on disk before anything runs (no record, no run). A
	// ran record only reports how the command ended: it is not synced by
	// itself (the next decision's sync carries it), which spares every run
	// a second disk flush. Lost in a crash, it is a torn or missing last
	// line, which Append repairs and Verify reports, never a broken chain.
	if sync {
		if err := syncLines(l.f); err != nil {
			return Record{}, fmt.Errorf("append audit record: sync: %w", err)
		}
	}
	r.Hash = lineHash(line[:len(line)-1])
	l.end.f, l.end.size, l.end.hash = l.f, size+int64(len(line)), r.Hash
	l.reserve(l.end.size)
	return r, nil
}

// reserveSize is the disk space kept allocated past the log's end (about
// 500 records). A command that fills the disk would otherwise leave no
// room for its own outcome record: how it ended and the protected paths
// it changed, the evidence of the attempt. Records written into the
// reserved space need no new blocks.
const reserveSize = 256 << 10

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate without growing the
// file, so readers see no padding.
const fallocKeepSize = 0x1

// reserve keeps reserveSize bytes allocated past end, made while there is
// room, for the records after this one. It is best effort: a file system
// without fallocate, or a disk already full, leaves the log as it was.
// One call per process, and again when half the reserve is used.
func (l *Log) reserve(end int64) {
	if l.reserved.f == l.f && end+reserveSize/2 <= l.reserved.to {
		return
	}
	// What earlier processes reserved is still allocated: the blocks
	// the file holds count it. fallocate itself costs a journal
	// transaction (50-250 µs here), on every guard process otherwise.
	if fi, err := l.f.Stat(); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Blocks*512 >= end+reserveSize/2 {
			l.reserved.f, l.reserved.to = l.f, st.Blocks*512
			return
		}
	}
	rc, err := l.f.SyscallConn()
	if err != nil {
		return
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Fallocate(int(fd), fallocKeepSize, end, reserveSize); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil || ferr != nil {
		return
	}
	l.reserved.f, l.reserved.to = l.f, end+reserveSize
}

// tail returns the size of the log and the hash of its last line: as this
// Log's last append left them when the file has not changed since,
// otherwise read back (and a torn line set aside) by repairTail.
func (l *Log) tail() (size int64, head string, err error) {
	if l.end.f != nil && l.end.f == l.f {
		if fi, err := l.f.Stat(); err == nil && fi.Size() == l.end.size {
			return l.end.size, l.end.hash, nil
		}
	}
	return l.repairTail()
}

// Head returns the hash the next record will carry as Prev: the SHA-256 of
// the last record's line, or "" for an empty log. Shown in PIN prompts, it
// lets the user notice a log that was cut short or replaced.
func (l *Log) Head() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flock(syscall.LOCK_SH); err != nil {
		return "", err
	}
	defer l.funlock()
	if err := l.current(); err != nil {
		return "", fmt.Errorf("audit log head: %w", err)
	}
	t, err := readTail(l.f)
	if err != nil {
		return "", fmt.Errorf("audit log head: %w", err)
	}
	if t.keep > 0 {
		return lineHash(t.last), nil
	}
	h, err := rotatedHead(l.dir)
	if err != nil {
		return "", fmt.Errorf("audit log head: %w", err)
	}
	return h, nil
}

func (l *Log) path() string { return filepath.Join(l.dir, FileName) }

func (l *Log) flock(how int) error {
	if err := flock(l.lock, how); err != nil {
		return fmt.Errorf("lock audit log: %w", err)
	}
	return nil
}

func (l *Log) funlock() { flock(l.lock, syscall.LOCK_UN) }

// current makes l.f the file at dir/audit.log: another process may have
// rotated it since we opened it.
func (l *Log) current() error {
	held, err := l.f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Stat(l.path())
	if err == nil && os.SameFile(held, now) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := openPrivate(l.path(), os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return nil
}

// repairTail sets aside a torn last line and returns the file's size after
// that and the hash of its last line ("" if the file is empty).
func (l *Log) repairTail() (size int64, head string, err error) {
	t, err := readTail(l.f)
	if err != nil {
		return 0, "", err
	}
	if t.keep < t.size {
		torn := make([]byte, t.size-t.keep)
		if _, err := l.f.ReadAt(torn, t.keep); err != nil {
			return 0, "", fmt.Errorf("read torn line: %w", err)
		}
		if err := setAside(l.dir, torn); err != nil {
			return 0, "", err
		}
		if err := l.f.Truncate(t.keep); err != nil {
			return 0, "", fmt.Errorf("drop torn line: %w", err)
		}
		if err := datasync(l.f); err != nil {
			return 0, "", fmt.Errorf("drop torn line: %w", err)
		}
	}
	if t.keep == 0 {
		return 0, "", nil
	}
	return t.keep, lineHash(t.last), nil
}

// rotate renames the current log to the next audit.log.N and starts a new
// one. The chain continues: the new file's first record carries the old
// file's head as Prev.
func (l *Log) rotate() error {
	files, err := logFiles(l.dir)
	if err != nil {
		return err
	}
	next := 1
	for _, f := range files {
		if f.n >= next {
			next = f.n + 1
		}
	}
	to := filepath.Join(l.dir, FileName+"."+strconv.Itoa(next))
	// Lines appended without a sync (ran records, a hook's rewrite) reach
	// the disk with the file they were written to, not with the next.
	if err := syncLines(l.f); err != nil {
		return err
	}
	if err := os.Rename(l.path(), to); err != nil {
		return err
	}
	f, err := openPrivate(l.path(), os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return syncDir(l.dir)
}

// setAside appends the bytes of a torn line to audit.torn, so Append
// repairs the log without destroying what was there.
func setAside(dir string, torn []byte) error {
	f, err := openPrivate(filepath.Join(dir, tornName), os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("set aside torn line: %w", err)
	}
	if !bytes.HasSuffix(torn, []byte("\n")) {
		torn = append(torn, '\n')
	}
	_, err = f.Write(torn)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("set aside torn line: %w", err)
	}
	return nil
}

// lineHash is the SHA-256, in hex, of a line's bytes without its newline.
func lineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// link is the part of a line the chain needs.
type link struct {
	Prev *string `json:"prev"`
}

// parseLink reads the prev field of a line; ok is false when the line is
// not a JSON object with a string prev.
func parseLink(line []byte) (prev string, ok bool) {
	var l link
	if json.Unmarshal(line, &l) != nil || l.Prev == nil {
		return "", false
	}
	return *l.Prev, true
}

// tail describes the end of a log file.
type tail struct {
	size int64  // the file's size
	keep int64  // where the file ends once a torn last line is dropped
	last []byte // the last line before keep, without its newline
}

// readTail reads the end of f, backwards, without reading the whole file.
// A torn last line is an unterminated fragment, or else a last line that is
// not a record; only one of them is dropped.
func readTail(f *os.File) (tail, error) {
	fi, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	t := tail{size: fi.Size(), keep: fi.Size()}
	if t.size == 0 {
		return t, nil
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], t.size-1); err != nil {
		return tail{}, fmt.Errorf("read log tail: %w", err)
	}
	torn := b[0] != '\n'
	if torn {
		if t.keep, err = lineStart(f, t.size); err != nil {
			return tail{}, err
		}
	}
	for t.keep > 0 {
		start, err := lineStart(f, t.keep-1)
		if err != nil {
			return tail{}, err
		}
		line := make([]byte, t.keep-1-start)
		if _, err := f.ReadAt(line, start); err != nil {
			return tail{}, fmt.Errorf("read log tail: %w", err)
		}
		if _, ok := parseLink(line); !ok && !torn {
			torn = true
			t.keep = start
			continue
		}
		t.last = line
		break
	}
	return t, nil
}

// lineStart returns the offset just after the last newline before pos, or
// 0 if there is none: the start of the line that pos ends.
func lineStart(f *os.File, pos int64) (int64, error) {
	const chunk = 8 << 10
	buf := make([]byte, chunk)
	for end := pos; end > 0; {
		start := max(0, end-chunk)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("read log tail: %w", err)
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// rotatedHead is the hash of the last line of the newest rotated file, or
// "" when there is none: where a fresh audit.log continues the chain.
func rotatedHead(dir string) (string, error) {
	files, err := logFiles(dir)
	if err != nil {
		return "", err
	}
	for i := len(files) - 1; i >= 0; i-- {
		if files[i].n == 0 {
			continue
		}
		f, err := os.Open(filepath.Join(dir, files[i].name))
		if err != nil {
			return "", err
		}
		t, err := readTail(f)
		f.Close()
		if err != nil {
			return "", err
		}
		if t.keep == 0 {
			// An empty rotated file; keep looking further back.
			continue
		}
		return lineHash(t.last), nil
	}
	return "", nil
}

// logFile is one file of the chain; n is 0 for the current audit.log.
type logFile struct {
	name string
	n    int
}

// logFiles lists the files of the chain in order: audit.log.1, audit.log.2,
// …, then audit.log. A missing directory has none.
func logFiles(dir string) ([]logFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []logFile
	current := false
	for _, e := range entries {
		name := e.Name()
		if name == FileName {
			current = true
			continue
		}
		suffix, ok := strings.CutPrefix(name, FileName+".")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(suffix)
		if err != nil || n <= 0 || strconv.Itoa(n) != suffix {
			continue
		}
		files = append(files, logFile{name, n})
	}
	slices.SortFunc(files, func(a, b logFile) int { return a.n - b.n })
	if current {
		files = append(files, logFile{FileName, 0})
	}
	return files, nil
}

// writeOnce writes b with a single write(2): a short write is an error.
func writeOnce(f *os.File, b []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	}); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if n != len(b) {
		return fmt.Errorf("short write: %d of %d bytes", n, len(b))
	}
	return nil
}

// syncLines writes the log's appended lines to disk; tests count its
// calls.
var syncLines = datasync

func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Flock(int(fd), how); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// openPrivate opens a file that only its owner may read (0600), fixing the
// mode of an existing file that is wider.
func openPrivate(name string, flag int) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// tighten removes group and other permissions from dir.
func tighten(dir string, perm fs.FileMode) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, perm)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
