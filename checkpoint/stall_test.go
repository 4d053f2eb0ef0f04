package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFIFOsDoNotStall: a command leaves FIFOs where guard, or the git it
// runs unconfined after the command, opens a file (.gitignore files,
// .gitattributes, info/exclude, the index, a directory it read before).
// An open(2) of a FIFO waits for a writer, and the command is gone:
// without a bound, Finish waited forever (guard hung after the run, no
// "ran" record). Finish must return, with the timeout as its error or a
// checkpoint, never hang; a hang fails the test by go test's timeout.
func TestFIFOsDoNotStall(t *testing.T) {
	old := GitTimeout
	GitTimeout = 2 * time.Second
	t.Cleanup(func() { GitTimeout = old })
	for _, where := range []string{".gitignore", "src/.gitignore", ".gitattributes", ".git/info/exclude", ".git/index", "src/sub"} {
		t.Run(where, func(t *testing.T) {
			stateDir := env(t)
			ws := newRepo(t)
			cp, err := Begin(Options{StateDir: stateDir, Workspace: ws, ID: "f1f0f1f0f1f0f1f0", Command: "test", Time: t0, Budget: DefaultBudget})
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(ws, filepath.FromSlash(where))
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			write(t, ws, map[string]string{"new.txt": "x\n"})
			_, err = cp.Finish(stateDir)
			if err != nil && !errors.Is(err, errGitTimeout) {
				t.Logf("Finish: %v (an error other than the timeout is fine: it did not hang)", err)
			}
			// The next command's checkpoint does not hang either.
			if cp2, err := Begin(Options{StateDir: stateDir, Workspace: ws, ID: "f2f0f1f0f1f0f1f0", Command: "test", Time: t0, Budget: DefaultBudget}); err == nil {
				cp2.Discard(stateDir)
			}
		})
	}
}
