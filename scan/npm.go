package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/profile"
)

// npmCommands are the members of a package.json whose values are
// commands, by their path from the top: npm's scripts (sh -c in the
// package's directory) and the git hooks that hooks managers configured
// there run on commit or push (husky up to v4, yorkie, simple-git-hooks)
// or on the staged files (lint-staged: a command or a list of them).
var npmCommands = [][]string{
	{"scripts"},
	{"husky", "hooks"},
	{"gitHooks"},
	{"simple-git-hooks"},
	{"lint-staged"},
}

// npm reads the commands of a package.json (npmCommands).
func (x *extractor) npm() error {
	dec := json.NewDecoder(bytes.NewReader(x.src))
	if err := x.expectDelim(dec, '{'); err != nil {
		return err
	}
	return x.npmObject(dec, npmCommands, NPM)
}

// npmObject reads the members of the object dec is in, up to its '}': a
// member that ends one of paths holds commands, one that a path goes
// through is read the same way, the rest is skipped.
func (x *extractor) npmObject(dec *json.Decoder, paths [][]string, kind Kind) error {
	for dec.More() {
		key, err := x.jsonKey(dec)
		if err != nil {
			return err
		}
		var inner [][]string
		leaf := false
		for _, p := range paths {
			if p[0] != key {
				continue
			}
			if len(p) == 1 {
				leaf = true
			} else {
				inner = append(inner, p[1:])
			}
		}
		switch {
		case leaf && x.peekDelim(dec, '{'):
			err = x.npmScripts(dec, kind)
		case len(inner) > 0 && x.peekDelim(dec, '{'):
			if err = x.expectDelim(dec, '{'); err == nil {
				err = x.npmObject(dec, inner, kind)
			}
		default:
			err = x.skipJSON(dec)
		}
		if err != nil {
			return err
		}
	}
	return x.expectDelim(dec, '}')
}

// npmScripts reads an object whose values are commands: each string, or
// each string of a list. Other values are skipped.
func (x *extractor) npmScripts(dec *json.Decoder, kind Kind) error {
	if err := x.expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		if _, err := x.jsonKey(dec); err != nil {
			return err
		}
		if !x.peekDelim(dec, '[') {
			if err := x.npmString(dec, kind); err != nil {
				return err
			}
			continue
		}
		if err := x.expectDelim(dec, '['); err != nil {
			return err
		}
		for dec.More() {
			if err := x.npmString(dec, kind); err != nil {
				return err
			}
		}
		if err := x.expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return x.expectDelim(dec, '}')
}

// npmString emits the next value when it is a string, and skips it when
// it is not.
func (x *extractor) npmString(dec *json.Decoder, kind Kind) error {
	start := x.valueStart(int(dec.InputOffset()))
	for start < len(x.src) && x.src[start] == ',' {
		start = x.valueStart(start + 1)
	}
	if start >= len(x.src) || x.src[start] != '"' {
		return x.skipJSON(dec)
	}
	tok, err := dec.Token()
	if err != nil {
		return x.jsonError(dec, err)
	}
	s, _ := tok.(string)
	if kind == Composer && strings.HasPrefix(s, "@") {
		// Composer: @php and @composer run those programs, @putenv sets
		// a variable for the scripts after it (PATH=./bin:$PATH), and
		// any other @name is another script, read where it is defined.
		name, rest, _ := strings.Cut(s[1:], " ")
		b := &builder{}
		switch name {
		case "php", "composer":
			b.put(s[1:], start+2)
		case "putenv":
			b.put("export "+rest, start+1)
		default:
			return nil
		}
		x.emit(kind, x.dir, b)
		return nil
	}
	b := jsonString(x.src, start)
	if b == nil || b.b.String() != s {
		b = &builder{}
		b.put(s, start+1)
	}
	x.emit(kind, x.dir, b)
	return nil
}

// npmrcPrograms are .npmrc settings that name a program npm (or pnpm)
// runs: script-shell runs every package script and lifecycle script
// (npm install's too), shell runs npm exec's and explore's, git runs
// git dependencies' fetches. node-options goes into NODE_OPTIONS of every
// node npm starts (--require ./x.js loads code into each).
var npmrcPrograms = []string{"script-shell", "shell", "git"}

// npmrc reads the programs a project's .npmrc makes npm run: each one's
// path as a command (a script in the repository is read like one the
// line runs; a program on PATH alone is the user's own), and node-options
// as the export of NODE_OPTIONS it is.
func (x *extractor) npmrc() {
	for ln := 1; ln <= len(x.lines.starts); ln++ {
		line := trimCR(x.lines.line(ln))
		start := x.lines.lineStart(ln)
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		k, v, ok := bytes.Cut(trimmed, []byte("="))
		if !ok {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(string(k)))
		from := start + len(line) - len(trimmed) + len(k) + 1
		value := string(v)
		lead := len(value) - len(strings.TrimLeft(value, " \t"))
		value = strings.TrimSpace(value)
		if n := len(value); n >= 2 && (value[0] == '"' && value[n-1] == '"' || value[0] == '\'' && value[n-1] == '\'') {
			value, lead = value[1:n-1], lead+1
		}
		if value == "" {
			continue
		}
		var prefix string
		switch {
		case key == "node-options":
			prefix = "export NODE_OPTIONS="
		case key == "script-shell" && !strings.Contains(value, "/") && !profile.BashSyntax(value):
			// A shell by name that does not read bash syntax (zsh)
			// runs every script guard reviews as bash.
			prefix = "npm test --script-shell="
		case slices.Contains(npmrcPrograms, key) && strings.Contains(value, "/"):
		default:
			continue
		}
		q, err := parse.Quote([]string{value})
		if err != nil {
			// A value guard cannot quote (a NUL byte) is not dropped.
			x.unreviewed(NPMRC, from+lead, key+":", "npm reads this value; guard cannot quote it to review")
			continue
		}
		text := prefix + q
		var b builder
		b.put(text, from+lead)
		x.emit(NPMRC, x.dir, &b)
	}
}

