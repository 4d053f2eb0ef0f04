package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackCachePoisoning: a command rated A rewrites an entry of the
// user's build cache (go build links what ~/.cache/go-build names for an
// action, in every project; ccache, uv, yarn and zig trust theirs the
// same way) and plants a new one, for the user's next build outside
// guard. The run sees the cache through guard's layer: the command sees
// its writes, later sandboxed runs see them, the user's cache never gets
// them.
func TestAttackCachePoisoning(t *testing.T) {
	c := newCacheCase(t)
	f, entry, planted, layers, spec, real := c.f, c.entry, c.planted, c.layers, c.spec, c.real
	poison := `echo poisoned > "$1" && echo planted > "$2" && cat "$1"`

	t.Run("rewrite and plant", func(t *testing.T) {
		o := run(t, spec, "sh", "-c", poison, "sh", entry, planted)
		mustSucceed(t, o)
		if strings.TrimSpace(o.stdout) != "poisoned" {
			t.Errorf("the command does not see its own write: %v", o)
		}
		real(t)
	})
	t.Run("a later writing run sees the layer", func(t *testing.T) {
		o := run(t, spec, "cat", planted)
		mustSucceed(t, o)
		if o.stdout != "planted\n" {
			t.Errorf("got %q, want the earlier run's entry", o.stdout)
		}
		real(t)
	})
	t.Run("while another run holds the layer", func(t *testing.T) {
		// A concurrent run gets a layer of its own, gone after it.
		lock, err := os.OpenFile(filepath.Join(layers, "cache.lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(f.home, ".cache/go-build/ab/other-d")
		o := run(t, spec, "sh", "-c", poison, "sh", entry, other)
		mustSucceed(t, o)
		real(t)
		if got := readFile(t, other); got != "<absent>" {
			t.Errorf("the concurrent run planted %q in the user's cache", got)
		}
		if got := readFile(t, filepath.Join(layers, "cache/upper/go-build/ab/other-d")); got != "<absent>" {
			t.Errorf("the concurrent run wrote the shared layer: %q", got)
		}
		if left, _ := filepath.Glob(filepath.Join(layers, "run-*")); len(left) > 0 {
			t.Errorf("the concurrent run's own layer is left: %v", left)
		}
		// guard undo --prune leaves a layer in use as it is.
		if _, err := sandbox.DropLayer(layers); err != sandbox.ErrLayerInUse {
			t.Errorf("DropLayer of a layer in use = %v, want ErrLayerInUse", err)
		}
		if got := readFile(t, filepath.Join(layers, "cache/upper/go-build/ab/planted-d")); got != "planted\n" {
			t.Errorf("the layer in use lost its entry: %q", got)
		}
	})
	t.Run("dropped, the layer is gone and the cache untouched", func(t *testing.T) {
		n, err := sandbox.DropLayer(layers)
		if err != nil || n == 0 {
			t.Fatalf("DropLayer = %d, %v; want the layer's bytes", n, err)
		}
		if _, err := os.Lstat(filepath.Join(layers, "cache")); !os.IsNotExist(err) {
			t.Errorf("the layer is still there: %v", err)
		}
		real(t)
		o := run(t, spec, "cat", planted)
		if o.res.ExitCode == 0 {
			t.Errorf("a run after the drop still sees the plant: %v", o)
		}
	})
	t.Run("no layer: the attack as it was", func(t *testing.T) {
		// Control: without guard's layer (no state directory) the write
		// reaches the user's cache, which is what the layer stops.
		bare := spec
		bare.Layers = ""
		mustSucceed(t, run(t, bare, "sh", "-c", poison, "sh", entry, planted))
		if got := readFile(t, entry); got != "poisoned\n" {
			t.Errorf("without the layer the entry is %q, want the command's write", got)
		}
	})
}

// TestCacheLayerUnderParentGrant: a run granted a directory above the
// cache (an approved delete in ~ grants ~) writes the cache through the
// layer from its first run, as a run without that grant does; only a
// cache granted by name is written itself. The first run used to write
// the user's cache, while the layer was still empty.
func TestCacheLayerUnderParentGrant(t *testing.T) {
	c := newCacheCase(t)
	// A download cache: writable in a run without the network only by
	// the grant above it.
	mod := filepath.Join(c.f.home, "go/pkg/mod/example.com/m@v1/m.go")
	if err := os.MkdirAll(filepath.Dir(mod), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mod, []byte("package m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := c.spec
	spec.ExtraWrite = append(spec.ExtraWrite, c.f.home)
	mustSucceed(t, run(t, spec, "sh", "-c", `echo poisoned > "$1" && echo poisoned > "$2"`, "sh", c.entry, mod))
	c.real(t)
	if got := readFile(t, mod); got != "package m\n" {
		t.Errorf("the user's module cache now holds %q", got)
	}
}

// TestProbeLayer: guard doctor's probe finds the layer in force where the
// helper has namespaces (this kind of machine: the attack tests above
// show the same layer at work).
func TestProbeLayer(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v)", err)
	}
	if err := sandbox.ProbeLayer(); err != nil {
		t.Errorf("ProbeLayer = %v, want the layer in force", err)
	}
}

// TestCacheLayerForInstalls: a run with the network (an install the
// user approved) writes guard's layer too, not the user's cache; a cache
// the user grants by name (--allow-write ~/.cache) is written itself.
func TestCacheLayerForInstalls(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v)", err)
	}
	f := newFixture(t)
	spec := f.spec()
	spec.Layers = filepath.Join(f.home, ".local/state/guard/layers")
	spec.Net = true
	p := filepath.Join(f.home, ".cache/tool/downloaded")
	mustSucceed(t, run(t, spec, "sh", "-c", `echo pkg > "$1"`, "sh", p))
	if got := readFile(t, p); got != "<absent>" {
		t.Errorf("an install wrote the user's cache: %q", got)
	}
	// The wide runs' layer (the network grant): TestAttackLayerWidensRun.
	if got := readFile(t, filepath.Join(spec.Layers, "cache-wide/upper/tool/downloaded")); got != "pkg\n" {
		t.Errorf("the install's write is not in guard's layer: %q", got)
	}
	spec.ExtraWrite = []string{filepath.Join(f.home, ".cache")}
	mustSucceed(t, run(t, spec, "sh", "-c", `echo pkg > "$1"`, "sh", p))
	if got := readFile(t, p); got != "pkg\n" {
		t.Errorf("a cache granted by name was not written: %q", got)
	}
}
