package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// exitError carries an exit code and the hints to print after the error.
// Every failure reaches the user as `guard: error: …` plus `guard: hint: …`
// lines; silent is set when the message was already printed (denied,
// pending) and only the exit code is left to apply.
type exitError struct {
	code   int
	err    error
	hints  []string
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// failf is a guard failure (exit 125) with hints.
func failf(hints []string, format string, args ...any) error {
	return &exitError{code: exitGuardFailed, err: fmt.Errorf(format, args...), hints: hints}
}

// usagef is a usage error (exit 125) with hints.
func usagef(hint string, format string, args ...any) error {
	var hints []string
	if hint != "" {
		hints = []string{hint}
	}
	return &exitError{code: exitGuardFailed, err: fmt.Errorf(format, args...), hints: hints}
}

// exitCode is an outcome that is not an error to report: a child's status or
// a check level. The message, if any, was printed already.
func exitCode(code int) error {
	return &exitError{code: code, err: fmt.Errorf("exit %d", code), silent: true}
}

// errorHints are the hints err carries: an exitError's, or those of a
// library error with HintLines (decision.Error); nil when none.
func errorHints(err error) []string {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.hints
	}
	var h interface{ HintLines() []string }
	if errors.As(err, &h) {
		return h.HintLines()
	}
	return nil
}

// defaultHint is the hint for a failure that brought none of its own:
// where to look, from what the error is about.
func defaultHint(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "check the permissions of the file named above ('guard doctor' checks guard's own files)"
	case errors.Is(err, fs.ErrNotExist):
		return "check that the path named above exists"
	}
	return "'guard doctor' checks guard's setup and files; 'guard help' shows usage"
}

// report prints err in guard's voice and returns the exit code for it.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.silent {
			fmt.Fprintf(stderr, "guard: error: %s\n", printable(ee.err.Error(), true))
			hints := ee.hints
			if len(hints) == 0 {
				hints = errorHints(ee.err)
			}
			if len(hints) == 0 && ee.code == exitGuardFailed {
				// guard failed: never an error without a next step. (A
				// refusal or a cancel is an answer, not a failure.)
				hints = []string{defaultHint(ee.err)}
			}
			for _, h := range hints {
				fmt.Fprintf(stderr, "guard: hint: %s\n", printable(h, true))
			}
		}
		return ee.code
	}
	var he interface{ HintLines() []string }
	if errors.As(err, &he) {
		// A library's failure with hints (decision.Error): guard failed.
		fmt.Fprintf(stderr, "guard: error: %s\n", printable(err.Error(), true))
		for _, h := range he.HintLines() {
			fmt.Fprintf(stderr, "guard: hint: %s\n", printable(h, true))
		}
		return exitGuardFailed
	}
	// cobra's own errors: unknown flags, wrong argument counts.
	fmt.Fprintf(stderr, "guard: error: %s\n", printable(err.Error(), true))
	fmt.Fprintf(stderr, "guard: hint: run 'guard help' for usage\n")
	return exitGuardFailed
}
