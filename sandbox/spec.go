package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/internal/walkup"
)

// Spec is the confinement for one run. The caller fills it from a
// review.Sandbox plus the run's context (workspace, home, flags).
type Spec struct {
	// Workspace is the project directory (absolute). It is readable, and
	// writable with Write. It may be neither "/" nor Home nor an ancestor
	// of Home.
	Workspace string
	// Home is the user's home directory (absolute); tool caches and the
	// default secret locations are found under it.
	Home string
	// Dir is the child's working directory; empty means Workspace.
	Dir string

	// Write grants read-write access to the workspace (with moves and
	// links between writable trees), a private temp dir exported as
	// TMPDIR, /tmp, /dev/shm and the tool caches under Home. Without it
	// nothing is writable but /dev/null and its kin.
	Write bool
	// ExtraWrite lists further absolute paths the command may write. A
	// path that does not exist yet is granted through its parent
	// directory.
	ExtraWrite []string
	// Net allows TCP connect and UDP (DNS). Without it TCP connect and
	// bind are refused by Landlock, and UDP, raw, SCTP and MPTCP sockets
	// by seccomp. TCP bind stays refused either way.
	Net bool
	// Hide lists absolute paths whose contents must not be readable (nor
	// writable): secrets and guard's own config and state.
	Hide []string
	// Reveal lists absolute paths that Hide would hide but that this run
	// may read (never write): guard's own policy and settings, or a
	// tool's credentials the command was approved to use. A revealed
	// path whose real location lies in another hidden path is refused.
	Reveal []string
	// Settings lists guard's own files this run may read, revealed as
	// Reveal's are (its policy and settings, for guard's read-only
	// subcommands inside the sandbox). Unlike Reveal's they are no
	// secret of the user's, so they do not put the run in the class of
	// runs with more to give (layer.go): every run through guard's CLI
	// reveals them, and while they were in Reveal every such run was
	// wide, its offline builds writing the layer the network runs see.
	Settings []string
	// Protect lists absolute paths that must not change, even inside a
	// writable tree. They are checked after the run, restored when
	// changed, and each change is reported as a Violation.
	Protect []string
	// KeepEnv lists environment variable names to pass through even
	// though they look like secrets.
	KeepEnv []string
	// Daemons lets the command reach the local daemons' pathname unix
	// sockets outside its own trees (docker ps, tmux ls, systemctl
	// --user). Without it each is covered where the kernel allows user
	// namespaces (see sockets.go); Landlock confines them only from ABI 9.
	Daemons bool
	// Require makes Run fail, before anything runs, when the kernel
	// cannot enforce everything guard relies on (--require-sandbox).
	Require bool
	// Runs is a directory, hidden from commands (in guard's state),
	// where runs that may change protected paths register while they
	// run (runs.go), so that a run started while another's command is
	// running never restores what that command planted. Empty: no
	// registry, every snapshot is taken as the state before the run.
	Runs string
	// Layers is a directory, hidden from commands (in guard's state),
	// for guard's layer over the user's caches (layer.go): a writing run
	// writes there, not in ~/.cache or the download caches. Empty: no
	// layer, the run writes the caches itself.
	Layers string
	// Env is the environment to filter and pass on; nil means
	// os.Environ().
	Env []string

	res *resolver // set by validate: this run's path resolutions
	// secret is set by validate: Reveal held a path before Settings
	// joined it.
	secret bool
}

// Stdio are the child's standard streams. A nil reader or writer is
// connected to /dev/null. Pass *os.File values (os.Stdin, …) to hand
// the child the very same descriptors, so a terminal stays a terminal.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// WatchErr interposes a pipe on the child's stderr to notice
	// "Permission denied" and kin (see Result.Denials). The bytes are
	// passed on unchanged, but the child's stderr is then a pipe; Run
	// therefore skips watching when Err is a terminal or the same file
	// as Out (2>&1), where the interposition would be visible.
	WatchErr bool
}

