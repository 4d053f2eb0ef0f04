// Package safefile reads the files guard trusts for its decisions (its
// config, policy files, scripts it reviews, approval requests, the PIN
// file) without letting those files attack guard: the open never blocks
// (a FIFO planted in place of a file would hang guard forever), only a
// regular file is read (not a device such as /dev/zero behind a symlink),
// and never more than a limit (a huge file is refused, not loaded).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

var (
	// ErrNotRegular: the path is a FIFO, device, socket or directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the limit.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the contents of the regular file at path, at most limit
// bytes; a longer file is ErrTooLarge. A missing file keeps its
// fs.ErrNotExist so callers can treat "absent" apart from "bad".
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// Open opens path read-only without blocking and checks that it is a
// regular file. O_NONBLOCK stays set on the returned file, which changes
// nothing for a regular file's reads.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, nil
}

// ReadAll reads f (named path in errors) up to limit bytes.
func ReadAll(f *os.File, path string, limit int64) ([]byte, error) {
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (limit %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// WriteTemp writes data to a new file in dir (os.CreateTemp's pattern),
// syncs it and closes it, and returns its path for the caller to install
// in one step (a rename to replace, a link to create) and then remove.
// On an error nothing is left behind. The file's mode is CreateTemp's
// 0600.
func WriteTemp(dir, pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
