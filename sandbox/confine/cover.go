package confine

import (
	"errors"
	"github.com/guard-sh/guard/internal/paths"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Namespaced is Env's value when guard started the helper in a mount
// namespace of its own (and a user namespace, for a user who is not
// root: sandbox/userns.go): only then does the helper mount anything.
const Namespaced = "ns"

// mounts shapes the command's view of the file system in the helper's
// own mount namespace, before Landlock (which forbids the command every
// mount change) confines it:
//
//   - Seal: every mount read-only but the plan's writable trees (and
//     /proc), so that what Landlock does not confine — chmod, chown,
//     utimes, extended attributes — changes nothing outside them; and
//     /dev/shm a tmpfs of the command's own (writable when the plan
//     says so);
//   - Cover: /dev/null over each daemon's unix socket, so that
//     connect(2) on the path reaches no daemon;
//   - CoverDirs: an empty read-only tmpfs over each directory where a
//     daemon started later binds its socket, so that a socket that
//     appears there during the run is out of view too;
//   - Conceal: the same over each hidden directory, mode 0000, so that
//     a lookup there is refused;
//   - Overlays: guard's own layer over a directory (the user's cache)
//     whose writes must not reach it; mounted first, while the layer's
//     file system is still writable; where the kernel refuses the
//     overlay, the layer alone is bound there if the run may write the
//     directory, and the run fails if even that is refused; the paths
//     below it the run was granted by name stay the real ones (bound
//     back over it);
//   - ReadOnly: the code caches read-only inside a writable tree.
//
// It does nothing where it cannot be sure the mount namespace is its
// own, or where the namespace gives it no right to mount (a kernel or a
// security module that grants no capability in it): the command then
// runs as it would without this (guard doctor says so). A path gone
// meanwhile, or behind a directory this user cannot search, needs
// nothing.
func mounts(p *Plan) error {
	if os.Getenv(Env) != Namespaced || !ownMountNamespace() {
		return unmountable(p, "the sandbox helper has no namespaces of its own (user namespaces are refused here): System V IPC is shared too")
	}
	// Nothing mounted here may propagate anywhere.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return unmountable(p, "the sandbox helper may not mount in its namespace: "+err.Error())
		}
		return errors.New("make the helper's mounts private: " + err.Error())
	}
	for _, o := range p.Overlays {
		// The paths granted by name below it, as they are now (the
		// user's own), to bind back over the layer.
		through, err := cloneTrees(o.Through)
		if err != nil {
			return errors.New("guard's layer over " + o.Path + ": " + err.Error())
		}
		err = overlay(o)
		switch {
		case err == nil:
		case writableIn(p, o.Path):
			// The kernel refuses the overlay (too old for lowerdir+, no
			// unprivileged overlays, a layer or a cache it will not
			// take): the command writes guard's layer alone, without
			// the user's cache below, never the user's cache itself
			// (fail closed), or the run fails. Unless the cache itself
			// is gone for this user too: a layer that cannot be bound
			// over a cache that is there is a failure, whatever the
			// error says (the layer's directory removed, say).
			if err = unix.Mount(o.Upper, o.Path, "", unix.MS_BIND, ""); err != nil {
				var st unix.Stat_t
				if lerr := unix.Lstat(o.Path, &st); lerr == nil || !gone(lerr) {
					return errors.New("guard's layer over " + o.Path + ": " + err.Error())
				}
			}
		case !unsupported(err) && !gone(err):
			// A path the run may not write stays as it is, read-only.
			return errors.New("overlay " + o.Path + ": " + err.Error())
		}
		if err := moveTrees(through); err != nil {
			return errors.New("guard's layer over " + o.Path + ": " + err.Error())
		}
	}
	if p.Seal {
		// Each writable tree its own mount first, so that it can be
		// made writable again once everything is read-only.
		// Shared memory of its own: other processes' segments (a
		// browser's, a sound server's) are not the command's to read or
		// write. Writable only when the plan says so, as below.
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil && !gone(err) {
			return errors.New("mount /dev/shm: " + err.Error())
		}
		for _, w := range outermost(p.Writable) {
			if w == "/dev/shm" {
				continue
			}
			if err := bindSelf(w); err != nil && !gone(err) && !errors.Is(err, unix.ELOOP) {
				return errors.New("mount " + w + ": " + err.Error())
			}
		}
		// Outermost first: each a mount of its own in the one above,
		// writable with its tree once the seal has passed.
		for _, d := range p.Pinned {
			if err := bindSelf(d); err != nil && !gone(err) && !errors.Is(err, unix.ELOOP) {
				return errors.New("pin " + d + ": " + err.Error())
			}
		}
	}
	if p.Tmp != "" && p.Tmps != "" {
		// On the writable mount of the temp dir made above: the seal
		// below leaves it (and what is mounted here) writable.
		if err := ownTmp(p); err != nil {
			return err
		}
	}
	for _, s := range p.Cover {
		if err := unix.Mount("/dev/null", s, "", unix.MS_BIND, ""); err != nil && !gone(err) {
			return errors.New("cover unix socket " + s + ": " + err.Error())
		}
	}
	if p.Seal {
		if err := setattr("/", unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
			return errors.New("make the file system read-only: " + err.Error())
		}
		for _, w := range append(outermost(p.Writable), "/proc") {
			err := setattrReal(w, unix.AT_RECURSIVE, 0, unix.MOUNT_ATTR_RDONLY)
			if errors.Is(err, unix.EPERM) {
				// A mount below it that its owner made read-only
				// stays so (a user namespace may not change it).
				err = setattrReal(w, 0, 0, unix.MOUNT_ATTR_RDONLY)
			}
			if errors.Is(err, unix.ELOOP) {
				// Swapped for a symlink since guard planned the run:
				// its target stays read-only.
				continue
			}
			if err != nil && !gone(err) {
				return errors.New("keep " + w + " writable: " + err.Error())
			}
		}
	}
	// After the seal: read-only even inside a writable tree (/tmp).
	if err := coverDirs(p.CoverDirs, "0500"); err != nil {
		return err
	}
	conceal := p.Conceal
	if p.Tmp == "" && p.Tmps != "" {
		// A run without a temp dir of its own sees none of the others.
		conceal = append(conceal[:len(conceal):len(conceal)], p.Tmps)
	}
	if err := coverDirs(conceal, "0000"); err != nil {
		return err
	}
	for _, r := range p.ReadOnly {
		// A bind mount of the tree onto itself, then read-only: only
		// that attribute changes (mount_setattr keeps the others, which
		// a user namespace may not clear).
		err := unix.Mount(r, r, "", unix.MS_BIND|unix.MS_REC, "")
		if gone(err) {
			continue
		}
		if err == nil {
			err = setattr(r, unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY, 0)
		}
		if err != nil {
			return errors.New("make " + r + " read-only: " + err.Error())
		}
	}
	if p.Dir != "" {
		// The working directory the helper moved to is on the mount
		// below the new ones: move there again, onto the new view.
		if err := unix.Chdir(p.Dir); err != nil {
			return errors.New("chdir " + p.Dir + ": " + err.Error())
		}
	}
	return nil
}

