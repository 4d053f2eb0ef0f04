package checkpoint

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// This file writes the trees of guard's index without git write-tree:
// guard builds them from the index entries it has already read, as
// write-tree would (gitformat-index's entries, in index order, are in
// tree order at every level), and hands git the new ones in one pack
// (`git index-pack --stdin`). write-tree wrote each new tree as a loose
// file, and a new file costs an inode: on ext4 without a journal (this
// machine) allocating one scans every inode freed in the last 30 to 60 s
// of its group, which made the 102 trees of a checkpoint that changed
// 100 files in 100 directories 15 to 50 ms of git's time
// (bench_test.go). write-tree also read, checked and rewrote the whole
// index once more.
//
// The trees are git's own format: "<octal mode> <name>\0<20-byte id>"
// per entry, hashed as "tree <size>\0" and the entries. Tests compare
// every root with git write-tree's on the same index.

// errTreeShape: the index holds what write-tree would refuse or write
// differently (an unmerged entry, a file and a directory of the same
// name, an empty path component, a sparse directory entry): the caller
// lets git write the tree.
var errTreeShape = errors.New("index entries guard does not build a tree of")

// gitTree is one tree object: its id and its content.
type gitTree struct {
	oid  [sha1.Size]byte
	data []byte
}

// buildTrees returns the root tree of the entries es (sorted as git
// sorts an index) and every tree below it, as write-tree writes them:
// merged entries with content only (inTree), skip-worktree ones
// included, directories without entries absent.
func buildTrees(es []ientry) ([sha1.Size]byte, []gitTree, error) {
	var trees []gitTree
	i := 0
	root, err := buildTree(es, &i, "", &trees)
	if err == nil && i != len(es) {
		err = errTreeShape
	}
	return root, trees, err
}

// buildTree builds the tree of the entries from es[*i] on whose path
// starts with base ("" or "dir/"), appends it and its subtrees to trees,
// and leaves *i at the first entry after them.
func buildTree(es []ientry, i *int, base string, trees *[]gitTree) ([sha1.Size]byte, error) {
	var data []byte
	last, lastName := "", "" // the last name as treeName orders it, and as it is
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
		// place, is no tree git would write.
		key := treeName(name, sub >= 0)
		if name == "" || name == "." || name == ".." || name == lastName || (last != "" && last >= key) {
			return [sha1.Size]byte{}, errTreeShape
		}
		if sub >= 0 {
			var err error
			if oid, err = buildTree(es, i, base+name+"/", trees); err != nil {
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
		data = strconv.AppendUint(data, uint64(mode), 8)
		data = append(data, ' ')
		data = append(data, name...)
		data = append(data, 0)
		data = append(data, oid[:]...)
	}
	h := sha1.New()
	h.Write([]byte("tree " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var t gitTree
	h.Sum(t.oid[:0])
	t.data = data
	*trees = append(*trees, t)
	return t.oid, nil
}

// treeName is name as git orders it in a tree: a directory as if its
// name ended in "/".
func treeName(name string, dir bool) string {
	if dir {
		return name + "/"
	}
	return name
}

// rootOf is the id of the root tree of es, "" when guard does not build
// it (errTreeShape).
func rootOf(es []ientry) string {
	root, _, err := buildTrees(es)
	if err != nil {
		return ""
	}
	return hex.EncodeToString(root[:])
}

// treeIDs is the set of trees of one index: the root's and every tree
// below it.
type treeIDs map[[sha1.Size]byte]bool

func idsOf(trees []gitTree) treeIDs {
	ids := make(treeIDs, len(trees))
	for _, t := range trees {
		ids[t.oid] = true
	}
	return ids
}

// writeTrees writes the trees of es that git does not have yet and
// returns the root's id, with the ids of all of es's trees. have are
// trees git has (with every tree below them): the trees of the entries
// before, which known names when it is their root (have is then nil:
// writeTrees builds them) or which an earlier call returned. With
// neither, every tree is written. When no tree is new, git does not
// run.
func (r *repo) writeTrees(es, before []ientry, known string, have treeIDs) (string, treeIDs, error) {
	root, trees, err := buildTrees(es)
	if err != nil {
		return "", nil, err
	}
	if have == nil && known != "" {
		if broot, btrees, err := buildTrees(before); err == nil && hex.EncodeToString(broot[:]) == known {
			have = idsOf(btrees)
		}
	}
	var pack []gitTree
	for _, t := range trees {
		if !have[t.oid] {
			pack = append(pack, t)
		}
	}
	if len(pack) > 0 {
		if _, err := r.git("", nil, bytes.NewReader(packOf(pack)), "index-pack", "--stdin"); err != nil {
			return "", nil, err
		}
	}
	return hex.EncodeToString(root[:]), idsOf(trees), nil
}

// packOf is a pack (gitformat-pack, version 2) of the trees, each
// whole (no deltas) and stored, not deflated: a tree is mostly object
// ids, which do not compress, and deflating 100 small trees took 10 ms
// (git gc compresses them with the rest).
func packOf(trees []gitTree) []byte {
	var buf bytes.Buffer
	buf.WriteString("PACK")
	binary.Write(&buf, binary.BigEndian, uint32(2))
	binary.Write(&buf, binary.BigEndian, uint32(len(trees)))
	zw, _ := zlib.NewWriterLevel(&buf, zlib.NoCompression)
	for _, t := range trees {
		// Object header: type (2, tree) and size, 4 bits then 7 per byte.
		size := len(t.data)
		c := byte(2<<4) | byte(size&15)
		for size >>= 4; size > 0; size >>= 7 {
			buf.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		buf.WriteByte(c)
		zw.Reset(&buf)
		zw.Write(t.data) // a bytes.Buffer does not fail
		zw.Close()
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}
