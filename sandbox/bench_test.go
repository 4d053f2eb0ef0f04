package sandbox_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// BenchmarkRunTrue measures the whole confined run of /bin/true:
// grants, helper re-exec, Landlock, seccomp, exec, wait, protect check.
func BenchmarkRunTrue(b *testing.B) {
	f := newFixture(b)
	spec := f.spec()
	for b.Loop() {
		res, err := sandbox.Run(context.Background(), spec, []string{"/bin/true"}, sandbox.Stdio{})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res.ExitCode, err)
		}
	}
}

// BenchmarkExecTrue is the baseline: a bare fork and exec of /bin/true.
func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
