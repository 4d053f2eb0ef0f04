package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox"
)

// installCase is a fixture whose user caches hold code builds outside
// guard trust unchecked: a go-build entry, a Go module's source, an npm
// cache entry, a crate's build script, a cargo git checkout.
type installCase struct {
	*cacheCase
	code map[string]string // path -> content, in the user's caches
}

func newInstallCase(t *testing.T) *installCase {
	t.Helper()
	c := &installCase{cacheCase: newCacheCase(t), code: map[string]string{}}
	for rel, content := range map[string]string{
		"go/pkg/mod/example.com/m@v1.0.0/m.go":                   "package m\n",
		".npm/_cacache/index-v5/0a/1b/entry":                     "{}\n",
		".cargo/registry/src/index.crates.io-1/c-1.0.0/build.rs": "fn main() {}\n",
		".cargo/git/checkouts/dep-1/abc/src/lib.rs":              "pub fn f() {}\n",
		".cache/pip/wheels/ab/cd/pkg-1.0-py3-none-any.whl":       "wheel\n",
	} {
		p := filepath.Join(c.f.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c.code[p] = content
	}
	c.code[c.entry] = "ORIGINAL\n"
	return c
}

// poison rewrites every cached file and plants zz_planted beside it, as
// an install script would (go makes its module cache read-only: a
// command of the same user makes it writable first). It reports on
// stdout what it could not do.
const poison = `for f in "$@"; do
d=$(dirname "$f")
chmod u+w "$d" "$f" 2>/dev/null
echo injected >> "$f" || echo "append $f refused"
echo planted > "$d/zz_planted" || echo "plant $d refused"
done; true`

func (c *installCase) poison(t *testing.T, spec sandbox.Spec) outcome {
	t.Helper()
	args := []string{"sh", "-c", poison, "sh"}
	for p := range c.code {
		args = append(args, p)
	}
	return run(t, spec, args...)
}

// untouched checks that the user's caches hold what they held, and
// nothing planted.
func (c *installCase) untouched(t *testing.T) {
	t.Helper()
	for p, content := range c.code {
		wantContent(t, p, content)
		if got := readFile(t, filepath.Join(filepath.Dir(p), "zz_planted")); got != "<absent>" {
			t.Errorf("planted beside %s: %q", p, got)
		}
	}
}

// TestAttackInstallCaches: a run granted the network (an approved npm
// install, whose packages' install scripts run with it) rewrites a Go
// module another project builds, a crate's build script, pip's wheels and
// a go-build entry, for builds outside guard, which trust them unchecked.
// Its writes land in guard's layer: the command sees them, a later
// sandboxed build (without the network) sees the modules it downloaded,
// the user's caches never get them. So does a run that reaches the
// daemons. Only a cache granted by name is written itself.
func TestAttackInstallCaches(t *testing.T) {
	c := newInstallCase(t)
	withNet := c.spec
	withNet.Net = true
	t.Run("an install", func(t *testing.T) {
		o := c.poison(t, withNet)
		mustSucceed(t, o)
		if o.stdout != "" {
			t.Errorf("the install could not write its caches: %v", o)
		}
		c.untouched(t)
	})
	t.Run("a later build sees the download", func(t *testing.T) {
		mod := filepath.Join(c.f.home, "go/pkg/mod/example.com/m@v1.0.0")
		o := run(t, c.spec, "cat", filepath.Join(mod, "m.go"), filepath.Join(mod, "zz_planted"))
		mustSucceed(t, o)
		if o.stdout != "package m\ninjected\nplanted\n" {
			t.Errorf("a build without the network sees %q, want the layer's module", o.stdout)
		}
		// Without the network it may not write the download caches,
		// not even in the layer.
		o = run(t, c.spec, "sh", "-c", `echo x > "$1/zz_nonet"`, "sh", mod)
		mustFail(t, o)
		if got := readFile(t, filepath.Join(c.layers, "cache/go-pkg-mod/upper/example.com/m@v1.0.0/zz_nonet")); got != "<absent>" {
			t.Errorf("a run without the network wrote the layer's modules: %q", got)
		}
		c.untouched(t)
	})
	t.Run("a run that reaches the daemons", func(t *testing.T) {
		d := c.spec
		d.Daemons = true
		mustSucceed(t, run(t, d, "sh", "-c", `echo daemons > "$1"`, "sh", c.planted))
		c.real(t)
	})
	t.Run("a path inside the cache granted by name", func(t *testing.T) {
		// A policy's grant_write = ["~/.cache/tool"] (make with the
		// network, level A by that policy): that path is written, the
		// rest of the cache is not. Also when the layer removed it.
		for _, spec := range []sandbox.Spec{c.spec, withNet} {
			named := spec
			tool := filepath.Join(c.f.home, ".cache/tool")
			named.ExtraWrite = []string{tool, filepath.Join(c.f.home, "notes-new.txt")}
			mustSucceed(t, run(t, spec, "rm", "-rf", tool))
			o := run(t, named, "sh", "-c", `echo new > "$1/cache.db" && echo poisoned > "$2" && echo planted > "$3"`, "sh", tool, c.entry, c.planted)
			mustSucceed(t, o)
			wantContent(t, filepath.Join(tool, "cache.db"), "new\n")
			c.real(t)
			if err := os.WriteFile(filepath.Join(tool, "cache.db"), []byte("cache\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("a path granted by name that the layer made a symlink", func(t *testing.T) {
		// An earlier run left, in the layer, a symlink to guard's config
		// (hidden, not covered whole: its policy is revealed) where the
		// next run's granted path is: the grant must not follow it.
		tool := filepath.Join(c.f.home, ".cache/tool")
		conf := filepath.Join(c.f.home, ".config/guard")
		if err := os.WriteFile(filepath.Join(conf, "pin"), []byte("SECRET-PIN\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		mustSucceed(t, run(t, c.spec, "sh", "-c", `rm -rf "$1" && ln -s "$2" "$1"`, "sh", tool, conf))
		named := c.spec
		named.ExtraWrite = []string{tool}
		named.Reveal = []string{filepath.Join(conf, "policy.toml")}
		o := run(t, named, "sh", "-c", `cat "$1/pin"; echo pwned > "$1/planted"; chmod 0666 "$1/pin"`, "sh", tool)
		if strings.Contains(o.stdout, "SECRET") {
			t.Errorf("read guard's PIN through the grant: %v", o)
		}
		wantContent(t, filepath.Join(conf, "planted"), "<absent>")
		if fi, err := os.Stat(filepath.Join(conf, "pin")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("guard's PIN: %v, %v; want mode 0600", fi, err)
		}
	})
	t.Run("control: a cache granted by name is written", func(t *testing.T) {
		named := withNet
		named.ExtraWrite = []string{filepath.Join(c.f.home, "go/pkg/mod")}
		p := filepath.Join(c.f.home, "go/pkg/mod/example.com/m@v1.0.0/go.mod")
		mustSucceed(t, run(t, named, "sh", "-c", `echo module > "$1"`, "sh", p))
		wantContent(t, p, "module\n")
	})
}

// TestOverlayRefusedFailsClosed: where the kernel refuses guard's overlay
// (a kernel too old for it, unprivileged overlays turned off, or a layer
// it will not take: here, a work directory inside the upper one), a
// writing run must not write the user's cache instead: it writes guard's
// layer alone.
func TestOverlayRefusedFailsClosed(t *testing.T) {
	c := newCacheCase(t)
	upper := filepath.Join(c.layers, "cache/upper")
	if err := os.MkdirAll(filepath.Join(upper, "w"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(upper, "w"), filepath.Join(c.layers, "cache/work")); err != nil {
		t.Fatal(err)
	}
	o := run(t, c.spec, "sh", "-c", `mkdir -p "$(dirname "$1")" && echo poisoned > "$1" && echo planted > "$2" && cat "$2"`, "sh", c.entry, c.planted)
	mustSucceed(t, o)
	if o.stdout != "planted\n" {
		t.Errorf("the command does not see its own write: %v", o)
	}
	c.real(t)
	if got := readFile(t, filepath.Join(upper, "go-build/ab/planted-d")); got != "planted\n" {
		t.Errorf("the write is not in guard's layer: %q", got)
	}
}

// TestAttackProvokeOverlayRefusal: a run that writes the user's cache
// itself (one granted it by name) leaves it so that the next overlay
// fails or shows something else — overlayfs's own attributes on the
// cache and in it (opaque, redirect, origin, metacopy), as a layer would
// carry them — hoping the next run falls back to the user's cache. The
// next run must still write guard's layer only.
func TestAttackProvokeOverlayRefusal(t *testing.T) {
	c := newCacheCase(t)
	direct := c.spec
	direct.ExtraWrite = []string{filepath.Join(c.f.home, ".cache")}
	const mangle = `import os, sys
for d in sys.argv[1:]:
    for k, v in (("opaque", b"y"), ("redirect", b"/../../.."), ("origin", b"\0\xfb"), ("metacopy", b""), ("impure", b"y"), ("uuid", b"off")):
        os.setxattr(d, "user.overlay." + k, v)
print("mangled")`
	cache := filepath.Join(c.f.home, ".cache")
	o := run(t, direct, "python3", "-c", mangle, cache, filepath.Dir(c.entry), filepath.Dir(filepath.Dir(c.entry)))
	if o.stdout != "mangled\n" {
		t.Skipf("this file system takes no user.overlay attributes: %v", o)
	}
	o = run(t, c.spec, "sh", "-c", `mkdir -p "$(dirname "$1")" && echo poisoned > "$1" && echo planted > "$2" && cat "$2"`, "sh", c.entry, c.planted)
	mustSucceed(t, o)
	if o.stdout != "planted\n" {
		t.Errorf("the command does not see its own write: %v", o)
	}
	c.real(t)
}

// TestAttackLeftoverLayers: a guard SIGKILLed while its run used a layer
// of its own (another run held the shared one) leaves that layer, with
// what the command wrote, in guard's state (and, on the old code, its
// private temp dir in /tmp, which the helper now removes). Nothing may take it for the
// cache, and it must not stay forever: the next run that makes a layer
// of its own removes it, and so does guard undo --prune (DropLayer).
func TestAttackLeftoverLayers(t *testing.T) {
	c := newCacheCase(t)
	if err := os.MkdirAll(c.layers, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(c.layers, "cache.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(c.f.ws, "ready")
	// The command also leaves a file in its private temp dir, which
	// only guard would have removed, and names the dir.
	killGuardMidRun(t, c.spec, nil, ready, "sh", "-c", `echo planted > "$1" && mkdir "$TMPDIR/ro" && touch "$TMPDIR/ro/left" && chmod 0500 "$TMPDIR/ro" && echo "$TMPDIR" > "$2.new" && mv "$2.new" "$2" && exec sleep 60`, "sh", c.planted, ready)
	left := privateLayers(t, c.layers)
	if len(left) != 1 {
		t.Fatalf("want the killed run's own layer left, got %v", left)
	}
	c.real(t)

	// The next concurrent run makes a layer of its own: the leftover
	// goes.
	mustSucceed(t, run(t, c.spec, "true"))
	if got := privateLayers(t, c.layers); len(got) > 0 {
		t.Errorf("the killed run's layer is still there: %v", got)
	}
	unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	// Nothing took it for the cache.
	if o := run(t, c.spec, "cat", c.planted); o.res.ExitCode == 0 {
		t.Errorf("a later run sees the killed run's layer: %v", o)
	}
	c.real(t)

	t.Run("guard undo --prune", func(t *testing.T) {
		stale := filepath.Join(c.layers, "run-stale")
		if err := os.MkdirAll(filepath.Join(stale, "go-build"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(stale, "go-build/x"), []byte("planted\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := sandbox.DropLayer(c.layers); err != nil {
			t.Fatal(err)
		}
		if got := privateLayers(t, c.layers); len(got) > 0 {
			t.Errorf("DropLayer left %v", got)
		}
	})
}

// privateLayers lists the runs' own layers in layers (their lock files
// aside).
func privateLayers(t *testing.T, layers string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(layers, "run-*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if !strings.HasSuffix(n, ".lock") {
			out = append(out, n)
		}
	}
	return out
}
