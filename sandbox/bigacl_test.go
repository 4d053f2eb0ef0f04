package sandbox_test

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// bigACL is a POSIX ACL of n users (ids from 100000, each with perm)
// besides the owner, group, mask and others: 8 bytes an entry, so past
// 4 KiB from n = 511.
func bigACL(n int, perm uint16) []byte {
	es := []aclEntry{{aclUserObj, 7, aclUndefined}}
	for i := range n {
		es = append(es, aclEntry{aclUser, perm, uint32(100000 + i)})
	}
	return posixACL(append(es, aclEntry{aclGroupObj, 5, aclUndefined}, aclEntry{aclMask, 7, aclUndefined}, aclEntry{aclOther, 5, aclUndefined}))
}

// TestProtectedDefaultACLRestoreOrder: a command plants a default ACL on
// a protected directory (.git/hooks) and rewrites a hook in it. The
// hook is restored by a file made in that directory, which inherits
// whatever default ACL the directory holds when it is made, whether
// the directory's own ACLs are put back before or after: every entry
// restored gets its own recorded ACLs (none here) set, or removed,
// explicitly, so the order does not matter. After the run neither the
// directory nor the hook holds an ACL, and the hook has its mode. (It
// passed on eed3eff too: pinned, not fixed.)
func TestProtectedDefaultACLRestoreOrder(t *testing.T) {
	f := newFixture(t)
	hooks := f.p("ws/.git/hooks")
	hook := filepath.Join(hooks, "pre-commit.sample")
	if err := unix.Setxattr(f.p("ws/main.go"), "system.posix_acl_access", aclXattr(uint32(os.Getuid()), 6), 0); err != nil {
		t.Skipf("no POSIX ACLs here: %v", err)
	}
	spec := f.spec()
	spec.Protect = []string{hooks}
	o := run(t, spec, "/usr/bin/python3", "-c", `import os, sys
os.setxattr(sys.argv[1], "system.posix_acl_default", bytes.fromhex(sys.argv[3]))
os.remove(sys.argv[2])
with open(sys.argv[2], "w") as f:
    f.write("planted\n")`, hooks, hook, hex.EncodeToString(aclXattr(uint32(os.Getuid()), 7)))
	mustSucceed(t, o)
	if len(o.res.Violations) == 0 {
		t.Fatalf("no violation for the default ACL and the hook: %v", o)
	}
	for _, v := range o.res.Violations {
		if !v.Restored {
			t.Errorf("not restored: %v", v)
		}
	}
	wantContent(t, hook, "#!/bin/sh\n")
	for p, name := range map[string]string{hooks: "system.posix_acl_default", hook: "system.posix_acl_access"} {
		buf := make([]byte, 256)
		if n, err := unix.Getxattr(p, name, buf); err == nil {
			t.Errorf("%s holds %s after the run (%d bytes)", p, name, n)
		}
	}
	if st, err := os.Stat(hook); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("%s: %v, %v after the restore; want mode 0644", hook, st.Mode(), err)
	}
}

// TestAttackProtectedBigACL: a protected path's ACLs were recorded up
// to 4 KiB; a bigger one (more than 510 named users: a shared machine's
// group of readers, on a file system that holds it) was recorded as a
// mark of its size class. A command that changed such an ACL (every
// named user given write to .git/hooks) left the mark, so the check
// saw no change and the ACL stayed; a command that removed the
// directory had it recreated without its ACLs, the restore failing
// (E2BIG). Now every ACL is recorded whole, to the kernel's 64 KiB
// limit. Root only: the ids must exist in the command's namespace (a
// user's helper maps only the user's own) and ext4 holds no ACL this
// big; the test mounts a tmpfs. Fails on eed3eff.
func TestAttackProtectedBigACL(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root only: an ACL naming other users, on a tmpfs the test mounts")
	}
	for _, tc := range []struct {
		name, script string
	}{
		{"changed", `import os, sys
os.setxattr(sys.argv[1], "system.posix_acl_access", bytes.fromhex(sys.argv[2]))`},
		{"removed", `import shutil, sys
shutil.rmtree(sys.argv[1])`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			git := f.p("ws/.git")
			if err := unix.Mount("tmpfs", git, "tmpfs", 0, "mode=0755"); err != nil {
				t.Skipf("mount a tmpfs: %v", err)
			}
			t.Cleanup(func() { unix.Unmount(git, unix.MNT_DETACH) })
			hooks := filepath.Join(git, "hooks")
			if err := os.Mkdir(hooks, 0o775); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			access, deflt := bigACL(600, 5), bigACL(520, 4)
			if err := unix.Setxattr(hooks, "system.posix_acl_access", access, 0); err != nil {
				t.Skipf("no ACL of %d bytes here: %v", len(access), err)
			}
			if err := unix.Setxattr(hooks, "system.posix_acl_default", deflt, 0); err != nil {
				t.Fatal(err)
			}
			spec := f.spec()
			spec.Protect = []string{hooks}
			o := run(t, spec, "/usr/bin/python3", "-c", tc.script, hooks, hex.EncodeToString(bigACL(600, 7)))
			mustSucceed(t, o)
			seen := false
			for _, v := range o.res.Violations {
				if v.Path == hooks {
					seen = true
					if !v.Restored {
						t.Errorf("not restored: %v", v)
					}
				}
			}
			if !seen {
				t.Errorf("the command's change to %s's ACL went unseen: %v", hooks, o.res.Violations)
			}
			for name, want := range map[string][]byte{"system.posix_acl_access": access, "system.posix_acl_default": deflt} {
				buf := make([]byte, 64<<10)
				n, err := unix.Getxattr(hooks, name, buf)
				if err != nil || !bytes.Equal(buf[:n], want) {
					t.Errorf("%s of %s after the run: %d bytes, %v; want the %d it had", name, hooks, n, err, len(want))
				}
			}
		})
	}
}
