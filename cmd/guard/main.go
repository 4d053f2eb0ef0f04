// Command guard reviews shell commands before they run and runs the approved
// ones under a Landlock sandbox derived from what they were reviewed to do.
package main

import (
	"io"
	"os"

	"github.com/guard-sh/guard/sandbox"
)

func main() {
	// In the sandbox helper (guard re-executed by sandbox.Run) this
	// confines the process and execs the command; it never returns.
	sandbox.ChildMain()
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes follow the coreutils wrapper convention (env, timeout, nice).
const (
	exitOK = 0
	// exitGuardFailed: guard itself failed (usage, bad policy, internal error).
	exitGuardFailed = 125
	// exitNotRun: the command was not run (denied, not approved, pending).
	exitNotRun = 126
	// exitNotFound: the command to run was not found.
	exitNotFound = 127
)

// Exit codes of `guard check` (and scan thresholds): the level itself.
const (
	exitCheckA      = 0
	exitCheckB      = 1
	exitCheckC      = 2
	exitCheckDenied = 3
)

// streams is what a subcommand may print to: stdout for machine output and
// the child's output only, stderr for everything said to people.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}
