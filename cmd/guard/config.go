package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/guard-sh/guard/approval"
)

// userConfig is $XDG_CONFIG_HOME/guard/config.toml: settings that are not
// policy (policy.toml decides levels). Every key is optional.
//
//	[consent]
//	timeout = "60s"          # no answer at the prompt within this is a refusal
//
//	[notify]
//	desktop = true           # notify-send when a request is queued
//	webhook = "https://…"    # POST the queued request as JSON
//
//	[undo]
//	enabled = true           # checkpoints before workspace-writing commands
//	keep = 50                # checkpoints kept (guard undo), newest first
//	days = 7                 # and none older than this many days
//	max_backup_files = 20000 # hard-link backups per checkpoint, files
//	max_backup_mb = 2048     # and total size; over it, deletes stay B
type userConfig struct {
	Consent struct {
		Timeout string `toml:"timeout"`
	} `toml:"consent"`
	Notify struct {
		Desktop *bool  `toml:"desktop"`
		Webhook string `toml:"webhook"`
	} `toml:"notify"`
	Undo undoConfig `toml:"undo"`
}

// settings is the parsed configuration with defaults applied.
type settings struct {
	consentTimeout time.Duration
	notify         approval.Notifications
	undo           undoSettings
}

const defaultConsentTimeout = 60 * time.Second

// loadSettings reads config.toml. A missing file gives the defaults; a bad
// one is an error (exit 125) with the position, never a silent default.
func loadSettings() (settings, error) {
	st := settings{consentTimeout: defaultConsentTimeout, notify: approval.Notifications{Desktop: true}, undo: defaultUndoSettings()}
	path := filepath.Join(configDir(), "config.toml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, failf([]string{"fix or remove " + path}, "read %s: %v", path, err)
	}
	var c userConfig
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var de *toml.DecodeError
		var se *toml.StrictMissingError
		switch {
		case errors.As(err, &se) && len(se.Errors) > 0:
			row, col := se.Errors[0].Position()
			return st, failf([]string{"known keys: [consent] timeout, [notify] desktop, webhook, [undo] enabled, keep, days, max_backup_files, max_backup_mb"}, "%s:%d:%d: unknown key %s", path, row, col, se.Errors[0].Key())
		case errors.As(err, &de):
			row, col := de.Position()
			return st, failf([]string{"fix the file; known keys: [consent] timeout, [notify] desktop, webhook, [undo] enabled, keep, days, max_backup_files, max_backup_mb"}, "%s:%d:%d: %s", path, row, col, de.Error())
		}
		return st, failf(nil, "%s: %v", path, err)
	}
	if c.Consent.Timeout != "" {
		d, err := time.ParseDuration(c.Consent.Timeout)
		if err != nil || d <= 0 {
			return st, failf([]string{`write a duration such as "60s" or "2m"`}, "%s: bad [consent] timeout %q", path, c.Consent.Timeout)
		}
		st.consentTimeout = d
	}
	if c.Notify.Desktop != nil {
		st.notify.Desktop = *c.Notify.Desktop
	}
	st.notify.Webhook = c.Notify.Webhook
	if st.undo, err = c.Undo.settings(path); err != nil {
		return st, err
	}
	return st, nil
}
