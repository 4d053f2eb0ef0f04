package policy

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// MaxFileSize bounds a policy file; a larger one is an error.
const MaxFileSize = 1 << 20

// fileTOML and ruleTOML are the schema. Pointers tell a key that is absent
// from one set to an empty value.
type fileTOML struct {
	MinLevel *string     `toml:"min_level"`
	Rules    []*ruleTOML `toml:"rules"` // pointers: decoding appends without copying each table
}

type ruleTOML struct {
	ID          *string  `toml:"id"`
	Description string   `toml:"description"`
	Command     *string  `toml:"command"`
	Regex       *string  `toml:"regex"`
	Paths       []string `toml:"paths"`
	Caps        []string `toml:"caps"`
	Deny        bool     `toml:"deny"`
	Message     string   `toml:"message"`
	Require     *string  `toml:"require"`
	Allow       bool     `toml:"allow"`
	GrantWrite  []string `toml:"grant_write"`
	GrantNet    any      `toml:"grant_net"`
	KeepEnv     []string `toml:"keep_env"`
	Examples    []string `toml:"examples"`
	NotExamples []string `toml:"not_examples"`
	// A standing grant's limits (guard approve --grant): the rule applies
	// only in workspace, and only before expires.
	Workspace *string    `toml:"workspace"`
	Expires   *time.Time `toml:"expires"`
}

// keyTypes names what each key holds, for type errors (built when one is
// reported, not at start).
var keyTypes = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"min_level": `a level: "A", "B" or "C"`, "rules": "an array of tables ([[rules]])",
		"id": "a string", "description": "a string", "command": "a string", "regex": "a string",
		"paths": "an array of strings", "caps": "an array of strings", "deny": "true or false",
		"message": "a string", "require": `"B" or "C"`, "allow": "true or false",
		"grant_write": "an array of strings", "grant_net": "true, false or an array of ports",
		"keep_env": "an array of strings", "examples": "an array of strings", "not_examples": "an array of strings",
		"workspace": "an absolute directory", "expires": "a date-time with offset: 2026-05-01T18:00:00Z",
	}
})

const (
	hintTopKeys  = "a policy file holds min_level and [[rules]] tables; see 'guard help policy'"
	hintRuleKeys = "a rule's keys are id, description, command, regex, paths, caps, deny, message, require, allow, grant_write, grant_net, keep_env, examples, not_examples, workspace and expires; see 'guard help policy'"
	hintSyntax   = "fix the TOML syntax at that position (https://toml.io)"
)

// knownCaps are the capability names a rule may list: profile's caps.
var knownCaps = []profile.Cap{
	profile.CapRead, profile.CapWrite, profile.CapDelete, profile.CapDiscard, profile.CapExec,
	profile.CapFetch, profile.CapSend, profile.CapPublish, profile.CapPrivilege, profile.CapSystem,
	profile.CapPersistence, profile.CapSecrets, profile.CapReveal, profile.CapDynamic, profile.CapNetCode,
	profile.CapProcess, profile.CapInject, profile.CapSelf, profile.CapUnparsed, profile.CapLimit,
	profile.CapUnsupported, profile.CapLookalike, profile.CapEnvHijack,
}

// validID: a rule id is [A-Za-z0-9][A-Za-z0-9._-]*.
func validID(s string) bool {
	if s == "" || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// validEnvName: a variable name is [A-Za-z_][A-Za-z0-9_]*.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Parse reads one policy file. It is strict: a syntax error, an unknown
// key, a value of the wrong type or an invalid level, cap, regex, glob or
// path is an *Error with the position of what is wrong. It does not run
// the examples (see Load and File.Check). In a project file, allow rules
// and grants are kept but reported in File.Warnings, and Apply ignores
// them.
func Parse(file string, data []byte, scope Scope) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{Path: file, Msg: fmt.Sprintf("the file is larger than %d bytes", MaxFileSize), Hint: "a policy holds rules, not data; keep it small"}
	}
	if !utf8.Valid(data) {
		line, col := positionAt(data, firstInvalidUTF8(data))
		return nil, &Error{Path: file, Line: line, Col: col, Msg: "invalid UTF-8", Hint: "save the policy file as UTF-8"}
	}
	if onlyComments(data) {
		// An empty document: the built-in policy, or a file kept as
		// notes. It sets nothing, as the decoder would find, without
		// starting the decoder on every call.
		return &File{Path: file, Scope: scope}, nil
	}
	return parseTOML(file, data, scope)
}

