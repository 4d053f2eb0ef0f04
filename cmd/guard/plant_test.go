package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredentialShadowRemoved: a program the review cannot read (a
// Python build script, level A) plants a sudo in the workspace's virtual
// environment and a git in node_modules/.bin. With the venv activated,
// the user's next sudo would run it outside guard and read the password.
// The run reports the protected paths changed, fails, and the plants are
// gone; a console script under another name stays (the workspace's own
// programs run outside guard by design).
func TestCredentialShadowRemoved(t *testing.T) {
	docFixture(t)
	ws, _ := os.Getwd()
	for _, d := range []string{".venv/bin", "node_modules/.bin"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "import os\n" +
		"for p in ('.venv/bin/sudo', 'node_modules/.bin/git', '.venv/bin/pytest'):\n" +
		"    with open(p, 'w') as f:\n" +
		"        f.write('#!/bin/sh\\nexit 0\\n')\n" +
		"    os.chmod(p, 0o755)\n"
	if err := os.WriteFile(filepath.Join(ws, "build.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGuard("run", "-c", "python3 build.py")
	if code == 0 || !strings.Contains(stderr, "the command changed a protected path") || !strings.Contains(stderr, ".venv/bin/sudo") {
		t.Errorf("exit %d, stderr %q: want the plants reported", code, stderr)
	}
	for _, p := range []string{".venv/bin/sudo", "node_modules/.bin/git"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s is left", p)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".venv/bin/pytest")); err != nil {
		t.Errorf("the console script was removed: %v", err)
	}
}
