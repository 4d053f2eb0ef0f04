package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// resolver resolves symbolic links and stats paths once per run: the
// hide, reveal, write and protect lists name the same home directory
// prefixes dozens of times, and each is needed by validation, the
// grants and the snapshot. It is used before the command starts only;
// the check after the run resolves afresh.
type resolver struct {
	canon map[string]string
	info  map[string]statResult
	// missing are resolved paths that do not exist: nothing below them
	// does either, which the secret table (dozens of paths under a few
	// directories that often do not exist) asks about again and again.
	missing map[string]bool
	// lookups counts the names looked up in each directory; one asked
	// about often enough (the home directory, for the secret table) is
	// listed once instead (listed): a name it lacks does not exist, and
	// one that is not a symbolic link needs no lstat. A directory too
	// large to list cheaply is marked with a nil listing.
	lookups map[string]int
	listed  map[string]map[string]fs.FileMode
}

// Listing a directory: after listAfter lookups in it, and only while it
// has at most maxListed entries.
const (
	listAfter = 4
	maxListed = 512
)

// entry looks name up in dir's listing: ok is false when dir is not
// listed (the caller uses lstat), exists and mode say what the listing
// holds.
func (r *resolver) entry(dir, name string) (mode fs.FileMode, exists, ok bool) {
	l, done := r.listed[dir]
	if !done {
		r.lookups[dir]++
		if r.lookups[dir] < listAfter {
			return 0, false, false
		}
		l = listDir(dir)
		r.listed[dir] = l
	}
	if l == nil {
		return 0, false, false
	}
	mode, exists = l[name]
	return mode, exists, true
}

// listDir reads dir's entries and their types, nil when it cannot be
// read or holds more than maxListed entries.
func listDir(dir string) map[string]fs.FileMode {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	es, err := f.ReadDir(maxListed + 1)
	if (err != nil && len(es) == 0) || len(es) > maxListed {
		return nil
	}
	l := make(map[string]fs.FileMode, len(es))
	for _, e := range es {
		l[e.Name()] = e.Type()
	}
	return l
}

type statResult struct {
	fi  fs.FileInfo
	err error
}

func newResolver() *resolver {
	return &resolver{canon: map[string]string{}, info: map[string]statResult{}, missing: map[string]bool{},
		lookups: map[string]int{}, listed: map[string]map[string]fs.FileMode{}}
}

// maxLinks bounds symbolic link resolution, as the kernel does.
const maxLinks = 40

// canonical resolves symbolic links in p as far as p exists, like
// filepath.EvalSymlinks, remembering every prefix it resolved.
func (r *resolver) canonical(p string) string {
	if r == nil {
		return canonical(p)
	}
	return r.resolve(filepath.Clean(p), 0)
}

// resolve is canonical of a clean path. It splits and joins by hand:
// p, and every prefix it resolves, is clean already, and filepath's
// Dir and Join clean again at every level (in a profile of guard --
// true, cleaning was the validation's largest cost outside the kernel).
func (r *resolver) resolve(p string, depth int) string {
	if p == "/" || p == "." || p == "" {
		return p
	}
	if c, ok := r.canon[p]; ok {
		return c
	}
	dir, base := splitClean(p)
	parent := r.resolve(dir, depth)
	c := joinClean(parent, base)
	if r.missing[parent] {
		r.missing[c] = true
		r.canon[p] = c
		return c
	}
	if mode, exists, ok := r.entry(parent, base); ok && (!exists || mode&fs.ModeSymlink == 0) {
		// Answered by the parent's listing: absent, or not a link.
		if !exists {
			r.missing[c] = true
		}
		r.canon[p] = c
		return c
	}
	fi, err := os.Lstat(c)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		r.missing[c] = true
	case err == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < maxLinks:
		if t, err := os.Readlink(c); err == nil {
			if !filepath.IsAbs(t) {
				t = filepath.Join(parent, t)
			}
			c = r.resolve(filepath.Clean(t), depth+1)
		}
	}
	r.canon[p] = c
	return c
}

// splitClean is filepath.Dir and filepath.Base of a clean path other
// than "/" and ".".
func splitClean(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return ".", p
	case i == 0:
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

// joinClean is filepath.Join of a clean directory and one name (not
// "." or ".." unless dir is "."), without cleaning again.
func joinClean(dir, name string) string {
	switch dir {
	case ".":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}

// missingBelow reports whether p or a directory above it is known not
// to exist.
func (r *resolver) missingBelow(p string) bool {
	for {
		if r.missing[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			return false
		}
		p = p[:i]
	}
}

// stat is os.Stat, remembered.
func (r *resolver) stat(p string) (fs.FileInfo, error) {
	if r == nil {
		return os.Stat(p)
	}
	if s, ok := r.info[p]; ok {
		return s.fi, s.err
	}
	if r.missingBelow(p) {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: syscall.ENOENT}
	}
	fi, err := os.Stat(p)
	r.info[p] = statResult{fi, err}
	return fi, err
}

func (r *resolver) exists(p string) bool {
	_, err := r.stat(p)
	return err == nil
}

func (r *resolver) isDir(p string) bool {
	fi, err := r.stat(p)
	return err == nil && fi.IsDir()
}