// onlyComments reports whether data is blank lines and # comments only,
// with no control character TOML forbids (any but tab and \n: a file that
// has one goes to the decoder, which reports it).
func onlyComments(data []byte) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		for _, c := range line {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return false
			}
		}
		if line = bytes.TrimLeft(line, " \t"); len(line) > 0 && line[0] != '#' {
			return false
		}
	}
	return true
}

// parseTOML is Parse of a document that sets something.
func parseTOML(file string, data []byte, scope Scope) (*File, error) {
	var raw fileTOML
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(file, err)
	}
	ix, err := newIndex(data)
	if err != nil {
		return nil, &Error{Path: file, Msg: "invalid TOML: " + err.Error(), Hint: hintSyntax, Err: err}
	}
	if p, ok := ix.tables["rules"]; ok {
		return nil, &Error{Path: file, Line: p.line, Col: p.col, Msg: "rules must be an array of tables: write [[rules]], not [rules]", Hint: "start each rule with a [[rules]] line"}
	}
	f := &File{Path: file, Scope: scope}
	if raw.MinLevel != nil {
		p := ix.at("min_level")
		l, err := review.ParseLevel(*raw.MinLevel)
		if err != nil || l == review.Deny {
			return nil, &Error{Path: file, Line: p.line, Col: p.col, Msg: fmt.Sprintf("bad level %q for min_level (want A, B or C)", *raw.MinLevel), Hint: `write min_level = "B" or "C"; a floor can only raise a level`}
		}
		f.MinLevel, f.MinLevelLine = l, p.line
	}
	first := map[string]int{}
	for i, rt := range raw.Rules {
		rp := rulePos{ix: ix, prefix: "rules." + strconv.Itoa(i)}
		r, err := parseRule(file, scope, rt, rp)
		if err != nil {
			return nil, err
		}
		if line, dup := first[r.ID]; dup {
			p := rp.at("id")
			return nil, &Error{Path: file, Line: p.line, Col: p.col, Msg: fmt.Sprintf("rule id %q is used twice (first at line %d)", r.ID, line), Hint: "give every rule in a file its own id"}
		}
		first[r.ID] = r.Origin.Line
		f.Rules = append(f.Rules, r)
		if scope == Project {
			for _, k := range []struct {
				set bool
				key string
			}{{r.Allow, "allow"}, {len(r.GrantWrite) > 0, "grant_write"}, {r.GrantNet, "grant_net"}, {len(r.KeepEnv) > 0, "keep_env"}} {
				if k.set {
					p := rp.at(k.key)
					f.Warnings = append(f.Warnings, Warning{
						Origin: Origin{Scope: scope, Path: file, Line: p.line}, Rule: r.ID,
						Msg: k.key + " is ignored in a project policy (a cloned repository cannot loosen guard)",
					})
				}
			}
		}
	}
	sort.SliceStable(f.Warnings, func(i, j int) bool { return f.Warnings[i].Origin.Line < f.Warnings[j].Origin.Line })
	return f, nil
}

