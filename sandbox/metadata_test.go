package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox"
)

// getxattr reads p's user.guard attribute.
func getxattr(p string) (string, error) {
	buf := make([]byte, 64)
	n, err := unix.Getxattr(p, "user.guard", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// metaAttack changes a path's metadata the ways Landlock does not
// confine: its mode, owner, times and extended attributes.
const metaAttack = `
import os, sys
op, p = sys.argv[1], sys.argv[2]
try:
    if op == "chmod":
        os.chmod(p, 0o777)
    elif op == "chown":
        os.chown(p, os.getuid(), os.getgid())
    elif op == "utime":
        os.utime(p, (0, 0))
    elif op == "xattr":
        os.setxattr(p, "user.guard", b"pwned")
    elif op == "unseal-chmod":
        # Undo the seal first: a user and mount namespace of the
        # command's own (it is root there), then mount_setattr(2) to
        # clear the read-only flag of every mount, then chmod.
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER|CLONE_NEWNS
            raise OSError(ctypes.get_errno(), "unshare")
        attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)  # attr_set 0, attr_clr MOUNT_ATTR_RDONLY
        libc.syscall.restype = ctypes.c_long
        if libc.syscall(442, -100, b"/", 0x8000 | 0x100, attr, 32) != 0:  # AT_RECURSIVE|AT_SYMLINK_NOFOLLOW
            raise OSError(ctypes.get_errno(), "mount_setattr")
        os.chmod(p, 0o777)
except OSError as e:
    print(e.strerror)
    sys.exit(1)
print("ok")
`

// TestAttackSharedMemory: /dev/shm holds other processes' shared memory
// (a browser's, a sound server's, a Python SharedMemory): a command
// writing into a segment writes into that process. Its /dev/shm is a
// tmpfs of its own; what it makes there goes with it.
func TestAttackSharedMemory(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v)", err)
	}
	f := newFixture(t)
	seg, err := os.CreateTemp("/dev/shm", "guard-test-victim-")
	if err != nil {
		t.Skipf("no /dev/shm here: %v", err)
	}
	seg.WriteString("VICTIM")
	seg.Close()
	t.Cleanup(func() { os.Remove(seg.Name()) })
	// The name is free in its own /dev/shm: writing it makes a segment
	// of the command's, and the victim's is neither read nor changed.
	f.sh(t, f.spec(), "write", seg.Name())
	wantContent(t, seg.Name(), "VICTIM")
	ro := f.spec()
	ro.Write = false
	for _, spec := range []sandbox.Spec{f.spec(), ro} {
		if o := f.sh(t, spec, "read", seg.Name()); strings.Contains(o.stdout, "VICTIM") {
			t.Errorf("read another process's segment (write %v): %v", spec.Write, o)
		}
	}
	// Its own segments work, and do not outlive it.
	own := "/dev/shm/guard-test-own-" + filepath.Base(f.root)
	mustSucceed(t, f.sh(t, f.spec(), "exec", "sh", "-c", `echo x > "$1" && cat "$1"`, "sh", own))
	wantContent(t, own, "<absent>")
}

// TestAttackMetadata: Landlock confines writing a file, not its mode,
// owner, times or extended attributes. A command rated A could make
// your home or ~/.bashrc writable for other users, make guard's own state
// unreadable so later runs fail, or reset a file's times. Outside its
// writable trees the helper's mounts are read-only.
func TestAttackMetadata(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): metadata outside the grants is not confined, as guard doctor says", err)
	}
	f := newFixture(t)
	targets := []string{
		f.home, f.p("home/.bashrc"), f.p("home/notes.txt"), f.p("home/.ssh/id_ed25519"),
		f.p("home/.local/state/guard"), f.p("home/.local/state/guard/audit.log"), f.p("outside/target.txt"),
	}
	type meta struct {
		mode  os.FileMode
		mtime time.Time
	}
	before := map[string]meta{}
	for _, p := range targets {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = meta{fi.Mode(), fi.ModTime()}
	}
	for _, spec := range []sandbox.Spec{f.spec(), func() sandbox.Spec { s := f.spec(); s.Write = false; return s }()} {
		for _, p := range targets {
			for _, op := range []string{"chmod", "utime", "xattr", "chown", "unseal-chmod"} {
				o := run(t, spec, "python3", "-c", metaAttack, op, p)
				if o.res.ExitCode == 0 {
					t.Errorf("%s %s (write %v): allowed", op, p, spec.Write)
				}
			}
		}
	}
	for _, p := range targets {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := (meta{fi.Mode(), fi.ModTime()}); got != before[p] {
			t.Errorf("%s: %v, was %v", p, got, before[p])
		}
		if v, err := getxattr(p); err == nil {
			t.Errorf("%s: xattr user.guard = %q", p, v)
		}
	}
	// Control: inside its grants the command changes what it likes.
	mustSucceed(t, run(t, f.spec(), "python3", "-c", metaAttack, "chmod", f.p("ws/main.go")))
	if fi, _ := os.Stat(f.p("ws/main.go")); fi.Mode().Perm() != 0o777 {
		t.Errorf("chmod in the workspace: mode %v", fi.Mode())
	}
}
