package sandbox

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/guard-sh/guard/sandbox/confine"
	"golang.org/x/sys/unix"
)

// Violation is a change the sandboxed command made to a protected path.
// The caller must report it loudly: it means the command tried to do
// something its review did not allow.
type Violation struct {
	// Path is the protected path, or the entry inside a protected
	// directory, that changed.
	Path string `json:"path"`
	// Change is "created", "removed", "modified", "mode changed",
	// "linked" (its link count changed: a hard link to it was made or
	// removed), "replaced" (its type or identity changed, e.g. a file
	// became a symlink or .git was swapped), "unreadable" (guard could
	// not check it, so it was restored from the snapshot) or "flooded"
	// (more entries than guard records: removed whole and recreated).
	Change string `json:"change"`
	// Restored reports whether the original state was put back.
	Restored bool `json:"restored"`
	// RestoreErr says why it was not, if it was not.
	RestoreErr string `json:"restore_error,omitempty"`
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s %s", v.Path, v.Change)
	if v.Restored {
		return s + " (restored)"
	}
	if v.RestoreErr != "" {
		return s + " (not restored: " + v.RestoreErr + ")"
	}
	return s + " (not restored)"
}

// Bounds on what a snapshot reads: a file is kept (and can be restored)
// when it is at most maxKeepFile bytes and the run's total stays within
// maxKeepTotal. Nothing larger is ever read, at the snapshot or at the
// check: a huge (sparse) file in a protected directory costs a stat.
const (
	maxKeepFile  = 1 << 20
	maxKeepTotal = 32 << 20
)

// maxEntries bounds what a scan records per protected root, and so the
// check's memory: a command that floods a protected directory with
// millions of entries (a hook among them) must not make guard run out of
// memory before it restores anything. Tests lower it.
var maxEntries = 100000

// recentCtime: a file whose status changed this close to the snapshot
// is compared by content at the check, since a change in the same clock
// tick would leave its ctime as it was.
const recentCtime = 2 * time.Second

// chmodBits are the bits of a mode that chmod sets: the permissions
// with setuid, setgid and sticky.
const chmodBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// node is the state of one file system entry.
type node struct {
	mode   fs.FileMode // type and permission bits
	size   int64
	dev    uint64
	ino    uint64
	nlink  uint64
	ctime  unix.Timespec
	uid    int
	gid    int
	target string // symlink target
	acl    string // POSIX ACLs (aclOf), of a directory or a regular file
	data   []byte // regular file content, when kept
	kept   bool
	// bad: the entry could not be examined (or, for a directory, listed).
	bad bool
}

// compare says how b differs from a ("" when it does not). It never
// reads a file unless its ctime is too close to the snapshot to tell.
func (a node) compare(b node, path string, taken time.Time) string {
	switch {
	case a.bad != b.bad:
		return "unreadable"
	case a.mode.Type() != b.mode.Type():
		return "replaced"
	case a.mode.IsDir() && (a.dev != b.dev || a.ino != b.ino):
		return "replaced"
	case a.mode.Type() == fs.ModeSymlink && a.target != b.target:
		return "modified"
	case a.mode.IsRegular() && a.size != b.size:
		return "modified"
	case a.mode.IsRegular() && (a.ino != b.ino || a.dev != b.dev):
		return "modified"
	case !a.mode.IsDir() && a.nlink != b.nlink:
		return "linked"
	case a.mode&chmodBits != b.mode&chmodBits:
		return "mode changed"
	case a.uid != b.uid || a.gid != b.gid:
		return "mode changed"
	case a.acl != b.acl:
		return "ACL changed"
	}
	if a.mode.IsRegular() {
		recent := taken.Sub(time.Unix(a.ctime.Unix())) < recentCtime
		if a.ctime == b.ctime && (!recent || !a.kept) {
			return ""
		}
		if !a.kept {
			return "modified" // cannot tell without reading it: fail closed
		}
		data, ok := readBounded(path, a.size)
		if !ok || !bytes.Equal(data, a.data) {
			return "modified"
		}
	}
	return ""
}

// filter says which entries of a protected root are recorded (record)
// and which directories are entered (descend), by path relative to the
// root ("." for the root itself).
type filter func(rel string, dir bool) (record, descend bool)

// everything records a whole tree.
func everything(string, bool) (bool, bool) { return true, true }

// rootOnly records the root alone: for .git itself, whose identity
// (device and inode) must not change.
func rootOnly(rel string, _ bool) (bool, bool) { return rel == ".", false }

