package sandbox_test

import (
	"os"
	"strings"
	"testing"
)

// listenProbe binds a TCP socket to a port of its choosing, then calls
// listen(2) on a socket never bound (the kernel then binds it to an
// ephemeral port itself) and connects to it; then it serves on a unix
// socket, from the main thread and from another thread, and connects to
// each (ARGV[1] is a writable directory for the sockets).
const listenProbe = `import os, socket, sys, threading
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    print("bind-ok")
except OSError:
    print("bind-refused")
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.listen(1)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.connect(("127.0.0.1", s.getsockname()[1]))
    print("listen-ok")
except OSError:
    print("listen-refused")
def unix_serve(name, out):
    try:
        p = os.path.join(sys.argv[1], name)
        if os.path.exists(p):
            os.unlink(p)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(p)
        s.listen(4)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(p)
        c.sendall(b"hi")
        a, _ = s.accept()
        out.append("unix-ok" if a.recv(2) == b"hi" else "unix-short")
    except OSError as e:
        out.append("unix-refused-" + str(e.errno))
out = []
unix_serve("main.sock", out)
t = threading.Thread(target=unix_serve, args=("thread.sock", out))
t.start()
t.join()
print(" ".join(out))
`

// TestNetListenUnbound: a network grant means connecting out, never
// serving. bind(2) of a TCP port is refused by Landlock, but Landlock
// (ABI 7) does not see listen(2), and listen on a TCP socket never bound
// makes the kernel bind it to an ephemeral port, on every interface:
// with the grant, a command could serve the workspace to the LAN while
// it ran. The helper now answers the command's listen(2) itself (a
// seccomp user notification): refused on an inet socket, done on a
// unix socket, from any thread (the control: servers on unix sockets
// work). Without the grant no inet socket is made at all. The "with
// the network grant" case fails on 6ee89b7 (listen-ok).
func TestNetListenUnbound(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	const want = "bind-refused listen-refused unix-ok unix-ok"
	o := run(t, f.spec(), "/usr/bin/python3", "-c", listenProbe, f.p("ws"))
	if got := strings.Join(strings.Fields(o.stdout), " "); got != want {
		t.Errorf("without the network grant: %v, want %q", o, want)
	}
	spec := f.spec()
	spec.Net = true
	o = run(t, spec, "/usr/bin/python3", "-c", listenProbe, f.p("ws"))
	if got := strings.Join(strings.Fields(o.stdout), " "); got != want {
		t.Errorf("with the network grant: %v, want %q (a TCP socket never bound must not listen)", o, want)
	}
}
