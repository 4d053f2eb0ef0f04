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

// TestAttackHelperMemoryWithoutUserns: TestAttackHelperMemory where
// user namespaces are refused, so the helper holds no capability the
// command lacks (in its user namespace its confined thread keeps some,
// and the kernel refuses a tracer without its tracee's capabilities):
// there the helper's being undumpable is all that refuses the command
// its memory through the confined thread (no Yama on this machine).
// A regression test of that; it passes on 6ee89b7 too.
func TestAttackHelperMemoryWithoutUserns(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	proc, err := filepath.Abs("../testdata/escape/proc.py")
	if err != nil {
		t.Fatal(err)
	}
	failNamespacedStart(t, syscall.EPERM, "0")
	spec := writableSpec(t)
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, spec, []string{"/usr/bin/python3", proc, "reach-helper"}, Stdio{Out: &out})
	if err != nil || res.Unmounted == "" {
		t.Fatalf("run without namespaces: %+v, %v", res, err)
	}
	attempts := strings.Fields(strings.TrimSuffix(strings.TrimSpace(out.String()), "ok"))
	if len(attempts) < 3*2 {
		t.Fatalf("the attempts did not run: %q", out.String())
	}
	for _, a := range attempts {
		if !strings.HasSuffix(a, "=EPERM") {
			t.Errorf("%s: want EPERM (%s)", a, out.String())
		}
	}
}