// snapshot is the state of the protected paths before the run.
type snapshot struct {
	taken time.Time
	roots []protectedRoot
	// cutoff: other runs were live when it was taken, the oldest since
	// cutoff (zero: none). An entry whose status changed since then may
	// hold what another run's command made: changed, it is never
	// recreated from this snapshot (restore).
	cutoff time.Time
	// reg is the run's registration (runs.go), released with the
	// snapshot.
	reg *registration
	// layer is the run's cache overlay (layer.go), held, like reg,
	// until the run is over.
	layer *layer
}

type protectedRoot struct {
	path    string
	parent  string // canonical parent directory at snapshot time
	filter  filter
	entries map[string]node // absent root: empty map
	// over: the root held more than maxEntries entries at the snapshot;
	// entries is not all of it.
	over bool
	// keep is an O_PATH descriptor on a protected directory (.git), so
	// that guard finds it again wherever the command moved it.
	keep *os.File
}

// budget is what is left of maxKeepTotal.
type budget struct{ left int64 }

func takeSnapshot(res *resolver, roots []protectRoot, cutoff time.Time) *snapshot {
	s := &snapshot{taken: time.Now(), cutoff: cutoff}
	b := &budget{left: maxKeepTotal}
	for _, r := range roots {
		pr := protectedRoot{path: r.path, parent: res.canonical(filepath.Dir(r.path)), filter: r.filter}
		pr.entries, pr.over = scan(r.path, r.filter, b)
		if r.identity {
			if f, err := os.OpenFile(r.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0); err == nil {
				pr.keep = f
			}
		}
		s.roots = append(s.roots, pr)
	}
	return s
}

// absentIn lists the protected paths directly in dir that were absent at
// the snapshot.
func (s *snapshot) absentIn(dir string) []string {
	var out []string
	for _, r := range s.roots {
		if len(r.entries) == 0 && !r.over && filepath.Dir(r.path) == dir {
			out = append(out, r.path)
		}
	}
	return out
}

// close releases the descriptors the snapshot holds.
func (s *snapshot) close() {
	s.reg.release()
	s.layer.release()
	for _, r := range s.roots {
		if r.keep != nil {
			r.keep.Close()
		}
	}
}

// scan records p and what filter selects beneath it, without following
// symbolic links and without failing: what cannot be examined is
// recorded as bad. With b nil no file content is read. Past maxEntries
// it stops and reports over: what it recorded is not all there is.
func scan(p string, f filter, b *budget) (entries map[string]node, over bool) {
	entries = map[string]node{}
	var walk func(path, rel string)
	walk = func(path, rel string) {
		if over || len(entries) >= maxEntries {
			over = true
			return
		}
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			if rel != "." || !errors.Is(err, unix.ENOENT) {
				entries[path] = node{bad: true}
			}
			return
		}
		n := statNode(&st)
		record, descend := f(rel, n.mode.IsDir())
		if record {
			if n.mode.IsDir() || n.mode.IsRegular() {
				n.acl = aclOf(path)
			}
			switch {
			case n.mode.Type() == fs.ModeSymlink:
				t, err := os.Readlink(path)
				n.target, n.bad = t, err != nil
			case n.mode.IsRegular() && b != nil && n.size <= maxKeepFile && n.size <= b.left:
				if data, ok := readBounded(path, n.size); ok {
					n.data, n.kept = data, true
					b.left -= n.size
				}
			}
			entries[path] = n
		}
		if !n.mode.IsDir() || !descend {
			return
		}
		names, err := readNames(path, maxEntries-len(entries))
		if errors.Is(err, errTooMany) {
			over = true
			return
		}
		if err != nil {
			n.bad = true
			entries[path] = n
			return
		}
		for _, name := range names {
			walk(filepath.Join(path, name), filepath.Join(rel, name))
		}
	}
	walk(p, ".")
	return entries, over
}

func statNode(st *unix.Stat_t) node {
	n := node{
		mode:  fs.FileMode(st.Mode & 0o777),
		size:  st.Size,
		dev:   st.Dev,
		ino:   st.Ino,
		nlink: uint64(st.Nlink),
		ctime: st.Ctim,
		uid:   int(st.Uid),
		gid:   int(st.Gid),
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		n.mode |= fs.ModeDir
	case unix.S_IFLNK:
		n.mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		n.mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		n.mode |= fs.ModeSocket
	case unix.S_IFCHR:
		n.mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		n.mode |= fs.ModeDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		n.mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		n.mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		n.mode |= fs.ModeSticky
	}
	return n
}

// errTooMany: a directory holds more names than a scan may record.
var errTooMany = errors.New("too many entries")

