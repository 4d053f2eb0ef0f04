package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox/confine"
)

// Builds write the user's cache (~/.cache) on every run, and tools
// outside the sandbox trust what is there without checking it: go build
// links the archives ~/.cache/go-build names for an action (a rewritten
// entry puts other code in every program the user builds, in any
// project), ccache and sccache hand back object files, uv and yarn
// unpack packages from theirs, zig and bazel reuse outputs. A command
// rated A could write there for the user's next build outside guard,
// with nothing in the workspace to show for it.
//
// So a writing run without the network sees the cache through an
// overlay of guard's own: the user's cache below, read-only, and a layer
// in guard's state (hidden from commands) above, which takes every write.
// Later sandboxed runs see that layer too (their builds stay warm); tools
// outside the sandbox never read it. One run at a time uses the shared
// layer (a lock); a run that finds it in use gets a layer of its own,
// removed when it ends. A run with the network (an install the user
// approved) writes the cache itself, as before. Where the helper has no
// mount namespace or the kernel refuses the overlay, the run writes the
// cache itself too (guard doctor says so).

// layer is a run's cache overlay: the lock of the shared layer, held
// until the run ends, or a layer of its own to remove then.
type layer struct {
	lock    *os.File
	private string
}

// release lets the next run use the shared layer, or removes the run's
// own.
func (l *layer) release() {
	if l == nil {
		return
	}
	if l.lock != nil {
		l.lock.Close()
	}
	if l.private != "" {
		removeAll(l.private)
	}
}

// cacheLayer returns the overlay of the user's cache for run s (ok false
// when the run gets none) and the layer to release when it ends. writable
// are the run's write grants.
func cacheLayer(s Spec, writable []string) (o confine.Overlay, l *layer, ok bool, err error) {
	if s.Layers == "" || !s.Write || s.Net || s.Daemons {
		return o, nil, false, nil
	}
	cache := s.res.canonical(filepath.Join(s.Home, toolCache))
	if !s.res.isDir(cache) || !slices.Contains(writable, cache) {
		return o, nil, false, nil
	}
	// A tree of the run's own inside the cache would be laid over too:
	// the workspace's files would land in guard's layer.
	for _, own := range append([]string{s.Workspace, s.Dir, s.Layers}, writable...) {
		if own != "" && own != cache && withinClean(own, cache) {
			return o, nil, false, nil
		}
	}
	if withinClean(cache, s.Layers) {
		return o, nil, false, nil
	}
	if err := os.MkdirAll(s.Layers, 0o700); err != nil {
		return o, nil, false, err
	}
	lock, err := os.OpenFile(filepath.Join(s.Layers, "cache.lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return o, nil, false, err
	}
	dir := filepath.Join(s.Layers, "cache")
	l = &layer{lock: lock}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return o, nil, false, err
		}
		// Another run uses the shared layer: two overlays may not
		// share one.
		if dir, err = os.MkdirTemp(s.Layers, "run-"); err != nil {
			return o, nil, false, err
		}
		l = &layer{private: dir}
	}
	o = confine.Overlay{Path: cache, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{o.Upper, o.Work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			l.release()
			return o, nil, false, err
		}
	}
	return o, l, true, nil
}

// DropLayer removes the shared layer over the cache in layers (guard's
// state: Spec.Layers), with what sandboxed runs wrote to ~/.cache through
// it, and returns the bytes it held. A layer a run is using is left as it
// is (ErrLayerInUse); so is one a run makes meanwhile.
func DropLayer(layers string) (int64, error) {
	lock, err := os.OpenFile(filepath.Join(layers, "cache.lock"), os.O_RDWR|unix.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return 0, ErrLayerInUse
		}
		return 0, err
	}
	dir := filepath.Join(layers, "cache")
	_, size := usage(dir)
	if err := removeAll(dir); err != nil {
		return 0, err
	}
	return size, nil
}

// LayerUsage counts the files and bytes of the cache layers in layers
// (the shared one and any run's own), as guard doctor shows them.
func LayerUsage(layers string) (files, bytes int64) {
	for _, pat := range []string{"cache", "run-*"} {
		dirs, _ := filepath.Glob(filepath.Join(layers, pat))
		for _, d := range dirs {
			f, b := usage(d)
			files, bytes = files+f, bytes+b
		}
	}
	return files, bytes
}

// usage counts the regular files below dir and their bytes; what cannot
// be read (the overlay's work directory, mode 000) is not counted.
func usage(dir string) (files, bytes int64) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				files++
				bytes += fi.Size()
			}
		}
		return nil
	})
	return files, bytes
}

// ProbeLayer reports whether a writing run's writes to ~/.cache land in
// guard's layer here, and if not, why: it runs a command that writes a
// file into the cache of a home of its own, through a layer of its own,
// and looks where the file landed. For guard doctor (it starts a sandboxed
// command, so never on a run's path).
func ProbeLayer() error {
	root, err := os.MkdirTemp("", "guard-layer-probe-")
	if err != nil {
		return err
	}
	defer removeAll(root)
	home, ws, layers := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "layers")
	for _, d := range []string{filepath.Join(home, toolCache), ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	probe := filepath.Join(home, toolCache, "probe")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	spec := Spec{Workspace: ws, Home: home, Write: true, Layers: layers, Env: []string{"PATH=/usr/bin:/bin"}}
	res, err := Run(ctx, spec, []string{"sh", "-c", `echo x > "$0"`, probe}, Stdio{})
	switch {
	case err != nil:
		return fmt.Errorf("the probe did not run: %w", err)
	case res.ExitCode != 0:
		return fmt.Errorf("the probe's write failed (exit %d)", res.ExitCode)
	}
	if _, err := os.Lstat(probe); err == nil {
		return errors.New("the kernel refused the overlay: a command's writes reach ~/.cache itself")
	}
	if _, err := os.Lstat(filepath.Join(layers, "cache", "upper", "probe")); err != nil {
		return errors.New("the probe's write is in neither the cache nor the layer")
	}
	return nil
}

// ErrLayerInUse: a run is using the cache layer.
var ErrLayerInUse = errors.New("a guard run is using the cache layer")
