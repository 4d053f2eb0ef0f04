package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox/confine"
)

// Builds write the user's cache (~/.cache) on every run, and tools
// outside the sandbox trust what is there without checking it: go build
// links the archives ~/.cache/go-build names for an action (a rewritten
// entry puts other code in every program the user builds, in any
// project), ccache and sccache hand back object files, uv and yarn
// unpack packages from theirs, zig and bazel reuse outputs. The download
// caches (~/go/pkg/mod, ~/.npm, ~/.cargo/registry and git) are the same:
// go build compiles what ~/go/pkg/mod holds (go.sum is checked when a
// module is downloaded, not when it is built), cargo builds the crates
// it unpacked. A command guard ran could write there for the user's next
// build outside guard, with nothing in the workspace to show for it; an
// approved install is no exception (npm install runs every package's
// install scripts, which could rewrite a Go module of another project).
//
// So every writing run sees those caches through overlays of guard's
// own: the user's cache below, read-only, and a layer in guard's state
// (hidden from commands) above, which takes every write. Later sandboxed
// runs see that layer too (their builds stay warm, and a build without
// the network finds the modules an approved download put there); tools
// outside the sandbox never read it. A run writes the download caches
// (in the layer) only with the network; without it it sees them through
// the layer read-only. One run at a time uses the shared layer (a lock);
// a run that finds it in use gets a layer of its own, removed when it
// ends (or, if guard was killed, by the next run that makes one: each
// holds a lock of its own while it is used). A cache the run was granted
// by name (--allow-write ~/.cache, ~/go/pkg/mod) is written itself: the
// user asked for it; one granted a path inside a cache (a policy's
// grant_write = ["~/.cache/tool"]) gets that path itself, bound over the
// layer, and the rest of the cache through the layer. Where the helper has no mount namespace the run
// writes the caches itself (guard doctor says so); where the kernel
// refuses the overlay, the run writes the layer alone, without the
// user's cache below (confine: cover.go), never the user's cache.

// layerDirs are the caches under the home directory that every writing
// run sees through guard's layer, each with the name of its own part of
// the layer ("" for ~/.cache: the layer's first part, from before the
// download caches were laid over too).
var layerDirs = []struct{ rel, name string }{
	{toolCache, ""},
	{"go/pkg/mod", "go-pkg-mod"},
	{".npm", "npm"},
	{".cargo/registry", "cargo-registry"},
	{".cargo/git", "cargo-git"},
}

// A run's grant class decides which shared layer it writes and which it
// sees. What a run wrote to the layer, later runs use: a go-build entry
// an A build rewrote, a module it edited (it may not, without the
// network, but a cache of code tools run is enough) runs again in the
// next run's sandbox, with that run's grants. A run with the network, a
// revealed secret or the daemons' sockets has more to give such code
// (`npm install` runs every package's scripts with the network; a
// `kubectl get` reads ~/.kube), so it must never use what a narrower run
// planted: wide runs write and see their own layer ("cache-wide") over
// the user's caches, and never the narrow one; narrow runs write theirs
// ("cache", where every run wrote before the classes) and see the wide
// layer below it, read-only, so that a build without the network still
// finds what an approved download fetched (TestAttackLayerWidensRun).
// Cost: a wide run starts from its own layer, without the narrow runs'
// build outputs (a networked build compiles again what an offline one
// already had).
//
// The rule: code one run planted may run in another only if that one
// has nothing to give it the planter did not have. The runs with the
// network alone share "cache-wide": an approved install's scripts had
// the network already. A run with a revealed secret or the daemons'
// sockets has what no other run had (a `kubectl get` reads ~/.kube, a
// `docker ps; go run .` reaches docker.sock, root on the machine): it
// sees no shared layer at all, only the user's caches, and writes a
// layer of its own, removed after it. Before, these shared cache-wide
// with the network runs, so what an approved `npm install` planted in
// ~/.cache ran in a later `aws s3 ls` with ~/.aws readable, and in a
// later docker run with the socket (TestAttackLayerReachesSecret).
// Cost: such runs start cold, and what they build is not kept.
type layerClass int

const (
	narrowLayer layerClass = iota
	wideLayer
	sealedLayer
)

// layerNames are the shared layers' directories in Spec.Layers, narrow
// first.
var layerNames = [...]string{"cache", "cache-wide"}

// classOf is the class of the validated run s: guard's own settings
// (Spec.Settings) revealed count for nothing.
func classOf(s Spec) layerClass {
	switch {
	case s.secret || s.Daemons:
		return sealedLayer
	case s.Net:
		return wideLayer
	}
	return narrowLayer
}

// name is the class's shared layer ("" for none: a sealed run's layer
// is its own).
func (c layerClass) name() string {
	switch c {
	case narrowLayer:
		return layerNames[0]
	case wideLayer:
		return layerNames[1]
	}
	return ""
}

// sees are the shared layers a run of the class sees, its own first.
func (c layerClass) sees() []string {
	switch c {
	case narrowLayer:
		return layerNames[:]
	case wideLayer:
		return layerNames[1:]
	}
	return nil
}