// readNames lists a directory, sorted; more than limit names is
// errTooMany (read a batch at a time: never all of a huge directory).
func readNames(dir string, limit int) ([]string, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	for {
		batch, err := f.Readdirnames(1024)
		names = append(names, batch...)
		if len(names) > limit {
			return nil, errTooMany
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(names)
	return names, nil
}

// readBounded reads a regular file of the given size without following
// a symlink, without blocking on a FIFO and never more than size bytes:
// ok is false when it is not a regular file of that size any more.
func readBounded(p string, size int64) ([]byte, bool) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil || int64(len(data)) != size {
		return nil, false
	}
	return data, true
}

// maxPasses bounds re-checking: an entry the command made unreadable is
// restored in one pass and what it hid is seen in the next.
const maxPasses = 3

// check compares the protected paths with the snapshot, restores what
// changed and reports each change. The command and everything it
// started must be gone.
func (s *snapshot) check() []Violation {
	var out []Violation
	overlapped := !s.cutoff.IsZero() || s.reg.overlapped()
	for _, r := range s.roots {
		if r.keep != nil {
			if v, ok := r.reclaim(); ok {
				out = append(out, v)
			}
			continue
		}
		if overlapped && guardKept(r.path) {
			// Other runs were live: what changed here is likely their
			// checkpoints, which guard writes before and after their
			// commands. Left as it is (see guardKeptDirs).
			continue
		}
		if r.over {
			// The snapshot is not all of it: what it missed would look
			// created. Reported, never changed.
			out = append(out, r.flooded())
			continue
		}
		for pass := 0; pass < maxPasses; pass++ {
			now, over := scan(r.path, r.filter, nil)
			if over {
				out = append(out, r.flooded())
				break
			}
			vs := r.restore(now, s.taken, s.cutoff)
			out = append(out, vs...)
			if !hasBad(now) {
				break
			}
		}
	}
	return out
}

// guardKeptDirs are the protected directories of a git dir that guard
// itself writes for every run that takes a checkpoint (the checkpoint
// package's refs and hard-link backups; profile/context.go protects
// them). While other runs are live, a run leaves them as they are: it
// would remove the refs of their checkpoints and move guard's index ref
// aside. A command of a concurrent run can then delete checkpoint refs
// there, which only costs those checkpoints their undo (their objects
// may go at the next git gc).
var guardKeptDirs = []string{"refs/guard", "guard-checkpoints"}

// guardKept reports whether p is one of guardKeptDirs in a git dir.
func guardKept(p string) bool {
	for _, d := range guardKeptDirs {
		if strings.HasSuffix(p, "/.git/"+d) {
			return true
		}
	}
	return false
}

func hasBad(m map[string]node) bool {
	for _, n := range m {
		if n.bad {
			return true
		}
	}
	return false
}

// reclaim puts a protected directory back when the command moved it
// away and put something else (a symlink, a "gitdir:" file, another
// directory) in its place: the replacement is removed and the original,
// found through the descriptor guard held, is renamed back.
func (r protectedRoot) reclaim() (Violation, bool) {
	was := r.entries[r.path]
	var st unix.Stat_t
	if err := unix.Lstat(r.path, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Dev == was.dev && st.Ino == was.ino {
		// The mode with setuid, setgid and sticky: git init --shared
		// makes .git setgid.
		if statNode(&st).mode == was.mode {
			return Violation{}, false
		}
		v := Violation{Path: r.path, Change: "mode changed"}
		if err := os.Chmod(r.path, was.mode&chmodBits); err != nil {
			v.RestoreErr = err.Error()
		} else {
			v.Restored = true
		}
		return v, true
	}
	v := Violation{Path: r.path, Change: "replaced"}
	root, err := r.openParent()
	if err != nil {
		v.RestoreErr = err.Error()
		return v, true
	}
	defer root.Close()
	base := filepath.Base(r.path)
	if beforeRestore != nil {
		beforeRestore(r.path)
	}
	cur, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.keep.Fd()))
	var cst unix.Stat_t
	if err != nil || cur == r.path || strings.HasSuffix(cur, " (deleted)") || unix.Lstat(cur, &cst) != nil || cst.Ino != was.ino || cst.Dev != was.dev {
		// Gone: remove the replacement so nothing the command planted is
		// used; the protected entries in it are recreated from the
		// snapshot.
		err := withOwnerRights(root, base, func() error {
			if err := confine.RemoveAllIn(root, base); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return root.Mkdir(base, was.mode.Perm())
		})
		v.RestoreErr = "the original was deleted; only the protected files in it were recreated"
		if err != nil {
			v.RestoreErr = err.Error()
		}
		return v, true
	}
	err = withOwnerRights(root, base, func() error {
		if err := confine.RemoveAllIn(root, base); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// Into the parent the root holds, by descriptor: the original
		// comes from wherever the command moved it.
		dir, err := root.Open(".")
		if err != nil {
			return err
		}
		defer dir.Close()
		return unix.Renameat(unix.AT_FDCWD, cur, int(dir.Fd()), base)
	})
	if err != nil {
		v.RestoreErr = err.Error()
		return v, true
	}
	v.Restored = true
	return v, true
}

