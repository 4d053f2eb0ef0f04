package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/internal/safefile"
)

// This file writes a snapshot's new objects in one pack instead of a
// loose file each. git update-index hashes the changed files (with the
// user's clean filters) into guard's index without writing them
// (--info-only); guard reads those files, keeps each whose content hashes
// to the id git recorded (what git would have written), builds the trees
// from the index entries as git write-tree would (gitformat-index's
// entries, in index order, are in tree order at every level), and hands
// the blobs and the new trees together to the object store in one pack
// with its index (packwrite.go: written by guard, as `git index-pack`
// writes them).
// A file guard did not pack (a clean filter, a line-ending conversion,
// over the size limit) is stored from guard's own copy of it (blobs.go:
// streamed, or through git hash-object --stdin for its filters); one
// written again since git hashed it falls back to git add -A.
//
// Why: each loose object is a new file, and a new file costs an inode:
// on ext4 without a journal (this machine) allocating one scans every
// inode freed in the last 30 to 60 s of its group, which made the 202
// loose objects of a checkpoint that changed 100 files in 100
// directories cost git 15 to 150 ms (bench_test.go). write-tree also
// read, checked and rewrote the whole index once more.
//
// Objects are git's own format: "<type> <size>\0<content>" hashed; a
// tree's content is "<octal mode> <name>\0<20-byte id>" per entry. Tests
// compare every root with git write-tree's on the same index.

// errTreeShape: the index holds what write-tree would refuse or write
// differently (an unmerged entry, a file and a directory of the same
// name, an empty path component, a sparse directory entry): the caller
// lets git write the tree.
var errTreeShape = errors.New("index entries guard does not build a tree of")

// Object types in a pack (gitformat-pack).
const (
	objTree = 2
	objBlob = 3
)

// gitObject is one object: its type, id and content.
type gitObject struct {
	typ  byte
	oid  [sha1.Size]byte
	data []byte
}

// objectOf is the object of type typ (objTree, objBlob) holding data.
func objectOf(typ byte, data []byte) gitObject {
	name := "blob"
	if typ == objTree {
		name = "tree"
	}
	h := objectHasher(sha1.New(), name, int64(len(data)))
	h.Write(data)
	o := gitObject{typ: typ, data: data}
	h.Sum(o.oid[:0])
	return o
}

