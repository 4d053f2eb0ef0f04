package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/decision"
	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/parse"
)

// backupSuffix names the copy of a settings file as it was before guard's
// last change to it.
const backupSuffix = ".guard-backup"

// shellLinkName is the name of the shim's link: argv[0] guard-sh runs
// `guard shell`.
const shellLinkName = "guard-sh"

// hookGroup and hookEntry are the configuration guard writes, in the key
// order the agents document.
type hookGroup struct {
	Matcher string      `json:"matcher"`
	Hooks   []hookEntry `json:"hooks"`
}

type hookEntry struct {
	Name      string `json:"name,omitempty"`
	Type      string `json:"type"`
	Command   string `json:"command"`
	Timeout   int    `json:"timeout"`
	OnFailure string `json:"onFailure,omitempty"`
}

func (t *agentProtocol) command(exe string) string {
	cmd, err := parse.Quote([]string{exe, "hook", t.name})
	if err != nil {
		return exe + " hook " + t.name
	}
	return cmd
}

func (t *agentProtocol) group(exe string) hookGroup {
	e := hookEntry{Type: "command", Command: t.command(exe), Timeout: t.timeout, OnFailure: t.onFailure}
	if t.named {
		e.Name = "guard"
	}
	return hookGroup{Matcher: t.matcher, Hooks: []hookEntry{e}}
}

// settingsPath is the file to edit: the user's, or the project's (at the
// git top-level of the working directory, else the working directory).
func (t *agentProtocol) settingsPath(project bool) (string, error) {
	if project {
		wd, err := os.Getwd()
		if err != nil {
			return "", failf(nil, "cannot determine the current directory: %v", err)
		}
		root := decision.GitTopLevel(os.Stat, wd)
		if root == "" {
			root = wd
		}
		return filepath.Join(root, t.projectDir, t.file), nil
	}
	if t.userEnv != "" {
		if d := os.Getenv(t.userEnv); filepath.IsAbs(d) {
			return filepath.Join(d, t.file), nil
		}
	}
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", failf([]string{"set HOME"}, "cannot find the home directory")
	}
	return filepath.Join(home, t.userDir, t.file), nil
}

// guardExecutable is this program's path with symlinks resolved ("" when
// unknown).
func guardExecutable() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// guardPath is the path agents should call guard by: the guard on PATH
// when it is this very program (a name that survives upgrades, such as a
// package manager's link), else this program's own path.
func guardPath() string {
	exe := guardExecutable()
	if p, err := exec.LookPath("guard"); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
			return abs
		}
	}
	if exe == "" {
		return "guard"
	}
	return exe
}

// newInstallAgentCmds are `guard install claude|codex|gemini|shell`.
func newInstallAgentCmds(s *streams) []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range agentProtocols {
		cmds = append(cmds, newAgentCmd(s, t, true))
	}
	return append(cmds, newInstallShellCmd(s))
}

// newUninstallAgentCmds are `guard uninstall claude|codex|gemini|shell`.
func newUninstallAgentCmds(s *streams) []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range agentProtocols {
		cmds = append(cmds, newAgentCmd(s, t, false))
	}
	return append(cmds, newUninstallShellCmd(s))
}

func newAgentCmd(s *streams, t *agentProtocol, install bool) *cobra.Command {
	var project, user bool
	c := &cobra.Command{
		Use:  t.name,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if project && user {
				return usagef("choose one of --project and --user", "--project and --user exclude each other")
			}
			path, err := t.settingsPath(project)
			if err != nil {
				return err
			}
			if install {
				return installAgent(s, t, path)
			}
			return uninstallAgent(s, t, path)
		},
	}
	if install {
		c.Short = "Review every tool call of " + t.label + " with guard's hook"
		c.Long = fmt.Sprintf(`Adds guard's %s hook ('guard hook %s') to %s's settings, keeping
everything else in the file as it is. The file as it was is kept next to it
as *%s. Running it again changes nothing (or updates guard's path);
'guard uninstall %s' removes only guard's entry.

--user (the default) edits ~/%s/%s; --project edits %s/%s at the
top of the repository.`, t.event, t.name, t.label, backupSuffix, t.name, t.userDir, t.file, t.projectDir, t.file)
	} else {
		c.Short = "Remove guard's hook from " + t.label + "'s settings"
	}
	c.Flags().BoolVar(&project, "project", false, "the project's settings (at the top of the repository)")
	c.Flags().BoolVar(&user, "user", false, "your own settings, for every project (the default)")
	return c
}

