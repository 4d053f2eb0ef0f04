package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
)

// The object store is the workspace's: every command that may write the
// workspace may write .git/objects, and git does not check that a
// stored object still holds what its name (the hash of its content)
// says when it reads it. A command could so replace what a later undo
// restores (a file's blob, or a tree that names other blobs). Undo
// checks, before it changes anything, every object it will restore from:
// from the before tree guard recorded (its id is in guard's state,
// which commands cannot reach) down to each blob, each object's content
// must hash to its id.

// ErrObjects: the object store does not hold what the checkpoint
// recorded; undo changed nothing.
var ErrObjects = errors.New("the repository's objects do not match the checkpoint (changed since guard recorded it)")

// verify checks the objects the paths (workspace-relative, slash
// separated) are restored from in tree.
func (r *repo) verify(tree string, paths []string) error {
	v, done, err := r.verifier()
	if err != nil {
		return err
	}
	defer done()
	for _, p := range paths {
		if err := v.path(tree, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// verifyTrees checks every tree object under each of trees (not the
// blobs): what git diff-tree reads to tell undo which paths the command
// changed and which changed since.
func (r *repo) verifyTrees(trees ...string) error {
	v, done, err := r.verifier()
	if err != nil {
		return err
	}
	defer done()
	var walk func(oid string) error
	walk = func(oid string) error {
		if _, ok := v.trees[oid]; ok {
			return nil
		}
		entries, err := v.tree(oid)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.mode == "40000" {
				if err := walk(e.oid); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, t := range trees {
		if err := walk(t); err != nil {
			return err
		}
	}
	return nil
}

// verifier starts one git cat-file --batch for checking objects; done
// ends it.
func (r *repo) verifier() (v *verifier, done func(), err error) {
	cmd := r.command("", nil, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := startConfined(cmd, r.writable("")); err != nil {
		return nil, nil, fmt.Errorf("git cat-file: %w", err)
	}
	v = &verifier{in: in, out: bufio.NewReader(outPipe), trees: map[string]map[string]treeEntry{}}
	done = func() {
		in.Close()
		// An answer may be left part-read (a blob whose copy failed, a
		// batch stopped early): git would wait to write the rest.
		cmd.Process.Kill()
		cmd.Wait()
	}
	return v, done, nil
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode string
	oid  string
}

// verifier asks one git cat-file --batch for objects and checks them.
type verifier struct {
	in    io.Writer
	out   *bufio.Reader
	trees map[string]map[string]treeEntry // checked trees, by id
	// broken: a pipelined read stopped before all its answers (blobs);
	// the verifier answers nothing more.
	broken bool
}

// blobs checks every tree from root down to each of paths and the blob
// each names (as path does), asking git for all the blobs at once
// rather than one after another: a delete of 10,000 tracked files waited
// 10,000 round trips (BenchmarkCoverTracked10k).
func (v *verifier) blobs(root string, paths []string) error {
	var oids []string
	seen := map[string]bool{}
	for _, p := range paths {
		err := v.walk(root, p, func(e treeEntry) error {
			if e.mode != "160000" && !seen[e.oid] { // a submodule's commit: nothing of it is restored
				seen[e.oid] = true
				oids = append(oids, e.oid)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(oids) == 0 {
		return nil
	}
	if v.broken {
		return errors.New("git cat-file: an earlier read stopped")
	}
	wrote := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(v.in)
		for _, oid := range oids {
			w.WriteString(oid + "\n")
		}
		wrote <- w.Flush()
	}()
	for i, oid := range oids {
		if _, err := v.read(oid, "blob", nil); err != nil {
			if i < len(oids)-1 {
				v.broken = true
			}
			return err
		}
	}
	return <-wrote
}

// path checks every tree from root down to p and the object p names.
func (v *verifier) path(root, p string) error {
	return v.walk(root, p, func(e treeEntry) error {
		if e.mode == "160000" {
			return nil // a submodule's commit: nothing of it is restored
		}
		_, err := v.object(e.oid, "blob", nil)
		return err
	})
}

// walk checks every tree from root down to p and calls last with the
// entry p names (not a tree).
func (v *verifier) walk(root, p string, last func(treeEntry) error) error {
	oid := root
	parts := strings.Split(p, "/")
	for i, name := range parts {
		entries, err := v.tree(oid)
		if err != nil {
			return err
		}
		e, ok := entries[name]
		if !ok {
			return fmt.Errorf("%w: not in the recorded tree", ErrObjects)
		}
		if i < len(parts)-1 {
			if e.mode != "40000" {
				return fmt.Errorf("%w: %s is not a directory there", ErrObjects, name)
			}
			oid = e.oid
			continue
		}
		if e.mode == "40000" {
			return fmt.Errorf("%w: a directory where a file was", ErrObjects)
		}
		return last(e)
	}
	return nil
}

// tree returns the entries of tree oid, checked.
func (v *verifier) tree(oid string) (map[string]treeEntry, error) {
	if t, ok := v.trees[oid]; ok {
		return t, nil
	}
	var buf bytes.Buffer
	if _, err := v.object(oid, "tree", &buf); err != nil {
		return nil, err
	}
	size := len(oid) / 2
	t := map[string]treeEntry{}
	b := buf.Bytes()
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+size {
			return nil, fmt.Errorf("%w: tree %s is malformed", ErrObjects, oid)
		}
		t[string(b[sp+1:nul])] = treeEntry{mode: string(b[:sp]), oid: hex.EncodeToString(b[nul+1 : nul+1+size])}
		b = b[nul+1+size:]
	}
	v.trees[oid] = t
	return t, nil
}

// object reads object oid, of type want, copying its content to keep
// (nil: none), and checks that the content hashes to oid.
func (v *verifier) object(oid, want string, keep io.Writer) (int64, error) {
	if len(oid) != 40 && len(oid) != 64 {
		return 0, fmt.Errorf("bad object id %q", oid)
	}
	if v.broken {
		return 0, errors.New("git cat-file: an earlier read stopped")
	}
	if _, err := io.WriteString(v.in, oid+"\n"); err != nil {
		return 0, fmt.Errorf("git cat-file: %w", err)
	}
	return v.read(oid, want, keep)
}

// read reads and checks git's answer for object oid, asked for already
// (see object).
func (v *verifier) read(oid, want string, keep io.Writer) (int64, error) {
	var h hash.Hash
	switch len(oid) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return 0, fmt.Errorf("bad object id %q", oid)
	}
	head, err := v.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[0] != oid {
		return 0, fmt.Errorf("%w: object %s: %s", ErrObjects, oid, strings.TrimSpace(head))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return 0, fmt.Errorf("git cat-file: bad size in %q", head)
	}
	objectHasher(h, f[1], size)
	w := io.Writer(h)
	if keep != nil {
		w = io.MultiWriter(h, keep)
	}
	if _, err := io.CopyN(w, v.out, size); err != nil {
		return 0, fmt.Errorf("git cat-file: %w", err)
	}
	if _, err := v.out.Discard(1); err != nil { // the newline after it
		return 0, fmt.Errorf("git cat-file: %w", err)
	}
	if f[1] != want || hex.EncodeToString(h.Sum(nil)) != oid {
		return 0, fmt.Errorf("%w: object %s", ErrObjects, oid)
	}
	return size, nil
}