// below are the shared layers a run of the class sees read-only, below
// its own.
func (c layerClass) below() []string {
	if s := c.sees(); len(s) > 1 {
		return s[1:]
	}
	return nil
}

// layer is a run's cache overlay: the lock of the shared layer, held
// until the run ends, or a layer of its own (and its lock) to remove
// then.
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
	if l.private != "" {
		confine.RemoveTree(l.private)
		os.Remove(l.private + lockSuffix)
	}
	if l.lock != nil {
		l.lock.Close()
	}
}

// lockSuffix names a run's own layer's lock file, beside the layer
// (run-N.lock for run-N): made and locked before the layer, removed
// after it, held while the run uses it. A layer whose lock can be taken,
// or that has none, was left by a guard that was killed.
const lockSuffix = ".lock"

// cacheLayer returns the overlays of the user's caches for run s (none
// when the run gets none) and the layer to release when it ends.
// writable are the run's write grants.
func cacheLayer(s Spec, writable []string) (ovs []confine.Overlay, l *layer, err error) {
	if s.Layers == "" || !s.Write {
		return nil, nil, nil
	}
	type laid struct {
		path, name string
		through    []string
	}
	class := classOf(s)
	var dirs []laid
	for _, d := range layerDirs {
		c := s.res.canonical(filepath.Join(s.Home, d.rel))
		if !s.res.isDir(c) || withinClean(c, s.Layers) || slices.ContainsFunc(dirs, func(x laid) bool { return x.path == c }) {
			continue
		}
		through, ok := layered(s, c)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(writable, func(w string) bool { return withinClean(c, w) }) {
			// Read-only in this run (a download cache without the
			// network): laid over only when a layer it sees holds
			// something of it, so that the run sees what a download
			// put there.
			if !slices.ContainsFunc(class.sees(), func(n string) bool {
				_, err := os.Lstat(filepath.Join(s.Layers, n, d.name, "upper"))
				return err == nil
			}) {
				continue
			}
		}
		dirs = append(dirs, laid{c, d.name, through})
	}
	if len(dirs) == 0 {
		return nil, nil, nil
	}
	if err := os.MkdirAll(s.Layers, 0o700); err != nil {
		return nil, nil, err
	}
	l, dir, err := takeLayer(s.Layers, class)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range dirs {
		part := filepath.Join(dir, d.name)
		o := confine.Overlay{Path: d.path, Upper: filepath.Join(part, "upper"), Work: filepath.Join(part, "work"), Through: d.through}
		for _, n := range class.below() {
			// Another class's layer, read-only below this run's own.
			lower := filepath.Join(s.Layers, n, d.name, "upper")
			if st, err := os.Lstat(lower); err == nil && st.IsDir() {
				o.Lower = append(o.Lower, lower)
			}
		}
		for _, p := range []string{o.Upper, o.Work} {
			if err := os.MkdirAll(p, 0o700); err != nil {
				l.release()
				return nil, nil, err
			}
		}
		ovs = append(ovs, o)
	}
	return ovs, l, nil
}

// takeLayer takes the layer a run of class writes, in layers: its
// class's shared one, locked, or one of the run's own when another run
// uses that (two overlays may not share one) or the class has none.
func takeLayer(layers string, class layerClass) (*layer, string, error) {
	if class.name() == "" {
		l, err := privateLayer(layers)
		if err != nil {
			return nil, "", err
		}
		return l, l.private, nil
	}
	lock, err := os.OpenFile(filepath.Join(layers, class.name()+".lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, "", err
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, "", err
		}
		l, err := privateLayer(layers)
		if err != nil {
			return nil, "", err
		}
		return l, l.private, nil
	}
	return &layer{lock: lock}, filepath.Join(layers, class.name()), nil
}

// layered reports whether the run of s sees the cache c through guard's
// layer, and the paths below c the run was granted by name (an approved
// write there, a policy's grant_write, --allow-write), which stay the
// real ones: the overlay would take their writes. Not when a tree of
// the run's own lies inside c (the workspace's files would land in the
// layer), nor when the run was granted c itself by name, or a path in c
// that does not exist yet (granted through its parent, c's whole tree
// may be what it needs): the user asked for that cache to be written.
func layered(s Spec, c string) (through []string, ok bool) {
	for _, own := range []string{s.Workspace, s.Dir, s.Layers} {
		if own != "" && withinClean(own, c) {
			return nil, false
		}
	}
	for _, w := range s.ExtraWrite {
		cw := s.res.canonical(w)
		if !s.res.exists(cw) {
			// Granted through its parent, as buildGrants grants it.
			cw = s.res.canonical(filepath.Dir(w))
		}
		switch {
		case cw == c:
			return nil, false
		case withinClean(cw, c) && !slices.Contains(through, cw):
			through = append(through, cw)
		}
	}
	return through, true
}