// yarnrc reports the JavaScript a project's Yarn configuration makes
// every yarn command run: .yarnrc.yml's yarnPath (the file that runs
// instead of Yarn) and plugins (loaded on every command), and classic
// .yarnrc's yarn-path. guard does not review JavaScript: each is
// reported (scan-unreviewed-code, B), never dropped.
func (x *extractor) yarnrc() error {
	const how = "every yarn command in this project runs this JavaScript file instead of Yarn"
	if path.Base(x.name) == ".yarnrc" {
		for ln := 1; ln <= len(x.lines.starts); ln++ {
			line := trimCR(x.lines.line(ln))
			trimmed := bytes.TrimLeft(line, " \t")
			key, value, _ := bytes.Cut(trimmed, []byte(" "))
			if k := string(bytes.TrimRight(key, ":")); k == "yarn-path" || k == "--yarn-path" {
				v := strings.Trim(strings.TrimSpace(string(value)), `"'`)
				x.unreviewed(Yarnrc, x.lines.lineStart(ln)+len(line)-len(trimmed), "yarn-path "+v+":", how)
			}
		}
		return nil
	}
	docs, err := x.yamlDocs()
	for _, doc := range docs {
		root := resolve(doc)
		if n := resolve(lookup(root, "yarnPath")); n != nil {
			x.unreviewed(Yarnrc, x.lines.offset(n.Line, n.Column), "yarnPath "+scalarString(n)+":", how)
		}
		if n := resolve(lookup(root, "plugins")); n != nil && n.Kind == yaml.SequenceNode {
			for _, p := range n.Content {
				p = resolve(p)
				name := scalarString(p)
				if p.Kind == yaml.MappingNode {
					name = scalarString(lookup(p, "path"))
				}
				x.unreviewed(Yarnrc, x.lines.offset(p.Line, p.Column), "plugin "+name+":", "yarn loads this plugin's JavaScript on every command")
			}
		}
	}
	return err
}

// composer reads the scripts of a composer.json: Composer runs them with
// the shell on its events (post-install-cmd, post-update-cmd,
// post-autoload-dump: on every composer install) and on composer run.
func (x *extractor) composer() error {
	dec := json.NewDecoder(bytes.NewReader(x.src))
	if err := x.expectDelim(dec, '{'); err != nil {
		return err
	}
	return x.npmObject(dec, [][]string{{"scripts"}}, Composer)
}

func (x *extractor) jsonKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", x.jsonError(dec, err)
	}
	k, _ := tok.(string)
	return k, nil
}

func (x *extractor) expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return x.jsonError(dec, err)
	}
	if tok != d {
		return x.syntaxError(int(dec.InputOffset()), "json does not parse: want %q", d)
	}
	return nil
}

// peekDelim reports whether the next value starts with d.
func (x *extractor) peekDelim(dec *json.Decoder, d json.Delim) bool {
	i := x.valueStart(int(dec.InputOffset()))
	return i < len(x.src) && x.src[i] == byte(d.String()[0])
}

func (x *extractor) skipJSON(dec *json.Decoder) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return x.jsonError(dec, err)
	}
	return nil
}

// valueStart skips blanks and the ':' after a key.
func (x *extractor) valueStart(i int) int {
	for i < len(x.src) && (x.src[i] == ' ' || x.src[i] == '\t' || x.src[i] == '\n' || x.src[i] == '\r' || x.src[i] == ':') {
		i++
	}
	return i
}

func (x *extractor) jsonError(dec *json.Decoder, err error) *SyntaxError {
	off := int(dec.InputOffset())
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off = len(x.src)
		err = errors.New("unexpected end of input")
	}
	return x.syntaxError(min(off, len(x.src)), "json does not parse: %v", err)
}

// jsonString decodes the JSON string starting at src[start] (a quote),
// mapping runs of plain bytes exactly and each escape to where it starts.
// nil if the string is malformed.
func jsonString(src []byte, start int) *builder {
	var b builder
	i := start + 1
	for i < len(src) {
		j := i
		for j < len(src) && src[j] != '"' && src[j] != '\\' && src[j] >= 0x20 {
			j++
		}
		b.copy(src, i, j)
		if j >= len(src) || src[j] < 0x20 {
			return nil
		}
		if src[j] == '"' {
			return &b
		}
		// An escape.
		if j+1 >= len(src) {
			return nil
		}
		i = j + 2
		switch c := src[j+1]; c {
		case '"', '\\', '/':
			b.put(string(c), j)
		case 'b':
			b.put("\b", j)
		case 'f':
			b.put("\f", j)
		case 'n':
			b.put("\n", j)
		case 'r':
			b.put("\r", j)
		case 't':
			b.put("\t", j)
		case 'u':
			r, n := jsonRune(src[j:])
			if n == 0 {
				return nil
			}
			var buf [4]byte
			b.put(string(buf[:utf8.EncodeRune(buf[:], r)]), j)
			i = j + n
		default:
			return nil
		}
	}
	return nil
}

// jsonRune decodes \uXXXX (and a following low surrogate) at the start of
// p, returning the rune and the bytes used (0 if malformed).
func jsonRune(p []byte) (rune, int) {
	hex := func(p []byte) (rune, bool) {
		if len(p) < 6 || p[0] != '\\' || p[1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range p[2:6] {
			switch {
			case c >= '0' && c <= '9':
				r = r*16 + rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r*16 + rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r*16 + rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	r, ok := hex(p)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(p[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}
