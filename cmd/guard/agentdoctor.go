package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// What decides, beyond the settings file guard wrote, whether an agent
// runs guard's hook. doctor reports "ok" for a hook only when every gate
// is open; each gate is read from the agent's own files, as documented
// (agents.go cites the sources).

// hookGate is one agent's verdict on whether an installed hook fires.
type hookGate struct {
	fires  bool
	detail string
}

// gateFor runs the agent's gate for a hook found in settings (the user's
// or the project's file).
func gateFor(p *agentProtocol, settings string, project bool) hookGate {
	switch p.name {
	case "claude":
		return claudeGate(settings, project)
	case "codex":
		return codexGate(p)
	case "gemini":
		return geminiGate(settings, project)
	}
	// An agent whose settings guard cannot read for this: not reported
	// as firing on faith.
	return hookGate{false, "guard cannot check whether " + p.label + " runs this hook"}
}

// claudeManagedSettings is Claude Code's managed (enterprise) settings
// file on Linux; it outranks every other. A variable so tests can point
// it into their temporary directory.
var claudeManagedSettings = "/etc/claude-code/managed-settings.json"

// claudeGate: Claude Code merges settings with managed > local > project >
// user precedence (https://code.claude.com/docs/en/settings); the
// effective disableAllHooks comes from the highest file that sets it, and
// managed allowManagedHooksOnly keeps only the managed file's hooks.
func claudeGate(settings string, project bool) hookGate {
	dir := filepath.Dir(settings) // .claude
	files := []string{claudeManagedSettings}
	if project {
		files = append(files, filepath.Join(dir, "settings.local.json"), settings)
		if home := os.Getenv("HOME"); filepath.IsAbs(home) {
			files = append(files, filepath.Join(home, ".claude", "settings.json"))
		}
	} else {
		if root := doctorProject(); root != "" {
			files = append(files, filepath.Join(root, ".claude", "settings.local.json"), filepath.Join(root, ".claude", "settings.json"))
		}
		files = append(files, settings)
	}
	for i, f := range files {
		var s struct {
			DisableAllHooks       *bool `json:"disableAllHooks"`
			AllowManagedHooksOnly *bool `json:"allowManagedHooksOnly"`
		}
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || json.Unmarshal(data, &s) != nil {
			return hookGate{false, fmt.Sprintf("cannot read %s, which Claude Code reads too: %v", tildePath(f), err)}
		}
		if i == 0 && s.AllowManagedHooksOnly != nil && *s.AllowManagedHooksOnly {
			return hookGate{false, "managed settings allow only managed hooks (allowManagedHooksOnly): guard's hook does not run"}
		}
		if s.DisableAllHooks != nil {
			if *s.DisableAllHooks {
				return hookGate{false, fmt.Sprintf("%s sets disableAllHooks: no hook runs", tildePath(f))}
			}
			break // the highest file that sets it decides
		}
	}
	return hookGate{true, claudePermissionHooks(files)}
}

// claudePermissionHooks names the settings files that hold a
// PermissionRequest hook: it runs at each of Claude Code's permission
// prompts, guard's asks among them, and can answer it in the user's
// place. guard's hook still fires; its asks may not reach the user.
func claudePermissionHooks(files []string) string {
	var with []string
	for _, f := range files {
		var s struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &s) != nil {
			continue
		}
		if h, ok := s.Hooks["PermissionRequest"]; ok && !bytes.Equal(bytes.TrimSpace(h), []byte("[]")) && string(h) != "null" {
			with = append(with, tildePath(f))
		}
	}
	if len(with) == 0 {
		return ""
	}
	return "a PermissionRequest hook in " + strings.Join(with, ", ") + " can answer guard's asks in your place: check what it answers"
}

// codexConfig is the part of Codex's config.toml that gates hooks.
type codexConfig struct {
	Features map[string]any `toml:"features"`
	Hooks    struct {
		State map[string]struct {
			TrustedHash string `toml:"trusted_hash"`
		} `toml:"state"`
	} `toml:"hooks"`
}

