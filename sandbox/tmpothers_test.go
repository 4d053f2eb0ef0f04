package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSharedTmpOtherProgramsDirs pins a stated limit
// (docs/threat-model.md, the shared /tmp): the directories your own
// programs outside guard have in /tmp while a command runs (a go
// build's /tmp/go-build… work directory, which it links from) are
// writable to every writing run, by the same user. Weighed and left so:
// a view of /tmp of the run's own would lose what agents pass between
// commands there, and covering what was there when the run began fails
// every command that edits a file an earlier step left. The test is the
// other program: it makes the directory, the command rewrites a file in
// it, and the rewrite is there after the run.
func TestSharedTmpOtherProgramsDirs(t *testing.T) {
	f := newFixture(t)
	work, err := os.MkdirTemp("/tmp", "go-build")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	obj := filepath.Join(work, "b001", "_pkg_.a")
	if err := os.MkdirAll(filepath.Dir(obj), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj, []byte("compiled\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, f.spec(), "/bin/sh", "-c", `echo swapped > "$1"`, "sh", obj)
	mustSucceed(t, o)
	wantContent(t, obj, "swapped\n")
}
