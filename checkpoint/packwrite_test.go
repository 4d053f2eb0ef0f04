package checkpoint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// packObjects are objects of every size class a pack header encodes
// (the size 4 bits, then 7 per byte), an empty blob, a tree, and a
// duplicate.
func packObjects() []gitObject {
	objs := []gitObject{
		objectOf(objBlob, nil),
		objectOf(objBlob, []byte("short\n")),
		objectOf(objBlob, bytes.Repeat([]byte("sixteen bytes!!\n"), 20)),
		objectOf(objBlob, bytes.Repeat([]byte{0, 1, 2, 3, 255}, 40000)),
	}
	tree := []byte("100644 a\x00")
	tree = append(tree, objs[1].oid[:]...)
	objs = append(objs, objectOf(objTree, tree), objs[1])
	return objs
}

// The index guard writes for its pack is byte for byte the one git
// index-pack writes for the same pack, and each object is once in both.
func TestPackIndexMatchesGit(t *testing.T) {
	env(t)
	dir := t.TempDir()
	data, ents, sum := buildPack(packObjects())
	if len(ents) != 5 {
		t.Fatalf("%d entries, want 5 (the duplicate once)", len(ents))
	}
	idx, err := packIndex(ents, sum)
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(dir, "x.pack")
	if err := os.WriteFile(pack, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, dir, "index-pack", "-o", filepath.Join(dir, "x.idx"), pack)
	if strings.TrimSpace(out) != hex.EncodeToString(sum[:]) {
		t.Errorf("git index-pack names the pack %q, guard %x", out, sum)
	}
	gits, err := os.ReadFile(filepath.Join(dir, "x.idx"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(idx, gits) {
		t.Errorf("guard's index (%d bytes) differs from git's (%d bytes)", len(idx), len(gits))
	}
}

// storePack leaves a pack and its index git reads (fsck, cat-file), no
// temporary file, and the pack's name among those guard wrote.
func TestStorePack(t *testing.T) {
	env(t)
	ws := newRepo(t)
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	objs := packObjects()
	if err := r.storePack(objs); err != nil {
		t.Fatal(err)
	}
	if len(r.wrote) != 1 {
		t.Fatalf("wrote %v, want one pack", r.wrote)
	}
	packDir := filepath.Join(ws, ".git", "objects", "pack")
	for _, ext := range []string{".pack", ".idx"} {
		st, err := os.Stat(filepath.Join(packDir, strings.TrimSuffix(r.wrote[0], ".pack")+ext))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s: mode %v, want read-only as git's", ext, st.Mode())
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(packDir, "tmp_*"))
	if len(tmps) != 0 {
		t.Errorf("left %v", tmps)
	}
	for _, o := range objs {
		got := run(t, ws, "cat-file", "-p", hex.EncodeToString(o.oid[:]))
		if o.typ == objBlob && got != string(o.data) {
			t.Errorf("blob %x: %d bytes back, want %d", o.oid, len(got), len(o.data))
		}
	}
	run(t, ws, "verify-pack", filepath.Join(packDir, r.wrote[0]))
	// The same pack again: already there, left as it is.
	if err := r.storePack(objs); err != nil {
		t.Fatal(err)
	}
}

// A command still running may swap objects/pack for a symlink after
// guard checked the store (realStore): guard's own write of a pack
// never goes through it, and nothing lands where it points.
func TestStorePackRefusesSymlink(t *testing.T) {
	env(t)
	ws := newRepo(t)
	r, err := openRepo(ws)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	packDir := filepath.Join(ws, ".git", "objects", "pack")
	if err := os.RemoveAll(packDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, packDir); err != nil {
		t.Fatal(err)
	}
	err = r.storePack(packObjects())
	if !errors.Is(err, unix.ELOOP) {
		t.Errorf("storePack through a symlinked objects/pack: %v, want ELOOP", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote %v through the symlink", ents)
	}
}