func parseRule(file string, scope Scope, rt *ruleTOML, rp rulePos) (*Rule, error) {
	head := rp.at("")
	fail := func(p pos, hint, format string, args ...any) error {
		return &Error{Path: file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	if rt.ID == nil || *rt.ID == "" {
		return nil, fail(head, `add id = "a-short-name" to the rule`, "rule has no id")
	}
	id := *rt.ID
	if !validID(id) {
		return nil, fail(rp.at("id"), "use letters, digits, '.', '_' and '-', starting with a letter or digit", "bad rule id %q", id)
	}
	r := &Rule{
		ID: id, Description: rt.Description, Origin: Origin{Scope: scope, Path: file, Line: head.line},
		Deny: rt.Deny, Message: rt.Message, Allow: rt.Allow, pos: rp,
	}
	r.compiled.caps = map[profile.Cap]bool{}

	// The match.
	if rt.Command != nil {
		r.Command = strings.TrimSpace(*rt.Command)
		if r.Command == "" {
			return nil, fail(rp.at("command"), `write the program and its arguments: command = "git push *"`, "rule %s: command is empty", id)
		}
		for _, w := range strings.Fields(r.Command) {
			wp, err := compileWord(w)
			if err != nil {
				return nil, fail(rp.at("command"), "in a command pattern, * matches any text and a lone * any number of words; escape a literal *, ? or [ with \\", "rule %s: invalid command pattern %q: %v", id, r.Command, err)
			}
			r.compiled.words = append(r.compiled.words, wp)
		}
	}
	if rt.Regex != nil {
		r.Regex = *rt.Regex
		if r.Regex == "" {
			return nil, fail(rp.at("regex"), "remove the regex or write one", "rule %s: regex is empty", id)
		}
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return nil, fail(rp.at("regex"), "regex uses Go (RE2) syntax: https://golang.org/s/re2syntax; write it in single quotes so backslashes stay as they are", "rule %s: invalid regex: %v", id, unwrapRegexpErr(err))
		}
		r.compiled.re = re
	}
	if rt.Paths != nil {
		if len(rt.Paths) == 0 {
			return nil, fail(rp.at("paths"), "list at least one glob or remove paths", "rule %s: paths is empty", id)
		}
		for j, p := range rt.Paths {
			if err := checkPathGlob(p); err != nil {
				return nil, fail(rp.at("paths", j), `paths are doublestar globs: "**/*.env", "~/work/**", "/etc/**"`, "rule %s: invalid glob %q: %v", id, p, err)
			}
		}
		r.Paths = rt.Paths
	}
	if rt.Caps != nil {
		if len(rt.Caps) == 0 {
			return nil, fail(rp.at("caps"), "list at least one cap or remove caps", "rule %s: caps is empty", id)
		}
		for j, c := range rt.Caps {
			cp := profile.Cap(strings.ToLower(strings.TrimSpace(c)))
			if !isKnownCap(cp) {
				return nil, fail(rp.at("caps", j), "caps are: "+capList(), "rule %s: unknown cap %q", id, c)
			}
			r.Caps = append(r.Caps, cp)
			r.compiled.caps[cp] = true
		}
	}
	if r.Command == "" && r.Regex == "" && r.Paths == nil && r.Caps == nil {
		return nil, fail(head, "add command, regex, paths or caps to say which commands the rule is about", "rule %s matches nothing: it has no command, regex, paths or caps", id)
	}

	// The effect.
	if rt.Require != nil {
		l, err := review.ParseLevel(*rt.Require)
		if err != nil || l < review.B || l > review.C {
			return nil, fail(rp.at("require"), `write require = "B" or "C"; to refuse, write deny = true; to lower, write allow = true`, "rule %s: bad level %q for require (want B or C)", id, *rt.Require)
		}
		r.Require = l
	}
	for j, g := range rt.GrantWrite {
		clean, err := checkGrantPath(g)
		if err != nil {
			return nil, fail(rp.at("grant_write", j), `grant_write takes absolute paths or paths under ~/, without globs: "~/.cache/tool", "/srv/data"`, "rule %s: bad grant_write path %q: %v", id, g, err)
		}
		r.GrantWrite = append(r.GrantWrite, clean)
	}
	if rt.GrantNet != nil {
		on, ports, err := parseGrantNet(rt.GrantNet)
		if err != nil {
			return nil, fail(rp.at("grant_net"), "write grant_net = true, or a list of ports: grant_net = [443]", "rule %s: bad grant_net: %v", id, err)
		}
		r.GrantNet, r.NetPorts = on, ports
	}
	for j, n := range rt.KeepEnv {
		if !validEnvName(n) {
			return nil, fail(rp.at("keep_env", j), "keep_env lists variable names: keep_env = [\"NPM_TOKEN\"]", "rule %s: bad variable name %q in keep_env", id, n)
		}
		r.KeepEnv = append(r.KeepEnv, n)
	}
	effects := []string{}
	if r.Deny {
		effects = append(effects, "deny")
	}
	if r.Require != 0 {
		effects = append(effects, "require")
	}
	if r.Allow {
		effects = append(effects, "allow")
	}
	if r.grants() {
		effects = append(effects, "a grant")
	}
	switch {
	case len(effects) == 0:
		return nil, fail(head, "add deny = true, require = \"B\" or \"C\", allow = true, or a grant (grant_write, grant_net, keep_env)", "rule %s has no effect", id)
	case r.Deny && len(effects) > 1, r.Require != 0 && len(effects) > 1:
		return nil, fail(head, "a rule either tightens (deny, require) or loosens (allow, grants); split it into two rules", "rule %s combines %s", id, strings.Join(effects, " and "))
	}
	if r.Allow && r.Command == "" && r.Paths == nil && r.Caps == nil {
		return nil, fail(rp.at("allow"), "add command, paths or caps so the allow says which commands of a line it covers", "rule %s: an allow rule needs command, paths or caps; a regex alone cannot say which commands of a line it covers", id)
	}

	// The self-tests.
	for j, ex := range rt.Examples {
		if strings.TrimSpace(ex) == "" {
			return nil, fail(rp.at("examples", j), "write a command line the rule must match", "rule %s: example %d is empty", id, j+1)
		}
	}
	for j, ex := range rt.NotExamples {
		if strings.TrimSpace(ex) == "" {
			return nil, fail(rp.at("not_examples", j), "write a command line the rule must not match", "rule %s: not_example %d is empty", id, j+1)
		}
	}
	r.Examples, r.NotExamples = rt.Examples, rt.NotExamples

	// The limits.
	if rt.Workspace != nil {
		w := *rt.Workspace
		if !path.IsAbs(w) || path.Clean(w) != w || w == "/" {
			return nil, fail(rp.at("workspace"), `write the workspace's absolute path: workspace = "/home/me/proj"`, "rule %s: bad workspace %q", id, w)
		}
		r.Workspace = w
	}
	if rt.Expires != nil {
		r.Expires = *rt.Expires
	}
	return r, nil
}

func isKnownCap(c profile.Cap) bool {
	for _, k := range knownCaps {
		if k == c {
			return true
		}
	}
	return false
}

func capList() string {
	s := make([]string, len(knownCaps))
	for i, c := range knownCaps {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// checkPathGlob validates a paths entry.
func checkPathGlob(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("empty pattern")
	}
	if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
		return errors.New("only ~ and ~/ are expanded (to your home directory), not ~user")
	}
	if !doublestar.ValidatePattern(expandTilde(p, "/home")) {
		return errors.New("syntax error in pattern")
	}
	return nil
}

// checkGrantPath validates and cleans a grant_write entry. ~ stays for
// Apply to expand with the context's home directory.
func checkGrantPath(p string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
	case strings.HasPrefix(p, "~"):
		return "", errors.New("only ~ and ~/ are expanded, not ~user")
	case strings.HasPrefix(p, "/"):
	default:
		return "", errors.New("the path must be absolute or start with ~/")
	}
	if strings.ContainsAny(p, "*?[") {
		return "", errors.New("a grant is a path, not a glob")
	}
	if strings.HasPrefix(p, "~") {
		rest := path.Clean("/" + strings.TrimPrefix(p, "~"))
		if rest == "/" {
			return "~", nil
		}
		return "~" + rest, nil
	}
	c := path.Clean(p)
	if c == "/" {
		return "", errors.New("granting the whole file system is not a grant")
	}
	return c, nil
}

