package sandbox_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// newUnixSink is a daemon outside the sandbox: a pathname unix socket
// the test listens on, recording what clients send.
func newUnixSink(t *testing.T, path string) *tcpSink {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpSink{ln: ln, got: make(chan string, 4)}
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s
}

// TestAttackDaemonSockets: a command the review rated A connects to a
// daemon's pathname socket outside its trees — the way it would reach
// docker.sock (root on the machine), a tmux server (send-keys types into
// the user's shell) or the user's systemd (systemd-run --user runs
// anything). Landlock ABI 7 does not confine connect(2) on them; the
// helper covers them in a mount namespace of its own.
func TestAttackDaemonSockets(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): sockets are not covered, as guard doctor says", err)
	}
	f := newFixture(t)
	sock := f.p("outside/daemon.sock")
	sink := newUnixSink(t, sock)
	spec := f.spec()

	t.Run("connect by path", func(t *testing.T) {
		o := f.py(t, spec, "unix-connect", sock)
		mustFail(t, o)
		wantErrno(t, o, "ECONNREFUSED")
		sink.wantNothing(t)
	})
	t.Run("read-only run", func(t *testing.T) {
		ro := spec
		ro.Write = false
		o := f.py(t, ro, "unix-connect", sock)
		mustFail(t, o)
		sink.wantNothing(t)
	})
	t.Run("through another process's root", func(t *testing.T) {
		// /proc/PID/root of a process outside (this test) walks its
		// mount namespace, where nothing is covered: Landlock refuses
		// the ptrace access it needs.
		p := "/proc/" + strconv.Itoa(os.Getpid()) + "/root" + sock
		o := f.py(t, spec, "unix-connect", p)
		mustFail(t, o)
		sink.wantNothing(t)
	})
	t.Run("uncover in a namespace of its own", func(t *testing.T) {
		// A user namespace of the command's own gives it CAP_SYS_ADMIN
		// there; Landlock forbids the unmount anyway, and the mount
		// is locked to its namespace.
		o := run(t, spec, "unshare", "-U", "-m", "-r", "sh", "-c",
			`umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null; exec python3 "$2" unix-connect "$1"`, "sh", sock, filepath.Join(f.escape, "net.py"))
		if o.res.ExitCode == 0 && strings.TrimSpace(o.stdout) == "ok" {
			t.Errorf("connected after unmounting: %v", o)
		}
		sink.wantNothing(t)
	})
	t.Run("hard link to it", func(t *testing.T) {
		o := f.sh(t, spec, "exec", "ln", sock, f.p("ws/linked.sock"))
		o2 := f.py(t, spec, "unix-connect", f.p("ws/linked.sock"))
		mustFail(t, o2)
		sink.wantNothing(t)
		_ = o
	})
	t.Run("a daemon client reaches it", func(t *testing.T) {
		// Control: docker ps, tmux ls — the review says Daemons.
		d := spec
		d.Daemons = true
		mustSucceed(t, f.py(t, d, "unix-connect", sock))
		if got := sink.wait(5e9); got != "pwned" {
			t.Errorf("listener got %q, want the client's bytes", got)
		}
	})
	t.Run("the command's own socket", func(t *testing.T) {
		// Control: a socket in the workspace is the command's own (a
		// test server), reachable as before.
		own := newUnixSink(t, f.p("ws/own.sock"))
		mustSucceed(t, f.py(t, spec, "unix-connect", f.p("ws/own.sock")))
		if got := own.wait(5e9); got != "pwned" {
			t.Errorf("listener got %q", got)
		}
	})
	t.Run("kept agent socket", func(t *testing.T) {
		// --keep-env SSH_AUTH_SOCK: the user asked for the agent.
		k := spec
		k.Env = append(append([]string(nil), spec.Env...), "SSH_AUTH_SOCK="+sock)
		k.KeepEnv = []string{"SSH_AUTH_SOCK"}
		mustSucceed(t, f.py(t, k, "unix-connect", sock))
		if got := sink.wait(5e9); got != "pwned" {
			t.Errorf("listener got %q", got)
		}
	})
}
