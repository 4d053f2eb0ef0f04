// Command guard-sandbox-exec is guard's sandbox helper: guard starts it
// with a plan on a pipe, and it confines itself (Landlock, seccomp),
// starts the command and watches it, so that nothing the command starts
// outlives it or guard. It is a separate, small binary only because it
// starts faster than guard itself; without it guard re-executes itself.
// Install it next to guard: go install github.com/guard-sh/guard/cmd/...@latest
package main

import (
	"os"

	"github.com/guard-sh/guard/sandbox/confine"
)

// It imports package confine only, which is small on purpose: its start
// is on the path of every guarded command (go list -deps shows it).
func main() {
	confine.Main()
	os.Stderr.WriteString("guard-sandbox-exec: error: this is guard's sandbox helper; run guard instead\n")
	os.Exit(confine.CodeFailed)
}
