package sandbox_test

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox"
	"golang.org/x/sys/unix"
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

// TestAttackLateDaemonSockets: a command the review rated A (a test
// suite, a dev server) waits until the user starts a daemon after the run
// began — a tmux server (send-keys types into the user's shell), a
// gpg-agent or ssh-agent started on demand, a new session bus — and
// connects to its socket, which no cover made at the start could know
// of. The directories where those daemons bind are covered whole.
func TestAttackLateDaemonSockets(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): sockets are not covered, as guard doctor says", err)
	}
	f := newFixture(t)
	runtimeDir := f.p("outside/run")
	if err := os.MkdirAll(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Env = append(spec.Env, "XDG_RUNTIME_DIR="+runtimeDir, "TMUX_TMPDIR="+f.outside)
	lateVia := func(t *testing.T, spec sandbox.Spec, via, sock string) (outcome, *tcpSink) {
		t.Helper()
		return lateConnect(t, f, spec, via, sock)
	}
	late := func(t *testing.T, spec sandbox.Spec, sock string) (outcome, *tcpSink) {
		t.Helper()
		return lateVia(t, spec, "", sock)
	}
	t.Run("session daemon in the runtime dir", func(t *testing.T) {
		o, sink := late(t, spec, filepath.Join(runtimeDir, "gnupg/S.gpg-agent"))
		wantRefused(t, o, sink, "ENOENT")
	})
	t.Run("tmux server started later", func(t *testing.T) {
		// tmux's directory did not exist when the run began: had the
		// command made it, a later tmux server would have accepted it.
		tmux := filepath.Join(f.outside, "tmux-"+strconv.Itoa(os.Getuid()))
		o, sink := late(t, spec, filepath.Join(tmux, "default"))
		wantRefused(t, o, sink, "ENOENT")
	})
	t.Run("through an outside process's root", func(t *testing.T) {
		// /proc/PID/root of a process outside the sandbox (guard's
		// caller, here the test) shows the directories without the
		// covers; Landlock forbids the command to look through another
		// domain's /proc/PID/root (as ptrace).
		o, sink := lateVia(t, spec, "/proc/"+strconv.Itoa(os.Getpid())+"/root", filepath.Join(runtimeDir, "gnupg/S.gpg-agent"))
		wantRefused(t, o, sink, "EACCES")
	})
	t.Run("a daemon client reaches it", func(t *testing.T) {
		// Control: tmux attach, gpg --sign — the review says Daemons.
		d := spec
		d.Daemons = true
		o, sink := late(t, d, filepath.Join(runtimeDir, "late.sock"))
		mustSucceed(t, o)
		if got := sink.wait(5e9); got != "pwned" {
			t.Errorf("listener got %q, want the client's bytes", got)
		}
	})
}

// lateConnect binds sock once the command of spec runs; the command
// connects to via+sock (via: another path to the same place, or "").
func lateConnect(t *testing.T, f *fixture, spec sandbox.Spec, via, sock string) (outcome, *tcpSink) {
	t.Helper()
	ready, goAhead := f.p("ws/ready"), f.p("ws/go")
	for _, p := range []string{ready, goAhead} {
		os.Remove(p)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan outcome, 1)
	go func() {
		done <- f.py(t, spec, "unix-connect-later", via+sock+" "+ready+" "+goAhead)
	}()
	// The command says it runs; only then does the daemon start.
	if !fifoTalk(ready, os.O_RDONLY, done) {
		t.Fatalf("the command ended before it was ready: %v", <-done)
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	sink := newUnixSink(t, sock)
	if !fifoTalk(goAhead, os.O_WRONLY, done) {
		t.Fatalf("the command ended before it was told to connect: %v", <-done)
	}
	return <-done, sink
}

// TestAttackUncoverDaemonDirs: the command takes the cover off the
// runtime directory in namespaces of its own (unshare -U -m, then umount
// or a bind mount of the directory's parent, or a look below the cover
// through its mount's parent): what it finds must be the empty cover,
// not the user's sockets (a marker file stands for them). Seen here:
// Landlock refuses every mount change (propagation, bind, move) and the
// cover, inherited from a namespace the command does not own, is locked
// (umount: EINVAL).
func TestAttackUncoverDaemonDirs(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): sockets are not covered, as guard doctor says", err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	f := newFixture(t)
	runtimeDir := f.p("outside/run")
	if err := os.MkdirAll(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runtimeDir, "marker-sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Env = append(spec.Env, "XDG_RUNTIME_DIR="+runtimeDir)
	for name, script := range map[string]string{
		"umount":         `umount "$1"; ls -a "$1"`,
		"lazy umount":    `umount -l "$1"; ls -a "$1"`,
		"bind of parent": `mkdir -p m && mount --bind "$(dirname "$1")" m; ls -a "m/$(basename "$1")"`,
		"move mount":     `mkdir -p m && mount --move "$1" m; ls -a "$1"`,
	} {
		t.Run(name, func(t *testing.T) {
			o := run(t, spec, unshare, "-Um", "--propagation", "unchanged", "sh", "-c", script, "sh", runtimeDir)
			if strings.Contains(o.stdout, "marker-sock") {
				t.Errorf("the command uncovered the runtime dir: %v", o)
			}
		})
	}
	t.Run("control: the cover is there", func(t *testing.T) {
		o := run(t, spec, "ls", "-a", runtimeDir)
		mustSucceed(t, o)
		if strings.Contains(o.stdout, "marker-sock") {
			t.Errorf("the runtime dir is not covered: %v", o)
		}
		d := spec
		d.Daemons = true
		if o := run(t, d, "ls", "-a", runtimeDir); !strings.Contains(o.stdout, "marker-sock") {
			t.Errorf("a daemon client does not see the runtime dir: %v", o)
		}
	})
}

// wantRefused: the command failed with errno and the daemon got nothing.
func wantRefused(t *testing.T, o outcome, sink *tcpSink, errno string) {
	t.Helper()
	mustFail(t, o)
	wantErrno(t, o, errno)
	sink.wantNothing(t)
}

// fifoTalk opens the fifo at p (the command holds its other end) and
// reads it to the end or writes a line to it. It returns false, with the
// fifo's end opened by itself so that nothing stays blocked, when the
// command ends first.
func fifoTalk(p string, flag int, done chan outcome) bool {
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			opened <- nil
			return
		}
		opened <- f
	}()
	select {
	case f := <-opened:
		if f == nil {
			return false
		}
		defer f.Close()
		if flag == os.O_RDONLY {
			_, err := io.ReadAll(f)
			return err == nil
		}
		_, err := f.WriteString("go\n")
		return err == nil
	case o := <-done:
		// Unblock the open above: O_RDWR on a fifo never waits.
		if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
			f.Close()
		}
		done <- o
		return false
	}
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
		wantRefused(t, f.py(t, spec, "unix-connect", sock), sink, "ECONNREFUSED")
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
