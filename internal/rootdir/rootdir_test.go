package rootdir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpen(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o600)

	root, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	// Below the root, a symlink out of it is refused.
	os.Symlink(outside, filepath.Join(dir, "link"))
	if _, err := root.Lstat("link/secret"); err == nil {
		t.Error("a name through a symlink out of the root resolved")
	}
	root.Close()

	// The directory itself swapped for a symlink: refused.
	os.Rename(dir, dir+".moved")
	os.Symlink(outside, dir)
	if root, err := Open(dir); !errors.Is(err, ErrMoved) {
		if root != nil {
			root.Close()
		}
		t.Errorf("Open through a swapped-in symlink = %v, want ErrMoved", err)
	}
	if _, err := Open(filepath.Join(base, "missing")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
}