// tmpsFD is the runs' temp dirs' directory (Plan.Tmps) as it is below
// the cover ownTmp puts over it, -1 without one: the helper removes the
// run's own temp dir through it, should guard be gone (removeOwnTmp).
var tmpsFD = -1

// ownTmp covers the directory of every run's private temp dir with an
// empty tmpfs of the helper's own and binds the run's own temp dir back
// in it: the command sees its own and no other run's (which another
// command, approved to read a secret, may have staged there), and no
// other run sees what it puts in its own (theirs are covered likewise).
func ownTmp(p *Plan) error {
	own, err := cloneTrees([]string{p.Tmp})
	if err == nil && len(own) != 1 {
		closeTrees(own)
		err = unix.ENOENT
	}
	if err != nil {
		return errors.New("the run's temp dir " + p.Tmp + ": " + err.Error())
	}
	fd, err := unix.Open(p.Tmps, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		tmpsFD = fd
		// No size or exec limit: a guard run inside the command makes
		// its own TMPDIR here (builds and tests run programs from it),
		// and the command may write /tmp as much anyway.
		err = unix.Mount("tmpfs", p.Tmps, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700")
	}
	if err != nil {
		closeTrees(own)
		return errors.New("cover the runs' temp dirs " + p.Tmps + ": " + err.Error())
	}
	return moveTrees(own)
}

// removeOwnTmp removes the run's temp dir tmp, through the directory
// below the cover where ownTmp made one (there, tmp is a mount point).
func removeOwnTmp(tmp string) {
	if tmpsFD >= 0 {
		tmp = "/proc/self/fd/" + strconv.Itoa(tmpsFD) + tmp[strings.LastIndexByte(tmp, '/'):]
	}
	RemoveTree(tmp)
}

// unmountable is mounts' answer where it cannot mount: an error when the
// plan requires the mounts, else none, the command running without them
// and the report saying why.
func unmountable(p *Plan, why string) error {
	if p.Require {
		return errors.New(why + "; refusing to run without the whole sandbox")
	}
	p.unmounted = why
	return nil
}

// coverDirs covers each of dirs with one empty read-only tmpfs of the
// given mode, mounted on the first and bound to the others (a bind, the
// mount's flags with it, costs less than a file system of its own).
func coverDirs(dirs []string, mode string) error {
	cover := ""
	for _, d := range dirs {
		var err error
		if cover == "" {
			err = unix.Mount("tmpfs", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=1,mode="+mode)
			if err == nil {
				cover = d
			}
		} else {
			err = unix.Mount(cover, d, "", unix.MS_BIND, "")
		}
		if err != nil && !gone(err) {
			return errors.New("cover " + d + ": " + err.Error())
		}
	}
	return nil
}

// overlay mounts o, through the new mount API: lowerdir+ takes the path
// as it is (a comma or a colon in it is not a separator).
func overlay(o Overlay) error {
	fd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var opts [][2]string
	for _, l := range o.Lower {
		opts = append(opts, [2]string{"lowerdir+", l})
	}
	opts = append(opts, [2]string{"lowerdir+", o.Path}, [2]string{"upperdir", o.Upper}, [2]string{"workdir", o.Work})
	for _, kv := range opts {
		if err := unix.FsconfigSetString(fd, kv[0], kv[1]); err != nil {
			return err
		}
	}
	// The layer's attributes in user.overlay.*, which a user namespace
	// may write (trusted.* it may not).
	if err := unix.FsconfigSetFlag(fd, "userxattr"); err != nil {
		return err
	}
	if err := unix.FsconfigCreate(fd); err != nil {
		return err
	}
	m, err := unix.Fsmount(fd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return err
	}
	defer unix.Close(m)
	return unix.MoveMount(m, "", unix.AT_FDCWD, o.Path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// unsupported: the kernel or a security module does not let this
// namespace mount an overlay (no overlayfs, no lowerdir+ before Linux
// 6.8, unprivileged overlays refused). The run then goes on as it would
// without the layer; guard doctor says so.
func unsupported(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENODEV) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)
}

// tree is a detached copy of the mount tree at path (open_tree), to
// move back onto path once something else is mounted above it.
type tree struct {
	path string
	fd   int
	dir  bool
}

// cloneTrees copies the mount trees at paths; a path that is gone needs
// none.
func cloneTrees(paths []string) ([]tree, error) {
	var out []tree
	for _, p := range paths {
		// Not through a symlink put there since guard planned the run:
		// its target is not what the user granted.
		at, err := openReal(p)
		if gone(err) || errors.Is(err, unix.ELOOP) {
			continue
		}
		var st unix.Stat_t
		if err == nil {
			err = unix.Fstat(at, &st)
		}
		if err != nil {
			if at >= 0 {
				unix.Close(at)
			}
			closeTrees(out)
			return nil, err
		}
		fd, err := unix.OpenTree(at, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		unix.Close(at)
		if err != nil {
			closeTrees(out)
			return nil, errors.New("keep " + p + ": " + err.Error())
		}
		out = append(out, tree{path: p, fd: fd, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	return out, nil
}

// moveTrees moves each copy back onto its path, which is made first (a
// directory or an empty file, as the copy is) if the view above hides
// it (a layer that removed it), and closes them.
func moveTrees(trees []tree) error {
	defer closeTrees(trees)
	for _, t := range trees {
		var st unix.Stat_t
		if err := unix.Lstat(t.path, &st); errors.Is(err, unix.ENOENT) {
			if t.dir {
				err = os.MkdirAll(t.path, 0o700)
			} else if err = os.MkdirAll(t.path[:strings.LastIndexByte(t.path, '/')+1], 0o700); err == nil {
				var fd int
				if fd, err = unix.Open(t.path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600); err == nil {
					unix.Close(fd)
				}
			}
			if err != nil {
				return errors.New("make " + t.path + ": " + err.Error())
			}
		}
		if err := unix.MoveMount(t.fd, "", unix.AT_FDCWD, t.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return errors.New("keep " + t.path + ": " + err.Error())
		}
	}
	return nil
}

func closeTrees(trees []tree) {
	for _, t := range trees {
		unix.Close(t.fd)
	}
}

// outermost are the trees of ws not inside another of them. A tree
// inside another is no mount of its own: it is writable with the one
// around it, and stays a directory that can be renamed into and out of,
// and removed (the private temp dir in /tmp, once the command is gone).
func outermost(ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		inside := false
		for _, o := range ws {
			if o != w && below(w, o) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, w)
		}
	}
	return out
}

// writableIn reports whether path lies in one of the plan's writable
// trees.
func writableIn(p *Plan, path string) bool {
	for _, w := range p.Writable {
		if paths.Within(path, w) {
			return true
		}
	}
	return false
}

// below reports whether the clean absolute path lies below dir.
func below(path, dir string) bool {
	return path != dir && paths.Within(path, dir)
}

// bindSelf makes the tree at w a mount of its own (a bind onto itself),
// through a descriptor opened without following a symlink (openReal):
// one put in its place since guard planned the run must not make its
// target writable.
func bindSelf(w string) error {
	fd, err := openReal(w)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	return unix.Mount(self, self, "", unix.MS_BIND|unix.MS_REC, "")
}

// setattrReal is setattr of the mount at path, opened as openReal does.
func setattrReal(path string, flags uint, set, clr uint64) error {
	fd, err := openReal(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.MountSetattr(fd, "", flags|unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
}

// setattr sets and clears mount attributes of the mount at path (and
// those below it, with AT_RECURSIVE).
func setattr(path string, flags uint, set, clr uint64) error {
	return unix.MountSetattr(unix.AT_FDCWD, path, flags|unix.AT_SYMLINK_NOFOLLOW, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
}

// gone: the path is not there (any more), or this user cannot reach it
// (nor can the command, which runs as the same user).
func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES)
}

// ownMountNamespace reports whether the helper's mount namespace is not
// its parent's (guard's). Where the parent's cannot be read (a user
// namespace of the helper's own hides it), a user namespace of its own,
// which guard creates together with the mount namespace, vouches for it:
// the initial one maps every id ("0 0 4294967295"), and in any other the
// helper has no capability over its parent's mounts anyway.
func ownMountNamespace() bool {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return false
	}
	if parent, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt"); err == nil {
		return parent != self
	}
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) == 3 && f[2] != "4294967295"
}
