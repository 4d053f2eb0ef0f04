package confine

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Namespaced is Env's value when guard started the helper in a user and
// mount namespace of its own (sandbox/userns.go): only then does the
// helper mount anything.
const Namespaced = "ns"

// cover puts /dev/null over each socket path in the helper's own mount
// namespace, so that connect(2) on it reaches no daemon, and makes each
// readOnly directory read-only there. It does nothing
// where it cannot be sure the mount namespace is its own, or where the
// namespace gives it no right to mount (a kernel or a security module
// that grants no capability in it): the command then reaches the
// sockets as it would without this. A socket gone meanwhile, or behind
// a directory this user cannot search, needs no cover.
func cover(paths, readOnly []string) error {
	if len(paths) == 0 && len(readOnly) == 0 {
		return nil
	}
	if os.Getenv(Env) != Namespaced || !ownMountNamespace() {
		return nil
	}
	// Nothing mounted here may propagate anywhere.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil
		}
		return errors.New("make the helper's mounts private: " + err.Error())
	}
	for _, p := range paths {
		err := unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
		switch {
		case err == nil, errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EACCES):
		default:
			return errors.New("cover unix socket " + p + ": " + err.Error())
		}
	}
	for _, p := range readOnly {
		// A bind mount of the tree onto itself, then read-only: only
		// that attribute changes (mount_setattr keeps the others, which
		// a user namespace may not clear).
		err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, "")
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES) {
			continue
		}
		if err == nil {
			err = unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
		}
		if err != nil {
			return errors.New("make " + p + " read-only: " + err.Error())
		}
	}
	return nil
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
