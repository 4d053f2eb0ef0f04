// Command guard reviews shell commands before they run and runs the approved
// ones under a Landlock sandbox derived from what they were reviewed to do.
package main

import (
	"io"
	"os"

	// Its init makes, for a run, the check the helper's start needs.
	_ "github.com/guard-sh/guard/internal/forkcheck"
	"github.com/guard-sh/guard/sandbox"
)

func main() {
	// In the sandbox helper (guard re-executed by sandbox.Run) this
	// confines the process and execs the command; it never returns.
	sandbox.ChildMain()
	growStack(false)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// stackPad is the frame growStack asks for: the goroutine's stack grows
// from 8 KiB to 64 KiB in one step, more than a decision of the bench's
// commands (parse, profile, review) reaches.
const stackPad = 32 << 10

// growStack, called with false, grows the calling goroutine's stack once,
// before a decision, to what the decision will need: Go starts a
// goroutine with 8 KiB and doubles it when a call does not fit, copying
// the stack each time, and every copy faults in fresh pages and reads
// the unwinding tables of every frame on it (about 40 page faults of a
// hook call, measured with perf; 60-80 µs of a 3 ms process). Growing it
// here copies one shallow stack; the pages of the new one are faulted
// only as they are used. It touches nothing (the frame is reserved, not
// written) and changes no behaviour; touch exists so the compiler keeps
// the frame.
//
//go:noinline
func growStack(touch bool) byte {
	if touch {
		var pad [stackPad]byte
		for i := range pad {
			pad[i] = byte(i)
		}
		return pad[stackPad/2]
	}
	return 0
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