// codexGate: hooks are on unless [features] hooks (or the deprecated
// codex_hooks) is false (https://developers.openai.com/codex/hooks), and
// Codex runs a hook only after the user trusts it in /hooks, recorded as
// [hooks.state."KEY"] trusted_hash in config.toml. The hash is Codex's
// own (over the hook's definition): guard can see that trust entries
// exist, not that one matches this hook.
func codexGate(p *agentProtocol) hookGate {
	dir := ""
	if d := os.Getenv(p.userEnv); filepath.IsAbs(d) {
		dir = d
	} else if home := os.Getenv("HOME"); filepath.IsAbs(home) {
		dir = filepath.Join(home, p.userDir)
	}
	path := filepath.Join(dir, "config.toml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return hookGate{false, "Codex has not recorded trust for any hook (no " + tildePath(path) + "): open /hooks in Codex and trust guard's"}
	}
	var c codexConfig
	if err == nil {
		err = toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	}
	if err != nil {
		return hookGate{false, fmt.Sprintf("cannot read %s, which decides whether Codex runs hooks: %v", tildePath(path), err)}
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := c.Features[k].(bool); ok && !v {
			return hookGate{false, fmt.Sprintf("%s turns hooks off ([features] %s = false)", tildePath(path), k)}
		}
	}
	trusted := 0
	for k, st := range c.Hooks.State {
		if st.TrustedHash != "" && strings.Contains(strings.ToLower(k), "pre_tool_use") {
			trusted++
		}
	}
	if trusted == 0 {
		return hookGate{false, "no PreToolUse hook is trusted in " + tildePath(path) + ": open /hooks in Codex and trust guard's"}
	}
	return hookGate{true, fmt.Sprintf("%d PreToolUse hook(s) trusted in %s (a changed or moved hook must be trusted again in /hooks)", trusted, tildePath(path))}
}

// geminiSystemSettings is Gemini CLI's system settings file on Linux,
// which overrides the user's and the project's.
var geminiSystemSettings = "/etc/gemini-cli/settings.json"

// geminiGate: hooksConfig.enabled (default true) turns the hooks system
// on or off, and hooksConfig.disabled lists hooks (by name or command)
// that do not run (gemini-cli docs/reference/configuration.md). Any of
// the system, project and user files can set them; a false or a listing
// in any of them is reported.
func geminiGate(settings string, project bool) hookGate {
	files := []string{geminiSystemSettings, settings}
	if project {
		if home := os.Getenv("HOME"); filepath.IsAbs(home) {
			files = append(files, filepath.Join(home, ".gemini", "settings.json"))
		}
	} else if root := doctorProject(); root != "" {
		files = append(files, filepath.Join(root, ".gemini", "settings.json"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var root *jsonSpan
		if err == nil {
			root, err = parseJSONSpans(data)
		}
		if err != nil {
			return hookGate{false, fmt.Sprintf("cannot read %s, which Gemini CLI reads too: %v", tildePath(f), err)}
		}
		hc := root.member("hooksConfig")
		if hc == nil {
			continue
		}
		if en := hc.member("enabled"); en != nil && string(data[en.start:en.end]) == "false" {
			return hookGate{false, fmt.Sprintf("%s turns the hooks system off (hooksConfig.enabled: false)", tildePath(f))}
		}
		if dis := hc.member("disabled"); dis != nil {
			for _, e := range dis.elems {
				var name string
				if json.Unmarshal(data[e.start:e.end], &name) == nil && (name == "guard" || ourHookCommand().MatchString(name)) {
					return hookGate{false, fmt.Sprintf("%s disables guard's hook (hooksConfig.disabled lists %q)", tildePath(f), name)}
				}
			}
		}
	}
	return hookGate{true, ""}
}

// doctorProject is the project doctor looks at: the git top-level of the
// working directory, else the working directory ("" when unknown).
func doctorProject() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return projectRoot(wd)
}

// hookBinary checks the guard a hook command runs: it must exist and be
// this guard. A moved or replaced binary leaves a hook that fails (and a
// Codex hook whose trust no longer matches).
func hookBinary(command string) (bool, string) {
	exe := hookExecutable(command)
	if exe == "" {
		return false, "cannot tell which guard the hook runs: " + command
	}
	st, err := os.Stat(exe)
	if err != nil {
		return false, fmt.Sprintf("the hook runs %s, which does not exist (guard moved?): run 'guard install' again", exe)
	}
	self := guardExecutable()
	if self == "" {
		return true, ""
	}
	if me, err := os.Stat(self); err == nil && !os.SameFile(st, me) && !sameContents(exe, self) {
		return false, fmt.Sprintf("the hook runs %s, not this guard (%s): run 'guard install' again with the guard you use", exe, self)
	}
	return true, ""
}

// sameContents reports whether two files hold the same bytes (a copy of
// this guard is this guard).
func sameContents(a, b string) bool {
	sum := func(p string) ([]byte, bool) {
		f, err := os.Open(p)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return nil, false
		}
		return h.Sum(nil), true
	}
	x, ok1 := sum(a)
	y, ok2 := sum(b)
	return ok1 && ok2 && bytes.Equal(x, y)
}
