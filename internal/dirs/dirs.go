// Package dirs is the one resolver of guard's own directories: where its
// configuration (policy, config.toml, the PIN hash) and its state (audit
// log, approval queue, checkpoints) live. Every package that needs one of
// them takes a Dirs; none reads HOME or XDG_* itself.
//
// It fails closed: without an absolute HOME there is no Dirs, and callers
// exit 125 rather than fall back to a relative path (a relative state
// directory would make guard's own files look like ordinary workspace files
// to the review).
package dirs

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Dirs are guard's directories, all absolute and cleaned.
type Dirs struct {
	// Home is the user's home directory ($HOME).
	Home string
	// Config is $XDG_CONFIG_HOME/guard, else ~/.config/guard.
	Config string
	// State is $XDG_STATE_HOME/guard, else ~/.local/state/guard.
	State string
}

// ErrNoHome is returned when HOME is unset, empty or relative.
var ErrNoHome = errors.New("HOME is unset, empty or not an absolute path")

// Resolve computes Dirs from the environment (getenv is os.Getenv outside
// tests). XDG variables that are not absolute are ignored, as the XDG spec
// asks; HOME must be absolute whatever XDG says, because the review needs
// it to know what the user's files are.
func Resolve(getenv func(string) string) (Dirs, error) {
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return Dirs{}, fmt.Errorf("locate guard's directories: %w (HOME=%q)", ErrNoHome, home)
	}
	d := Dirs{Home: filepath.Clean(home)}
	d.Config = filepath.Join(d.Home, ".config", "guard")
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		d.Config = filepath.Join(x, "guard")
	}
	d.State = filepath.Join(d.Home, ".local", "state", "guard")
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		d.State = filepath.Join(x, "guard")
	}
	return d, nil
}

// Approvals is the approval queue's directory.
func (d Dirs) Approvals() string { return filepath.Join(d.State, "approvals") }

// Checkpoints is where undo checkpoints are recorded.
func (d Dirs) Checkpoints() string { return filepath.Join(d.State, "checkpoints") }

// ConfigFile is config.toml (settings that are not policy).
func (d Dirs) ConfigFile() string { return filepath.Join(d.Config, "config.toml") }

// UserPolicy is the user's policy file.
func (d Dirs) UserPolicy() string { return filepath.Join(d.Config, "policy.toml") }
