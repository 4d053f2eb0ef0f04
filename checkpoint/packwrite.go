package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// This file stores a pack guard built in memory (trees.go) without git:
// the pack and its index (gitformat-pack: .idx version 2) written as git
// index-pack writes them. git index-pack was a process and, for the 202
// objects of a checkpoint that changed 100 files, 20.5 ms (11.8 of them
// without its two fsyncs, one after the other) against guard's 1.8 ms
// (docs/undo.md, measured on a loaded machine): it hashes every object
// again, which guard just did.
// Blobs streamed from the work tree (blobs.go) still go through git
// index-pack.
//
// Durability is git's default for packs (core.fsync): both files are
// synced before they are renamed into place, the pack first, so a pack
// is never seen before its bytes are on disk, and an object guard's refs
// or index name survives a crash of guard and of the machine. The two
// syncs run at once. The directory is not synced, as git does not.
//
// The writes are guard's own, outside the sandbox, in a store a command
// still running could change: they run on a thread confined by Landlock
// to the repository's git directories as guard's git is (confine.go),
// through the common directory opened without following a symlink and
// objects/pack beneath it through none.

// packEntry is what a pack index keeps of one object: its id, its offset
// in the pack and the CRC-32 of its bytes there.
type packEntry struct {
	oid [sha1.Size]byte
	off uint64
	crc uint32
}

// buildPack is a pack (gitformat-pack, version 2) of the objects, each
// once, whole (no deltas) and stored, not deflated: a tree is mostly
// object ids, which do not compress, and deflating 100 small trees took
// 10 ms (git gc compresses them with the rest). It returns the pack,
// its entries and its checksum (the pack's last bytes, and its name).
func buildPack(objs []gitObject) ([]byte, []packEntry, [sha1.Size]byte) {
	seen := make(map[[sha1.Size]byte]bool, len(objs))
	var uniq []gitObject
	for _, o := range objs {
		if !seen[o.oid] {
			seen[o.oid] = true
			uniq = append(uniq, o)
		}
	}
	var buf bytes.Buffer
	buf.Write(packHeader(len(uniq)))
	zw := newStoredZlib(&buf)
	ents := make([]packEntry, 0, len(uniq))
	for _, o := range uniq {
		start := buf.Len()
		buf.Write(objectHeader(o.typ, int64(len(o.data))))
		zw.Reset(&buf)
		zw.Write(o.data) // a bytes.Buffer does not fail
		zw.Close()
		ents = append(ents, packEntry{oid: o.oid, off: uint64(start), crc: crc32.ChecksumIEEE(buf.Bytes()[start:])})
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes(), ents, sum
}

// packOf is the pack of the objects (buildPack).
func packOf(objs []gitObject) []byte {
	data, _, _ := buildPack(objs)
	return data
}

// errPackTooBig: a pack with an offset past 2 GiB, which an index of
// version 2 keeps in a table guard does not write (git does).
var errPackTooBig = errors.New("pack over 2 GiB")

// packIndex is the index (version 2) of a pack with the entries ents
// (each object once) and checksum sum: a fan-out table by the first byte
// of the ids, the ids in order, their CRC-32s, their offsets, the pack's
// checksum and the index's own.
func packIndex(ents []packEntry, sum [sha1.Size]byte) ([]byte, error) {
	ents = slices.Clone(ents)
	slices.SortFunc(ents, func(a, b packEntry) int { return bytes.Compare(a.oid[:], b.oid[:]) })
	be := binary.BigEndian
	idx := []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}
	var fan [256]uint32
	for _, e := range ents {
		fan[e.oid[0]]++
	}
	n := uint32(0)
	for _, c := range fan {
		n += c
		idx = be.AppendUint32(idx, n)
	}
	for _, e := range ents {
		idx = append(idx, e.oid[:]...)
	}
	for _, e := range ents {
		idx = be.AppendUint32(idx, e.crc)
	}
	for _, e := range ents {
		if e.off >= 1<<31 {
			return nil, errPackTooBig
		}
		idx = be.AppendUint32(idx, uint32(e.off))
	}
	idx = append(idx, sum[:]...)
	self := sha1.Sum(idx)
	return append(idx, self[:]...), nil
}

// storePack writes objs in one pack, with its index, into the
// repository's objects/pack, and records its name (r.wrote).
func (r *repo) storePack(objs []gitObject) error {
	data, ents, sum := buildPack(objs)
	idx, err := packIndex(ents, sum)
	if err != nil {
		return err
	}
	name := "pack-" + hex.EncodeToString(sum[:])
	if err := runConfined(r.writable(""), func() error { return r.putPack(name, data, idx) }); err != nil {
		return fmt.Errorf("store pack: %w", err)
	}
	r.wrote = append(r.wrote, name+".pack")
	return nil
}

// ownPackWriter reports whether guard may write r's packs itself: not
// when a test points git at another object directory.
func (r *repo) ownPackWriter() bool {
	for _, kv := range r.env {
		if strings.HasPrefix(kv, "GIT_OBJECT_DIRECTORY=") {
			return false
		}
	}
	return true
}

// putPack writes the pack data and its index idx as name.pack and
// name.idx in objects/pack: temporary files (tmp_pack_*, tmp_idx_*: git
// prune removes ones a crash left), synced at once, then renamed, the
// pack first. A pack already there is left as it is.
func (r *repo) putPack(name string, data, idx []byte) error {
	common, err := unix.Open(r.commonDir(), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(common)
	dir, err := unix.Openat2(common, "objects/pack", &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return fmt.Errorf("objects/pack: %w", err)
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if unix.Fstatat(dir, name+".pack", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && unix.Fstatat(dir, name+".idx", &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return nil
	}
	var tmps []string
	defer func() {
		for _, t := range tmps {
			unix.Unlinkat(dir, t, 0)
		}
	}()
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, f := range []struct {
		prefix string
		data   []byte
	}{{"tmp_pack_", data}, {"tmp_idx_", idx}} {
		fd, tmp, err := createTemp(dir, f.prefix)
		if err != nil {
			return err
		}
		tmps, fds = append(tmps, tmp), append(fds, fd)
		if err := writeAll(fd, f.data); err != nil {
			return fmt.Errorf("write %s: %w", tmp, err)
		}
	}
	synced := make(chan error, 1)
	go func() { synced <- unix.Fsync(fds[1]) }()
	err = unix.Fsync(fds[0])
	if err2 := <-synced; err == nil {
		err = err2
	}
	if err != nil {
		return fmt.Errorf("sync pack: %w", err)
	}
	for i, final := range []string{name + ".pack", name + ".idx"} {
		if err := unix.Renameat(dir, tmps[i], dir, final); err != nil {
			return fmt.Errorf("rename %s: %w", final, err)
		}
		tmps[i] = "" // renamed: nothing to remove
	}
	tmps = nil
	return nil
}

// createTemp creates a new file prefix+random in dir, read-only as git's
// packs are (the descriptor writes it).
func createTemp(dir int, prefix string) (int, string, error) {
	for try := 0; ; try++ {
		name := fmt.Sprintf("%s%016x", prefix, rand.Uint64())
		fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
		if err == unix.EEXIST && try < 8 {
			continue
		}
		if err != nil {
			return -1, "", fmt.Errorf("create %s in objects/pack: %w", prefix, err)
		}
		return fd, name, nil
	}
}

// writeAll writes data to fd whole.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}
