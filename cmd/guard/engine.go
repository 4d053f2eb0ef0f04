package main

import (
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/dirs"
)

// The decision itself lives in package decision; these are its names in
// the CLI's wiring.
type (
	assessment    = decision.Assessment
	assessOptions = decision.Options
)

// guardDirs are guard's directories, resolved as the engine resolves
// them: without an absolute HOME every command that needs guard's config
// or state fails (exit 125); guard never guesses a relative directory.
func guardDirs() (dirs.Dirs, error) {
	e, err := newEngine()
	if err != nil {
		return dirs.Dirs{}, err
	}
	return e.Dirs(), nil
}

// newEngine is the decision engine on the real environment.
func newEngine() (*decision.Engine, error) { return decision.New(decision.OS()) }
