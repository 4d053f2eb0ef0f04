package decision

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/guard-sh/guard/internal/dirs"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
)

// MaxScriptRead bounds how much of a script (or package.json, Makefile)
// guard reads to review it; a longer one is reviewed as unreadable.
const MaxScriptRead = 1 << 20

// Env is everything a decision reads from the outside world. OS() is the
// real one; tests pass fakes.
type Env struct {
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
	// ReadFile reads a file guard trusts for a decision, non-blocking,
	// regular files only, at most limit bytes (safefile.Read).
	ReadFile func(path string, limit int64) ([]byte, error)
	// EvalSymlinks resolves symlinks in an absolute path.
	EvalSymlinks func(string) (string, error)
	// Readlink reads one symlink (a link whose target does not exist).
	Readlink func(string) (string, error)
	// Stat is os.Stat (workspace checks, the git top-level).
	Stat func(string) (fs.FileInfo, error)
	// Links is how many names (hard links) the regular file at a path
	// has, 0 when it is not one (file tools' writes, JudgePath).
	Links func(string) int
}

// links is Env.Links on the real file system.
func links(p string) int {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}

// OS is the real environment.
func OS() Env {
	return Env{
		Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now,
		ReadFile: safefile.Read, EvalSymlinks: filepath.EvalSymlinks, Readlink: os.Readlink, Stat: os.Stat, Links: links,
	}
}

// Engine decides. It is safe for concurrent use (guard scan reviews many
// snippets at once); it caches loaded policies by file contents.
type Engine struct {
	env  Env
	dirs dirs.Dirs

	mu       sync.Mutex
	policies map[[sha256.Size]byte]*policy.Policy
}

// New resolves guard's directories from env and returns an engine. Without
// an absolute HOME it fails: guard never decides against a guessed home.
func New(env Env) (*Engine, error) {
	d, err := dirs.Resolve(env.Getenv)
	if err != nil {
		return nil, &Error{Err: err, Hints: []string{"set HOME to your home directory (an absolute path)"}}
	}
	return &Engine{env: env, dirs: d}, nil
}

// Dirs are the engine's resolved directories.
func (e *Engine) Dirs() dirs.Dirs { return e.dirs }

// Env is the engine's environment.
func (e *Engine) Env() Env { return e.env }

// Error is a failure with hints for the user: a policy or config file that
// cannot be used, a directory that is not one. The caller prints it and
// exits 125.
type Error struct {
	Err   error
	Hints []string
}

func (e *Error) Error() string       { return e.Err.Error() }
func (e *Error) Unwrap() error       { return e.Err }
func (e *Error) HintLines() []string { return e.Hints }

func errorf(hints []string, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Hints: hints}
}

// Context gathers the facts the profile may use for a command run in cwd
// ("" = the current directory) with the given workspace ("" = the git
// top-level of cwd, else cwd). The result is the caller's: Build never
// writes to it.
func (e *Engine) Context(cwd, workspace string) (*profile.Context, error) {
	if cwd == "" {
		wd, err := e.env.Getwd()
		if err != nil {
			return nil, errorf([]string{"run guard from a directory that exists"}, "cannot determine the current directory: %v", err)
		}
		cwd = wd
	}
	if !filepath.IsAbs(cwd) {
		return nil, errorf([]string{"pass an absolute directory"}, "directory %q is not absolute", cwd)
	}
	cwd = filepath.Clean(cwd)
	if workspace == "" {
		workspace = e.gitTopLevel(cwd)
		if workspace == "" {
			workspace = cwd
		}
	} else {
		if !filepath.IsAbs(workspace) {
			workspace = filepath.Join(cwd, workspace)
		}
		st, err := e.env.Stat(workspace)
		if err != nil || !st.IsDir() {
			return nil, errorf([]string{"pass an existing directory to --workspace"}, "workspace %s is not a directory", workspace)
		}
		workspace = filepath.Clean(workspace)
	}
	if r, err := e.env.EvalSymlinks(workspace); err == nil {
		workspace = r
	}
	env := map[string]string{}
	for _, k := range []string{"TMPDIR", "USER", "LOGNAME", "SHELL"} {
		if v := e.env.Getenv(k); v != "" {
			env[k] = v
		}
	}
	if env["TMPDIR"] == "" {
		env["TMPDIR"] = "/tmp"
	}
	read := e.env.ReadFile
	return &profile.Context{
		Cwd: cwd, Workspace: workspace, Home: e.dirs.Home, User: env["USER"], Env: env,
		ConfigDir: e.dirs.Config, StateDir: e.dirs.State,
		ReadFile:     func(p string) ([]byte, error) { return read(p, MaxScriptRead) },
		EvalSymlinks: e.env.EvalSymlinks,
		Readlink:     e.env.Readlink,
		Links:        e.env.Links,
	}, nil
}

