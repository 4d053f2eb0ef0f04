package sandbox

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guard-sh/guard/internal/rootdir"
	"github.com/guard-sh/guard/sandbox/confine"
	"golang.org/x/sys/unix"
)

// Restoring writes as guard, unconfined, in trees other runs' commands
// may be writing at that moment (an agent runs several at once): a
// directory swapped for a symlink between guard's look and its write
// would lead the write, or a removal, outside. So every change goes
// through the protected root's parent directory, found again as it was
// at the snapshot (its device and inode) and opened as an os.Root: each
// name below it is resolved one component at a time, and a symlink that
// leads out of it is refused, whenever it appears.

// beforeRestore, when set (tests), runs just before each change the
// restore makes, with the path it is about to change.
var beforeRestore func(p string)

// errParentReplaced: the parent directory is not the one of the
// snapshot.
var errParentReplaced = errors.New("its parent directory was replaced")

// openParent opens r's parent directory as an os.Root, if it is still
// the directory the snapshot saw there: the same real path, which the
// root's own descriptor names (a symlink swapped in for it, or for a
// directory above it, between the look and the open shows there).
func (r protectedRoot) openParent() (*os.Root, error) {
	if canonical(filepath.Dir(r.path)) != r.parent {
		return nil, errParentReplaced
	}
	root, err := rootdir.Open(r.parent)
	if errors.Is(err, rootdir.ErrMoved) {
		return nil, errParentReplaced
	}
	if err != nil {
		return nil, err
	}
	return root, nil
}

// name is p (r.path or a path below it) relative to r's parent.
func (r protectedRoot) name(p string) (string, error) {
	rel, err := filepath.Rel(filepath.Dir(r.path), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is outside %s", p, filepath.Dir(r.path))
	}
	return rel, nil
}

// withOwnerRights runs change, a change of name in root. The command may
// chmod in its writable trees, and a directory it left read-only
// (chmod 0555 .git/hooks, or the workspace itself) made guard's removal
// of a hook it planted there, and the restore of a config it rewrote,
// fail, leaving them in place under their names. So a change refused
// for want of rights (never one as root) is tried again once the owner
// has read, write and search back on every directory above name, root
// itself included (ownerRights); after it, each directory guard so
// changed gets its mode back, as it was before guard touched it. No
// directory keeps a mode guard gave it, and none is changed where the
// change needs no rights (the user's own read-only home above a
// protected file a command rewrote in place).
func withOwnerRights(root *os.Root, name string, change func() error) error {
	err := change()
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	given, err := ownerRights(root, name)
	defer func() {
		// Deepest first: a directory below one made searchable is
		// reached before that one is closed again.
		for _, g := range slices.Backward(given) {
			if st, err := root.Lstat(g.name); err == nil && st.IsDir() {
				root.Chmod(g.name, g.mode)
			}
		}
	}()
	if err != nil {
		return err
	}
	return change()
}

// givenRights is a directory ownerRights changed, and its mode before.
type givenRights struct {
	name string
	mode fs.FileMode
}

// ownerRights gives the owner back read, write and search on every
// directory above name in root, root itself included, top down, and
// returns those it changed with their modes before.
func ownerRights(root *os.Root, name string) ([]givenRights, error) {
	below, _ := dirsDown(".", name)
	dirs := append([]string{"."}, below...)
	var given []givenRights
	for _, cur := range dirs {
		st, err := root.Lstat(cur)
		if err != nil || !st.IsDir() {
			// Missing, or not a directory: the change itself fails, or
			// realDirsIn replaces it.
			return given, nil
		}
		if st.Mode().Perm()&0o700 != 0o700 {
			if err := root.Chmod(cur, st.Mode()&chmodBits|0o700); err != nil {
				return given, fmt.Errorf("%s, above it, was made read-only and could not be made writable again: %w", cur, err)
			}
			given = append(given, givenRights{cur, st.Mode() & chmodBits})
		}
	}
	return given, nil
}

// dirsDown lists the directories from top (left out) down to name's
// parent, top first: the one walk ownerRights and realDirsIn take.
// name must be top or below it.
func dirsDown(top, name string) ([]string, error) {
	rel, err := filepath.Rel(top, filepath.Dir(name))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is outside %s", name, top)
	}
	if rel == "." {
		return nil, nil
	}
	var out []string
	dir := top
	for c := range strings.SplitSeq(rel, "/") {
		dir = filepath.Join(dir, c)
		out = append(out, dir)
	}
	return out, nil
}

