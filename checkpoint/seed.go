package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"strings"
)

// guard's index of a repository starts as a copy of the user's
// .git/index (seedFromUser), so that it holds what git tracks: tracked
// files that .gitignore matches, intent-to-add entries, submodules. But
// the user's index is no witness of what the files hold: every command
// that may write the workspace may write .git/index too (git add does),
// and git trusts an entry's object id as long as the file's stat data
// match the entry's, which a command that just wrote the file can copy
// into the entry next to an id of its own choosing. Users mark entries
// themselves for git to stop looking at a file (update-index
// --assume-unchanged, --skip-worktree, on local config files): git then
// never hashes the file again, and a checkpoint named the committed
// bytes for a file that held others. Any of these made undo restore
// content that was never in the file deleted (TestSeedDistrustsUserIndex).
//
// So the seed keeps each entry's path, mode, stage and intent-to-add
// flag, and nothing git would take instead of reading the file: the stat
// data are zeroed (no file has them, so git hashes each file once, on
// the first checkpoint), the assume-unchanged and skip-worktree flags
// cleared (a skip-worktree file absent from the work tree goes from
// guard's index, as any deleted file), and the extensions dropped (a
// cached tree id stands in for a whole directory's files in git
// write-tree; an untracked cache for a directory's untracked files).

// Index entry flags guard clears in a seed (gitformat-index).
const (
	flagAssumeValid  = 0x8000 // in the flags
	flagExtended     = 0x4000 // in the flags: extended flags follow
	flagSkipWorktree = 0x4000 // in the extended flags
)

// Nor does the seed take a path git itself would refuse to add (see
// addable): guard's git runs outside the sandbox, and given an entry
// "../secret" or ".git/x" it read that file, beside the workspace or in
// the repository, into an object the next command can read (and named
// it in a tree for undo to write back). An index with one is no index
// git wrote for this work tree: guard's starts empty.

// distrustIndex is the seed of guard's index made from the user's index
// data (see above); ok is false when guard does not read data as a
// SHA-1 index (another version, a split index, another hash, a damaged
// file): then guard's index starts empty.
func distrustIndex(data []byte) (seed []byte, ok bool) {
	es, end, err := parseEntries(data, sha1.Size)
	if err != nil {
		return nil, false
	}
	// git does not check the checksum when it reads an index; it is
	// checked here to tell a SHA-1 index from one of longer ids that
	// happened to parse. index.skipHash writes zeros.
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if want := sha1.Sum(body); !bytes.Equal(sum, want[:]) && !bytes.Equal(sum, make([]byte, sha1.Size)) {
		return nil, false
	}
	for _, e := range es {
		if !addable(e.path) {
			return nil, false
		}
	}
	seed = append([]byte(nil), data[:end]...)
	be := binary.BigEndian
	for _, e := range es {
		// ctime, mtime, dev, ino (the mode at 24 stays), uid, gid, size.
		clear(seed[e.at : e.at+24])
		clear(seed[e.at+28 : e.at+40])
		flags := e.at + 40 + sha1.Size
		f := be.Uint16(seed[flags:])
		be.PutUint16(seed[flags:], f&^flagAssumeValid)
		if f&flagExtended != 0 {
			be.PutUint16(seed[flags+2:], be.Uint16(seed[flags+2:])&^flagSkipWorktree)
		}
	}
	s := sha1.Sum(seed)
	return append(seed, s[:]...), true
}

// addable reports whether git would add an entry of path p (its
// verify_path on Linux, with core.protectNTFS on, git's default):
// relative, no
// empty, "." or ".." component, and no component git reads as ".git" on
// some file system (any case, trailing dots or spaces, the short name
// "git~1", an NTFS stream).
func addable(p string) bool {
	if p == "" {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
		c = strings.ToLower(c)
		if i := strings.IndexByte(c, ':'); i >= 0 {
			c = c[:i]
		}
		c = strings.TrimRight(c, ". ")
		if c == ".git" || c == "git~1" {
			return false
		}
	}
	return true
}
