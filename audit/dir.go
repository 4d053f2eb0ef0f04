package audit

import (
	"errors"
	"path/filepath"
)

// DefaultDir is where guard keeps its state, the audit log among it:
// $XDG_STATE_HOME/guard, else $HOME/.local/state/guard. Relative values are
// ignored, as the XDG spec asks. getenv is os.Getenv outside tests.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "guard"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "guard"), nil
	}
	return "", errors.New("locate state directory: neither XDG_STATE_HOME nor HOME is an absolute path")
}
