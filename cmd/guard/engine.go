package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// maxScriptRead bounds how much of a script guard reads to review it.
const maxScriptRead = 1 << 20

// assessOptions are the inputs of one review besides the text.
type assessOptions struct {
	cwd        string // "" = the current directory
	workspace  string // "" = git top-level of cwd, else cwd
	provenance review.Provenance
	minLevel   review.Level
	widenNet   bool
	widenWrite []string
	// recoverable: delete targets guard's checkpoint restores (coverDeletes).
	recoverable []string
}

// assessment is a review with everything it was computed from.
type assessment struct {
	text    string
	ctx     *profile.Context
	prof    *profile.Profile
	verdict review.Verdict // after policy
	input   review.Input

	// reviewed is the verdict before policy.
	reviewed review.Verdict
	// policy is the effective policy (builtin, user, project) applied.
	policy *policy.Policy
	// policyMatches are the rules that matched and how they moved the
	// level, in the order they were applied.
	policyMatches []policy.Match
	// policyWarnings are parts of the policy files that are ignored (a
	// project's allow rules and grants); the caller prints them.
	policyWarnings []policy.Warning
	// userAllowedB: review gave the line B and a user allow rule lowered
	// it to A. Only such a line runs in CI and in agents without a prompt.
	userAllowedB bool
	// keepEnv are variables user grants keep in the sandbox's environment
	// (sandbox.Spec.KeepEnv); netPorts the ports a grant asked for (the
	// sandbox cannot limit ports yet, so verdict.Sandbox.Net is on).
	keepEnv  []string
	netPorts []int
}

// assess runs parse → profile → review → policy on text. A policy file
// that cannot be used is an error (exit 125): never skipped.
func assess(text string, o assessOptions) (*assessment, error) {
	ctx, err := buildContext(o.cwd, o.workspace)
	if err != nil {
		return nil, err
	}
	pol, err := loadPolicy(ctx)
	if err != nil {
		return nil, err
	}
	return assessIn(text, ctx, pol, o), nil
}

// assessIn is assess with the context and policy already gathered, so
// guard scan builds them once per directory rather than per command. It
// does no I/O besides what ctx's ReadFile and EvalSymlinks do.
func assessIn(text string, ctx *profile.Context, pol *policy.Policy, o assessOptions) *assessment {
	if o.provenance == "" {
		o.provenance = review.ProvAgent
	}
	in := review.Input{Text: text, Context: ctx, Provenance: o.provenance, MinLevel: o.minLevel, WidenNet: o.widenNet, WidenWrite: o.widenWrite, Recoverable: o.recoverable}
	p := profile.Build(text, ctx)
	v := review.Assess(p, in)
	out := policy.Apply(pol, p, v, in)
	return &assessment{
		text: text, ctx: ctx, prof: p, verdict: out.Verdict, input: in,
		reviewed: v, policy: pol, policyMatches: out.Matches, policyWarnings: pol.Warnings(),
		userAllowedB: out.LoweredFromB, keepEnv: out.KeepEnv, netPorts: out.NetPorts,
	}
}

// policyFiles are the user's policy file and, when the context has a real
// workspace, the project's.
func policyFiles(ctx *profile.Context) (user, project string) {
	user = filepath.Join(ctx.ConfigDir, "policy.toml")
	if ws := ctx.Workspace; ws != "" && filepath.Clean(ws) != "/" && filepath.Clean(ws) != filepath.Clean(ctx.Home) {
		project = filepath.Join(ws, ".guard.toml")
	}
	return user, project
}

// policyCache holds loaded policies by file contents and context, so
// guard scan does not re-run every example for every snippet.
var policyCache struct {
	sync.Mutex
	m map[[sha256.Size]byte]*policy.Policy
}

