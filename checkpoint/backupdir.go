package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/internal/rootdir"
	"golang.org/x/sys/unix"
)

// Hard-link backups live in guard's state directory or, on another file
// system, in the repository's git dir (.git/guard-checkpoints), which
// sandboxed commands can write (it is protected, but runs at once leave
// it to each other). guard makes and reads them unconfined, and links
// from the workspace, which other runs' commands may be changing at that
// moment: a directory swapped for a symlink on the way would have guard
// link a file from outside the workspace into a backup (and undo put it
// in the workspace), or write links elsewhere. So both sides go through
// os.Root: names are resolved one component at a time, never through a
// symlink that leads out of the directory opened.

// backupArea is where a checkpoint's backups are: the root opened on
// the directory that holds the backup root, and the name of BackupDir
// in it.
func (cp *Checkpoint) backupArea() (*os.Root, string, error) {
	// BackupDir is ROOT/ID/files, ROOT the state dir's checkpoints or
	// the git dir's guard-checkpoints.
	holder := filepath.Dir(filepath.Dir(filepath.Dir(cp.BackupDir)))
	rel, err := filepath.Rel(holder, cp.BackupDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, "", fmt.Errorf("bad backup dir %s", cp.BackupDir)
	}
	if !paths.Within(holder, cp.Workspace) {
		// guard's state dir, hidden from commands: its path may hold
		// the user's own symlinks (~/.local -> /data/local).
		if real, err := filepath.EvalSymlinks(holder); err == nil {
			holder = real
		}
	}
	root, err := rootdir.Open(holder)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}

// dirAt opens directory name in root (a descriptor for the *at calls).
func dirAt(root *os.Root, name string) (*os.File, error) {
	d, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := d.Stat(); err != nil || !st.IsDir() {
		d.Close()
		return nil, fmt.Errorf("%s: not a directory", name)
	}
	return d, nil
}

// linkAt hard-links from/name to to/name (both directory descriptors),
// never following a symlink.
func linkAt(from *os.File, name string, to *os.File) error {
	return unix.Linkat(int(from.Fd()), name, int(to.Fd()), name, 0)
}
