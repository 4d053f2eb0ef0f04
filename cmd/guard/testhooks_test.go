package main

import (
	"os"
	"time"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/checkpoint"
	"github.com/guard-sh/guard/internal/dirs"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Test-only seams. They exist in the test binary (and the guard that
// testscript runs from it), never in the shipped one: the shipped guard
// opens /dev/tty and reads no switch that changes what it does.
const (
	// envTTY names the terminal device prompts open instead of /dev/tty;
	// tests point it at a pseudo-terminal.
	envTTY = "GUARD_TTY"
	// envHookTestPanic makes the hook panic after reading its input, to
	// prove that an internal error is a deny.
	envHookTestPanic = "GUARD_HOOK_TEST_PANIC"
	// envKeepTypeAhead keeps input typed before a prompt: testscript's
	// ttyin writes every answer at once, before the first question.
	envKeepTypeAhead = "GUARD_TEST_KEEP_TYPEAHEAD"
	// envGitTimeout shortens the time guard gives each git it runs
	// (checkpoint.GitTimeout): scripts that stall git wait less.
	envGitTimeout = "GUARD_TEST_GIT_TIMEOUT"
)

func init() {
	ttyPath = func() string {
		if v := os.Getenv(envTTY); v != "" {
			return v
		}
		return "/dev/tty"
	}
	if os.Getenv(envKeepTypeAhead) != "" {
		flushTypeAhead = false
	}
	if d, err := time.ParseDuration(os.Getenv(envGitTimeout)); err == nil {
		checkpoint.GitTimeout = d
	}
	hookTestHook = func() {
		if os.Getenv(envHookTestPanic) != "" {
			panic("forced by " + envHookTestPanic)
		}
	}
}

// approvalsDir is the queue of the test's environment.
func approvalsDir() string {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		panic(err)
	}
	return d.Approvals()
}

// configDir and stateDir are guard's directories in the test's
// environment.
func configDir() string { return testDirs().Config }
func stateDir() string  { return testDirs().State }

func testDirs() dirs.Dirs {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		panic(err)
	}
	return d
}

// buildContext is the engine's context in the test's environment.
func buildContext(cwd, workspace string) (*profile.Context, error) {
	e, err := newEngine()
	if err != nil {
		return nil, err
	}
	return e.Context(cwd, workspace)
}

// queueApproval queues req in the test's environment and announces it as
// the run path does.
func queueApproval(s *streams, req approval.Request, notify approval.Notifications) error {
	id, err := approval.Add(approvalsDir(), req)
	if err != nil {
		return err
	}
	req.ID = id
	announceQueued(s, req, notify)
	return nil
}

// assess reviews text with a new engine in the test's environment.
func assess(text string, o assessOptions) (*assessment, error) {
	e, err := newEngine()
	if err != nil {
		return nil, err
	}
	return e.Assess(text, o)
}

// reviewText is the verdict 'guard check --provenance PROV' gives.
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
