package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// git refuses to add some names (".GIT" in any case, ".git." or "git~1",
// which name .git on other file systems): a file a command
// leaves under such a name is not in any checkpoint. It must not stop
// every later checkpoint (a command could so turn undo off), and a
// delete of a directory holding one is not covered (its bytes are in no
// tree).
func TestNamesGitRefuses(t *testing.T) {
	for _, name := range []string{".GIT", ".Git/x", ".git./x", "GIT~1", ".git /x"} {
		t.Run(name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			command(t, st, ws, "00000000000000f1", nil, func() {})
			bad := "src/sub/" + name
			cp := command(t, st, ws, "00000000000000f2", nil, func() {
				write(t, ws, map[string]string{bad: "left by a command\n", "README.md": "changed\n"})
			})
			if len(cp.Changes) != 1 || cp.Changes[0].Path != "README.md" {
				t.Errorf("changes = %v, want README.md modified", cp.Changes)
			}
			src := filepath.Join(ws, "src")
			sub := filepath.Join(src, "sub")
			cp = command(t, st, ws, "00000000000000f3", []Target{{Path: sub}, {Path: filepath.Join(ws, "README.md")}}, func() {
				os.RemoveAll(sub)
				os.Remove(filepath.Join(ws, "README.md"))
			})
			if len(cp.Covered) != 1 || cp.Covered[0] != filepath.Join(ws, "README.md") {
				t.Errorf("covered = %v, want README.md only", cp.Covered)
			}
		})
	}
}
