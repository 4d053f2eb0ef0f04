package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/internal/safefile"
)

// userConfig is $XDG_CONFIG_HOME/guard/config.toml: settings that are not
// policy (policy.toml decides levels). Every key is optional; configKeys
// lists them with their defaults, and docs/config.md documents each.
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
	Approval struct {
		Wait string `toml:"wait"`
	} `toml:"approval"`
	Notify struct {
		Desktop *bool  `toml:"desktop"`
		Webhook string `toml:"webhook"`
	} `toml:"notify"`
	Undo undoConfig `toml:"undo"`
}

// configKey is one key of config.toml, for hints and the docs test.
type configKey struct {
	table, key, def, what string
}

// configKeys are every key config.toml may hold, in the order of
// docs/config.md.
var configKeys = []configKey{
	{"consent", "timeout", `"60s"`, "a duration (\"90s\", \"2m\"): no answer at a consent prompt within it is a refusal"},
	{"approval", "wait", `"60s"`, "a duration from \"0s\" to \"10m\": without a terminal, how long a queued request waits for 'guard approve' or 'guard deny' (GUARD_WAIT and --wait override it)"},
	{"notify", "desktop", "true", "true or false: run notify-send when a request is queued for approval"},
	{"notify", "webhook", `""`, "an https URL (or http to a loopback address) to POST each queued request to, as JSON"},
	{"undo", "enabled", "true", "true or false: take a checkpoint before commands that may change the workspace (false: workspace deletes stay B)"},
	{"undo", "keep", "50", "a whole number: how many checkpoints to keep, newest first"},
	{"undo", "days", "7", "a whole number: drop checkpoints older than this many days"},
	{"undo", "max_backup_files", "20000", "a whole number: the most files one checkpoint backs up with hard links (ignored files, non-git workspaces)"},
	{"undo", "max_backup_mb", "2048", "a whole number: the most megabytes one checkpoint backs up with hard links"},
}

// knownKeysHint lists the keys for hints.
func knownKeysHint() string {
	var parts []string
	for _, k := range configKeys {
		parts = append(parts, "["+k.table+"] "+k.key)
	}
	return "known keys: " + strings.Join(parts, ", ") + "; 'guard help config' documents each"
}

// settings is the parsed configuration with defaults applied.
type settings struct {
	consentTimeout time.Duration
	// approvalWait is how long a request queued without a terminal waits
	// for the user's decision before guard gives up (exit 126).
	approvalWait time.Duration
	notify       approval.Notifications
	undo         undoSettings
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

// configPath is where config.toml is read (exit 125 without an absolute
// HOME).
func configPath() (string, error) {
	d, err := guardDirs()
	if err != nil {
		return "", err
	}
	return d.ConfigFile(), nil
}

// loadSettings reads config.toml. A missing file gives the defaults; a bad
// one is an error (exit 125) with the position, never a silent default.
func loadSettings() (settings, error) {
	path, err := configPath()
	if err != nil {
		return defaultSettings(), err
	}
	data, err := safefile.Read(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultSettings(), nil
	}
	if err != nil {
		return defaultSettings(), failf([]string{"fix or remove " + path}, "read %s: %v", path, err)
	}
	return parseSettings(path, data)
}

func defaultSettings() settings {
	return settings{consentTimeout: defaultConsentTimeout, approvalWait: defaultApprovalWait, notify: approval.Notifications{Desktop: true}, undo: defaultUndoSettings()}
}

// parseSettings checks the text of a config.toml and applies it over the
// defaults. Every error names the file, the line and column, and the fix.
func parseSettings(path string, data []byte) (settings, error) {
	st := defaultSettings()
	var c userConfig
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var de *toml.DecodeError
		var se *toml.StrictMissingError
		switch {
		case errors.As(err, &se) && len(se.Errors) > 0:
			row, col := se.Errors[0].Position()
			return st, failf([]string{knownKeysHint()}, "%s:%d:%d: unknown key %s", path, row, col, strings.Join(se.Errors[0].Key(), "."))
		case errors.As(err, &de):
			row, col := de.Position()
			return st, failf([]string{"fix the file; " + knownKeysHint()}, "%s:%d:%d: %s", path, row, col, de.Error())
		}
		return st, failf(nil, "%s: %v", path, err)
	}
	if c.Consent.Timeout != "" {
		d, err := time.ParseDuration(c.Consent.Timeout)
		if err != nil || d <= 0 {
			return st, failf([]string{`write a duration such as "60s" or "2m"`}, "%s:%d: bad [consent] timeout %q", path, keyLine(data, "consent", "timeout"), c.Consent.Timeout)
		}
		st.consentTimeout = d
	}
	if c.Approval.Wait != "" {
		w, err := parseWait(c.Approval.Wait)
		if err != nil {
			return st, failf([]string{`write a duration such as "60s", or "0s" not to wait`}, "%s:%d: bad [approval] wait %q: %v", path, keyLine(data, "approval", "wait"), c.Approval.Wait, err)
		}
		st.approvalWait = w
	}
	if c.Notify.Desktop != nil {
		st.notify.Desktop = *c.Notify.Desktop
	}
	if c.Notify.Webhook != "" {
		if err := approval.CheckWebhook(c.Notify.Webhook); err != nil {
			return st, failf([]string{`write an https URL, or http://localhost:PORT/… for a local receiver`}, "%s:%d: bad [notify] webhook: %v", path, keyLine(data, "notify", "webhook"), err)
		}
	}
	st.notify.Webhook = c.Notify.Webhook
	u, err := c.Undo.settings(path)
	if err != nil {
		return st, err
	}
	st.undo = u
	return st, nil
}

// keyLine is the line of `key =` inside [table] in a TOML text (a dotted
// `table.key =` at the top level too), or 0 when it is not found.
func keyLine(data []byte, table, key string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	cur := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			cur = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		name, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name = strings.Trim(strings.TrimSpace(name), `"'`)
		if cur == table && name == key || cur == "" && name == table+"."+key {
			return n
		}
	}
	return 0
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
