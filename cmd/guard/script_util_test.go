package main

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/sandbox"
)

// exitStatusOf extracts the exit status from an error of ts.Exec.
func exitStatusOf(err error) (int, bool) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), true
	}
	// testscript wraps the status in its message for some paths.
	msg := err.Error()
	if i := strings.LastIndex(msg, "exit status "); i >= 0 {
		n, convErr := strconv.Atoi(strings.TrimSpace(msg[i+len("exit status "):]))
		return n, convErr == nil
	}
	return 0, false
}

// landlockABI is the kernel's usable Landlock ABI version (0 = none), as
// the sandbox itself probes it.
func landlockABI() int {
	return sandbox.Probe().ABI
}
