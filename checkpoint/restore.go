package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// Undo writes the files it restores from git itself, from the blobs of
// the before tree, each checked against its id as it is read (verify.go)
// and written through the workspace as an os.Root. git checkout-index
// followed no symlink of the workspace only for the last name, and
// created files with 0666 less the umask (a key came back readable by
// all until undo set its mode). Each file is written under a temporary name
// with its final permissions, then renamed into place: never readable
// by others on the way, and never half written.

// restore writes paths (workspace-relative) as tree holds them into the
// workspace root, regular files with the permissions modes gives (else
// 0644 or 0755, as git would). A file whose attributes convert it (a
// filter such as Git LFS, line endings: convert.go) is never covered
// for a delete; when undo restores one (a modification), git converts
// its blob for its path (cat-file --filters), as checkout would.
//
// raw are the files written as their blobs whatever the attributes say
// now: the files under a covered delete target, which Begin found git
// stores as they are (a .gitattributes a later command wrote, eol=crlf,
// ident or a filter of the user's, would otherwise change the bytes
// that come back: TestUndoIgnoresLaterAttributes).
func (r *repo) restore(root *os.Root, tree string, paths []string, modes map[string]fs.FileMode, raw map[string]bool) error {
	v, done, err := r.verifier()
	if err != nil {
		return err
	}
	defer done()
	entries := make([]treeEntry, len(paths))
	var files []string
	for i, p := range paths {
		if entries[i], err = v.entry(tree, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if (entries[i].mode == "100644" || entries[i].mode == "100755") && !raw[p] {
			files = append(files, p)
		}
	}
	conv, err := r.converted(files)
	if err != nil {
		return err
	}
	for i, p := range paths {
		e := entries[i]
		fill := func(w io.Writer) error {
			_, err := v.object(e.oid, "blob", w)
			return err
		}
		if conv[p] {
			fill = func(w io.Writer) error {
				// The blob is checked as every other is, then git
				// converts it for its path.
				if _, err := v.object(e.oid, "blob", nil); err != nil {
					return err
				}
				out, err := r.git("", nil, nil, "cat-file", "--filters", "--path="+p, e.oid)
				if err == nil {
					_, err = w.Write(out)
				}
				return err
			}
		}
		if err := writeEntry(root, p, e, modes, fill); err != nil {
			return fmt.Errorf("restore %s: %w", p, err)
		}
	}
	return nil
}

// writeEntry writes tree entry e at rel, its content from fill.
func writeEntry(root *os.Root, rel string, e treeEntry, modes map[string]fs.FileMode, fill func(io.Writer) error) error {
	name := filepath.FromSlash(rel)
	if d := filepath.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if e.mode == "160000" {
		// A submodule: an empty directory, as git checks it out; a
		// file in its place is not one.
		err := root.Mkdir(name, 0o755)
		if errors.Is(err, fs.ErrExist) {
			if st, serr := root.Lstat(name); serr != nil || !st.IsDir() {
				return fmt.Errorf("%s is in the way of a submodule's directory", rel)
			}
			return nil
		}
		return err
	}
	if e.mode != "100644" && e.mode != "100755" && e.mode != "120000" {
		return fmt.Errorf("%w: mode %s", ErrObjects, e.mode)
	}
	// A short name: the file's own may be as long as a name can be.
	tmp := filepath.Join(filepath.Dir(name), ".guard-undo-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tmpSeq.Add(1), 10))
	root.Remove(tmp)
	if e.mode == "120000" {
		var b bytesBuffer
		if err := fill(&b); err != nil {
			return err
		}
		if err := root.Symlink(string(b), tmp); err != nil {
			return err
		}
		return renameOver(root, tmp, name)
	}
	// Without a recorded mode, what git would give a new file: 0666 or
	// 0777 less the umask (OpenFile applies it), never more.
	perm := fs.FileMode(0o666)
	if e.mode == "100755" {
		perm = 0o777
	}
	m, recorded := modes[rel]
	if recorded {
		perm = m &^ 0o111
		if e.mode == "100755" {
			perm |= (perm & 0o444) >> 2
		}
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && recorded {
		err = root.Chmod(tmp, perm) // the umask took away bits the file had
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	return renameOver(root, tmp, name)
}

// tmpSeq numbers undo's temporary files.
var tmpSeq atomic.Uint64

// renameOver moves tmp to name in root, and removes tmp if it cannot.
func renameOver(root *os.Root, tmp, name string) error {
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// entry is the entry of tree root at p, each tree on the way checked.
func (v *verifier) entry(root, p string) (treeEntry, error) {
	var e treeEntry
	err := v.walk(root, p, func(last treeEntry) error {
		e = last
		return nil
	})
	return e, err
}

// bytesBuffer collects a small object (a symlink's target).
type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) {
	if len(*b)+len(p) > 4096 {
		return 0, errors.New("symlink target too long")
	}
	*b = append(*b, p...)
	return len(p), nil
}
