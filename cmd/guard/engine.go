package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

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
}

// assessment is a review with everything it was computed from.
type assessment struct {
	text    string
	ctx     *profile.Context
	prof    *profile.Profile
	verdict review.Verdict
	input   review.Input
}

// assess runs parse → profile → review on text.
func assess(text string, o assessOptions) (*assessment, error) {
	ctx, err := buildContext(o.cwd, o.workspace)
	if err != nil {
		return nil, err
	}
	if o.provenance == "" {
		o.provenance = review.ProvAgent
	}
	in := review.Input{Text: text, Context: ctx, Provenance: o.provenance, MinLevel: o.minLevel, WidenNet: o.widenNet, WidenWrite: o.widenWrite}
	p := profile.Build(text, ctx)
	return &assessment{text: text, ctx: ctx, prof: p, verdict: review.Assess(p, in), input: in}, nil
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
	f, err := os.Open(p)
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
