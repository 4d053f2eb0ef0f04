package sandbox

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// A POSIX ACL on a protected path (setfacl -m u:other:rwx .git/hooks)
// lets another local user write there, and changes no mode bit when the
// group bits already allow what the mask does (a umask of 002): the next
// hook that user plants runs as you. Landlock does not confine extended
// attributes, and inside the writable trees the helper's read-only
// mounts do not either. So a protected path's ACLs are part of its
// snapshot, compared after the run ("ACL changed") and put back as they
// were (TestAttackProtectedACL).

// aclNames are the extended attributes that hold a file's POSIX ACLs:
// the access ACL, and a directory's default ACL, which what is created
// in it inherits.
var aclNames = [...]string{"system.posix_acl_access", "system.posix_acl_default"}

// firstACL is the buffer an ACL is read into first: most fit (an entry
// is 8 bytes). A bigger one is read again at its size, up to maxACL.
const firstACL = 4096

// maxACL is the kernel's limit of an extended attribute's value
// (XATTR_SIZE_MAX), so of an ACL: every ACL is recorded whole. Before,
// one past 4 KiB was recorded as a mark of its size class, so a command
// that changed a big ACL (one more user with write, as root, or on a
// file system that holds them: tmpfs) left the mark, and the check,
// unchanged, and a restore of a path with one failed
// (TestAttackProtectedBigACL).
const maxACL = 64 << 10

// aclOf returns path's ACLs as one string, "" for none (or where the
// file system has none), without following a symbolic link: for each
// of aclNames it holds, its index byte, its value's length (4 bytes)
// and the value. One that cannot be read whole is recorded with a
// length past maxACL: a mark that differs from every ACL read, and
// that putACL refuses to put back.
func aclOf(path string) string {
	var out []byte
	buf := make([]byte, firstACL)
	for i, name := range aclNames {
		v, err := getACL(path, name, &buf)
		switch {
		case err == nil:
			out = append(binary.LittleEndian.AppendUint32(append(out, byte(i)), uint32(len(v))), v...)
		case errors.Is(err, unix.ERANGE):
			out = binary.LittleEndian.AppendUint32(append(out, byte(i)), maxACL+1)
		}
	}
	return string(out)
}

// getACL reads the extended attribute name of path, without following
// a symbolic link, into *buf, which it grows (to maxACL at most) for a
// value that does not fit.
func getACL(path, name string, buf *[]byte) ([]byte, error) {
	for {
		n, err := unix.Lgetxattr(path, name, *buf)
		if err == nil {
			return (*buf)[:n], nil
		}
		if !errors.Is(err, unix.ERANGE) || len(*buf) >= maxACL {
			return nil, err
		}
		// Its size now; it may grow before the next read, so the
		// buffer at least doubles each time.
		size, err := unix.Lgetxattr(path, name, nil)
		if err != nil {
			return nil, err
		}
		*buf = make([]byte, min(max(size, 2*len(*buf)), maxACL))
	}
}

// parseACL splits aclOf's form into its values by name; ok is false for
// a form putACL cannot put back.
func parseACL(acl string) (map[string][]byte, bool) {
	want := map[string][]byte{}
	for rest := acl; rest != ""; {
		if len(rest) < 5 || int(rest[0]) >= len(aclNames) {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint32([]byte(rest[1:5])))
		if n > maxACL || len(rest) < 5+n {
			return nil, false
		}
		want[aclNames[rest[0]]] = []byte(rest[5 : 5+n])
		rest = rest[5+n:]
	}
	return want, true
}

// putACL gives name in root the ACLs of acl (aclOf's form): those it
// does not hold are removed. name is a directory or a regular file,
// opened without following a symbolic link.
func putACL(root *os.Root, name, acl string) error {
	f, err := root.OpenFile(name, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	want, ok := parseACL(acl)
	if !ok {
		return &fs.PathError{Op: "set ACL", Path: f.Name(), Err: unix.E2BIG}
	}
	fd := int(f.Fd())
	for _, name := range aclNames {
		v, ok := want[name]
		if !ok {
			if err := unix.Fremovexattr(fd, name); err != nil && !errors.Is(err, unix.ENODATA) && !errors.Is(err, unix.EOPNOTSUPP) {
				return &fs.PathError{Op: "remove ACL", Path: f.Name(), Err: err}
			}
			continue
		}
		if err := unix.Fsetxattr(fd, name, v, 0); err != nil {
			return &fs.PathError{Op: "set ACL", Path: f.Name(), Err: err}
		}
	}
	return nil
}
