package confine

import (
	"io/fs"
	"os"
	"strings"
)

// RemoveTree removes the tree at the absolute path p, one the command
// may have made unreadable or read-only. Its modes are put back through
// p's parent opened as an os.Root: the private temp dir lies in the
// shared /tmp, where a command of another run, still running, could
// swap a directory of the tree for a symlink between the walk and the
// chmod, and guard (unconfined) would change the mode of what it points
// to. The helper (confined, once guard is gone) removes the same tree
// the same way.
func RemoveTree(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	i := strings.LastIndexByte(p, '/')
	parent := p[:i]
	if parent == "" {
		parent = "/"
	}
	root, err := os.OpenRoot(parent)
	if err != nil {
		return err
	}
	defer root.Close()
	return RemoveAllIn(root, p[i+1:])
}

// RemoveAllIn removes the tree name in root, one the command may have
// made unreadable or read-only.
func RemoveAllIn(root *os.Root, name string) error {
	if err := root.RemoveAll(name); err == nil {
		return nil
	}
	root.Chmod(name, 0o700)
	fs.WalkDir(root.FS(), name, func(q string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			root.Chmod(q, 0o700)
		}
		return nil
	})
	return root.RemoveAll(name)
}