// parseGrantNet reads grant_net: true, false or a list of ports.
func parseGrantNet(v any) (bool, []int, error) {
	switch x := v.(type) {
	case bool:
		return x, nil, nil
	case []any:
		if len(x) == 0 {
			return false, nil, errors.New("the list of ports is empty")
		}
		var ports []int
		for _, e := range x {
			n, ok := e.(int64)
			if !ok || n < 1 || n > 65535 {
				return false, nil, fmt.Errorf("%v is not a port (1-65535)", e)
			}
			ports = append(ports, int(n))
		}
		return true, ports, nil
	}
	return false, nil, fmt.Errorf("%v is neither true, false nor a list of ports", v)
}

// unwrapRegexpErr drops the "error parsing regexp: " prefix.
func unwrapRegexpErr(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// decodeError turns go-toml's errors into an *Error with a position.
func decodeError(file string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		line, col := e.Position()
		key := e.Key()
		msg := fmt.Sprintf("unknown key %q", strings.Join(key, "."))
		hint := hintTopKeys
		if len(key) > 1 && key[0] == "rules" {
			msg = fmt.Sprintf("unknown key %q in a rule", strings.Join(key[1:], "."))
			hint = hintRuleKeys
		}
		return &Error{Path: file, Line: line, Col: col, Msg: msg, Hint: hint, Err: err}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		key := de.Key()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if strings.HasPrefix(msg, "cannot decode") && len(key) > 0 {
			name := key[len(key)-1]
			if want, ok := keyTypes()[name]; ok {
				return &Error{Path: file, Line: line, Col: col, Msg: fmt.Sprintf("%s must be %s", name, want), Hint: "'guard help policy' lists every key with an example", Err: err}
			}
		}
		return &Error{Path: file, Line: line, Col: col, Msg: "invalid TOML: " + msg, Hint: hintSyntax, Err: err}
	}
	return &Error{Path: file, Msg: "invalid TOML: " + err.Error(), Hint: hintSyntax, Err: err}
}

