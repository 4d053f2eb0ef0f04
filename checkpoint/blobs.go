package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// guard runs unconfined, on a work tree that commands of other guard
// runs may still be changing. Every file a snapshot reads to store is
// opened beneath the workspace, never through a symlink
// (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS), and git only ever gets
// the content guard opened that way (on its standard input), never a
// path to open itself: a directory swapped for a symlink to elsewhere
// after git hashed the files had guard's git read the file of the same
// name there (a key) and write it into .git/objects, where the next
// sandboxed command reads it (TestSnapshotRaceThroughSymlink).

// beneath is the workspace, opened for lookups beneath it.
type beneath struct{ fd int }

func openBeneath(ws string) (beneath, error) {
	fd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	return beneath{fd}, err
}

func (b beneath) close() { unix.Close(b.fd) }

// open opens rel (workspace-relative, slash separated) with flags, not
// through any symlink and not outside the workspace.
func (b beneath) open(rel string, flags int) (int, error) {
	return unix.Openat2(b.fd, rel, &unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// regular opens the regular file at rel for reading, never blocking (a
// FIFO), with its size.
func (b beneath) regular(rel string) (*os.File, int64, error) {
	fd, err := b.open(rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, 0, err
	}
	f := os.NewFile(uintptr(fd), rel)
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// readlink reads the symlink at rel, its directories not through a
// symlink.
func (b beneath) readlink(rel string) (string, error) {
	dir, name := ".", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	dfd, err := b.open(dir, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return "", err
	}
	defer unix.Close(dfd)
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	if n == len(buf) {
		return "", errors.New("symlink target too long")
	}
	return string(buf[:n]), nil
}

// writeBlobs writes the blobs of paths (sorted) whose content guard did
// not pack with the trees (readBlobs: over its limits, or not the
// content git hashed), as git hashed them into es. Files whose bytes are
// what es names stream into one pack (git index-pack); the others (a
// clean filter, a conversion) go through git's filters for their path,
// one git hash-object each, from the file guard opened. Content that is
// not what es names (written again since) falls back to git add -A.
func (r *repo) writeBlobs(es []ientry, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	b, err := openBeneath(r.work)
	if err != nil {
		return err
	}
	defer b.close()
	var raw []*ientry // stored as they are
	for _, p := range paths {
		e := entryOf(es, p)
		if e == nil {
			return errFallback
		}
		if e.mode == modeSymlink {
			l, err := b.readlink(p)
			if err != nil || objectOf(objBlob, []byte(l)).oid != e.oid {
				return errFallback
			}
			raw = append(raw, e)
			continue
		}
		f, size, err := b.regular(p)
		if err != nil {
			return errFallback
		}
		sum, err := blobHash(f, size)
		if err == nil && sum == e.oid {
			raw = append(raw, e)
			f.Close()
			continue
		}
		// Filtered: git converts what guard opened, as for this path.
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		var out []byte
		if err == nil {
			out, err = r.git("", nil, f, "hash-object", "-w", "--stdin", "--path="+p)
		}
		f.Close()
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(out)) != hex.EncodeToString(e.oid[:]) {
			return errFallback
		}
	}
	return r.streamPack(b, raw)
}

// entryOf is the stage-0 entry of path p in es (sorted), nil if none.
func entryOf(es []ientry, p string) *ientry {
	lo, hi := 0, len(es)
	for lo < hi {
		m := (lo + hi) / 2
		if es[m].path < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(es) && es[lo].path == p && es[lo].stage == 0 {
		return &es[lo]
	}
	return nil
}

// blobHash is the id of a blob of the size bytes f reads.
func blobHash(f io.Reader, size int64) ([sha1.Size]byte, error) {
	h := objectHasher(sha1.New(), "blob", size)
	var sum [sha1.Size]byte
	if n, err := io.Copy(h, f); err != nil || n != size {
		return sum, errors.New("the file changed while guard read it")
	}
	h.Sum(sum[:0])
	return sum, nil
}

// streamPack writes the blobs of es (their bytes as they are in the
// work tree) into one pack, streamed to git index-pack --stdin, each
// object checked against its entry's id as it goes.
func (r *repo) streamPack(b beneath, es []*ientry) error {
	if len(es) == 0 {
		return nil
	}
	cmd := r.command("", nil, "index-pack", "--stdin")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := startConfined(cmd, r.writable("")); err != nil {
		return fmt.Errorf("git index-pack: %w", err)
	}
	werr := streamObjects(b, es, in)
	in.Close()
	if err := cmd.Wait(); werr == nil && err != nil {
		werr = fmt.Errorf("git index-pack: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	r.notePack(stdout.Bytes())
	return werr
}

// streamObjects writes the pack of streamPack to w.
func streamObjects(b beneath, es []*ientry, w io.Writer) error {
	sum := sha1.New()
	out := io.MultiWriter(w, sum)
	if _, err := out.Write(packHeader(len(es))); err != nil {
		return err
	}
	for _, e := range es {
		var src io.Reader
		var size int64
		if e.mode == modeSymlink {
			l, err := b.readlink(e.path)
			if err != nil {
				return errFallback
			}
			src, size = strings.NewReader(l), int64(len(l))
		} else {
			f, n, err := b.regular(e.path)
			if err != nil {
				return errFallback
			}
			src, size = f, n
		}
		err := writeObject(out, src, size, e.oid)
		if f, ok := src.(*os.File); ok {
			f.Close()
		}
		if err != nil {
			return err
		}
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// writeObject writes one whole blob of size bytes from src to w, stored
// (not deflated), and checks that it hashes to oid.
func writeObject(w io.Writer, src io.Reader, size int64, oid [sha1.Size]byte) error {
	if _, err := w.Write(objectHeader(objBlob, size)); err != nil {
		return err
	}
	h := objectHasher(sha1.New(), "blob", size)
	zw := newStoredZlib(w)
	n, err := io.Copy(io.MultiWriter(zw, h), io.LimitReader(src, size))
	if err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var got [sha1.Size]byte
	h.Sum(got[:0])
	if n != size || got != oid {
		return errFallback // changed since: git add -A records it anew
	}
	return nil
}