func installAgent(s *streams, t *agentProtocol, path string) error {
	exe := guardPath()
	res, err := editSettingsFile(path, true, func(b []byte) ([]byte, error) { return installHookJSON(b, t, exe) })
	if err != nil {
		return failf([]string{"fix the file, or add this to its \"hooks\" by hand: " + hookSnippet(t, exe)}, "%v", err)
	}
	switch {
	case !res.changed:
		fmt.Fprintf(s.err, "guard: %s already calls guard's hook in %s; nothing changed\n", t.label, tildePath(path))
	case res.created:
		fmt.Fprintf(s.err, "guard: created %s with guard's %s hook\n", tildePath(path), t.label)
	default:
		fmt.Fprintf(s.err, "guard: added guard's %s hook to %s (the file as it was: %s)\n", t.label, tildePath(path), tildePath(res.backup))
	}
	for _, h := range t.hints {
		fmt.Fprintf(s.err, "guard: hint: %s\n", h)
	}
	fmt.Fprintf(s.err, "guard: hint: 'guard doctor' checks that the hook answers\n")
	return nil
}

func uninstallAgent(s *streams, t *agentProtocol, path string) error {
	res, err := editSettingsFile(path, false, func(b []byte) ([]byte, error) { return uninstallHookJSON(b, t) })
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(s.err, "guard: %s does not exist; nothing to do\n", tildePath(path))
		return nil
	case err != nil:
		return failf([]string{"remove guard's entry by hand"}, "%v", err)
	case !res.changed:
		fmt.Fprintf(s.err, "guard: no guard hook in %s; nothing to do\n", tildePath(path))
		return nil
	}
	fmt.Fprintf(s.err, "guard: removed guard's %s hook from %s\n", t.label, tildePath(path))
	// The copy install kept is of a file guard no longer changes: an
	// uninstall leaves nothing of guard's behind.
	if fi, err := os.Lstat(path + backupSuffix); err == nil && fi.Mode().IsRegular() {
		if err := os.Remove(path + backupSuffix); err != nil {
			return failf([]string{"remove it by hand"}, "remove %s: %v", path+backupSuffix, err)
		}
		fmt.Fprintf(s.err, "guard: removed %s (the copy kept by 'guard install %s')\n", tildePath(path+backupSuffix), t.name)
	}
	return nil
}

// hookSnippet is the configuration to add by hand.
func hookSnippet(t *agentProtocol, exe string) string {
	b, _ := renderJSON(map[string]any{t.event: []hookGroup{t.group(exe)}}, "", "")
	return string(b)
}

// settingsEdit says what editSettingsFile did.
type settingsEdit struct {
	changed, created bool
	backup           string
}

