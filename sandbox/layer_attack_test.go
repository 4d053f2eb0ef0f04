package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackCacheLayerBypass: other ways for a command rated A to reach
// the user's real ~/.cache, or guard's layer itself, past the overlay:
// another path to the same directory (/proc/self/root, every process's
// /proc/PID/root, ..), a hard link or a rename across the
// overlay, guard's upper directory by its name, a cache it mangles so
// the next run's overlay fails (and that run writes the real cache), and
// a process left behind to write after guard returned. Each must leave
// the user's entry as it was and plant nothing.
func TestAttackCacheLayerBypass(t *testing.T) {
	c := newCacheCase(t)
	f, entry, planted, layers, spec, real := c.f, c.entry, c.planted, c.layers, c.spec, c.real
	for _, c := range []struct{ name, script string }{
		{"through /proc/self/root", `echo poisoned > "/proc/self/root$1"; echo planted > "/proc/self/root$2"`},
		{"through every process's root", `for p in /proc/[0-9]*; do echo poisoned > "$p/root$1"; echo planted > "$p/root$2"; done 2>/dev/null; true`},
		{"through ..", `cd "$(dirname "$1")" && echo poisoned > "../../../.cache/go-build/ab/entry-d" && echo planted > "../../../.cache/go-build/ab/planted-d"`},
		{"a hard link into the workspace", `ln "$1" ws-link && echo poisoned > ws-link; ln -s "$1" ws-sym && echo poisoned > ws-sym`},
		{"a rename across the overlay", `echo planted > new-entry && mv new-entry "$2"; mv "$1" moved && echo poisoned > moved && mv moved "$1"`},
		{"guard's layer by its name", `mkdir -p "$3/cache/upper/go-build/ab" && echo planted > "$3/cache/upper/go-build/ab/byname-d"; echo planted > "$3/../planted"; true`},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, spec, "sh", "-c", c.script, "sh", entry, planted, layers)
			real(t)
			if got := readFile(t, filepath.Join(layers, "cache/upper/go-build/ab/byname-d")); got != "<absent>" {
				t.Errorf("the command wrote guard's layer by its name: %q", got)
			}
		})
	}
	t.Run("a mangled layer fails the next overlay", func(t *testing.T) {
		// What the command can do to the layer through the overlay: its
		// root's mode, an opaque directory, a whiteout of everything. The
		// next run must still see the layer, not the real cache.
		run(t, spec, "sh", "-c", `rm -rf "$HOME/.cache/go-build"; mkdir "$HOME/.cache/go-build"; setfattr -n user.overlay.opaque -v y "$HOME/.cache" 2>/dev/null; chmod 0 "$HOME/.cache"; true`)
		// The second run must run (a run that fails to start writes
		// nothing, and would pass unseen) and write through a layer.
		o := run(t, spec, "sh", "-c", `chmod 755 "$HOME/.cache"; mkdir -p "$(dirname "$1")"; echo poisoned > "$1"; echo planted > "$2"; cat "$2"`, "sh", entry, planted)
		if !o.res.Started || o.stdout != "planted\n" {
			t.Errorf("the run after the mangling did not run its writes: %v", o)
		}
		real(t)
		if got := readFile(t, filepath.Join(layers, "cache/upper/go-build/ab/planted-d")); got != "planted\n" {
			t.Errorf("the write is not in guard's layer: %q", got)
		}
	})
	t.Run("a process left behind", func(t *testing.T) {
		// It waits on a fifo in the workspace for the test to say go
		// once guard has returned, then writes the cache. The helper
		// kills it before the run ends: nobody reads the fifo any more.
		fifo := filepath.Join(f.ws, "left.fifo")
		mustSucceed(t, run(t, spec, "sh", "-c", `mkfifo "$3" || exit 1; (cat "$3" >/dev/null; echo poisoned > "$1"; echo planted > "$2") >/dev/null 2>&1 & exit 0`, "sh", entry, planted, fifo))
		fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK, 0)
		if err == nil {
			unix.Close(fd)
			t.Fatal("a process of the run is still there after guard returned")
		}
		if !errors.Is(err, unix.ENXIO) {
			t.Fatalf("open the fifo: %v", err)
		}
		real(t)
	})
	t.Run("control: the command writes its cache", func(t *testing.T) {
		o := run(t, spec, "sh", "-c", `echo mine > "$1" && cat "$1"`, "sh", planted)
		mustSucceed(t, o)
		if o.stdout != "mine\n" {
			t.Errorf("got %q", o.stdout)
		}
		if got := readFile(t, planted); got != "<absent>" {
			t.Errorf("the user's cache got %q", got)
		}
	})
}

// cacheCase is a fixture whose user cache holds one build cache entry,
// with guard's layer in guard's (hidden) state.
type cacheCase struct {
	f                      *fixture
	entry, planted, layers string
	spec                   sandbox.Spec
}

func newCacheCase(t *testing.T) *cacheCase {
	t.Helper()
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): the run writes the cache itself, as guard doctor says", err)
	}
	f := newFixture(t)
	c := &cacheCase{
		f:       f,
		entry:   filepath.Join(f.home, ".cache/go-build/ab/entry-d"),
		planted: filepath.Join(f.home, ".cache/go-build/ab/planted-d"),
		layers:  filepath.Join(f.home, ".local/state/guard/layers"),
		spec:    f.spec(),
	}
	if err := os.MkdirAll(filepath.Dir(c.entry), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.entry, []byte("ORIGINAL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.spec.Layers = c.layers
	return c
}

// real checks that the user's cache has its entry as it was and no
// planted one.
func (c *cacheCase) real(t *testing.T) {
	t.Helper()
	if got := readFile(t, c.entry); got != "ORIGINAL\n" {
		t.Errorf("the user's cache entry is now %q", got)
	}
	if got := readFile(t, c.planted); got != "<absent>" {
		t.Errorf("an entry was planted in the user's cache: %q", got)
	}
}