// ErrNotEnforced is returned (wrapped) by Run when Spec.Require is set
// and the kernel cannot enforce part of the sandbox.
var ErrNotEnforced = errors.New("sandbox not fully enforced")

// clone copies s, lists included.
func (s Spec) clone() Spec {
	s.ExtraWrite = slices.Clone(s.ExtraWrite)
	s.Hide = slices.Clone(s.Hide)
	s.Reveal = slices.Clone(s.Reveal)
	s.Settings = slices.Clone(s.Settings)
	s.Protect = slices.Clone(s.Protect)
	s.KeepEnv = slices.Clone(s.KeepEnv)
	s.Env = slices.Clone(s.Env)
	return s
}

// Same reports whether s and o ask for the same confinement: every
// field alike (reflect.DeepEqual, so a field added later counts too),
// the path lists compared by their elements (nil and empty alike).
func (s Spec) Same(o Spec) bool {
	return reflect.DeepEqual(s.normal(), o.normal())
}

// normal is s with its empty path lists nil, for comparing requests
// (Env keeps its nil: it means os.Environ(), an empty one none).
func (s Spec) normal() Spec {
	for _, l := range []*[]string{&s.ExtraWrite, &s.Hide, &s.Reveal, &s.Settings, &s.Protect, &s.KeepEnv} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return s
}

// validate checks the spec and returns a copy with every path cleaned;
// the caller's lists stay as they were.
func (s Spec) validate() (Spec, error) {
	s = s.clone()
	if s.Home == "" || !filepath.IsAbs(s.Home) {
		return s, fmt.Errorf("home %q is not an absolute path", s.Home)
	}
	if s.Workspace == "" || !filepath.IsAbs(s.Workspace) {
		return s, fmt.Errorf("workspace %q is not an absolute path", s.Workspace)
	}
	s.res = newResolver()
	s.Home = filepath.Clean(s.Home)
	s.Workspace = filepath.Clean(s.Workspace)
	ws := s.res.canonical(s.Workspace)
	fi, err := s.res.stat(ws)
	if err != nil {
		return s, fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return s, fmt.Errorf("workspace %s is not a directory", s.Workspace)
	}
	home := s.res.canonical(s.Home)
	if s.Write && (ws == "/" || paths.Within(home, ws) || paths.Within(s.Home, s.Workspace)) {
		// Only a writable workspace is dangerous there: a read-only run
		// grants nothing in it.
		return s, fmt.Errorf("refusing workspace %s: it is / or contains the home directory %s", s.Workspace, s.Home)
	}
	s.Workspace = ws
	if s.Dir == "" {
		s.Dir = s.Workspace
	}
	if !filepath.IsAbs(s.Dir) {
		return s, fmt.Errorf("working directory %q is not an absolute path", s.Dir)
	}
	for _, list := range [][]string{s.ExtraWrite, s.Hide, s.Reveal, s.Settings, s.Protect} {
		for i, p := range list {
			if !filepath.IsAbs(p) {
				return s, fmt.Errorf("path %q is not absolute", p)
			}
			list[i] = filepath.Clean(p)
		}
	}
	s.secret = len(s.Reveal) > 0
	s.Reveal = append(s.Reveal, s.Settings...)
	s.Hide = append(s.Hide, s.envSecretFiles(ws)...)
	if s.Write {
		s.Protect = append(s.Protect, sharedTmpProtect(ws)...)
	}
	for _, h := range s.Hide {
		ch := s.res.canonical(h)
		switch {
		case paths.Within(ws, ch):
			return s, fmt.Errorf("refusing workspace %s: it lies inside hidden path %s", s.Workspace, h)
		case s.Write && paths.Within(ch, ws):
			// Read-only runs grant nothing in the workspace; a writable one
			// would make the hidden path writable.
			return s, fmt.Errorf("refusing workspace %s: it contains hidden path %s", s.Workspace, h)
		}
	}
	return s, nil
}

// tmpDir is the temporary directory every writing run may write and
// every process of the user shares; the runs' private temp dirs are
// made in it.
const tmpDir = "/tmp"

