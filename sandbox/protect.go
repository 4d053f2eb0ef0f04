package sandbox

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Violation is a change the sandboxed command made to a protected path.
// The caller must report it loudly: it means the command tried to do
// something its review did not allow.
type Violation struct {
	// Path is the protected path, or the entry inside a protected
	// directory, that changed.
	Path string `json:"path"`
	// Change is "created", "removed", "modified", "mode changed" or
	// "replaced" (its type changed, e.g. a file became a symlink).
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

// maxProtectBytes bounds how much file content a snapshot keeps in
// memory; larger files are compared by content but cannot be restored.
const maxProtectBytes = 64 << 20

// node is the state of one file system entry.
type node struct {
	mode   fs.FileMode // type and permission bits
	data   []byte      // regular file content (nil when too large)
	large  bool        // content not kept
	size   int64
	target string // symlink target
	uid    int
	gid    int
}

func (a node) same(b node) (bool, string) {
	switch {
	case a.mode.Type() != b.mode.Type():
		return false, "replaced"
	case a.mode.IsRegular() && (a.size != b.size || a.large != b.large || !bytes.Equal(a.data, b.data)):
		return false, "modified"
	case a.mode.Type() == fs.ModeSymlink && a.target != b.target:
		return false, "modified"
	case a.mode.Perm() != b.mode.Perm():
		return false, "mode changed"
	}
	return true, ""
}

// snapshot is the state of the protected paths before the run: for
// each root, its entries keyed by path (the root itself included), and
// the real location of its parent directory.
type snapshot struct {
	roots []protectedRoot
}

type protectedRoot struct {
	path    string
	parent  string          // canonical parent directory at snapshot time
	entries map[string]node // absent root: empty map
}

func takeSnapshot(paths []string) (*snapshot, error) {
	s := &snapshot{}
	budget := int64(maxProtectBytes)
	for _, p := range paths {
		entries, err := scan(p, &budget)
		if err != nil {
			return nil, fmt.Errorf("snapshot protected path %s: %w", p, err)
		}
		s.roots = append(s.roots, protectedRoot{path: p, parent: canonical(filepath.Dir(p)), entries: entries})
	}
	return s, nil
}

// scan records p and, for a directory, everything beneath it, without
// following symbolic links.
func scan(p string, budget *int64) (map[string]node, error) {
	entries := map[string]node{}
	err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n := node{mode: fi.Mode(), size: fi.Size()}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			n.uid, n.gid = int(st.Uid), int(st.Gid)
		}
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n.size = int64(len(data))
			if *budget >= n.size {
				*budget -= n.size
				n.data = data
			} else {
				// Too large to keep: remember a digest-sized stand-in
				// so a change is still noticed.
				n.large = true
				n.data = digest(data)
			}
		case fi.Mode().Type() == fs.ModeSymlink:
			n.target, err = os.Readlink(path)
			if err != nil {
				return err
			}
		}
		entries[path] = n
		return nil
	})
	return entries, err
}

// check compares the protected paths with the snapshot, restores what
// changed and reports each change.
func (s *snapshot) check() []Violation {
	var out []Violation
	for _, r := range s.roots {
		budget := int64(maxProtectBytes)
		now, err := scan(r.path, &budget)
		if err != nil {
			out = append(out, Violation{Path: r.path, Change: "modified", RestoreErr: err.Error()})
			continue
		}
		out = append(out, r.restore(now)...)
	}
	return out
}

func (r protectedRoot) restore(now map[string]node) []Violation {
	var out []Violation
	// Restoring writes as guard, unconfined: never through a parent
	// directory the command may have swapped for a symlink.
	parentMoved := canonical(filepath.Dir(r.path)) != r.parent

	// Entries that appeared: remove them, deepest first.
	var created []string
	for p := range now {
		if _, ok := r.entries[p]; !ok {
			created = append(created, p)
		}
	}
	slices.SortFunc(created, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, p := range created {
		v := Violation{Path: p, Change: "created"}
		if parentMoved {
			v.RestoreErr = "its parent directory was replaced"
		} else if err := os.RemoveAll(p); err != nil {
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
		change := "removed"
		if present {
			same, what := was.same(is)
			if same {
				continue
			}
			change = what
		}
		v := Violation{Path: p, Change: change}
		switch {
		case parentMoved:
			v.RestoreErr = "its parent directory was replaced"
		case was.large:
			v.RestoreErr = "too large to keep a copy"
		default:
			if err := put(p, was, present && is.mode.Type() == was.mode.Type()); err != nil {
				v.RestoreErr = err.Error()
			} else {
				v.Restored = true
			}
		}
		out = append(out, v)
	}
	return out
}

// put recreates p as n. With sameType the entry is fixed in place.
func put(p string, n node, sameType bool) error {
	if !sameType {
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	switch {
	case n.mode.IsDir():
		if err := os.Mkdir(p, n.mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	case n.mode.IsRegular():
		// Write a sibling and rename it over p: p may be a hard link
		// the command planted, whose other names must not change.
		tmp, err := os.CreateTemp(filepath.Dir(p), ".guard-restore-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(n.data)
		cerr := tmp.Close()
		if err := cmp.Or(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	case n.mode.Type() == fs.ModeSymlink:
		if sameType {
			os.Remove(p)
		}
		if err := os.Symlink(n.target, p); err != nil {
			return err
		}
	default:
		return fmt.Errorf("cannot recreate a %v", n.mode.Type())
	}
	if n.mode.Type() != fs.ModeSymlink {
		if err := os.Chmod(p, n.mode.Perm()); err != nil {
			return err
		}
	}
	if os.Geteuid() == 0 {
		os.Lchown(p, n.uid, n.gid)
	}
	return nil
}

func digest(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}