// loadPolicy reads the user's and the project's policy files and loads
// them (parse, validate, run the examples). A missing file is no policy;
// anything wrong with one that exists is an error (exit 125).
func loadPolicy(ctx *profile.Context) (*policy.Policy, error) {
	user, project := policyFiles(ctx)
	var srcs []policy.Source
	for _, f := range []struct {
		path  string
		scope policy.Scope
	}{{user, policy.User}, {project, policy.Project}} {
		if f.path == "" {
			continue
		}
		src, err := readPolicySource(f.path, f.scope)
		if err != nil {
			return nil, err
		}
		if src != nil {
			srcs = append(srcs, *src)
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q\n", ctx.Cwd, ctx.Workspace, ctx.Home)
	for _, s := range srcs {
		fmt.Fprintf(h, "%q %d %d\n", s.Path, s.Scope, len(s.Data))
		h.Write(s.Data)
	}
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	policyCache.Lock()
	defer policyCache.Unlock()
	if p, ok := policyCache.m[key]; ok {
		return p, nil
	}
	p, err := policy.Load(ctx, srcs...)
	if err != nil {
		return nil, policyError(err, true)
	}
	if policyCache.m == nil || len(policyCache.m) > 32 {
		policyCache.m = map[[sha256.Size]byte]*policy.Policy{}
	}
	policyCache.m[key] = p
	return p, nil
}

// readPolicySource reads one policy file; nil when it does not exist.
// O_NONBLOCK keeps a FIFO planted as .guard.toml from hanging guard; it is
// then refused as not a regular file.
func readPolicySource(path string, scope policy.Scope) (*policy.Source, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	hint := []string{"make the policy file readable, or move it away to run without it"}
	if err != nil {
		return nil, failf(hint, "read policy %s: %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, failf(hint, "read policy %s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, failf(hint, "read policy %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, policy.MaxFileSize+1))
	if err != nil {
		return nil, failf(hint, "read policy %s: %v", path, err)
	}
	return &policy.Source{Path: path, Data: data, Scope: scope}, nil
}

// policyError turns a policy error into guard's voice: PATH:LINE:COL and
// hints (exit 125).
func policyError(err error, hintCheck bool) error {
	var pe *policy.Error
	if !errors.As(err, &pe) {
		return failf(nil, "policy: %v", err)
	}
	var hints []string
	if pe.Hint != "" {
		hints = append(hints, pe.Hint)
	}
	if hintCheck {
		hints = append(hints, "run 'guard policy check "+pe.Path+"' after editing; docs/policy.md describes every key")
	}
	return failf(hints, "%v", pe)
}

// reviewText is the engine as guard scan uses it.
func reviewText(text, workspace, cwd string, prov string) (review.Verdict, error) {
	p, err := review.ParseProvenance(prov)
	if err != nil {
		return review.Verdict{}, err
	}
	a, err := assess(text, assessOptions{cwd: cwd, workspace: workspace, provenance: p})
	if err != nil {
		return review.Verdict{}, err
	}
	return a.verdict, nil
}

// buildContext gathers the facts the profile may use: directories, the
// variables guard resolves, and access to scripts and symlinks.
func buildContext(cwd, workspace string) (*profile.Context, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, failf([]string{"run guard from a directory that exists"}, "cannot determine the current directory: %v", err)
		}
		cwd = wd
	}
	cwd = filepath.Clean(cwd)
	home := os.Getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	home = filepath.Clean(home)
	if workspace == "" {
		workspace = gitTopLevel(cwd)
		if workspace == "" {
			workspace = cwd
		}
	} else {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return nil, usagef("pass an existing directory to --workspace", "bad workspace %q: %v", workspace, err)
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return nil, usagef("pass an existing directory to --workspace", "workspace %s is not a directory", abs)
		}
		workspace = abs
	}
	if r, err := filepath.EvalSymlinks(workspace); err == nil {
		workspace = r
	}
	env := map[string]string{}
	for _, k := range []string{"TMPDIR", "USER", "LOGNAME", "SHELL"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	if _, ok := env["TMPDIR"]; !ok {
		env["TMPDIR"] = os.TempDir()
	}
	return &profile.Context{
		Cwd: cwd, Workspace: workspace, Home: home, User: env["USER"], Env: env,
		ConfigDir:    configDir(),
		StateDir:     stateDir(),
		ReadFile:     readLimited,
		EvalSymlinks: filepath.EvalSymlinks,
	}, nil
}

// gitTopLevel finds the repository root above dir without running git.
func gitTopLevel(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// configDir is guard's config directory: $XDG_CONFIG_HOME/guard, else
// ~/.config/guard.
func configDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "guard")
	}
	return filepath.Join(os.Getenv("HOME"), ".config", "guard")
}

// stateDir is guard's state directory: $XDG_STATE_HOME/guard, else
// ~/.local/state/guard.
func stateDir() string {
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "guard")
	}
	return filepath.Join(os.Getenv("HOME"), ".local", "state", "guard")
}

func readLimited(p string) ([]byte, error) {
	// O_NONBLOCK: a FIFO named as a script must not hang the review; it is
	// refused below as not a regular file (and reviewed as unreadable).
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return io.ReadAll(io.LimitReader(f, maxScriptRead))
}