// pos is a 1-based line and column.
type pos struct{ line, col int }

// index maps key paths ("min_level", "rules.0.regex", "rules.0.paths.1")
// to where they are written, so that errors found after decoding still
// point at the text.
type index struct {
	keys   map[string]pos
	tables map[string]pos // [table] headers (not [[array tables]])
	// lines are the byte offsets where lines start: positions are found
	// by binary search, so indexing stays linear in the file's size
	// (the TOML parser's Shape rescans from the start every call).
	lines []int
	// data is the file; only table headers are indexed at first (a
	// rule's line), every other key when an error first asks for one.
	data     []byte
	fullOnce sync.Once
}

// pos is the 1-based line and byte column of offset off.
func (ix *index) pos(off uint32) pos {
	i := sort.SearchInts(ix.lines, int(off)+1) - 1
	return pos{i + 1, int(off) - ix.lines[i] + 1}
}

func newIndex(data []byte) (*index, error) {
	ix := &index{tables: map[string]pos{}, lines: make([]int, 1, bytes.Count(data, []byte{'\n'})+1), data: data}
	for i, c := range data {
		if c == '\n' {
			ix.lines = append(ix.lines, i+1)
		}
	}
	// One entry per table header: sized once, the map never rehashes.
	ix.keys = make(map[string]pos, bytes.Count(data, []byte("[["))+1)
	return ix, ix.walk(false)
}

// complete indexes every key, once: the first error that needs a key's
// position pays for it, a file that loads cleanly never does.
func (ix *index) complete() {
	ix.fullOnce.Do(func() {
		// About one key per line: sized once, the map never rehashes.
		keys := make(map[string]pos, len(ix.lines))
		for k, v := range ix.keys {
			keys[k] = v
		}
		ix.keys = keys
		ix.walk(true)
	})
}

// walk records table headers and, with all, every key and array element.
func (ix *index) walk(all bool) error {
	var p unstable.Parser
	p.Reset(ix.data)
	counts := map[string]int{}
	prefix := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name, at := ix.keyName(e.Key())
			if e.Kind == unstable.Table {
				prefix = name
				ix.tables[name] = at
			} else {
				prefix = name + "." + strconv.Itoa(counts[name])
				counts[name]++
			}
			ix.keys[prefix] = at
		case unstable.KeyValue:
			if all {
				ix.keyValue(&p, prefix, e)
			}
		}
	}
	return p.Error()
}

func (ix *index) keyValue(p *unstable.Parser, prefix string, n *unstable.Node) {
	name, at := ix.keyName(n.Key())
	full := join(prefix, name)
	ix.keys[full] = at
	ix.value(p, full, n.Value(), at)
}

func (ix *index) value(p *unstable.Parser, full string, v *unstable.Node, at pos) {
	switch v.Kind {
	case unstable.Array:
		i := 0
		for it := v.Children(); it.Next(); i++ {
			c := it.Node()
			cp := at
			if c.Raw.Length > 0 {
				cp = ix.pos(c.Raw.Offset)
			}
			k := full + "." + strconv.Itoa(i)
			ix.keys[k] = cp
			ix.value(p, k, c, cp)
		}
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				ix.keyValue(p, full, c)
			}
		}
	}
}

func (ix *index) keyName(it unstable.Iterator) (string, pos) {
	var parts []string
	at := pos{}
	for it.Next() {
		k := it.Node()
		if at.line == 0 && k.Raw.Length > 0 {
			at = ix.pos(k.Raw.Offset)
		}
		parts = append(parts, string(k.Data))
	}
	return strings.Join(parts, "."), at
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// at finds a key path, falling back to its nearest written parent.
func (ix *index) at(key string) pos {
	if p, ok := ix.keys[key]; ok {
		return p
	}
	ix.complete()
	for key != "" {
		if p, ok := ix.keys[key]; ok {
			return p
		}
		i := strings.LastIndexByte(key, '.')
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return pos{1, 1}
}

// rulePos finds the keys of one rule.
type rulePos struct {
	ix     *index
	prefix string
}

func (rp rulePos) at(key string, elem ...int) pos {
	if rp.ix == nil {
		return pos{}
	}
	k := join(rp.prefix, key)
	if key == "" {
		k = rp.prefix
	}
	for _, e := range elem {
		k += "." + strconv.Itoa(e)
	}
	return rp.ix.at(k)
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// positionAt is the 1-based line and column of a byte offset.
func positionAt(b []byte, off int) (int, int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(b); i++ {
		if b[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, off - start + 1
}
