package sandbox_test

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// aclXattr is a POSIX access ACL (system.posix_acl_access) that gives
// user uid perm, with the owner, group and mask at perm and others at
// perm without write: on a directory of mode 0775 (perm 7) or a file of
// 0664 (perm 6), a umask of 002, the mode does not change.
func aclXattr(uid uint32, perm uint16) []byte {
	return posixACL([]aclEntry{{aclUserObj, perm, aclUndefined}, {aclUser, perm, uid}, {aclGroupObj, perm, aclUndefined}, {aclMask, perm, aclUndefined}, {aclOther, perm &^ 2, aclUndefined}})
}

// The tags of a POSIX ACL's entries, and the id of those that name no one.
const (
	aclUserObj, aclUser, aclGroupObj, aclMask, aclOther = 0x01, 0x02, 0x04, 0x10, 0x20
	aclUndefined                                        = 0xffffffff
)

type aclEntry struct {
	tag, perm uint16
	id        uint32
}

// posixACL is the value of a system.posix_acl_* extended attribute
// holding es.
func posixACL(es []aclEntry) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 2) // version
	for _, e := range es {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// TestAttackProtectedACL: the protected paths are compared after the
// run, mode included, and the command may set extended attributes in
// its writable trees: a POSIX ACL on .git/hooks (or on a hook, or on
// .git/config) that lets another local user (a service account, a
// shared machine's other users) write there changes no mode bit when
// the group bits are rwx already, and the next hook that user plants
// runs as you. The check missed it: the run succeeded and the ACL
// stayed. Now the ACLs are part of what is compared, and restored.
// Fails on 6ee89b7 (no violation, the ACL stays).
func TestAttackProtectedACL(t *testing.T) {
	f := newFixture(t)
	hooks := f.p("ws/.git/hooks")
	config := f.p("ws/.git/config")
	if err := os.Chmod(hooks, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(config, 0o664); err != nil {
		t.Fatal(err)
	}
	acl := aclXattr(65534, 7)
	if err := unix.Setxattr(f.p("ws/main.go"), "system.posix_acl_access", acl, 0); err != nil {
		t.Skipf("no POSIX ACLs here: %v", err)
	}
	spec := f.spec()
	spec.Protect = []string{hooks, config}
	for _, p := range []string{hooks, config} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			o := run(t, spec, "/usr/bin/python3", "-c", `import errno, os, sys
try:
    os.setxattr(sys.argv[1], "system.posix_acl_access", bytes.fromhex(sys.argv[2]))
    print("set")
except OSError as e:
    print(errno.errorcode[e.errno])`, p, hex.EncodeToString(aclXattr(65534, map[string]uint16{hooks: 7, config: 6}[p])))
			switch strings.TrimSpace(o.stdout) {
			case "set":
				found := false
				for _, v := range o.res.Violations {
					if v.Path == p && v.Change == "ACL changed" && v.Restored {
						found = true
					}
				}
				if !found {
					t.Errorf("no restored violation for the ACL on %s: %v", p, o.res.Violations)
				}
			case "EINVAL":
				// In the helper's user namespace (a user's run) only
				// the user's own ids are mapped: an ACL naming another
				// user cannot be set at all.
			default:
				t.Fatalf("the command's setxattr: %v", o)
			}
			buf := make([]byte, 256)
			if n, err := unix.Getxattr(p, "system.posix_acl_access", buf); !errors.Is(err, unix.ENODATA) {
				t.Errorf("the ACL stayed on %s after the run (%d bytes, %v)", p, n, err)
			}
			if st, err := os.Stat(p); err != nil || st.Mode().Perm() != map[string]os.FileMode{hooks: 0o775, config: 0o664}[p] {
				t.Errorf("%s: mode %v, %v after the restore", p, st.Mode(), err)
			}
		})
	}
}
