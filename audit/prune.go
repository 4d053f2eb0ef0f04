package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// anchorName is where Prune leaves the chain's anchor: the number of the
// newest rotated file it removed and the hash of that file's last line.
// Verify checks that the oldest remaining record carries exactly that
// hash, so pruning oldest-first leaves the rest verifiable, and a rotated
// file removed any other way is still a broken chain.
const anchorName = "audit.anchor"

// Prune removes the oldest rotated files so that at most keep remain
// (audit.log itself is never removed), oldest first, recording the anchor
// before each removal. It returns the names it removed.
func (l *Log) Prune(keep int) ([]string, error) {
	if keep < 0 {
		return nil, errors.New("prune audit log: keep must not be negative")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flock(syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer l.funlock()
	files, err := logFiles(l.dir)
	if err != nil {
		return nil, fmt.Errorf("prune audit log: %w", err)
	}
	var rotated []logFile
	for _, f := range files {
		if f.n > 0 {
			rotated = append(rotated, f)
		}
	}
	var removed []string
	for len(rotated) > keep {
		f := rotated[0]
		path := filepath.Join(l.dir, f.name)
		fh, err := os.Open(path)
		if err != nil {
			return removed, fmt.Errorf("prune audit log: %w", err)
		}
		t, err := readTail(fh)
		fh.Close()
		if err != nil {
			return removed, fmt.Errorf("prune audit log: %w", err)
		}
		hash := ""
		if t.keep > 0 {
			hash = lineHash(t.last)
		} else if a, err := readAnchor(l.dir); err == nil {
			hash = a.hash // an empty file: the anchor before it still holds
		}
		if err := writeAnchor(l.dir, anchor{n: f.n, hash: hash}); err != nil {
			return removed, err
		}
		if err := os.Remove(path); err != nil {
			return removed, fmt.Errorf("prune audit log: %w", err)
		}
		removed = append(removed, f.name)
		rotated = rotated[1:]
	}
	if len(removed) > 0 {
		if err := syncDir(l.dir); err != nil {
			return removed, err
		}
		if err := pruneSets(l.dir); err != nil {
			return removed, fmt.Errorf("prune audit log: %w", err)
		}
	}
	return removed, nil
}

// pruneSets removes the set files no remaining record names. It runs under
// the log's lock, which Append holds from storing a set to appending the
// line that names it.
func pruneSets(dir string) error {
	ents, err := os.ReadDir(filepath.Join(dir, SetsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	files, err := logFiles(dir)
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, lf := range files {
		err := eachLine(filepath.Join(dir, lf.name), func(_ int, line []byte, _, _ bool) error {
			for _, name := range lineSets(line) {
				named[name+".json"] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, e := range ents {
		if !named[e.Name()] {
			if err := os.Remove(filepath.Join(dir, SetsDir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// anchor is the content of audit.anchor.
type anchor struct {
	n    int    // the newest pruned file's number
	hash string // the hash of its last line
}

func writeAnchor(dir string, a anchor) error {
	tmp := filepath.Join(dir, anchorName+".tmp")
	f, err := openPrivate(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("write audit anchor: %w", err)
	}
	h := a.hash
	if h == "" {
		h = "-" // the pruned files held no record
	}
	_, err = fmt.Fprintf(f, "%d %s\n", a.n, h)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, anchorName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write audit anchor: %w", err)
	}
	return nil
}

// readAnchor reads audit.anchor; fs.ErrNotExist when nothing was pruned.
func readAnchor(dir string) (anchor, error) {
	f, err := os.OpenFile(filepath.Join(dir, anchorName), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return anchor{}, err
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	fields := strings.Fields(string(bytes.TrimSpace(buf[:n])))
	if len(fields) != 2 {
		return anchor{}, errors.New("audit.anchor is damaged")
	}
	num, err := strconv.Atoi(fields[0])
	if err != nil || num <= 0 {
		return anchor{}, errors.New("audit.anchor is damaged")
	}
	if fields[1] == "-" {
		return anchor{n: num}, nil
	}
	return anchor{n: num, hash: fields[1]}, nil
}

// checkStart says whether a chain whose oldest remaining file is number
// first (0 for audit.log alone) may start with prev: "" only at the very
// beginning; otherwise exactly what the anchor recorded for the file just
// before it.
func checkStart(dir string, first int, prev string) (reason string) {
	a, err := readAnchor(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if prev == "" {
			return ""
		}
		return "the first record does not start the chain and no prune anchor vouches for it: earlier records were removed"
	case err != nil:
		return err.Error()
	case first != 0 && a.n != first-1:
		return fmt.Sprintf("the prune anchor is for %s.%d, but the oldest file is %s.%d: rotated files were removed without 'guard log prune'", FileName, a.n, FileName, first)
	case prev != a.hash:
		return "the first record does not carry the hash the prune anchor recorded: earlier records were edited or removed"
	}
	return ""
}
