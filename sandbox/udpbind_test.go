package sandbox_test

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
	"golang.org/x/sys/unix"
)

// udpScript binds a UDP socket to the port argv[1] names, writes what
// came of it to the report fifo (argv[2]: "bound" or the errno's name)
// and, bound, prints the first datagram that reaches it. Then it says
// what a client of a UDP socket sees: the port a fresh socket has (a
// born-bound one's), that port after connect(AF_UNSPEC) (which unbinds
// a socket bound to port 0), and whether bind(port 0) succeeds.
const udpScript = `import ctypes, errno, socket, sys
port, report = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.bind(("127.0.0.1", port))
    said = "bound"
except OSError as e:
    said = errno.errorcode[e.errno]
with open(report, "w") as f:
    f.write(said)
if said == "bound":
    s.settimeout(10)
    print("got", s.recvfrom(64)[0].decode())
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fresh = c.getsockname()[1]
c.connect(("127.0.0.1", 9))
libc = ctypes.CDLL(None, use_errno=True)
unspec = ctypes.create_string_buffer(16)
libc.connect(c.fileno(), unspec, 16)
print("fresh", "bound" if fresh else "unbound", "disconnected", "bound" if c.getsockname()[1] else "unbound")
d = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
d.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
d.bind(("", 0))
print("any-port", "ok" if d.getsockname()[1] else "unbound")
g = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
g.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
g.connect(("::ffff:127.0.0.1", int(sys.argv[3])))
g.send(b"dialed")`

// TestNetUDPBind: with the network grant a command could bind a UDP
// socket to a port of its choosing and serve it while it ran (`nc -lu
// PORT`): Landlock (ABI 7) confines TCP only, and the seccomp filter
// lets inet sockets be made once the network is granted. On eed3eff the
// datagram the test sent to that port reached the command. Now every
// inet datagram socket is born bound to an ephemeral port (made by the
// helper, which hands it over), so no bind of one can reach the kernel
// and succeed, even one whose descriptor a racing thread swapped in; a
// bind to another port is refused (EACCES), one to port 0 (a client's)
// succeeds; a connect(AF_UNSPEC) leaves the socket bound (it unbinds
// one bound to port 0 by that number).
func TestNetUDPBind(t *testing.T) {
	f, spec, port := udpCase(t)
	report := f.p("ws/report")
	if err := unix.Mkfifo(report, 0o600); err != nil {
		t.Fatal(err)
	}
	// A client as Go dials (an inet6 socket, IPV6_V6ONLY set, connected)
	// still sends: to a v4-mapped address, where the system's default
	// leaves inet6 sockets dual-stack.
	sink := newUDPSink(t)
	done := make(chan outcome, 1)
	go func() {
		done <- run(t, spec, "/usr/bin/python3", "-c", udpScript, strconv.Itoa(port), report, sink.port)
		if w, err := os.OpenFile(report, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}()
	said, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if string(said) == "bound" {
		c, err := net.Dial("udp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("ping"))
		c.Close()
	}
	o := <-done
	mustSucceed(t, o)
	if strings.Contains(o.stdout, "got ping") || string(said) != "EACCES" {
		t.Errorf("a command with the network grant served UDP port %d (its bind: %q): %v", port, said, o)
	}
	for _, want := range []string{"fresh bound disconnected bound", "any-port ok"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("want %q: %v", want, o)
		}
	}
	if got := sink.wait(5 * time.Second); got != "dialed" {
		t.Errorf("a dual-stack client's datagram: got %q, want %q", got, "dialed")
	}
}

// udpCase is a fixture, a spec of it with the network grant, and a UDP
// port free a moment ago, for a python3 script to try to bind.
func udpCase(t *testing.T) (*fixture, sandbox.Spec, int) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	f := newFixture(t)
	spec := f.spec()
	spec.Net = true
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := pc.LocalAddr().(*net.UDPAddr).Port
	pc.Close()
	return f, spec, port
}

// aroundScript tries the ways around a born-bound socket to the UDP
// port argv[1] names, each on its own line: SO_REUSEADDR and
// SO_REUSEPORT set before the bind, an inet6 socket, a bind after
// connect(AF_UNSPEC), a source address given in sendmsg (IP_PKTINFO),
// and a bind of one descriptor that another thread keeps switching
// between a unix socket (a bind the kernel does) and a UDP one.
const aroundScript = `import ctypes, errno, os, socket, struct, sys, threading
port = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def bind(fd, fam=socket.AF_INET):
    if fam == socket.AF_INET:
        a = struct.pack("<H", fam) + struct.pack(">H", port) + socket.inet_aton("127.0.0.1") + bytes(8)
    else:
        a = struct.pack("<H", fam) + struct.pack(">H", port) + bytes(24)
    if libc.bind(fd, a, len(a)) == 0:
        return "bound"
    return errno.errorcode[ctypes.get_errno()]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
print("reuseport", bind(s.fileno()))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
print("inet6", bind(s6.fileno(), socket.AF_INET6))
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.connect(("127.0.0.1", 9))
libc.connect(c.fileno(), bytes(16), 16)
print("unspec", bind(c.fileno()))
p = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
info = struct.pack("@i4s4s", 0, socket.inet_aton("127.0.0.1"), socket.inet_aton("127.0.0.1"))
p.sendmsg([b"x"], [(socket.IPPROTO_IP, 8, info)], 0, ("127.0.0.1", 9)) # IP_PKTINFO
print("pktinfo", "chosen" if p.getsockname()[1] == port else "ephemeral")
u = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n, stop, got = os.dup(u.fileno()), [], set()
def swap():
    while not stop:
        os.dup2(u.fileno(), n)
        os.dup2(d.fileno(), n)
t = threading.Thread(target=swap)
t.start()
for _ in range(3000):
    got.add(bind(n))
stop.append(1)
t.join()
print("race", "bound" if "bound" in got or d.getsockname()[1] == port else "refused")`

// TestNetUDPBindAround: the born-bound sockets of TestNetUDPBind hold
// against the ways around a bind check a command with the network grant
// has: socket options set first, the other family, an unbinding
// connect, a source address in sendmsg, and a racing thread that swaps
// the descriptor between the helper's check and the kernel's bind. On
// eed3eff the first bind took the port.
func TestNetUDPBindAround(t *testing.T) {
	_, spec, port := udpCase(t)
	o := run(t, spec, "/usr/bin/python3", "-c", aroundScript, strconv.Itoa(port))
	mustSucceed(t, o)
	if want := "reuseport EACCES\ninet6 EACCES\nunspec EACCES\npktinfo ephemeral\nrace refused\n"; o.stdout != want {
		t.Errorf("a command with the network grant got around the born-bound sockets to UDP port %d:\n%s\nwant:\n%s", port, o.stdout, want)
	}
}
