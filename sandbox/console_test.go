package sandbox_test

import (
	"os"
	"strings"
	"testing"
)

// consoleIoctls asks for each console request on its stdin and prints
// the errno name it got (OK when none): KDSKBSENT (0x4B49, the string
// a function key types), KDSKBENT (0x4B47, what a key types),
// KDSKBMODE (0x4B45) and VT_ACTIVATE (0x5606).
const consoleIoctls = `import errno, fcntl
for req in (0x4B49, 0x4B47, 0x4B45, 0x5606):
    try:
        fcntl.ioctl(0, req, bytes(520))
        print("OK")
    except OSError as e:
        print(errno.errorcode[e.errno])
`

// TestAttackConsoleKeymap: on a Linux virtual console that is the
// command's terminal, the kernel lets the command remap a key or set
// the string a function key types (its controlling terminal: no
// capability needed), and the change outlasts the run: pressing F1, or
// Enter, then types a command of its choosing into the user's shell.
// Landlock's ioctl rule grants the terminals every request. The
// seccomp filter now refuses the console's keyboard and VT requests
// (EPERM) before they reach any driver. There is no console here to
// remap: the test asks on /dev/null, where the requests used to reach
// the driver (ENOTTY) and now are refused first.
func TestAttackConsoleKeymap(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	o := run(t, f.spec(), "/usr/bin/python3", "-c", consoleIoctls)
	got := strings.Fields(o.stdout)
	if len(got) != 4 {
		t.Fatalf("want 4 answers: %v", o)
	}
	for i, e := range got {
		if e != "EPERM" {
			t.Errorf("request %d: %s, want EPERM (refused by the filter)", i, e)
		}
	}
}