// realDirsIn makes every directory from top down to name's parent a
// real directory again (see restore): a filter may record a file
// without the directories above it (gitCode: modules/sub/config, not
// modules/sub). A non-directory there is removed and replaced by an
// empty directory; a missing one is left to fail the restore.
func realDirsIn(root *os.Root, top, name string) error {
	if name == top {
		return nil
	}
	dirs, err := dirsDown(top, name)
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		st, err := root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && st.IsDir() {
			continue
		}
		if err := confine.RemoveAllIn(root, dir); err != nil {
			return fmt.Errorf("%s, above it, was replaced and could not be removed: %w", dir, err)
		}
		if err := root.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("%s, above it, was replaced: %w", dir, err)
		}
	}
	return nil
}

// putIn recreates name in root as n. With sameType the entry is fixed
// in place.
func putIn(root *os.Root, name string, n node, sameType bool) error {
	if !sameType {
		if err := confine.RemoveAllIn(root, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	switch {
	case n.mode.IsDir():
		if err := root.Mkdir(name, n.mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	case n.mode.IsRegular():
		// Write a sibling and rename it over name: name may be a hard
		// link the command planted, whose other names must not change
		// (and the rename breaks the link).
		var nonce [8]byte
		rand.Read(nonce[:])
		tmp := filepath.Join(filepath.Dir(name), ".guard-restore-"+hex.EncodeToString(nonce[:]))
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		_, werr := f.Write(n.data)
		cerr := f.Close()
		if err := cmp.Or(werr, cerr); err != nil {
			root.Remove(tmp)
			return err
		}
		if err := root.Rename(tmp, name); err != nil {
			root.Remove(tmp)
			return err
		}
	case n.mode.Type() == fs.ModeSymlink:
		if sameType {
			root.Remove(name)
		}
		if err := root.Symlink(n.target, name); err != nil {
			return err
		}
	default:
		return fmt.Errorf("cannot recreate a %v", n.mode.Type())
	}
	if n.mode.Type() != fs.ModeSymlink {
		// Lstat first: root.Chmod follows a symlink (within the root).
		if st, err := root.Lstat(name); err != nil || st.Mode().Type() != n.mode.Type() {
			return fmt.Errorf("%s changed while it was restored", name)
		}
		// The ACLs before the mode: a chmod under an ACL sets its mask.
		if n.mode.IsDir() || n.mode.IsRegular() {
			if err := putACL(root, name, n.acl); err != nil {
				return err
			}
		}
		if err := root.Chmod(name, n.mode&chmodBits); err != nil {
			return err
		}
	}
	if os.Geteuid() == 0 {
		root.Lchown(name, n.uid, n.gid)
	}
	return nil
}

// flooded restores a protected root the command filled with more
// entries than a scan records (maxEntries): guard cannot tell them
// apart without reading them all, so the root is removed whole and
// recreated from the snapshot. A root that held more than that before
// the run already cannot be: it is reported, not restored.
func (r protectedRoot) flooded() Violation {
	if r.over {
		return Violation{Path: r.path, Change: "unreadable",
			RestoreErr: fmt.Sprintf("it held more than %d entries before the run, so guard did not check it", maxEntries)}
	}
	v := Violation{Path: r.path, Change: "flooded"}
	root, err := r.openParent()
	if err != nil {
		v.RestoreErr = err.Error()
		return v
	}
	defer root.Close()
	top, err := r.name(r.path)
	if err != nil {
		v.RestoreErr = err.Error()
		return v
	}
	if beforeRestore != nil {
		beforeRestore(r.path)
	}
	if err := confine.RemoveAllIn(root, top); err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.RestoreErr = "could not be removed: " + err.Error()
		return v
	}
	ps := make([]string, 0, len(r.entries))
	for p := range r.entries {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	var lost []string
	for _, p := range ps {
		was := r.entries[p]
		name, err := r.name(p)
		if err == nil && (was.bad || was.mode.IsRegular() && !was.kept) {
			err = errors.New("not kept")
		}
		if err == nil {
			err = putIn(root, name, was, false)
		}
		if err != nil {
			lost = append(lost, p)
		}
	}
	if len(lost) > 0 {
		v.RestoreErr = fmt.Sprintf("removed; %d of its entries could not be recreated (the first: %s)", len(lost), lost[0])
		return v
	}
	v.Restored = true
	return v
}
