package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteTemp: the file holds the data, is 0600 and lies in dir; a dir
// that does not exist is an error and leaves nothing.
func TestWriteTemp(t *testing.T) {
	dir := t.TempDir()
	tmp, err := WriteTemp(dir, ".tmp-*", []byte("data\n"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(tmp) != dir {
		t.Errorf("WriteTemp made %s, not in %s", tmp, dir)
	}
	st, err := os.Stat(tmp)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat %s: %v, mode %v; want 0600", tmp, err, st.Mode())
	}
	if b, _ := os.ReadFile(tmp); string(b) != "data\n" {
		t.Errorf("WriteTemp wrote %q", b)
	}
	if _, err := WriteTemp(filepath.Join(dir, "missing"), ".tmp-*", []byte("x")); err == nil {
		t.Error("WriteTemp into a missing directory: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries, want the one temp file", len(ents))
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(reg, 5); err != nil || string(b) != "hello" {
		t.Errorf("Read(regular, 5) = %q, %v", b, err)
	}
	if _, err := Read(reg, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(regular, 4) = %v, want ErrTooLarge", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(missing) = %v, want ErrNotExist", err)
	}
	// A FIFO with no writer would block a plain open forever.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(fifo) = %v, want ErrNotRegular", err)
	}
	// A symlink to an endless device is refused, not read.
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(zero, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(-> /dev/zero) = %v, want ErrNotRegular", err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(dir) = %v, want ErrNotRegular", err)
	}
	// A sparse file larger than the limit is refused by its size, before
	// any of it is read.
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	if _, err := Read(sparse, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(1 TiB sparse) = %v, want ErrTooLarge", err)
	}
}
