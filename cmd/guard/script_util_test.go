package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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

// fakeHome makes root/home and the workspace root/proj with dirs under
// it, points HOME, the XDG dirs and GUARD_TTY (no terminal) there, and
// changes into the workspace.
func fakeHome(t *testing.T, root string, dirs ...string) (home, ws string) {
	t.Helper()
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "proj")
	mk := []string{home, ws}
	for _, d := range dirs {
		mk = append(mk, filepath.Join(ws, d))
	}
	for _, d := range mk {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("GUARD_TTY", filepath.Join(root, "no-tty"))
	t.Chdir(ws)
	return home, ws
}
