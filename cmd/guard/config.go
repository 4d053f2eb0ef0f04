package main

import (
	"bytes"
	"errors"
	"fmt"
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
//	[approval]
//	wait = "60s"             # without a terminal, wait this long for
//	                         # 'guard approve' or 'guard deny' ("0s": do not wait)
//
//	[notify]
//	desktop = true           # notify-send when a request is queued
//	webhook = "https://…"    # POST the queued request as JSON
type userConfig struct {
	Consent struct {
		Timeout string `toml:"timeout"`
	} `toml:"consent"`
	Approval struct {
		Wait string `toml:"wait"`
	} `toml:"approval"`
	Notify struct {
		Desktop *bool  `toml:"desktop"`
		Webhook string `toml:"webhook"`
	} `toml:"notify"`
}

// settings is the parsed configuration with defaults applied.
type settings struct {
	consentTimeout time.Duration
	// approvalWait is how long a request queued without a terminal waits
	// for the user's decision before guard gives up (exit 126).
	approvalWait time.Duration
	notify       approval.Notifications
}

const defaultConsentTimeout = 60 * time.Second

// defaultApprovalWait stays below every supported agent's own command
// timeout (docs/agents.md: Claude Code's Bash tool gives a command 2
// minutes by default), so the agent sees guard's answer, not its own
// timeout.
const defaultApprovalWait = 60 * time.Second

// maxApprovalWait bounds [approval] wait and --wait: a longer wait would
// outlive the agents' command timeouts and the pending request itself.
const maxApprovalWait = 10 * time.Minute

// envApprovalWait overrides [approval] wait (the --wait flag overrides
// both). It can only change how long guard waits for the user, never what
// it decides, so an agent that sets it gains nothing.
const envApprovalWait = "GUARD_WAIT"

// maxConfigFile bounds config.toml: settings are a few lines.
const maxConfigFile = 64 << 10

// loadSettings reads config.toml. A missing file gives the defaults; a bad
// one is an error (exit 125) with the position, never a silent default.
func loadSettings() (settings, error) {
	st := settings{consentTimeout: defaultConsentTimeout, approvalWait: defaultApprovalWait, notify: approval.Notifications{Desktop: true}}
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
			return st, failf([]string{"known keys: [consent] timeout, [approval] wait, [notify] desktop, webhook"}, "%s:%d:%d: unknown key %s", path, row, col, se.Errors[0].Key())
		case errors.As(err, &de):
			row, col := de.Position()
			return st, failf([]string{"fix the file; known keys: [consent] timeout, [approval] wait, [notify] desktop, webhook"}, "%s:%d:%d: %s", path, row, col, de.Error())
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
	if c.Approval.Wait != "" {
		w, err := parseWait(c.Approval.Wait)
		if err != nil {
			return st, failf([]string{`write a duration such as "60s", or "0s" not to wait`}, "%s: bad [approval] wait %q: %v", path, c.Approval.Wait, err)
		}
		st.approvalWait = w
	}
	if c.Notify.Desktop != nil {
		st.notify.Desktop = *c.Notify.Desktop
	}
	st.notify.Webhook = c.Notify.Webhook
	return st, nil
}

// withEnv applies the environment's overrides to loaded settings.
func (st settings) withEnv(getenv func(string) string) (settings, error) {
	if v := getenv(envApprovalWait); v != "" {
		w, err := parseWait(v)
		if err != nil {
			return st, usagef(`set `+envApprovalWait+` to a duration such as "60s", or unset it`, "bad %s=%q: %v", envApprovalWait, v, err)
		}
		st.approvalWait = w
	}
	return st, nil
}

// parseWait reads an approval wait: a duration from 0 to maxApprovalWait.
func parseWait(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, errors.New("not a duration")
	case d < 0:
		return 0, errors.New("negative")
	case d > maxApprovalWait:
		return 0, fmt.Errorf("longer than %s", maxApprovalWait)
	}
	return d, nil
}
