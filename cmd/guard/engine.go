package main

import (
	"os"
	"path/filepath"

	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/dirs"
	"github.com/guard-sh/guard/review"
)

// The decision itself lives in package decision; these are its names in
// the CLI's wiring.
type (
	assessment    = decision.Assessment
	assessOptions = decision.Options
)

// guardDirs resolves guard's directories from the environment. Without an
// absolute HOME every command that needs guard's config or state fails
// (exit 125): guard never guesses a relative state directory.
func guardDirs() (dirs.Dirs, error) {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return d, failf([]string{"set HOME to your home directory (an absolute path), then run guard again"}, "%v", err)
	}
	return d, nil
}

// newEngine is the decision engine on the real environment.
func newEngine() (*decision.Engine, error) {
	e, err := decision.New(decision.OS())
	if err != nil {
		return nil, err
	}
	return e, nil
}

// assess reviews text with a new engine (one command's worth of work).
func assess(text string, o assessOptions) (*assessment, error) {
	e, err := newEngine()
	if err != nil {
		return nil, err
	}
	return e.Assess(text, o)
}

// reviewText is the engine as scan's tests use it.
func reviewText(text, workspace, cwd string, prov string) (review.Verdict, error) {
	p, err := review.ParseProvenance(prov)
	if err != nil {
		return review.Verdict{}, err
	}
	a, err := assess(text, assessOptions{Cwd: cwd, Workspace: workspace, Provenance: p})
	if err != nil {
		return review.Verdict{}, err
	}
	return a.Verdict, nil
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
