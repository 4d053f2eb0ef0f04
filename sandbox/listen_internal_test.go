package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// undumpableListen is a unix socket server that makes itself undumpable
// first, as ssh-agent and gpg-agent do.
const undumpableListen = `import ctypes, os, socket, sys
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
p = os.path.join(sys.argv[1], "agent.sock")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(p)
try:
    s.listen(1)
    print("listen-ok")
except OSError as e:
    print("listen-" + str(e.errno))
`

// TestNetListenUndumpableWithoutUserns: with the network grant the
// helper does the command's listen(2) itself, on the socket it takes
// with pidfd_getfd, which asks ptrace rights over the command: a
// program that made itself undumpable (ssh-agent) needs the helper to
// hold CAP_SYS_PTRACE over it. In the helper's user namespace it does
// (namespaced: an ambient capability the confined thread drops; without
// it this listen failed, EPERM, in the user's runs); where user
// namespaces are refused, a user's helper does not, and that listen(2)
// fails (EPERM): a stated limit (docs/threat-model.md), never a listen
// the helper did not check.
func TestNetListenUndumpableWithoutUserns(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	for _, userns := range []bool{true, false} {
		t.Run(map[bool]string{true: "user namespace", false: "none"}[userns], func(t *testing.T) {
			if !userns {
				failNamespacedStart(t, syscall.EPERM, "0")
			} else if err := ProbeUserns(); err != nil {
				t.Skipf("no user namespaces here (%v)", err)
			}
			spec := writableSpec(t)
			spec.Net = true
			var out strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := Run(ctx, spec, []string{"/usr/bin/python3", "-c", undumpableListen, spec.Workspace}, Stdio{Out: &out}); err != nil {
				t.Fatal(err)
			}
			want := "listen-ok"
			if !userns && os.Geteuid() != 0 {
				want = "listen-1"
			}
			if got := strings.TrimSpace(out.String()); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			os.Remove(filepath.Join(spec.Workspace, "agent.sock"))
		})
	}
}
