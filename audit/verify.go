package audit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Report is what Verify walked.
type Report struct {
	// Files are the files of the chain, oldest first.
	Files []string
	// Records is how many lines verified.
	Records int
	// Head is the hash of the last verified line; "" for an empty log.
	Head string
	// Start is the Prev of the first record: "" when the chain starts at
	// the beginning, a hash when older rotated files were removed.
	Start string
}

// ChainError is a chain that does not hold. Torn tells the two cases apart:
// a torn last line is what a crash mid-write leaves and loses at most that
// record; a break in the middle means lines were edited, removed or
// inserted.
type ChainError struct {
	// File is the base name of the file: audit.log or audit.log.N.
	File string
	// Line is the first bad line, counted from 1 within File. Each line
	// before it is vouched for by the hash its successor carries.
	Line int
	// Torn is true for a torn last line, false for a break in the middle.
	Torn bool
	// Reason says what is wrong with the line.
	Reason string
}

func (e *ChainError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.File != FileName {
		where = e.File + ": " + where
	}
	if e.Torn {
		return fmt.Sprintf("%s: torn last line (crash mid-write): %s", where, e.Reason)
	}
	return fmt.Sprintf("%s: chain broken in the middle (tampering): %s", where, e.Reason)
}

// Verify walks the log in dir, rotated files first, and checks that every
// line is a record carrying the hash of the line before it. It returns a
// *ChainError for the first bad line, and other errors when the log cannot
// be read. An empty or missing log verifies.
//
// Verify cannot see a last record that was edited or removed (nothing comes
// after it to carry its hash): compare Report.Head with a head seen earlier,
// such as the one shown in a PIN prompt.
func Verify(dir string) (Report, error) {
	var rep Report
	unlock, err := readLock(dir)
	if err != nil {
		return rep, err
	}
	defer unlock()
	files, err := logFiles(dir)
	if err != nil {
		return rep, fmt.Errorf("verify audit log: %w", err)
	}
	sets := newSetCache(dir)
	var (
		expect   string // the hash the next line must carry
		prevFile string
		prevLine int
		first    = true
	)
	for fi, lf := range files {
		rep.Files = append(rep.Files, lf.name)
		lastFile := fi == len(files)-1
		err := eachLine(filepath.Join(dir, lf.name), func(n int, line []byte, terminated, last bool) error {
			torn := lastFile && last
			if !terminated {
				if torn {
					return &ChainError{lf.name, n, true, "the line is not newline-terminated"}
				}
				return &ChainError{lf.name, n, false, "a rotated file ends in an incomplete line"}
			}
			prev, ok := parseLink(line)
			switch {
			case !ok:
				// A crash mid-write leaves a line without its newline (one
				// write(2) per record); a complete line that is not a
				// record was written by someone else.
				return &ChainError{lf.name, n, false, "the line is not a valid record (edited?)"}
			case first:
				rep.Start = prev
				if reason := checkStart(dir, lf.n, prev); reason != "" {
					return &ChainError{lf.name, n, false, reason}
				}
			case prev != expect:
				next := fmt.Sprintf("line %d", n)
				if lf.name != prevFile {
					next = fmt.Sprintf("%s line %d", lf.name, n)
				}
				return &ChainError{prevFile, prevLine, false, fmt.Sprintf("%s does not carry this line's hash: this line was edited, or lines after it were removed or inserted", next)}
			}
			for _, name := range lineSets(line) {
				// The set's name is vouched for by the chain, its file
				// only by matching the name.
				if _, err := sets.load(name); err != nil {
					return &ChainError{lf.name, n, false, err.Error()}
				}
			}
			first = false
			expect = lineHash(line)
			prevFile, prevLine = lf.name, n
			rep.Records++
			rep.Head = expect
			return nil
		})
		if err != nil {
			var ce *ChainError
			if !errors.As(err, &ce) {
				err = fmt.Errorf("verify audit log: %w", err)
			}
			return rep, err
		}
	}
	return rep, nil
}

// eachLine calls fn for each line of the file at path, numbered from 1,
// without its newline; terminated says whether it had one and last whether
// it is the file's last line. A missing file has no lines.
func eachLine(path string, fn func(n int, line []byte, terminated, last bool) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	read := func() ([]byte, bool, error) {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(line) == 0 {
				return nil, false, io.EOF
			}
			return line, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		return line[:len(line)-1], true, nil
	}
	line, terminated, err := read()
	for n := 1; err == nil; n++ {
		next, nextTerminated, nextErr := read()
		if nextErr != nil && nextErr != io.EOF {
			return nextErr
		}
		if ferr := fn(n, line, terminated, nextErr == io.EOF); ferr != nil {
			return ferr
		}
		line, terminated, err = next, nextTerminated, nextErr
	}
	if err != io.EOF {
		return err
	}
	return nil
}

// readLock takes the shared lock, so a reader sees no half-written record
// and no rotation in progress. Without a lock file (no writer ever ran, or a
// read-only directory) it reads unlocked.
func readLock(dir string) (unlock func(), err error) {
	f, err := os.Open(filepath.Join(dir, lockName))
	if err != nil {
		return func() {}, nil
	}
	if err := flock(f, syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock audit log: %w", err)
	}
	return func() {
		flock(f, syscall.LOCK_UN)
		f.Close()
	}, nil
}