// editSettingsFile applies edit to the file at path (its target, when it
// is a symlink): with backup, the old contents go to path+backupSuffix;
// the new ones replace the file atomically with its mode kept. A missing
// file is edited from empty; edit returning the input unchanged writes
// nothing.
func editSettingsFile(path string, backup bool, edit func([]byte) ([]byte, error)) (settingsEdit, error) {
	var res settingsEdit
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	mode := fs.FileMode(0o644)
	data, err := os.ReadFile(real)
	existed := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return res, fmt.Errorf("read %s: %w", path, err)
	default:
		if st, err := os.Stat(real); err == nil {
			mode = st.Mode().Perm()
		}
	}
	out, err := edit(data)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if !existed && out == nil {
		return res, fs.ErrNotExist
	}
	if existed && bytes.Equal(out, data) {
		return res, nil
	}
	res.changed, res.created = true, !existed
	if existed && backup {
		res.backup = path + backupSuffix
		if err := writeFileAtomic(res.backup, data, 0o600); err != nil {
			return res, fmt.Errorf("write the backup: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		return res, err
	}
	if err := writeFileAtomic(real, out, mode); err != nil {
		return res, err
	}
	return res, nil
}

// writeFileAtomic writes data to a temporary file beside path, syncs it
// and renames it into place.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// installHookJSON adds t's hook group for exe to a settings document,
// changing only what it must: other keys, other hooks, comments and
// formatting stay byte for byte. A group of guard's with an older path is
// updated in place; guard's hook inside someone else's group is moved out.
func installHookJSON(data []byte, t *agentProtocol, exe string) ([]byte, error) {
	want := t.group(exe)
	if len(bytes.TrimSpace(data)) == 0 {
		doc := map[string]any{"hooks": map[string]any{t.event: []hookGroup{want}}}
		b, err := renderJSON(doc, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	b := data
	for range 64 {
		root, err := parseJSONSpans(b)
		if err != nil {
			return nil, err
		}
		if root.kind != '{' {
			return nil, errors.New("the settings are not a JSON object")
		}
		unit := indentUnit(b, root)
		hooks := root.member("hooks")
		if hooks == nil {
			return insertMember(b, root, "hooks", map[string]any{t.event: []hookGroup{want}}, unit)
		}
		if hooks.kind != '{' {
			return nil, errors.New(`"hooks" is not an object`)
		}
		ev := hooks.member(t.event)
		if ev == nil {
			return insertMember(b, hooks, t.event, []hookGroup{want}, unit)
		}
		if ev.kind != '[' {
			return nil, fmt.Errorf(`"hooks"."%s" is not a list`, t.event)
		}
		kept := -1
		for i, g := range ev.elems {
			if kept < 0 && sameJSON(b[g.start:g.end], want) {
				kept = i
			}
		}
		next, done := b, true
		for i, g := range ev.elems {
			if i == kept {
				continue
			}
			ours, only := t.oursIn(b, g)
			if len(ours) == 0 {
				continue
			}
			done = false
			switch {
			case only && kept < 0:
				next, err = replaceValue(b, g, want, unit) // an older path: update it where it is
			case only:
				next = removeElem(b, ev, i)
			default:
				next = removeElem(b, g.member("hooks"), ours[len(ours)-1])
			}
			break
		}
		if err != nil {
			return nil, err
		}
		if done {
			if kept >= 0 {
				return b, nil
			}
			return appendElem(b, ev, want, unit)
		}
		b = next
	}
	return nil, errors.New("too many guard hook entries to tidy")
}

// uninstallHookJSON removes t's hooks (and the containers left empty).
func uninstallHookJSON(data []byte, t *agentProtocol) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil
	}
	b := data
	removed := false
	for range 64 {
		root, err := parseJSONSpans(b)
		if err != nil {
			return nil, err
		}
		hooks := root.member("hooks")
		if root.kind != '{' || hooks == nil || hooks.kind != '{' {
			return b, nil
		}
		if ev := hooks.member(t.event); ev != nil && ev.kind == '[' {
			found := false
			for i, g := range ev.elems {
				ours, only := t.oursIn(b, g)
				if len(ours) == 0 {
					continue
				}
				found, removed = true, true
				if only {
					b = removeElem(b, ev, i)
				} else {
					b = removeElem(b, g.member("hooks"), ours[len(ours)-1])
				}
				break
			}
			if found {
				continue
			}
			if removed && len(ev.elems) == 0 {
				b = removeMember(b, hooks, hooks.memberIndex(t.event))
				continue
			}
		}
		if removed && len(hooks.members) == 0 {
			b = removeMember(b, root, root.memberIndex("hooks"))
		}
		return b, nil
	}
	return nil, errors.New("too many guard hook entries to remove")
}

// oursIn lists the indexes of guard's hooks in a group's "hooks" list, and
// whether the group holds nothing else.
func (t *agentProtocol) oursIn(b []byte, g *jsonSpan) (ours []int, only bool) {
	if g.kind != '{' {
		return nil, false
	}
	hs := g.member("hooks")
	if hs == nil || hs.kind != '[' {
		return nil, false
	}
	for i, h := range hs.elems {
		if h.kind != '{' {
			continue
		}
		c := h.member("command")
		if c == nil || c.kind != '"' {
			continue
		}
		var cmd string
		if json.Unmarshal(b[c.start:c.end], &cmd) == nil && t.isOurs(cmd) {
			ours = append(ours, i)
		}
	}
	return ours, len(ours) > 0 && len(ours) == len(hs.elems)
}

// ourHookCommands are the commands of guard's hooks in a settings file.
func (t *agentProtocol) ourHookCommands(data []byte) []string {
	var out []string
	for _, h := range t.ourHooks(data) {
		out = append(out, h.command)
	}
	return out
}

// installedHook is one of guard's hooks as a settings file holds it.
type installedHook struct {
	command   string
	onFailure string // "" when the entry has none
	// matcher is its group's matcher (hasMatcher false when it has
	// none, which matches every tool).
	matcher    string
	hasMatcher bool
	// timeout is the entry's, in the agent's unit; 0 when it has none
	// (the agent's default, 60 s in each).
	timeout float64
}

// shapeProblem says why a hook installed in an older or edited shape
// lets calls through that guard never sees: a matcher narrower than
// every tool (an older guard wrote "Bash", "Bash|apply_patch": file and
// MCP tools then run unchecked), a timeout the agent reaches before
// guard's deadline (the agent then runs the call), or a missing
// onFailure where the agent has one. "" when there is none.
func (t *agentProtocol) shapeProblem(h installedHook) string {
	if t.matcher == "*" && h.hasMatcher && !slices.Contains([]string{"*", "", ".*"}, h.matcher) {
		return fmt.Sprintf("but its matcher %q shows guard only those tools: %s runs every other tool call (file tools, MCP tools) unchecked", h.matcher, t.label)
	}
	unit := time.Second
	if t.gemini {
		unit = time.Millisecond
	}
	if h.timeout != 0 && time.Duration(h.timeout*float64(unit)) <= hookDeadline {
		return fmt.Sprintf("but its timeout (%g) is not longer than guard's %s deadline: %s runs the call when a slow decision times out", h.timeout, hookDeadline, t.label)
	}
	if t.onFailure != "" && h.onFailure != t.onFailure {
		// Without it the agent runs the call when guard cannot start
		// (moved, removed) or times out: a fail-open.
		return fmt.Sprintf("but the hook lacks onFailure: %q, so %s runs the call anyway when guard cannot start or times out", t.onFailure, t.label)
	}
	return ""
}

// ourHooks are guard's hooks in a settings file.
func (t *agentProtocol) ourHooks(data []byte) []installedHook {
	root, err := parseJSONSpans(data)
	if err != nil || root.kind != '{' {
		return nil
	}
	hooks := root.member("hooks")
	if hooks == nil || hooks.kind != '{' {
		return nil
	}
	ev := hooks.member(t.event)
	if ev == nil || ev.kind != '[' {
		return nil
	}
	var out []installedHook
	for _, g := range ev.elems {
		ours, _ := t.oursIn(data, g)
		hs := g.member("hooks")
		for _, i := range ours {
			var h installedHook
			if c := hs.elems[i].member("command"); c == nil || json.Unmarshal(data[c.start:c.end], &h.command) != nil {
				continue
			}
			if f := hs.elems[i].member("onFailure"); f != nil {
				json.Unmarshal(data[f.start:f.end], &h.onFailure)
			}
			if m := g.member("matcher"); m != nil {
				h.hasMatcher = true
				if json.Unmarshal(data[m.start:m.end], &h.matcher) != nil {
					h.matcher = string(data[m.start:m.end]) // not a string: no tool name matches it
				}
			}
			if d := hs.elems[i].member("timeout"); d != nil {
				if json.Unmarshal(data[d.start:d.end], &h.timeout) != nil || h.timeout < 0 {
					h.timeout = -1 // not a number of seconds: the agent's guess, not guard's
				}
			}
			out = append(out, h)
		}
	}
	return out
}

// sameJSON reports whether span holds the same JSON as v.
func sameJSON(span []byte, v any) bool {
	var a, b any
	if json.Unmarshal(span, &a) != nil {
		return false
	}
	enc, err := json.Marshal(v)
	if err != nil || json.Unmarshal(enc, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// jsonSpan is a JSON value and the bytes it occupies: enough to edit a
// document without reformatting it.
type jsonSpan struct {
	kind       byte // '{', '[', '"', '0' (number), 'l' (true, false, null)
	start, end int
	members    []jsonMember // objects
	elems      []*jsonSpan  // arrays
}

type jsonMember struct {
	key      string
	keyStart int
	value    *jsonSpan
}

func (v *jsonSpan) memberIndex(key string) int {
	for i, m := range v.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

func (v *jsonSpan) member(key string) *jsonSpan {
	if i := v.memberIndex(key); i >= 0 {
		return v.members[i].value
	}
	return nil
}

// maxJSONDepth bounds nesting in settings files.
const maxJSONDepth = 256

// parseJSONSpans parses a JSON document (with // and /* */ comments, which
// Gemini CLI's settings allow) into spans.
func parseJSONSpans(b []byte) (*jsonSpan, error) {
	sc := &jsonScanner{b: b}
	if err := sc.space(); err != nil {
		return nil, err
	}
	v, err := sc.value(0)
	if err != nil {
		return nil, err
	}
	if err := sc.space(); err != nil {
		return nil, err
	}
	if sc.pos != len(b) {
		return nil, sc.errorf("unexpected text after the JSON value")
	}
	return v, nil
}

type jsonScanner struct {
	b   []byte
	pos int
}

func (sc *jsonScanner) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(sc.b[:min(sc.pos, len(sc.b))], []byte("\n"))
	return fmt.Errorf("not valid JSON at line %d: %s", line, fmt.Sprintf(format, args...))
}

func (sc *jsonScanner) space() error {
	for sc.pos < len(sc.b) {
		c := sc.b[sc.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			sc.pos++
		case c == '/' && sc.pos+1 < len(sc.b) && sc.b[sc.pos+1] == '/':
			for sc.pos < len(sc.b) && sc.b[sc.pos] != '\n' {
				sc.pos++
			}
		case c == '/' && sc.pos+1 < len(sc.b) && sc.b[sc.pos+1] == '*':
			end := bytes.Index(sc.b[sc.pos+2:], []byte("*/"))
			if end < 0 {
				return sc.errorf("unterminated comment")
			}
			sc.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

func (sc *jsonScanner) peek() byte {
	if sc.pos < len(sc.b) {
		return sc.b[sc.pos]
	}
	return 0
}

func (sc *jsonScanner) value(depth int) (*jsonSpan, error) {
	if depth > maxJSONDepth {
		return nil, sc.errorf("nested too deeply")
	}
	v := &jsonSpan{start: sc.pos}
	switch c := sc.peek(); {
	case c == '{':
		v.kind = '{'
		sc.pos++
		if err := sc.space(); err != nil {
			return nil, err
		}
		if sc.peek() == '}' {
			sc.pos++
			v.end = sc.pos
			return v, nil
		}
		for {
			if err := sc.space(); err != nil {
				return nil, err
			}
			if sc.peek() != '"' {
				return nil, sc.errorf("want a key")
			}
			keyStart := sc.pos
			key, err := sc.str()
			if err != nil {
				return nil, err
			}
			if err := sc.space(); err != nil {
				return nil, err
			}
			if sc.peek() != ':' {
				return nil, sc.errorf("want ':'")
			}
			sc.pos++
			if err := sc.space(); err != nil {
				return nil, err
			}
			m, err := sc.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, jsonMember{key: key, keyStart: keyStart, value: m})
			if err := sc.space(); err != nil {
				return nil, err
			}
			switch sc.peek() {
			case ',':
				sc.pos++
				continue
			case '}':
				sc.pos++
				v.end = sc.pos
				return v, nil
			}
			return nil, sc.errorf("want ',' or '}'")
		}
	case c == '[':
		v.kind = '['
		sc.pos++
		if err := sc.space(); err != nil {
			return nil, err
		}
		if sc.peek() == ']' {
			sc.pos++
			v.end = sc.pos
			return v, nil
		}
		for {
			if err := sc.space(); err != nil {
				return nil, err
			}
			e, err := sc.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
			if err := sc.space(); err != nil {
				return nil, err
			}
			switch sc.peek() {
			case ',':
				sc.pos++
				continue
			case ']':
				sc.pos++
				v.end = sc.pos
				return v, nil
			}
			return nil, sc.errorf("want ',' or ']'")
		}
	case c == '"':
		v.kind = '"'
		if _, err := sc.str(); err != nil {
			return nil, err
		}
	case c == '-' || c >= '0' && c <= '9':
		v.kind = '0'
		for sc.pos < len(sc.b) && strings.IndexByte("+-.0123456789eE", sc.b[sc.pos]) >= 0 {
			sc.pos++
		}
		if !json.Valid(sc.b[v.start:sc.pos]) {
			return nil, sc.errorf("bad number")
		}
	default:
		v.kind = 'l'
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(sc.b[sc.pos:], []byte(lit)) {
				sc.pos += len(lit)
				v.end = sc.pos
				return v, nil
			}
		}
		return nil, sc.errorf("unexpected character")
	}
	v.end = sc.pos
	return v, nil
}

// str reads a string token and returns its value.
func (sc *jsonScanner) str() (string, error) {
	start := sc.pos
	sc.pos++
	for sc.pos < len(sc.b) {
		switch sc.b[sc.pos] {
		case '\\':
			sc.pos += 2
			continue
		case '"':
			sc.pos++
			var s string
			if err := json.Unmarshal(sc.b[start:sc.pos], &s); err != nil {
				return "", sc.errorf("bad string")
			}
			return s, nil
		}
		sc.pos++
	}
	return "", sc.errorf("unterminated string")
}

// renderJSON encodes v indented with unit, each line after the first
// prefixed with prefix, without HTML escaping.
func renderJSON(v any, prefix, unit string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// lineIndent is the blank space at the start of the line holding pos.
func lineIndent(b []byte, pos int) string {
	start := bytes.LastIndexByte(b[:pos], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// indentUnit guesses the document's indentation step from its first
// member: two spaces when it cannot tell.
func indentUnit(b []byte, root *jsonSpan) string {
	if len(root.members) > 0 {
		k := root.members[0].keyStart
		if bytes.ContainsRune(b[root.start:k], '\n') {
			if in := lineIndent(b, k); in != "" && strings.Trim(in, " \t") == "" {
				base := lineIndent(b, root.start)
				if rest, ok := strings.CutPrefix(in, base); ok && rest != "" {
					return rest
				}
			}
		}
	}
	return "  "
}

// multiline reports whether a container puts its first item on a new line.
func multiline(b []byte, container *jsonSpan, first int) bool {
	return bytes.ContainsRune(b[container.start:first], '\n')
}

func splice(b []byte, start, end int, text []byte) []byte {
	out := make([]byte, 0, len(b)-(end-start)+len(text))
	out = append(out, b[:start]...)
	out = append(out, text...)
	return append(out, b[end:]...)
}

// insertMember adds "key": v as the last member of obj, in the object's
// style (one member a line, or all on one line).
func insertMember(b []byte, obj *jsonSpan, key string, v any, unit string) ([]byte, error) {
	k, _ := json.Marshal(key)
	if len(obj.members) == 0 {
		base := lineIndent(b, obj.start)
		val, err := renderJSON(v, base+unit, unit)
		if err != nil {
			return nil, err
		}
		text := "\n" + base + unit + string(k) + ": " + string(val) + "\n" + base
		return splice(b, obj.start+1, obj.end-1, []byte(text)), nil
	}
	last := obj.members[len(obj.members)-1]
	if !multiline(b, obj, obj.members[0].keyStart) {
		val, err := renderJSON(v, "", "")
		if err != nil {
			return nil, err
		}
		return splice(b, last.value.end, last.value.end, []byte(", "+string(k)+": "+string(val))), nil
	}
	in := lineIndent(b, last.keyStart)
	val, err := renderJSON(v, in, unit)
	if err != nil {
		return nil, err
	}
	return splice(b, last.value.end, last.value.end, []byte(",\n"+in+string(k)+": "+string(val))), nil
}

// appendElem adds v as the last element of arr, in the array's style.
func appendElem(b []byte, arr *jsonSpan, v any, unit string) ([]byte, error) {
	if len(arr.elems) == 0 {
		base := lineIndent(b, arr.start)
		val, err := renderJSON(v, base+unit, unit)
		if err != nil {
			return nil, err
		}
		return splice(b, arr.start+1, arr.end-1, []byte("\n"+base+unit+string(val)+"\n"+base)), nil
	}
	last := arr.elems[len(arr.elems)-1]
	if !multiline(b, arr, arr.elems[0].start) {
		val, err := renderJSON(v, "", "")
		if err != nil {
			return nil, err
		}
		return splice(b, last.end, last.end, []byte(", "+string(val))), nil
	}
	in := lineIndent(b, last.start)
	val, err := renderJSON(v, in, unit)
	if err != nil {
		return nil, err
	}
	return splice(b, last.end, last.end, []byte(",\n"+in+string(val))), nil
}

// replaceValue puts v where the value at span is.
func replaceValue(b []byte, span *jsonSpan, v any, unit string) ([]byte, error) {
	val, err := renderJSON(v, lineIndent(b, span.start), unit)
	if err != nil {
		return nil, err
	}
	return splice(b, span.start, span.end, val), nil
}

// removeElem deletes element i of arr with its separator: the inverse of
// appendElem for the last element.
func removeElem(b []byte, arr *jsonSpan, i int) []byte {
	n := len(arr.elems)
	switch {
	case n == 1:
		return splice(b, arr.start+1, arr.end-1, nil)
	case i == n-1:
		return splice(b, arr.elems[i-1].end, arr.elems[i].end, nil)
	}
	return splice(b, arr.elems[i].start, arr.elems[i+1].start, nil)
}

// removeMember deletes member i of obj with its separator.
func removeMember(b []byte, obj *jsonSpan, i int) []byte {
	n := len(obj.members)
	switch {
	case n == 1:
		return splice(b, obj.start+1, obj.end-1, nil)
	case i == n-1:
		return splice(b, obj.members[i-1].value.end, obj.members[i].value.end, nil)
	}
	return splice(b, obj.members[i].keyStart, obj.members[i+1].keyStart, nil)
}

// tildePath shows p with ~ for the home directory.
func tildePath(p string) string {
	if h := os.Getenv("HOME"); h != "" && (p == h || strings.HasPrefix(p, h+"/")) && p != h {
		return "~" + strings.TrimPrefix(p, h)
	}
	return p
}

// newInstallShellCmd is `guard install shell`: the guard-sh link.
func newInstallShellCmd(s *streams) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "shell",
		Short: "Make the guard-sh link, the shell to give agents as SHELL",
		Long: `Creates guard-sh, a symbolic link to guard that behaves as 'guard shell': a
shell that reviews every command it is given. It goes next to the guard
binary when that directory is writable, else in ~/.local/bin (or --dir).
Point an agent at it with SHELL=/path/to/guard-sh.

A --dir that does not exist is created when it is inside your home
directory; outside it guard asks on the terminal first, and without a
terminal refuses (create the directory yourself).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			exe := guardPath()
			if dir == "" {
				dir = defaultLinkDir(exe)
			}
			link := filepath.Join(dir, shellLinkName)
			if fi, err := os.Lstat(link); err == nil {
				if fi.Mode()&fs.ModeSymlink != 0 && sameFile(link, exe) {
					fmt.Fprintf(s.err, "guard: %s already links to guard; nothing changed\n", tildePath(link))
					shellHints(s, link)
					return nil
				}
				return failf([]string{"remove it, or choose another directory with --dir"}, "%s exists and is not a link to this guard", link)
			}
			if err := makeLinkDir(dir); err != nil {
				return err
			}
			if err := os.Symlink(exe, link); err != nil {
				return failf([]string{"choose a writable directory with --dir"}, "%v", err)
			}
			fmt.Fprintf(s.err, "guard: created %s -> %s\n", tildePath(link), exe)
			shellHints(s, link)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "put the link in `DIR`")
	return c
}

// makeLinkDir creates the directory of the guard-sh link. Inside the home
// directory it is created as asked; outside it (a typo in --dir could
// otherwise make /usr/loca/bin) only after a yes on the terminal.
func makeLinkDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return failf(nil, "%v", err)
	}
	if _, err := os.Stat(abs); err == nil {
		return nil
	}
	home := os.Getenv("HOME")
	if home == "" || !(abs == home || strings.HasPrefix(abs, home+"/")) {
		t, err := openTerminal()
		if err != nil {
			return failf([]string{"create it first if it is the right place: mkdir -p " + abs, "or choose a directory in your home with --dir"},
				"%s does not exist and is outside your home directory; not creating it without a terminal to ask on", abs)
		}
		defer t.Close()
		ans, err := t.readLine(fmt.Sprintf("%s does not exist and is outside your home directory. Create it? [y/N] ", abs), true, defaultConsentTimeout)
		if err != nil || !isYes(ans) {
			return failf([]string{"choose another directory with --dir"}, "not creating %s", abs)
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return failf([]string{"choose a writable directory with --dir"}, "%v", err)
	}
	return nil
}

// isYes reports whether an answer to a [y/N] question is a yes.
func isYes(ans string) bool {
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return true
	}
	return false
}

func shellHints(s *streams, link string) {
	fmt.Fprintf(s.err, "guard: hint: start an agent with SHELL=%s, e.g. SHELL=%s codex\n", link, link)
	fmt.Fprintf(s.err, "guard: hint: the real shell is bash; set GUARD_SHELL to use another\n")
}

// newUninstallShellCmd removes the guard-sh link (only a link to guard).
func newUninstallShellCmd(s *streams) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "shell",
		Short: "Remove the guard-sh link",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			removed := false
			for _, d := range shellLinkDirs(dir) {
				link := filepath.Join(d, shellLinkName)
				if !isGuardLink(link) {
					continue
				}
				if err := os.Remove(link); err != nil {
					return failf(nil, "%v", err)
				}
				fmt.Fprintf(s.err, "guard: removed %s\n", tildePath(link))
				removed = true
			}
			if !removed {
				fmt.Fprintln(s.err, "guard: no guard-sh link to guard found; nothing to do")
			}
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "look for the link in `DIR`")
	return c
}

// defaultLinkDir is the guard binary's directory when writable, else
// ~/.local/bin.
func defaultLinkDir(exe string) string {
	if d := filepath.Dir(exe); filepath.IsAbs(d) && unix.Access(d, unix.W_OK) == nil {
		return d
	}
	return filepath.Join(os.Getenv("HOME"), ".local", "bin")
}

// shellLinkDirs are where a guard-sh link may be.
func shellLinkDirs(dir string) []string {
	if dir != "" {
		return []string{dir}
	}
	exe := guardPath()
	dirs := []string{filepath.Dir(exe)}
	if d := filepath.Join(os.Getenv("HOME"), ".local", "bin"); d != dirs[0] {
		dirs = append(dirs, d)
	}
	return dirs
}

// isGuardLink reports whether link is a symlink to a guard binary.
func isGuardLink(link string) bool {
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	if sameFile(link, guardExecutable()) {
		return true
	}
	target, err := os.Readlink(link)
	return err == nil && filepath.Base(target) == "guard"
}

// probeTimeout bounds one probe of an installed hook.
const probeTimeout = 15 * time.Second

// doctorAgents is the doctor section for agent integrations: the checks of
// agentHookChecks, or a note that none is installed.
func doctorAgents(*doctorEnv) doctorSection {
	sec := doctorSection{Title: "agents", Checks: agentHookChecks(nil)}
	if len(sec.Checks) == 0 {
		sec.Summary = "no hook or guard-sh link installed"
		sec.Checks = []doctorCheck{{Name: "agent hooks", Optional: true,
			Detail: "none installed: 'guard install claude|codex|gemini' or 'guard install shell' ('guard help agents')"}}
		return sec
	}
	sec.Hints = []string{"reinstall with 'guard install AGENT'; 'guard help agents' says what each agent needs"}
	return sec
}

// agentHookChecks proves that each installed hook answers: it pipes a
// sample event through the configured command, as the agent would, and
// expects an allow (with the sandbox rewrite) for "true" and a deny (exit
// 2) for malformed input. It also checks a guard-sh link, if there is one.
// s is unused; the checks print nothing.
func agentHookChecks(s *streams) []doctorCheck {
	var out []doctorCheck
	for _, t := range agentProtocols {
		for _, project := range []bool{false, true} {
			path, err := t.settingsPath(project)
			if err != nil {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			for _, h := range t.ourHooks(data) {
				cmd := h.command
				name := fmt.Sprintf("%s hook (%s)", t.label, tildePath(path))
				// "ok" only when the hook would fire: this guard exists
				// where the hook says, the agent's own settings run it,
				// and it answers.
				ok, detail := hookBinary(cmd)
				if ok {
					g := gateFor(t, path, project)
					ok, detail = g.fires, g.detail
					if ok {
						ok, detail = probeHook(t, cmd)
						if g.detail != "" {
							detail += "; " + g.detail
						}
					}
				}
				if p := t.shapeProblem(h); ok && p != "" {
					ok, detail = false, detail+"; "+p
				}
				out = append(out, doctorCheck{Name: name, OK: ok, Detail: detail})
			}
		}
	}
	for _, d := range shellLinkDirs("") {
		link := filepath.Join(d, shellLinkName)
		if !isGuardLink(link) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		cmd := exec.CommandContext(ctx, link, "-c", "true")
		cmd.Dir = os.TempDir()
		err := cmd.Run()
		cancel()
		c := doctorCheck{Name: "shell shim (" + tildePath(link) + ")", OK: err == nil, Detail: "guard-sh -c true runs"}
		if err != nil {
			c.Detail = fmt.Sprintf("guard-sh -c true failed: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// probeHook runs one configured hook command twice, through sh as the
// agents do.
func probeHook(t *agentProtocol, command string) (bool, string) {
	dir, err := os.MkdirTemp("", "guard-doctor-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(dir)
	tool, event := t.shellTools[0], t.event
	sample, _ := json.Marshal(map[string]any{
		"session_id": "guard-doctor", "cwd": dir, "hook_event_name": event,
		"tool_name": tool, "tool_input": map[string]string{"command": "true"},
	})
	code, stdout, stderr := runProbe(command, sample)
	var ans struct {
		Decision string `json:"decision"`
		HSO      struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal(stdout, &ans)
	decision := ans.HSO.PermissionDecision
	if t.gemini {
		decision = ans.Decision
	}
	if code != 0 || decision != hookAllow {
		return false, fmt.Sprintf("a sample level A command was not allowed (exit %d, decision %q): %s", code, decision, strings.TrimSpace(string(stderr)))
	}
	if code, _, _ := runProbe(command, []byte("{")); code != exitHookBlock {
		return false, fmt.Sprintf("malformed input gave exit %d, want %d (deny): the hook would fail open", code, exitHookBlock)
	}
	return true, "answers: allow for a level A command, deny (exit 2) for malformed input"
}

func runProbe(command string, stdin []byte) (int, []byte, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
	}
	return code, out.Bytes(), errb.Bytes()
}
