package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// setIDPlant makes set-user-ID files every way it can
// (a copy of python3 then chmod, create with the bit, fchmod, a new
// file through mknod, a file capability as root) in the directory it
// is given, prints each
// outcome, and, as controls, a set-group-ID chmod (left alone: a
// filter cannot tell a shared directory from a file) and chmod 0755.
const setIDPlant = `import os, shutil, stat, sys, errno
d = sys.argv[1]
def show(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
py = os.path.join(d, "py")
shutil.copy("/usr/bin/python3", py)
show("chmod-suid", lambda: os.chmod(py, 0o4755))
show("chmod-sgid", lambda: os.chmod(py, 0o2755))
show("create-suid", lambda: os.close(os.open(os.path.join(d, "c"), os.O_CREAT | os.O_WRONLY, 0o4755)))
def fch():
    fd = os.open(os.path.join(d, "f"), os.O_CREAT | os.O_WRONLY, 0o755)
    try:
        os.fchmod(fd, 0o4755)
    finally:
        os.close(fd)
show("fchmod-suid", fch)
show("mknod-suid", lambda: os.mknod(os.path.join(d, "n"), stat.S_IFREG | 0o4755))
import struct
show("setfcap", lambda: os.setxattr(py, "security.capability", struct.pack("<5I", 0x02000001, 1 << 13, 0, 0, 0)))
show("chmod-plain", lambda: os.chmod(py, 0o755))
`

// TestAttackSetIDPlant: the command leaves a copy of python3 made
// set-user-ID in /tmp or the workspace: whoever runs it afterwards (any
// other local user or service that can reach the file) runs as you,
// outside the sandbox, and reads what the sandbox hid (~/.ssh). Nothing
// refused it; the file outlasted the run with its bit (as root, a file
// capability too). Now the seccomp filter refuses every call that
// would set the set-user-ID bit, root's command has no CAP_SETFCAP,
// and no file the command made has the bit.
func TestAttackSetIDPlant(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	o := run(t, f.spec(), "/usr/bin/python3", "-c", setIDPlant, f.ws)
	want := "chmod-suid EPERM chmod-sgid ok create-suid EPERM fchmod-suid EPERM mknod-suid EPERM setfcap EPERM chmod-plain ok"
	if got := strings.Join(strings.Fields(o.stdout), " "); got != want {
		t.Errorf("got  %s\nwant %s\n%v", got, want, o)
	}
	for _, n := range []string{"py", "c", "f", "n"} {
		st, err := os.Stat(filepath.Join(f.ws, n))
		if err == nil && st.Mode()&os.ModeSetuid != 0 {
			t.Errorf("%s is left with mode %v", n, st.Mode())
		}
	}
}

// setGIDOtherGroup gives a copy of python3 in the directory it is given
// the group it is given, then the set-group-ID bit, and prints what it
// is left with.
const setGIDOtherGroup = `import os, shutil, sys
py = os.path.join(sys.argv[1], "py")
shutil.copy("/usr/bin/python3", py)
try:
    os.chown(py, -1, int(sys.argv[2]))
    os.chmod(py, 0o2755)
except OSError as e:
    print("refused", e)
st = os.stat(py)
print(oct(st.st_mode & 0o7777), st.st_gid)
`

// TestAttackSetGIDOtherGroupAsRoot: run as root, the command keeps
// CAP_CHOWN, and with CAP_FSETID it could then make a program
// set-group-ID for any group it named (chgrp disk; chmod g+s): whoever
// ran it afterwards had that group (disk: every disk, raw). The filter
// leaves set-group-ID alone (shared directories), so root's command runs
// without CAP_FSETID: the kernel clears the bit for a group the command
// is not in.
func TestAttackSetGIDOtherGroupAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root only: a user cannot give a file a group it is not in")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	groups, _ := os.Getgroups()
	gid := 54321
	for slices.Contains(groups, gid) || os.Getgid() == gid {
		gid++
	}
	f := newFixture(t)
	o := run(t, f.spec(), "/usr/bin/python3", "-c", setGIDOtherGroup, f.ws, strconv.Itoa(gid))
	st, err := os.Stat(filepath.Join(f.ws, "py"))
	if err != nil {
		t.Fatal(err, o)
	}
	t.Log(o.stdout)
	if st.Mode()&os.ModeSetgid != 0 {
		t.Errorf("py is left set-group-ID (%v) for a group of the command's choice: %s", st.Mode(), o.stdout)
	}
}
