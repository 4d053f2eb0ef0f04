package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestRequireSandboxRefusedUpFront: with --require-sandbox on a kernel
// that cannot confine the run whole (here Landlock ABI 3: no TCP rules,
// no ioctl rule, no scopes), guard refuses before anything else
// happens: an A command does not run, a B one is neither asked for nor
// queued (a yes given, then refused, is wasted), and the error names
// the gaps.
func TestRequireSandboxRefusedUpFront(t *testing.T) {
	home := docFixture(t)
	t.Setenv(envApprovalWait, "0s")
	old := probeKernel
	probeKernel = func() sandbox.Support { return weakKernel(t, 3, true) }
	t.Cleanup(func() { probeKernel = old })
	ws, _ := os.Getwd()
	for _, tc := range []struct{ name, command, file string }{
		{"A", "touch made-at-a.txt", filepath.Join(ws, "made-at-a.txt")},
		{"B", "touch ~/made-at-b.txt", filepath.Join(home, "made-at-b.txt")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runGuard("run", "--require-sandbox", "-c", tc.command)
			if code != exitGuardFailed {
				t.Errorf("exit %d, want %d\n%s", code, exitGuardFailed, stderr)
			}
			if !strings.HasPrefix(stderr, "guard: error: --require-sandbox: this kernel does not enforce the whole sandbox (tcp: ") ||
				!strings.Contains(stderr, "nothing was run\nguard: hint: 'guard doctor' shows what this kernel enforces") {
				t.Errorf("stderr = %q", stderr)
			}
			if strings.Contains(stderr, "pending") || stdout != "" {
				t.Errorf("asked or queued: stdout %q stderr %q", stdout, stderr)
			}
			if _, err := os.Stat(tc.file); err == nil {
				t.Errorf("the command ran: %s exists", tc.file)
			}
		})
	}
	// Without the flag the same A command runs, with the gaps said.
	if code, _, stderr := runGuard("run", "-c", "true"); code != 0 {
		t.Errorf("without --require-sandbox: exit %d\n%s", code, stderr)
	}
}