// sharedTmp is tmpDir where sharedTmpProtect looks (a variable for
// tests).
var sharedTmp = tmpDir

// sharedTmpProtect are the paths in the shared temp dir that programs
// find by walking up from where they run, and obey (internal/walkup).
// They are protected whole, whatever kind of file the command makes
// there (removed after the run if the command made them, the run
// failing loudly), unless the workspace is the temp dir itself (its
// repository and project files are the workspace's).
func sharedTmpProtect(ws string) []string {
	dirs := sharedTmpDirs(ws)
	out := make([]string, 0, len(dirs)*len(walkup.Names))
	for _, d := range dirs {
		out = appendWalkUp(out, d)
	}
	return out
}

// sharedTmpDirs are the directories whose walk-up names
// sharedTmpProtect protects: the shared temp dir, and each directory
// between it and a workspace below it (/tmp/a for /tmp/a/ws, where
// agents often clone), which the command may write as well, and which
// tools in the workspace, or in its siblings, walk up through (a
// /tmp/a/.cargo or /tmp/a/HEAD was left; TestAttackSharedTmpAncestors).
// None when the workspace is the temp dir itself.
func sharedTmpDirs(ws string) []string {
	return walkup.Dirs(sharedTmp, ws)
}

// appendWalkUp appends the walk-up names in dir to out.
func appendWalkUp(out []string, dir string) []string {
	for _, w := range walkup.Names {
		p := filepath.Join(dir, w.Name)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			// A directory already there when the run starts (your own
			// /tmp/node_modules, from work outside guard) is yours: not
			// protected, so not scanned before and after every run
			// either (a big one would cost every run, and one of more
			// than 100,000 entries would fail every run as flooded).
			continue
		}
		out = append(out, p)
	}
	return out
}

// envSecretFiles are the credential files the run's environment names
// (secretFiles) that the run hides besides its Hide list: regular files
// (and the directories of credentials the table names) outside the
// workspace ws and not already hidden. What the run reveals stays
// readable: a revealed path that holds the file, or the home location
// its variable stands in for (kubectl get, whose review revealed ~/.kube,
// reads the KUBECONFIG elsewhere). Revealing something else (guard's
// own policy, which every run reveals) hides them still.
func (s Spec) envSecretFiles(ws string) []string {
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	home := s.res.canonical(s.Home)
	var out []string
	for _, f := range secretFiles(env, s.Dir, s.Home) {
		if slices.ContainsFunc(s.Reveal, func(r string) bool {
			return paths.Within(f.Path, r) || slices.ContainsFunc(f.For, func(loc string) bool { return paths.Within(r, loc) || paths.Within(loc, r) })
		}) {
			continue
		}
		c := s.res.canonical(f.Path)
		fi, err := s.res.stat(c)
		if err != nil {
			continue
		}
		var hide []string
		switch {
		case fi.Mode().IsRegular():
			hide = []string{c}
		case !fi.IsDir() || !f.Dir:
		case len(f.Inside) > 0:
			for _, name := range f.Inside {
				if fi, err := s.res.stat(filepath.Join(c, name)); err == nil && fi.Mode().IsRegular() {
					hide = append(hide, filepath.Join(c, name))
				}
			}
		case !paths.Within(ws, c) && !paths.Within(home, c) && !paths.Within(s.res.canonical(s.Dir), c):
			// Never the directory the run works in, nor home.
			hide = []string{c}
		}
		for _, h := range hide {
			if paths.Within(h, ws) || slices.Contains(out, h) || slices.ContainsFunc(s.Reveal, func(r string) bool { return paths.Within(h, r) }) {
				continue
			}
			if slices.ContainsFunc(s.Hide, func(d string) bool { return paths.Within(f.Path, d) || paths.Within(h, d) }) {
				continue
			}
			out = append(out, h)
		}
	}
	return out
}

// canonical resolves symbolic links in p as far as p exists, so a path
// can be compared with the real directory tree the kernel checks.
func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "/" || dir == "" {
		return p
	}
	return filepath.Join(canonical(filepath.Clean(dir)), base)
}
