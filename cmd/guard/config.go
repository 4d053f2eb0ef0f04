package main

import (
	"bytes"
	"errors"
	"io/fs"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/internal/safefile"
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
type userConfig struct {
	Consent struct {
		Timeout string `toml:"timeout"`
	} `toml:"consent"`
	Notify struct {
		Desktop *bool  `toml:"desktop"`
		Webhook string `toml:"webhook"`
	} `toml:"notify"`
}

// settings is the parsed configuration with defaults applied.
type settings struct {
	consentTimeout time.Duration
	notify         approval.Notifications
}

const defaultConsentTimeout = 60 * time.Second

// maxConfigFile bounds config.toml: settings are a few lines.
const maxConfigFile = 64 << 10

// loadSettings reads config.toml. A missing file gives the defaults; a bad
// one is an error (exit 125) with the position, never a silent default.
func loadSettings() (settings, error) {
	st := settings{consentTimeout: defaultConsentTimeout, notify: approval.Notifications{Desktop: true}}
	d, err := guardDirs()
	if err != nil {
		return st, err
	}
	path := d.ConfigFile()
	data, err := safefile.Read(path, maxConfigFile)
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
			return st, failf([]string{"known keys: [consent] timeout, [notify] desktop, webhook"}, "%s:%d:%d: unknown key %s", path, row, col, se.Errors[0].Key())
		case errors.As(err, &de):
			row, col := de.Position()
			return st, failf([]string{"fix the file; known keys: [consent] timeout, [notify] desktop, webhook"}, "%s:%d:%d: %s", path, row, col, de.Error())
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
	return st, nil
}
