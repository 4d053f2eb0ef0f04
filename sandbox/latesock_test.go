package sandbox_test

import (
	"os"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackLateAgentSockets: a command rated A waits until the user
// starts an agent whose socket lies in a hidden directory, outside the
// runtime directory — gpg-agent's S.gpg-agent.ssh in ~/.gnupg (no
// XDG_RUNTIME_DIR: an ssh session without logind, a container), ssh's
// ControlMaster socket in ~/.ssh (a connection to a server the command
// could run commands on), ssh-agent's ~/.ssh/agent/ (OpenSSH 10.1),
// Docker Desktop's ~/.docker/desktop/docker.sock — then connects. It
// was not in /proc/net/unix when the run was planned, so only covering
// the directory stops it (Landlock confines connect(2) on pathname
// sockets only from ABI 9).
func TestAttackLateAgentSockets(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): sockets are not covered, as guard doctor says", err)
	}
	f := newFixture(t)
	spec := f.spec()
	spec.Hide = append(spec.Hide, f.p("home/.gnupg"), f.p("home/.docker"))
	for _, d := range []string{"home/.gnupg", "home/.docker/desktop"} {
		if err := os.MkdirAll(f.p(d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, sock := range []string{
		"home/.gnupg/S.gpg-agent.ssh",
		"home/.ssh/cm-git@example.com:22",
		"home/.ssh/agent/s.Xk3j9.agent.abc",
		"home/.docker/desktop/docker.sock",
	} {
		t.Run(sock, func(t *testing.T) {
			o, sink := lateConnect(t, f, spec, "", f.p(sock))
			wantRefused(t, o, sink, concealedErrno())
		})
	}
	t.Run("gnome-keyring's control in the cache", func(t *testing.T) {
		// Without a runtime directory gnome-keyring binds in
		// ~/.cache/keyring-XXXXXX, a tree the command may write: seen
		// through guard's layer, the socket below is no socket.
		// An install's run too (the network granted).
		for _, net := range []bool{false, true} {
			l := spec
			l.Layers = f.p("home/.local/state/guard/layers")
			l.Net = net
			o, sink := lateConnect(t, f, l, "", f.p("home/.cache/keyring-Q7xZ2a/control"))
			wantRefused(t, o, sink, "ECONNREFUSED")
			os.RemoveAll(f.p("home/.cache/keyring-Q7xZ2a"))
		}
	})
	t.Run("their names cannot be listed", func(t *testing.T) {
		o := run(t, spec, "ls", "-a", f.p("home/.ssh"), f.p("home/.gnupg"))
		if strings.Contains(o.stdout, "id_ed25519") || strings.Contains(o.stdout, "S.gpg-agent") {
			t.Errorf("the hidden directories' names are listed: %v", o)
		}
	})
	t.Run("control: a socket the user kept", func(t *testing.T) {
		sock := f.p("home/.ssh/agent/s.kept")
		k := spec
		k.KeepEnv = []string{"SSH_AUTH_SOCK"}
		k.Env = append(append([]string(nil), spec.Env...), "SSH_AUTH_SOCK="+sock)
		o, sink := lateConnect(t, f, k, "", sock)
		mustSucceed(t, o)
		if got := sink.wait(5e9); got != "pwned" {
			t.Errorf("listener got %q, want the client's bytes", got)
		}
	})
	t.Run("control: a revealed secret is read", func(t *testing.T) {
		r := spec
		r.Reveal = []string{f.p("home/.ssh/id_ed25519")}
		o := run(t, r, "cat", f.p("home/.ssh/id_ed25519"))
		mustSucceed(t, o)
		if o.stdout != "SECRET-SSH-KEY\n" {
			t.Errorf("got %q", o.stdout)
		}
	})
}

// concealedErrno is what a lookup in a covered hidden directory fails
// with: EACCES (the cover's mode is 0000), but root keeps
// CAP_DAC_OVERRIDE in the sandbox (keptCapabilities), searches the
// empty cover and finds nothing.
func concealedErrno() string {
	if os.Geteuid() == 0 {
		return "ENOENT"
	}
	return "EACCES"
}
