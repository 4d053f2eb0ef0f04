package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// BenchmarkRunTrueLayered is a writing run of /bin/true through guard's
// layer over ~/.cache: alone, and with the wide runs' layer below the
// narrow one (a second lower layer in the overlay: layerClass), and a
// run with a revealed secret, which makes and removes a layer of its own
// each time (sealed).
func BenchmarkRunTrueLayered(b *testing.B) {
	for _, class := range []string{"narrow layer only", "wide layer below", "sealed"} {
		wideBelow := class == "wide layer below"
		b.Run(class, func(b *testing.B) {
			f := newFixture(b)
			spec := f.spec()
			spec.Layers = filepath.Join(f.home, ".local/state/guard/layers")
			if class == "sealed" {
				spec.Reveal = []string{filepath.Join(f.home, ".aws")}
			}
			dirs := []string{filepath.Join(f.home, ".cache/go-build")}
			if wideBelow {
				dirs = append(dirs, filepath.Join(spec.Layers, "cache-wide/upper/go-build"))
			}
			for _, d := range dirs {
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				res, err := sandbox.Run(context.Background(), spec, []string{"/bin/true"}, sandbox.Stdio{})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res.ExitCode, err)
				}
			}
		})
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
