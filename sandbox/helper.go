package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/guard-sh/guard/sandbox/confine"
)

// The helper is guard-sandbox-exec, or guard re-executed
// (/proc/self/exe), with confine.Env set: package confine reads the plan
// from a pipe, confines itself, starts the command as its child and
// stays as its watcher. On a second pipe it writes one line: a failure
// before the command ran, or the report that the command has exited and
// nothing it started is left. With the report guard checks the
// protected paths and writes its record while the helper exits; it
// still reaps the helper (and anything left) before it returns.

// Exit codes of the helper when the command did not run.
const (
	codeFailed        = confine.CodeFailed
	codeNotExecutable = confine.CodeNotExecutable
	codeNotFound      = confine.CodeNotFound
)

// status is the helper's report of a failure before the command ran.
type status struct {
	Code int    `json:"code"`
	Err  string `json:"err"`
	Name string `json:"name"` // the command, for "name: command not found"
	// Stale: the helper does not know this plan's format (a helper
	// binary from another guard build). Nothing ran.
	Stale bool `json:"stale,omitempty"`
	// Ran: the report of a command that ran. It has exited with Code,
	// or died of Signal (Code is then 128+Signal), and every process
	// it started is killed and reaped. Only the helper is left, exiting.
	Ran    bool `json:"ran,omitempty"`
	Signal int  `json:"signal,omitempty"`
	// Unmounted: why the command ran without the plan's mounts (no
	// mount namespace of the helper's own), for Result.Degraded.
	Unmounted string `json:"unmounted,omitempty"`
}

// ChildMain must be called first thing in main (and in TestMain of
// packages that test Run). In guard's ordinary runs it returns at once.
// In the sandbox helper it never returns: it confines the process,
// runs the command and exits with its status, or exits with 125, 126
// or 127.
func ChildMain() { confine.Main() }

// readStatus reads the helper's line: nil when it ended without one (it
// died: guard then goes by its exit status, as for a command that ran).
// A status with Ran set is the report of a command that ran and left
// nothing behind; any other is why the command did not run.
func readStatus(r io.Reader) (*status, error) {
	var data []byte
	buf := make([]byte, 512)
	for !bytes.Contains(data, []byte{'\n'}) {
		n, err := r.Read(buf)
		data = append(data, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read sandbox helper status: %w", err)
		}
		if len(data) > maxStatus {
			return nil, fmt.Errorf("sandbox helper status: longer than %d bytes", maxStatus)
		}
	}
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	if len(line) == 0 {
		return nil, nil
	}
	var st status
	if err := json.Unmarshal(line, &st); err != nil {
		return nil, fmt.Errorf("sandbox helper status %q: %w", line, err)
	}
	if st.Ran && (st.Signal < 0 || st.Signal > 64 || st.Code < 0 || st.Code > 255) {
		return nil, fmt.Errorf("sandbox helper status %q: no such status", line)
	}
	return &st, nil
}

// maxStatus bounds the helper's line (a failure quotes the command's
// name and an error).
const maxStatus = 1 << 20
