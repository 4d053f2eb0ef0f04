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

// maxACL bounds an ACL guard records (the kernel's own limit is 64 KiB
// of xattr value; an ACL past this is recorded as such, and so compared
// by that mark).
const maxACL = 4096

// aclOf returns path's ACLs as one string, "" for none (or where the
// file system has none), without following a symbolic link: for each
// of aclNames it holds, its index byte, its value's length (4 bytes)
// and the value.
func aclOf(path string) string {
	var out []byte
	buf := make([]byte, maxACL)
	for i, name := range aclNames {
		n, err := unix.Lgetxattr(path, name, buf)
		switch {
		case err == nil:
			out = append(binary.LittleEndian.AppendUint32(append(out, byte(i)), uint32(n)), buf[:n]...)
		case errors.Is(err, unix.ERANGE):
			// Compared by this mark; never put back (putACL fails).
			out = binary.LittleEndian.AppendUint32(append(out, byte(i)), maxACL+1)
		}
	}
	return string(out)
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
