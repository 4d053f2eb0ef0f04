package sandbox

import (
	"bytes"
	"io"
	"sync"
)

// denialMarks are the strerror texts of the errors a confinement causes
// (EACCES, EPERM, EXDEV, and EROFS: outside the writable trees the
// helper's mounts are read-only).
var denialMarks = [][]byte{
	[]byte("Permission denied"),
	[]byte("Operation not permitted"),
	[]byte("Invalid cross-device link"),
	[]byte("Read-only file system"),
}

const (
	maxDenials    = 5
	maxDenialLine = 300
)

// denialWatcher passes everything written to it on to w unchanged and
// remembers the first few lines that mention a denial.
type denialWatcher struct {
	w io.Writer

	mu    sync.Mutex
	line  []byte // the current partial line, capped
	found []string
}

func (d *denialWatcher) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range p[:n] {
		if c == '\n' {
			d.check()
			continue
		}
		if len(d.line) < maxDenialLine {
			d.line = append(d.line, c)
		}
	}
	return n, err
}

func (d *denialWatcher) check() {
	if len(d.found) < maxDenials {
		for _, m := range denialMarks {
			if bytes.Contains(d.line, m) {
				d.found = append(d.found, string(d.line))
				break
			}
		}
	}
	d.line = d.line[:0]
}

// denials returns the lines seen, including a last unterminated one.
func (d *denialWatcher) denials() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.line) > 0 {
		d.check()
	}
	return d.found
}