// objectHasher is h, given the header of an object of type typ ("blob",
// "tree", …) and size bytes: an object's id is the hash of the header
// and the content, which the caller writes next.
func objectHasher(h hash.Hash, typ string, size int64) hash.Hash {
	h.Write([]byte(typ + " " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// dirTree is a tree and its directory (workspace-relative, "" for the
// top).
type dirTree struct {
	gitObject
	dir string
}

// buildTrees returns the root tree of the entries es (sorted as git
// sorts an index) and every tree below it, as write-tree writes them:
// merged entries with content only (inTree), skip-worktree ones
// included, directories without entries absent. The root is the last.
func buildTrees(es []ientry) ([sha1.Size]byte, []dirTree, error) {
	var trees []dirTree
	i := 0
	var bufs [][]byte
	root, err := buildTree(es, &i, "", &trees, &bufs, 0)
	if err == nil && i != len(es) {
		err = errTreeShape
	}
	return root, trees, err
}

// buildTree builds the tree of the entries from es[*i] on whose path
// starts with base ("" or "dir/"), appends it and its subtrees to trees,
// and leaves *i at the first entry after them. (*bufs)[depth] is the
// buffer its content grows in, which the trees of its level share: each
// tree keeps a copy of its own size.
func buildTree(es []ientry, i *int, base string, trees *[]dirTree, bufs *[][]byte, depth int) ([sha1.Size]byte, error) {
	if len(*bufs) <= depth {
		*bufs = append(*bufs, nil)
	}
	data := (*bufs)[depth][:0]
	last, lastName := "", "" // the last name as treeName orders it, and as it is
	var files []string       // the files' names at this level, in order
	for *i < len(es) {
		e := &es[*i]
		if !strings.HasPrefix(e.path, base) {
			break
		}
		if e.stage != 0 {
			return [sha1.Size]byte{}, errTreeShape // write-tree refuses an unmerged index
		}
		if !inTree(e) {
			*i++
			continue
		}
		rest := e.path[len(base):]
		name, mode, oid := rest, e.mode, e.oid
		sub := strings.IndexByte(rest, '/')
		if sub >= 0 {
			name = rest[:sub]
		}
		// Names at one level come in tree order, each once: a file and a
		// directory of the same name, or an entry the sort put out of
		// place, is no tree git would write (nor a NUL in a name, which
		// ends it in a tree: no index git writes holds one).
		// A file "a" and a directory "a/" need not be neighbours: "a-b"
		// and "a.c" sort between them.
		key := treeName(name, sub >= 0)
		if name == "" || name == "." || name == ".." || strings.IndexByte(name, 0) >= 0 || name == lastName || (last != "" && last >= key) || (sub >= 0 && hasName(files, name)) {
			return [sha1.Size]byte{}, errTreeShape
		}
		if sub < 0 {
			files = append(files, name)
		}
		if sub >= 0 {
			var err error
			if oid, err = buildTree(es, i, base+name+"/", trees, bufs, depth+1); err != nil {
				return [sha1.Size]byte{}, err
			}
			mode = 0o40000
		} else {
			switch mode {
			case modeFile, modeExec, modeSymlink, modeGitlink:
			default:
				return [sha1.Size]byte{}, errTreeShape // a sparse directory, or a mode git would not write
			}
			*i++
		}
		last, lastName = key, name
		data = appendMode(data, mode)
		data = append(data, ' ')
		data = append(data, name...)
		data = append(data, 0)
		data = append(data, oid[:]...)
	}
	(*bufs)[depth] = data
	t := objectOf(objTree, bytes.Clone(data))
	*trees = append(*trees, dirTree{t, strings.TrimSuffix(base, "/")})
	return t.oid, nil
}

// hasName reports whether names (in order: a level's files come in tree
// order) holds name. A search, not a map: a map of every file's name
// was a third of the time of building a checkpoint's trees.
func hasName(names []string, name string) bool {
	_, ok := slices.BinarySearch(names, name)
	return ok
}

// appendMode appends a tree entry's mode as git writes it (octal, no
// leading zero).
func appendMode(data []byte, mode uint32) []byte {
	switch mode {
	case modeFile:
		return append(data, "100644"...)
	case modeExec:
		return append(data, "100755"...)
	case modeSymlink:
		return append(data, "120000"...)
	case modeGitlink:
		return append(data, "160000"...)
	case 0o40000:
		return append(data, "40000"...)
	}
	return strconv.AppendUint(data, uint64(mode), 8)
}

// treeName is name as git orders it in a tree: a directory as if its
// name ended in "/".
func treeName(name string, dir bool) string {
	if dir {
		return name + "/"
	}
	return name
}

// changedDirs are the directories of paths (workspace-relative) and
// every directory above them, the top ("") included: those whose trees
// a change to the paths may change.
func changedDirs(paths ...[]string) map[string]bool {
	dirs := map[string]bool{"": true}
	for _, ps := range paths {
		for _, p := range ps {
			for d := pathDir(p); d != "" && !dirs[d]; d = pathDir(d) {
				dirs[d] = true
			}
		}
	}
	return dirs
}

// writeTrees writes blobs and the trees of es in one pack, and returns
// the root's id. changed, when not nil, are the directories whose trees
// may be new (changedDirs): git has every other tree of es (the
// snapshot before, with the same entries there). When nothing is new,
// git does not run.
func (r *repo) writeTrees(es []ientry, changed map[string]bool, blobs []gitObject) (string, error) {
	root, trees, err := buildTrees(es)
	if err != nil {
		return "", err
	}
	// Each object once: two directories (or files) of the same content
	// are one object.
	seen := map[[sha1.Size]byte]bool{}
	var pack []gitObject
	for _, o := range blobs {
		if !seen[o.oid] {
			seen[o.oid] = true
			pack = append(pack, o)
		}
	}
	for _, t := range trees {
		if (changed == nil || changed[t.dir]) && !seen[t.oid] {
			seen[t.oid] = true
			pack = append(pack, t.gitObject)
		}
	}
	if err := r.writePack(pack); err != nil {
		return "", err
	}
	return hex.EncodeToString(root[:]), nil
}

// writePack stores objs in one pack (nothing when there are none):
// guard writes it and its index itself (packwrite.go), or, where a
// test points git at another object directory, git index-pack does.
func (r *repo) writePack(objs []gitObject) error {
	if len(objs) == 0 {
		return nil
	}
	if r.ownPackWriter() {
		return r.storePack(objs)
	}
	out, err := r.git("", nil, bytes.NewReader(packOf(objs)), "index-pack", "--stdin")
	r.notePack(out)
	return err
}

// Limits on the blobs guard packs itself: a larger file, or files past
// the total, are left to git (which streams them).
const (
	maxPackedBlob  = 8 << 20
	maxPackedBlobs = 64 << 20
)

// readBlobs reads, for each of paths (workspace-relative, sorted), the
// content git hashed into es (sorted as git sorts them), and returns it
// as blobs; rest are the paths whose content guard does not have: not
// the content git hashed (a clean filter, a conversion, a write since),
// not readable as what the entry says (beneath the workspace, through
// no symlink: blobs.go), or over the limits. Paths with no entry (gone)
// or a submodule's need no blob.
func readBlobs(ws string, es []ientry, paths []string) (blobs []gitObject, rest []string) {
	b, err := openBeneath(ws)
	if err != nil {
		return nil, append(rest, paths...)
	}
	defer b.close()
	total := 0
	for _, p := range paths {
		e := entryOf(es, p)
		if e == nil || e.ita || e.mode == modeGitlink {
			continue
		}
		var data []byte
		if e.mode == modeSymlink {
			var l string
			l, err = b.readlink(p)
			data = []byte(l)
		} else {
			data, err = b.read(p, maxPackedBlob)
		}
		if err == nil && total+len(data) <= maxPackedBlobs {
			if o := objectOf(objBlob, data); o.oid == e.oid {
				blobs = append(blobs, o)
				total += len(data)
				continue
			}
		}
		rest = append(rest, p)
	}
	return blobs, rest
}

// read reads the regular file at rel (see regular), at most limit
// bytes.
func (b beneath) read(rel string, limit int64) ([]byte, error) {
	f, _, err := b.regular(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadAll(f, rel, limit)
}

// packHeader starts a pack (version 2) of n objects.
func packHeader(n int) []byte {
	h := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00")
	binary.BigEndian.PutUint32(h[8:], uint32(n))
	return h
}

// objectHeader starts a whole object of type typ in a pack: the type
// and the size, 4 bits then 7 per byte.
func objectHeader(typ byte, size int64) []byte {
	var h []byte
	c := typ<<4 | byte(size&15)
	for size >>= 4; size > 0; size >>= 7 {
		h = append(h, c|0x80)
		c = byte(size & 0x7f)
	}
	return append(h, c)
}