// privateLayer makes a layer of a run's own in layers, locked while the
// run uses it, and first removes those that guard runs killed meanwhile
// left: nothing reads them, and each may hold as much as a build wrote.
//
// Another guard's sweep may find the new lock between its creation and
// its locking, take it (nothing holds it yet) and remove it: the run's
// lock would then be a file no longer there, and the layer made after
// it one without a lock, which the next sweep removes while the run
// uses it. So the lock is taken waiting (only a sweep holds a lock no
// run has taken, for as long as it takes to remove it), and kept only
// if it still has its name; otherwise the run makes another.
func privateLayer(layers string) (*layer, error) {
	sweepLayers(layers)
	for range 8 {
		lock, err := os.CreateTemp(layers, "run-*"+lockSuffix)
		if err != nil {
			return nil, err
		}
		lockMade(lock.Name())
		if err := flock(lock, unix.LOCK_EX); err != nil {
			os.Remove(lock.Name())
			lock.Close()
			return nil, err
		}
		if !named(lock) {
			lock.Close() // swept: its name may be another run's now
			continue
		}
		dir := strings.TrimSuffix(lock.Name(), lockSuffix)
		if err := os.Mkdir(dir, 0o700); err != nil {
			os.Remove(lock.Name())
			lock.Close()
			return nil, err
		}
		return &layer{lock: lock, private: dir}, nil
	}
	return nil, errors.New("a layer of the run's own: its lock was swept away each time")
}

// lockMade is called once a run's own lock is made, before it is taken
// (tests sweep there).
var lockMade = func(string) {}

// flock takes how on f, again when a signal interrupts the wait.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// named reports whether f is still the file at its name.
func named(f *os.File) bool {
	var a, b unix.Stat_t
	return unix.Fstat(int(f.Fd()), &a) == nil && unix.Lstat(f.Name(), &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// sweepLayers removes the runs' own layers in layers that no run uses:
// those whose lock it can take, and those without one.
func sweepLayers(layers string) {
	names, _ := filepath.Glob(filepath.Join(layers, "run-*"))
	for _, n := range names {
		dir, isLock := strings.CutSuffix(n, lockSuffix)
		if !isLock {
			if _, err := os.Lstat(n + lockSuffix); errors.Is(err, fs.ErrNotExist) {
				confine.RemoveTree(n)
			}
			continue
		}
		lock, err := os.OpenFile(n, os.O_RDWR|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		// Still at its name once taken: a sweep meanwhile may have
		// removed it, and a run made its own under that name.
		if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil && named(lock) {
			confine.RemoveTree(dir)
			os.Remove(n)
		}
		lock.Close()
	}
}

// DropLayer removes the shared layer over the caches in layers (guard's
// state: Spec.Layers), with what sandboxed runs wrote to ~/.cache and the
// download caches through it, and the runs' own layers that guards
// killed meanwhile left, and returns the bytes they held. A layer a run
// is using is left as it is (ErrLayerInUse); so is one a run makes
// meanwhile.
func DropLayer(layers string) (int64, error) {
	// Both classes' shared layers (layerClass), each under its lock:
	// all taken before anything goes.
	var drop []string
	for _, n := range layerNames {
		lock, err := os.OpenFile(filepath.Join(layers, n+".lock"), os.O_RDWR|unix.O_NOFOLLOW, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
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
		drop = append(drop, filepath.Join(layers, n))
	}
	if len(drop) == 0 {
		return 0, nil
	}
	_, before := LayerUsage(layers)
	for _, dir := range drop {
		if err := confine.RemoveTree(dir); err != nil {
			return 0, err
		}
	}
	// The runs' own layers that killed guards left go too; a run's
	// that is in use stays.
	sweepLayers(layers)
	_, after := LayerUsage(layers)
	return before - after, nil
}

// LayerUsage counts the files and bytes of the cache layers in layers
// (the shared ones and any run's own), as guard doctor shows them.
func LayerUsage(layers string) (files, bytes int64) {
	for _, pat := range append(layerNames[:], "run-*") {
		dirs, _ := filepath.Glob(filepath.Join(layers, pat))
		for _, d := range dirs {
			if strings.HasSuffix(d, lockSuffix) {
				continue // a run's lock, not its layer
			}
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
// guard's layer here, over the user's cache, and if not, why: it runs a
// command that looks for a file in the cache of a home of its own and
// writes another there, through a layer of its own, and looks where the
// file landed. For guard doctor (it starts a sandboxed command, so never
// on a run's path).
func ProbeLayer() error {
	root, err := os.MkdirTemp("", "guard-layer-probe-")
	if err != nil {
		return err
	}
	defer confine.RemoveTree(root)
	home, ws, layers := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "layers")
	for _, d := range []string{filepath.Join(home, toolCache), ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	probe, below := filepath.Join(home, toolCache, "probe"), filepath.Join(home, toolCache, "below")
	if err := os.WriteFile(below, nil, 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	spec := Spec{Workspace: ws, Home: home, Write: true, Layers: layers, Env: []string{"PATH=/usr/bin:/bin"}}
	res, err := Run(ctx, spec, []string{"sh", "-c", `test -e "$1" || exit 3; echo x > "$0"`, probe, below}, Stdio{})
	switch {
	case err != nil:
		return fmt.Errorf("the probe did not run: %w", err)
	case res.ExitCode == 3:
		return errors.New("the kernel refused the overlay: sandboxed runs write guard's layer alone, without ~/.cache below it (their builds start cold)")
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
