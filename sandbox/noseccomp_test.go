package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// tkillHelper is a command that aims SIGKILL at each thread of its
// parent, the sandbox helper, by its thread id (tkill, amd64's 200):
// signal scoping refuses it for every thread outside the command's
// Landlock domain, and only the confined thread's own seccomp filter
// refuses it for that thread. It exits 3 when every one was refused.
const tkillHelper = `import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
ppid = os.getppid()
hit = False
for t in os.listdir("/proc/%d/task" % ppid):
    if libc.syscall(200, int(t), 9) == 0:
        hit = True
if not hit:
    raise SystemExit(3)
time.sleep(5)
raise SystemExit(4)
`

// TestNoSeccompIsDegraded: where guard's seccomp filter cannot load, the
// command can kill the helper's watching thread by its id, network grant
// or not. That gap used to count only for runs without the network
// grant (the filter's socket rules), so a run with it claimed a full
// sandbox and --require-sandbox ran it. Now its Degraded list names
// seccomp and Require refuses it before anything runs. With the filter
// (this machine), the same attack is refused.
func TestNoSeccompIsDegraded(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the attack uses amd64's tkill number")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	real := probe()
	if real.ABI < 6 || !real.Seccomp {
		t.Skip("needs Landlock signal scoping and seccomp here")
	}
	argv := []string{"python3", "-c", tkillHelper}
	// With the filter: every tkill refused, the command's own status.
	res, err := Run(context.Background(), Spec{Workspace: t.TempDir(), Home: t.TempDir(), Net: true}, argv, Stdio{})
	if err != nil || res.ExitCode != 3 {
		t.Fatalf("with seccomp: exit %d, %v; want 3 (every tkill refused)", res.ExitCode, err)
	}

	old := probe
	probe = func() Support { return supportFor(real.ABI, false) }
	defer func() { probe = old }()
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	_, err = Run(context.Background(), Spec{Workspace: ws, Home: t.TempDir(), Write: true, Net: true, Require: true},
		[]string{"touch", marker}, Stdio{})
	if !errors.Is(err, ErrNotEnforced) || !strings.Contains(err.Error(), "seccomp: ") {
		t.Errorf("Require with the network grant and no seccomp: %v, want ErrNotEnforced naming seccomp", err)
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Error("the command ran under --require-sandbox without seccomp")
	}
	// Without Require it runs, says so, and the gap is real: the
	// helper's watching thread is killed.
	var errb bytes.Buffer
	res, err = Run(context.Background(), Spec{Workspace: t.TempDir(), Home: t.TempDir(), Net: true}, argv, Stdio{Err: &errb})
	found := false
	for _, d := range res.Degraded {
		found = found || strings.HasPrefix(d, "seccomp: ") && strings.Contains(d, "helper's watching thread")
	}
	if !found {
		t.Errorf("no seccomp line in Degraded: %q", res.Degraded)
	}
	if err == nil && res.ExitCode == 3 {
		t.Errorf("without seccomp the helper's thread refused the tkill: the gap the line states is not there (%q)", errb.String())
	}
}
