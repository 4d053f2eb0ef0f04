// Package rootdir opens the directories guard changes unconfined (the
// protected paths it restores, the workspace undo writes, checkpoint
// backups) as an os.Root, but only when the directory opened is the one
// named: a symlink a sandboxed command swapped in for it, or for a
// directory above it, is refused rather than followed. Below the root,
// os.Root resolves every name one component at a time and refuses a
// symlink that leads out of it.
package rootdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrMoved: the directory opened is not the one named (its real path is
// another).
var ErrMoved = errors.New("not the directory it was (a symlink on the way?)")

// Open opens dir (absolute, with symlinks resolved) as an os.Root, if
// the directory opened has that very real path.
func Open(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	d, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", d.Fd()))
	d.Close()
	if err != nil || real != filepath.Clean(dir) {
		root.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrMoved)
	}
	return root, nil
}
