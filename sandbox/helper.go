package sandbox

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/guard-sh/guard/sandbox/confine"
)

// The helper is guard-sandbox-exec, or guard re-executed
// (/proc/self/exe), with confine.Env set: package confine reads the plan
// from a pipe, confines itself, starts the command as its child and
// stays as its watcher. Until the command runs it can report a failure
// on a second pipe, which it closes then: guard reading EOF there means
// the command was executed.

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
}

// ChildMain must be called first thing in main (and in TestMain of
// packages that test Run). In guard's ordinary runs it returns at once.
// In the sandbox helper it never returns: it confines the process,
// runs the command and exits with its status, or exits with 125, 126
// or 127.
func ChildMain() { confine.Main() }

// readStatus reads the helper's report: nil when the command ran.
func readStatus(r io.Reader) (*status, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read sandbox helper status: %w", err)
	}
	if len(data) == 0 {
		return nil, nil
	}
	var st status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("sandbox helper status %q: %w", data, err)
	}
	return &st, nil
}
