package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttackWorkspaceRenamed: a workspace below the shared temp dir (an
// agent's clone in /tmp/a/ws) has a parent the command may write. The
// command moves the workspace away, or a directory above it, and puts a
// repository of its own at the workspace's name, with a hook: guard's
// check of the protected paths, made through the directories it opened
// before the run, finds the user's repository unchanged where it went,
// and the next git at the workspace's path (the user's, an editor's,
// guard's own checkpoint) is in the planted one.
func TestAttackWorkspaceRenamed(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	for _, c := range []struct{ name, move string }{
		{"the workspace", `mv "$1/a/ws" "$1/a/ws-real"`},
		{"its parent", `mv "$1/a" "$1/a-real"`},
		// renameat2(RENAME_EXCHANGE) of the workspace and a tree of the
		// command's: one call, nothing at the name in between.
		{"exchanged", `mkdir -p "$1/a/fake" && python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.renameat2(AT_FDCWD, sys.argv[1].encode(), AT_FDCWD, sys.argv[2].encode(), RENAME_EXCHANGE) != 0:
    sys.exit(1)' "$1/a/fake" "$1/a/ws" && rm -rf "$1/a/ws/.git" "$1/a/ws/main.go"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer emptyDir(t, tmp)
			ws := filepath.Join(tmp, "a", "ws")
			if err := os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			spec.Workspace, spec.Dir = ws, ws
			spec.Protect = []string{filepath.Join(ws, ".git/hooks"), filepath.Join(ws, ".git/config")}
			plant := c.move + ` && mkdir -p "$1/a/ws/.git/hooks" && printf '#!/bin/sh\necho pwned\n' > "$1/a/ws/.git/hooks/pre-commit" && echo moved`
			o := run(t, spec, "sh", "-c", plant, "sh", tmp)
			if _, err := os.Lstat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil {
				t.Errorf("a hook is planted at the workspace's path after the run (violations %v): %v", o.res.Violations, o)
			}
			if got := readFile(t, filepath.Join(ws, "main.go")); got != "package main\n" {
				t.Errorf("the workspace's path holds another tree after the run (main.go %q): %v", got, o)
			}
			if o.stdout == "moved\n" {
				t.Errorf("the move succeeded: %v", o)
			}
			mustFail(t, o)
		})
	}
	t.Run("control: files move in and out, and the parent is writable", func(t *testing.T) {
		defer emptyDir(t, tmp)
		ws := filepath.Join(tmp, "a", "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "out.txt"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec.Workspace, spec.Dir = ws, ws
		spec.Protect = nil
		mustSucceed(t, run(t, spec, "sh", "-c", `mv out.txt "$1/out.txt" && echo y > "$1/a/notes" && mv "$1/a/notes" in.txt && mkdir d && rmdir d`, "sh", tmp))
		wantContent(t, filepath.Join(tmp, "out.txt"), "x\n")
		wantContent(t, filepath.Join(ws, "in.txt"), "y\n")
	})
}
