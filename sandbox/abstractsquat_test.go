package sandbox_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAbstractSocketSquat pins a stated limit (docs/threat-model.md):
// Landlock's scope keeps a sandboxed command from connecting to an
// abstract unix socket outside its domain, not from binding one, and the
// abstract names are the network namespace's, which the helper shares
// with the machine. A command can take a name a program of yours binds
// later (a fixed one: an X server's @/tmp/.X11-unix/X0 where none runs
// yet) and, while it runs, answer that program's clients, which are
// outside the sandbox. A network namespace of the helper's own would
// close it for runs without the network grant, at the cost of `ip addr`
// and `ss` showing an empty machine; not done. The test process is the
// client: it reaches the command's listener.
func TestAbstractSocketSquat(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	name := fmt.Sprintf("guard-test-squat-%x", rand.Uint64())
	ready := f.p("ws/ready")
	if err := unix.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan outcome, 1)
	go func() {
		done <- run(t, f.spec(), "/usr/bin/python3", "-c", `import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(1)
open(sys.argv[2], "w").close()
s.settimeout(10)
c, _ = s.accept()
c.sendall(b"squatted")`, name, ready)
		// Should the command end before it opened the fifo, the
		// test's open below must not wait for it.
		if w, err := os.OpenFile(ready, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}()
	r, err := os.OpenFile(ready, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	got := ""
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + name}); err == nil {
		buf := make([]byte, 16)
		if n, err := unix.Read(fd, buf); err == nil {
			got = string(buf[:n])
		}
	}
	if o := <-done; got != "squatted" {
		t.Errorf("the docs say a command can squat an abstract name for clients outside; the client got %q: %v", got, o)
	}
}
