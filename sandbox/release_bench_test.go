package sandbox_test

import (
	"context"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// BenchmarkHelperEnd measures a read-only run of /bin/true as guard's run
// makes it (Start, Run), ended by Close, which waits for the helper's own
// exit and with it the end of its mount namespace, or by Release, which
// does not (guard's run since 8099020). The difference is what guard's
// caller no longer waits for. Each iteration's Release leaves one
// helper exiting, reaped in the background.
func BenchmarkHelperEnd(b *testing.B) {
	for _, end := range []string{"Close", "Release"} {
		b.Run(end, func(b *testing.B) {
			f := newFixture(b)
			spec := f.spec()
			spec.Write = false
			argv := []string{"/bin/true"}
			for b.Loop() {
				h := sandbox.Start(context.Background(), argv[0], sandbox.Stdio{})
				res, err := h.Run(spec, argv)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res.ExitCode, err)
				}
				var cerr error
				if end == "Close" {
					cerr = h.Close()
				} else {
					cerr = h.Release()
				}
				if cerr != nil {
					b.Fatal(cerr)
				}
			}
		})
	}
}