// gitTopLevel finds the repository root above dir without running git.
func (e *Engine) gitTopLevel(dir string) string { return GitTopLevel(e.env.Stat, dir) }

// GitTopLevel is the nearest directory at or above dir that holds a .git
// entry, "" when there is none; stat is os.Stat outside tests. It runs no
// git (a repository's config must not run code while guard decides).
func GitTopLevel(stat func(string) (fs.FileInfo, error), dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// PolicyFiles are the user's policy file and, when the context has a real
// workspace, the project's.
func (e *Engine) PolicyFiles(ctx *profile.Context) (user, project string) {
	user = e.dirs.UserPolicy()
	if ctx.WorkspaceUsable() {
		project = filepath.Join(ctx.Workspace, ".guard.toml")
	}
	return user, project
}

// Policy reads the user's and the project's policy files and loads them
// (parse, validate, run the examples). A missing file is no policy;
// anything wrong with one that exists is an error: never skipped.
func (e *Engine) Policy(ctx *profile.Context) (*policy.Policy, error) {
	user, project := e.PolicyFiles(ctx)
	var srcs []policy.Source
	for _, f := range []struct {
		path  string
		scope policy.Scope
	}{{user, policy.User}, {project, policy.Project}} {
		if f.path == "" {
			continue
		}
		data, err := e.env.ReadFile(f.path, policy.MaxFileSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errorf([]string{"make the policy file a readable regular file, or move it away to run without it"}, "read policy: %w", err)
		}
		srcs = append(srcs, policy.Source{Path: f.path, Data: data, Scope: f.scope})
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q\n", ctx.Cwd, ctx.Workspace, ctx.Home)
	for _, s := range srcs {
		fmt.Fprintf(h, "%q %d %d\n", s.Path, s.Scope, len(s.Data))
		h.Write(s.Data)
	}
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.policies[key]; ok {
		return p.At(e.env.Now(), ctx.Workspace), nil
	}
	p, err := policy.Load(ctx, srcs...)
	if err != nil {
		return nil, PolicyError(err, true)
	}
	if e.policies == nil || len(e.policies) > 32 {
		e.policies = map[[sha256.Size]byte]*policy.Policy{}
	}
	e.policies[key] = p
	// Standing grants apply only in their workspace, until they expire.
	return p.At(e.env.Now(), ctx.Workspace), nil
}

// PolicyError puts a policy error in guard's voice: PATH:LINE:COL and
// hints.
func PolicyError(err error, hintCheck bool) error {
	var pe *policy.Error
	if !errors.As(err, &pe) {
		return errorf(nil, "policy: %v", err)
	}
	var hints []string
	if pe.Hint != "" {
		hints = append(hints, pe.Hint)
	}
	if hintCheck {
		hints = append(hints, "run 'guard policy check "+pe.Path+"' after editing; 'guard help policy' describes every key")
	}
	return &Error{Err: pe, Hints: hints}
}
