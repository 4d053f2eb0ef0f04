package sandbox_test

import (
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackLayerWidensRun: what a sandboxed run writes to ~/.cache
// lands in guard's layer, and later sandboxed runs use it. A level A
// build (no network, nothing revealed) rewrites a go-build entry there;
// a later run with more to give — the network (an approved install), a
// revealed secret, the daemons' sockets — must not run it: wide runs
// see a layer of their own over the user's caches, never the narrow
// one. The control: a narrow run still sees what a wide one (a download)
// put in the cache, below its own writes. Fails on 6ee89b7 (the wide
// runs read "poisoned" and the planted entry).
func TestAttackLayerWidensRun(t *testing.T) {
	c := newCacheCase(t)
	mustSucceed(t, run(t, c.spec, "sh", "-c", `echo poisoned > "$1"; echo planted > "$2"`, "sh", c.entry, c.planted))
	c.real(t)
	fetched := filepath.Join(c.f.home, ".cache/go-build/ab/fetched-d")
	withNet := c.spec
	withNet.Net = true
	revealed := c.spec
	revealed.Reveal = []string{filepath.Join(c.f.home, ".kube")}
	daemons := c.spec
	daemons.Daemons = true
	for _, w := range []struct {
		name string
		spec sandbox.Spec
	}{{"network", withNet}, {"revealed secret", revealed}, {"daemons", daemons}} {
		t.Run(w.name, func(t *testing.T) {
			o := run(t, w.spec, "sh", "-c", `cat "$1"; cat "$2" 2>/dev/null || echo no-planted`, "sh", c.entry, c.planted)
			if o.stdout != "ORIGINAL\nno-planted\n" {
				t.Errorf("a wide run reads %q, want the user's entry and no planted one (a narrow run's writes)", o.stdout)
			}
		})
	}
	t.Run("control: a narrow run sees a download", func(t *testing.T) {
		mustSucceed(t, run(t, withNet, "sh", "-c", `echo fetched > "$1"`, "sh", fetched))
		o := run(t, c.spec, "sh", "-c", `cat "$1" "$2" "$3"`, "sh", fetched, c.entry, c.planted)
		mustSucceed(t, o)
		if o.stdout != "fetched\npoisoned\nplanted\n" {
			t.Errorf("a narrow run reads %q, want the wide layer's download below its own writes", o.stdout)
		}
		if got := readFile(t, fetched); got != "<absent>" {
			t.Errorf("the download reached the user's cache: %q", got)
		}
		c.real(t)
	})
}
