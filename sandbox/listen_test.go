package sandbox_test

import (
	"os"
	"strings"
	"testing"
)

// listenProbe binds a TCP socket to a port of its choosing, then calls
// listen(2) on a socket never bound (the kernel then binds it to an
// ephemeral port itself) and connects to it.
const listenProbe = `import socket
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
`

// TestNetListenUnbound pins what docs/sandbox.md and the threat model
// say about listening, which used to claim "listening always is"
// refused: without the network grant no inet socket exists at all; with
// it, bind(2) to any port is refused (Landlock), but listen(2) on a
// socket never bound takes an ephemeral port with no bind for Landlock
// (ABI 7) to check, and accepts connections, from every interface, for
// as long as the command runs. A filter cannot tell a TCP socket's
// listen(2) from a unix socket's, which servers in workspaces need, so
// that stays a stated limit (the command could connect out anyway).
func TestNetListenUnbound(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	o := run(t, f.spec(), "/usr/bin/python3", "-c", listenProbe)
	if got := strings.Fields(o.stdout); strings.Join(got, " ") != "bind-refused listen-refused" {
		t.Errorf("without the network grant: %v", o)
	}
	spec := f.spec()
	spec.Net = true
	o = run(t, spec, "/usr/bin/python3", "-c", listenProbe)
	if got := strings.Fields(o.stdout); strings.Join(got, " ") != "bind-refused listen-ok" {
		t.Errorf("with the network grant: %v (the docs say: bind refused, listen on an unbound socket not)", o)
	}
}