func (r protectedRoot) restore(now map[string]node, taken, cutoff time.Time) []Violation {
	var out []Violation
	// Restoring writes as guard, unconfined: only through the parent
	// directory of the snapshot, never through a symlink (restore.go).
	// Opened at the first change (most checks change nothing).
	var root *os.Root
	var rootErr error
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	top, topErr := r.name(r.path)
	// change runs f on p's name in root, or says why it cannot.
	change := func(p string, f func(name string) error) error {
		if root == nil && rootErr == nil {
			if rootErr = topErr; rootErr == nil {
				root, rootErr = r.openParent()
			}
		}
		if rootErr != nil {
			return rootErr
		}
		name, err := r.name(p)
		if err != nil {
			return err
		}
		if beforeRestore != nil {
			beforeRestore(p)
		}
		return withOwnerRights(root, name, func() error { return f(name) })
	}
	aside := func(p string) (string, error) {
		to := filepath.Join(filepath.Dir(p), ".guard-changed-"+filepath.Base(p))
		return to, change(p, func(name string) error {
			return root.Rename(name, filepath.Join(filepath.Dir(name), filepath.Base(to)))
		})
	}

	// Entries that appeared: remove them, deepest first. They are never
	// read.
	var created []string
	for p := range now {
		if _, ok := r.entries[p]; !ok {
			created = append(created, p)
		}
	}
	slices.SortFunc(created, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a, b)) })
	for _, p := range created {
		v := Violation{Path: p, Change: "created"}
		if err := change(p, func(name string) error { return confine.RemoveAllIn(root, name) }); err != nil {
			v.RestoreErr = err.Error()
		} else {
			v.Restored = true
		}
		out = append(out, v)
	}

	// Entries that changed or vanished: put them back, shallowest first.
	var old []string
	for p := range r.entries {
		old = append(old, p)
	}
	slices.SortFunc(old, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	for _, p := range old {
		was := r.entries[p]
		is, present := now[p]
		what := "removed"
		if present {
			if what = was.compare(is, p, taken); what == "" {
				continue
			}
		}
		v := Violation{Path: p, Change: what}
		dirErr := change(p, func(name string) error { return realDirsIn(root, top, name) })
		switch {
		case dirErr != nil:
			v.RestoreErr = dirErr.Error()
		case was.bad:
			v.RestoreErr = "it could not be read before the run either"
		case !cutoff.IsZero() && !time.Unix(was.ctime.Unix()).Before(cutoff):
			// What the snapshot holds may be another run's command's
			// (that run has restored it since): never recreated. What
			// is there now is moved aside, not used under this name.
			v.RestoreErr = "it changed while another guard run was running, so what it held before is not known: not recreated"
			if present {
				if to, err := aside(p); err != nil {
					v.RestoreErr += "; could not be moved aside: " + err.Error()
				} else {
					v.RestoreErr += "; the current one was moved to " + to
				}
			}
		case was.mode.IsRegular() && !was.kept:
			// Never read: too large to keep. Move the changed file aside
			// so what the command wrote is not used under this name.
			if to, err := aside(p); err != nil && present {
				v.RestoreErr = "too large to keep a copy, and could not be moved aside: " + err.Error()
			} else {
				v.RestoreErr = "too large to keep a copy; the changed file was moved to " + to
			}
		default:
			sameType := present && !is.bad && is.mode.Type() == was.mode.Type() && (!was.mode.IsDir() || is.ino == was.ino)
			err := change(p, func(name string) error { return putIn(root, name, was, sameType) })
			switch {
			case err == nil:
				v.Restored = true
			case present && !(is.mode.IsDir() && was.mode.IsDir()):
				// What the command left must not stay under the name,
				// whatever made the restore fail (the command filled the
				// file system: the copy cannot be written, while a
				// rename or a removal needs no space). A directory that
				// is still one keeps its entries, checked one by one.
				v.RestoreErr = err.Error()
				if to, aerr := aside(p); aerr == nil {
					v.RestoreErr += "; the changed one was moved to " + to
				} else if rerr := change(p, func(name string) error { return confine.RemoveAllIn(root, name) }); rerr == nil {
					v.RestoreErr += "; the changed one was removed"
				} else {
					v.RestoreErr += "; the changed one could not be moved aside (" + aerr.Error() + ") nor removed: " + rerr.Error()
				}
			default:
				v.RestoreErr = err.Error()
			}
		}
		out = append(out, v)
	}
	return out
}
