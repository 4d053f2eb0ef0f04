package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrStoreLink: a directory guard's git writes into (objects, a loose
// object directory, objects/pack, refs, refs/guard and those below it)
// is not a directory of the repository but a symlink (or a file). git
// follows it: a command that swapped .git/refs for a link to a directory
// outside the workspace had guard's own git, which runs unconfined after
// the command, create refs/guard/checkpoints/ID/before there.
var ErrStoreLink = errors.New("a directory git writes checkpoints into is not a directory of the repository")

// ErrRepoMoved: the command moved the repository (its .git became a
// gitdir: file, or a commondir file names another common directory)
// between Begin and Finish. guard's git does not follow it: no
// checkpoint, and, like ErrStoreLink, a violation of the run.
var ErrRepoMoved = errors.New("the repository moved during the command")

// realStore checks that every directory guard's git writes into in r is
// a real directory (or absent: git then makes it in its parent, which is
// one). It runs before each snapshot and ref deletion; the sandbox has
// ended the command and everything it started by then.
func (r *repo) realStore() error {
	common := r.commonDir()
	objects := filepath.Join(common, "objects")
	refs := filepath.Join(common, "refs")
	guard := filepath.Join(refs, "guard")
	// Parents before children: an absent parent ends the walk down.
	for _, d := range []string{r.gitDir, common, objects, filepath.Join(objects, "pack"), refs, guard} {
		if err := realDir(d); err != nil {
			return err
		}
	}
	// packed-refs, which git rewrites when it deletes a packed ref of
	// guard's, through its lock file and a rename unless it is a link.
	if st, err := os.Lstat(filepath.Join(common, "packed-refs")); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is a %s", ErrStoreLink, filepath.Join(common, "packed-refs"), kindName(st.Mode()))
	}
	// What git makes below them on its own: loose object directories,
	// a directory per checkpoint and per index under refs/guard, and
	// the reflogs of guard's refs, which git appends to when they exist
	// (core.logAllRefUpdates=false only stops it making them).
	logs := filepath.Join(common, "logs", "refs", "guard")
	for _, d := range []string{filepath.Join(common, "logs"), filepath.Join(common, "logs", "refs"), logs} {
		if err := realDir(d); err != nil {
			return err
		}
	}
	for _, d := range []string{objects, filepath.Join(guard, "checkpoints"), filepath.Join(guard, "index"), filepath.Join(logs, "checkpoints"), filepath.Join(logs, "index")} {
		if err := realDir(d); err != nil {
			return err
		}
		ents, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %v", ErrStoreLink, err)
		}
		for _, e := range ents {
			if e.Type()&fs.ModeSymlink != 0 {
				return fmt.Errorf("%w: %s is a symlink", ErrStoreLink, filepath.Join(d, e.Name()))
			}
		}
	}
	return nil
}

// realDir reports an error unless p is a directory (not through a
// symlink at p) or absent.
func realDir(p string) error {
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%w: %v", ErrStoreLink, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is a %s", ErrStoreLink, p, kindName(st.Mode()))
	}
	return nil
}

func kindName(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "symlink"
	}
	return "file, not a directory"
}
