package scan

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"sync"
)

// makeIncludes are the patterns, from the root, of the files the Makefile
// name includes (include, -include, sinclude at a line's start; names
// relative to the directory make runs in, that of this file or of one above
// it; globs as make expands them). Make reads them as Makefiles whatever
// they are named (include ci/defs): their $(shell …) runs whenever make
// reads them. Variables the file decides are expanded, $(wildcard P) is
// P, and a part the file does not decide matches anything (ci/$(OS).mk is
// ci/*.mk, $(TOP)/defs any defs); a name that is only unknown is skipped.
func makeIncludes(name string, src []byte) []string {
	dir := path.Dir(name)
	lines := bytes.Split(src, []byte("\n"))
	// The file's own assignments decide the variables an include names
	// (DIR := ci; include $(DIR)/defs), as they decide a recipe's.
	mk := &makeVars{assigned: map[string][]string{}}
	for _, line := range lines {
		if len(line) == 0 || line[0] == '\t' {
			continue
		}
		text := string(line)
		if idx := makeAssignment().FindStringSubmatchIndex(text); idx != nil {
			value := stripMakeComment(text[idx[6]:idx[7]])
			if op := text[idx[4]:idx[5]]; op == "+=" || op == "!=" {
				value = "$(" + op + ")"
			}
			mk.assign(text[idx[2]:idx[3]], value)
		}
	}
	var out []string
	for _, line := range lines {
		f := strings.Fields(stripMakeComment(string(line)))
		if len(f) < 2 || line[0] == '\t' {
			continue
		}
		switch f[0] {
		case "include", "-include", "sinclude":
			rest := strings.TrimSpace(strings.TrimPrefix(stripMakeComment(string(line)), f[0]))
			for _, w := range strings.Fields(mk.includeText(rest, 0)) {
				if w = unknownGlob(w); w == "" {
					continue
				}
				// Relative to the directory make runs in: the including
				// file's, or (an include of an include) the top
				// Makefile's, which may be any directory above it.
				for d := dir; ; d = path.Dir(d) {
					out = append(out, path.Join(d, w))
					if d == "." || d == "/" {
						break
					}
				}
			}
		}
	}
	return out
}

// unknownMark stands, in an include's expanded text, for a part the file
// does not decide.
const unknownMark = "\x00"

// includeText expands the references in an include line: a variable the
// file decides is its value, $(wildcard P) is P, anything else is
// unknownMark.
func (m *makeVars) includeText(t string, depth int) string {
	if depth > 8 {
		return unknownMark
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '$' || i+1 >= len(t) {
			b.WriteByte(t[i])
			continue
		}
		c := t[i+1]
		if c != '(' && c != '{' {
			b.WriteString(unknownMark) // $X, $$: not a file's name
			i++
			continue
		}
		end := matchRef(t, i+1)
		inner := t[i+2:]
		if end > i+2 && t[end-1] == closer(c) {
			inner = t[i+2 : end-1]
		}
		i = end - 1
		if arg, ok := strings.CutPrefix(inner, "wildcard "); ok {
			b.WriteString(m.includeText(arg, depth+1))
			continue
		}
		if strings.ContainsAny(inner, " \t:$") {
			b.WriteString(unknownMark) // another function, a substitution
			continue
		}
		v, ok := m.value(inner, depth)
		if !ok {
			b.WriteString(unknownMark)
			continue
		}
		b.WriteString(m.includeText(v, depth+1))
	}
	return b.String()
}

// unknownGlob turns the unknown parts of an include's word into globs
// that match what they could be: a whole path element any directories
// (**), part of one any characters (*). A word whose last element is all
// unknown ($(CONFIG), $(DIR)/$(NAME)) could be any file and is dropped
// ("" ), as before: it names nothing guard could single out.
func unknownGlob(w string) string {
	if !strings.Contains(w, unknownMark) {
		return w
	}
	elems := strings.Split(w, "/")
	if strings.Trim(elems[len(elems)-1], unknownMark+"*") == "" {
		return ""
	}
	for i, e := range elems {
		if strings.Trim(e, unknownMark) == "" {
			elems[i] = "**"
		} else {
			elems[i] = strings.ReplaceAll(e, unknownMark, "*")
		}
	}
	return strings.Join(elems, "/")
}

// makefile reads the recipes of a Makefile: the lines that start with a tab
// (or .RECIPEPREFIX) after a rule line, and a recipe after ';' on the rule
// line itself. Each logical recipe line (backslash continuations joined, as
// Make passes them to one shell) is a command. The @, - and + prefixes are
// Make's, not the shell's, and are dropped; $$ becomes $.
//
// A Make reference becomes what Make would substitute when the file alone
// decides it: a variable assigned once in the file to a value without
// references to anything undecided, Make's own defaults ($(MAKE), $(RM),
// $(CC)), $@ of a rule with one plain target, $< and $^ of plain
// prerequisites. Anything else ($(shell …), a variable assigned twice or
// not at all, $* of a pattern rule) becomes a shell parameter, whose value
// the reviewer treats as unknown. define … endef bodies are skipped.
func (x *extractor) makefile() {
	prefix := byte('\t')
	n := len(x.lines.starts)
	mk := &makeVars{assigned: map[string][]string{}}
	type recipe struct {
		s    Snippet
		rule *makeRule
	}
	var recipes []recipe
	var rule *makeRule
	define := 0
	for ln := 1; ln <= n; {
		line := trimCR(x.lines.line(ln))
		ls := x.lines.lineStart(ln)
		if define > 0 {
			switch w := firstWord(line); w {
			case "endef":
				define--
			case "define":
				define++
			}
			ln++
			continue
		}
		if len(line) > 0 && line[0] == prefix && rule != nil {
			var s Snippet
			s, ln = x.recipe(ln, prefix, ls+1)
			recipes = append(recipes, recipe{s, rule})
			continue
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			ln++
			continue
		}
		// A line of Make syntax, continuations joined.
		var b builder
		next := x.joinMake(&b, ln, ls, prefix, false)
		text := b.b.String()
		switch w := firstWord([]byte(text)); w {
		case "define":
			define = 1
			if f := strings.Fields(text); len(f) > 1 {
				mk.assign(f[1], "$(define)") // multi-line: never resolved
			}
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude", "vpath":
			// Conditionals and includes neither start nor end a rule.
		default:
			if idx := makeAssignment().FindStringSubmatchIndex(text); idx != nil {
				m := []string{text, text[idx[2]:idx[3]], text[idx[4]:idx[5]], text[idx[6]:idx[7]]}
				rule = nil
				name, op, value := m[1], m[2], stripMakeComment(m[3])
				if op == "!=" && value != "" {
					// VAR != TEXT: Make runs TEXT with the shell when it
					// reads the file (any make, even make -n).
					s := b.snippet(x.name, Makefile, x.dir, x.lines)
					s.rewrite([]edit{{from: 0, to: idx[6]}})
					recipes = append(recipes, recipe{s, nil})
				}
				switch op {
				case "+=", "!=":
					value = "$(" + op + ")" // appended to or computed by the shell
				}
				mk.assign(name, value)
				if name == ".RECIPEPREFIX" {
					prefix = '\t'
					if value != "" {
						prefix = value[0]
					}
				}
				break
			}
			colon, semi, ok := ruleLine(text)
			rule = nil
			if !ok {
				break
			}
			rule = parseRule(text, colon, semi)
			if semi > colon {
				s := b.snippet(x.name, Makefile, x.dir, x.lines)
				body := semi + 1
				for body < len(text) && (text[body] == ' ' || text[body] == '\t') {
					body++
				}
				s.rewrite([]edit{{from: 0, to: body}})
				recipes = append(recipes, recipe{s, rule})
			}
		}
		ln = next
	}
	// $(shell TEXT) runs TEXT with the shell wherever it is expanded: in
	// an assignment when make reads the file, in a recipe when it runs.
	for _, r := range x.shellCalls() {
		recipes = append(recipes, recipe{r, nil})
	}
	// Variables are expanded when a recipe runs, after the whole file
	// is read: rewrite the recipes last.
	for _, r := range recipes {
		if strings.TrimSpace(r.s.Text) == "" {
			continue
		}
		r.s.rewrite(mk.refs(r.s.Text, r.rule))
		x.out = append(x.out, r.s)
	}
}

// shellCalls are the $(shell TEXT) and ${shell TEXT} calls of the file,
// anywhere (an escaped $$(shell …) is the shell's, not Make's).
func (x *extractor) shellCalls() []Snippet {
	var out []Snippet
	src := string(x.src)
	for i := 0; i+7 < len(src); i++ {
		if src[i] != '$' {
			continue
		}
		if src[i+1] == '$' {
			i++ // $$: a literal $
			continue
		}
		if (src[i+1] != '(' && src[i+1] != '{') || src[i+2:i+7] != "shell" || (src[i+7] != ' ' && src[i+7] != '\t') {
			continue
		}
		end := matchRef(src, i+1)
		to := end
		if end > 0 && src[end-1] == closer(src[i+1]) {
			to = end - 1
		}
		var b builder
		b.copy(x.src, i+8, to)
		if s := b.snippet(x.name, Makefile, x.dir, x.lines); strings.TrimSpace(s.Text) != "" {
			out = append(out, s)
		}
	}
	return out
}

// makeAssignment is NAME = value (:=, ::=, :::=, ?=, +=, !=), optionally
// after override or export.
var makeAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:(?:override|export|private)\s+)*([^\s:#=$()]+)\s*(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$`)
})

// stripMakeComment removes a # comment (unless escaped) and the blanks
// around the value.
func stripMakeComment(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		if v[i] == '#' {
			v = v[:i]
			break
		}
	}
	return strings.TrimSpace(v)
}

// recipe reads one logical recipe line starting at line ln (whose text
// begins at from, after the prefix) and returns it and the next line.
func (x *extractor) recipe(ln int, prefix byte, from int) (Snippet, int) {
	// Drop Make's own prefixes: @ (silent), - (ignore errors), + (always run).
	l := x.lines.line(ln)
	end := x.lines.lineStart(ln) + len(trimCR(l))
	for from < end && strings.IndexByte("@-+ \t", x.src[from]) >= 0 {
		from++
	}
	var b builder
	next := x.joinMake(&b, ln, from, prefix, true)
	return b.snippet(x.name, Makefile, x.dir, x.lines), next
}

// joinMake copies the line from offset from, and the lines continued from
// it by a trailing backslash. In a recipe the backslash and line break are
// kept (Make hands them to the shell) and one leading prefix character of a
// continuation line is removed; elsewhere they become one space, as Make
// reads them.
func (x *extractor) joinMake(b *builder, ln, from int, prefix byte, recipe bool) int {
	n := len(x.lines.starts)
	for {
		l := trimCR(x.lines.line(ln))
		end := x.lines.lineStart(ln) + len(l)
		cont := trailingBackslash(l) && ln < n
		if !cont {
			b.copy(x.src, from, end)
			return ln + 1
		}
		if recipe {
			b.copy(x.src, from, end)
			b.put("\n", end)
		} else {
			b.copy(x.src, from, end-1)
			b.put(" ", end-1)
		}
		ln++
		from = x.lines.lineStart(ln)
		if recipe && from < len(x.src) && x.src[from] == prefix {
			from++
		}
	}
}

// makeRule is what a recipe's automatic variables can be decided from.
type makeRule struct {
	targets, prereqs []string // nil when not plain (patterns, references)
}

// parseRule reads "targets: prerequisites | order-only ; recipe".
func parseRule(text string, colon, semi int) *makeRule {
	end := len(text)
	if semi > colon {
		end = semi
	}
	if i := strings.IndexByte(text[colon:end], '#'); i >= 0 {
		end = colon + i
	}
	after := strings.TrimLeft(text[colon+1:end], ":") // double-colon rules
	if i := strings.IndexByte(after, '|'); i >= 0 {
		after = after[:i]
	}
	plain := func(words []string) []string {
		for _, w := range words {
			if strings.ContainsAny(w, "%$:=") {
				return nil
			}
		}
		return words
	}
	r := &makeRule{targets: plain(strings.Fields(text[:colon]))}
	if strings.IndexByte(after, ':') < 0 { // not a static pattern rule
		r.prereqs = plain(strings.Fields(after))
		if r.prereqs == nil {
			r.prereqs = []string{}
		}
	}
	if r.targets == nil {
		r.prereqs = nil
	}
	return r
}

// makeVars are the assignments of a Makefile.
type makeVars struct {
	assigned map[string][]string
}

func (m *makeVars) assign(name, value string) {
	m.assigned[name] = append(m.assigned[name], value)
}

// makeDefaults are Make's built-in values, used when the file does not
// assign the variable.
var makeDefaults = map[string]string{"MAKE": "make", "RM": "rm -f", "CC": "cc", "CXX": "g++", "AR": "ar"}

// value returns the expansion of a variable when the file decides it.
func (m *makeVars) value(name string, depth int) (string, bool) {
	vs := m.assigned[name]
	switch {
	case len(vs) == 0:
		v, ok := makeDefaults[name]
		return v, ok
	case len(vs) > 1 || depth > 8:
		return "", false
	}
	return m.expand(vs[0], nil, depth+1)
}

// expand expands every reference in t, or fails.
func (m *makeVars) expand(t string, r *makeRule, depth int) (string, bool) {
	edits, known := m.scanRefs(t, r, depth)
	if !known {
		return "", false
	}
	var b strings.Builder
	at := 0
	for _, e := range edits {
		b.WriteString(t[at:e.from])
		b.WriteString(e.with)
		at = e.to
	}
	b.WriteString(t[at:])
	return b.String(), true
}

// refs returns the edits that turn a recipe's Make references into what
// Make would substitute, or shell parameters where the file does not say.
func (m *makeVars) refs(t string, r *makeRule) []edit {
	edits, _ := m.scanRefs(t, r, 0)
	return edits
}

// automatic are Make's automatic variables, named for what they hold.
var automatic = map[byte]string{
	'@': "make_target", '<': "make_prereq", '^': "make_prereqs", '+': "make_prereqs",
	'?': "make_newer", '*': "make_stem", '%': "make_member", '|': "make_order_only",
}

// scanRefs finds $$ and the Make references in t; known is false when
// any of them is not decided by the file.
func (m *makeVars) scanRefs(t string, r *makeRule, depth int) (edits []edit, known bool) {
	known = true
	add := func(from, to int, with string, ok bool) {
		edits = append(edits, edit{from: from, to: to, with: with})
		known = known && ok
	}
	for i := 0; i < len(t); i++ {
		if t[i] != '$' || i+1 >= len(t) {
			continue
		}
		c := t[i+1]
		switch {
		case c == '$':
			add(i, i+2, "$", true)
			i++
		case c == '(' || c == '{':
			end := matchRef(t, i+1)
			inner := t[i+2:]
			if end > i+2 && t[end-1] == closer(c) {
				inner = t[i+2 : end-1]
			}
			with, ok := m.resolve(inner, r, depth)
			add(i, end, with, ok)
			i = end - 1
		default:
			with, ok := m.resolve(string(c), r, depth)
			add(i, i+2, with, ok)
			i++
		}
	}
	return edits, known
}

// resolve gives the text for one reference $(inner): its value when the
// file decides it (ok), else a shell parameter standing for it.
func (m *makeVars) resolve(inner string, r *makeRule, depth int) (string, bool) {
	if len(inner) == 1 {
		if name, ok := automatic[inner[0]]; ok {
			if v, ok := r.automatic(inner[0]); ok {
				return v, true
			}
			return placeholder(name), false
		}
	}
	if len(inner) == 2 && (inner[1] == 'D' || inner[1] == 'F') {
		if name, ok := automatic[inner[0]]; ok {
			return placeholder(name + "_" + inner[1:]), false
		}
	}
	if i := strings.IndexAny(inner, " \t"); i > 0 {
		return placeholder("make_" + inner[:i]), false // a function: $(shell …), $(wildcard …)
	}
	if i := strings.IndexByte(inner, ':'); i > 0 {
		return placeholder(inner[:i]), false // a substitution reference $(SRC:.c=.o)
	}
	if !strings.Contains(inner, "$") {
		if v, ok := m.value(inner, depth); ok {
			return v, true
		}
	}
	return placeholder(inner), false
}

// automatic returns $@, $< or $^ when the rule line decides them.
func (r *makeRule) automatic(c byte) (string, bool) {
	if r == nil || r.prereqs == nil && c != '@' {
		return "", false
	}
	switch c {
	case '@':
		if len(r.targets) == 1 {
			return r.targets[0], true
		}
	case '<':
		if len(r.prereqs) > 0 {
			return r.prereqs[0], true
		}
		return "", true
	case '^', '+':
		return strings.Join(r.prereqs, " "), true
	}
	return "", false
}

func closer(open byte) byte {
	if open == '(' {
		return ')'
	}
	return '}'
}

// matchRef returns the offset just past the bracket closing t[open].
func matchRef(t string, open int) int {
	o, c := t[open], closer(t[open])
	depth := 0
	for i := open; i < len(t); i++ {
		switch t[i] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(t)
}

// ruleLine reports whether a Make line is a rule (targets: prerequisites),
// and where its colon and an inline recipe's ';' are (-1 if none).
func ruleLine(t string) (colon, semi int, ok bool) {
	colon, semi = -1, -1
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '(', '{':
			if i > 0 && t[i-1] == '$' || depth > 0 {
				depth++
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		case '=':
			if depth == 0 && colon < 0 {
				return -1, -1, false // an assignment (=, :=, ?=, +=, !=)
			}
		case ':':
			if depth == 0 && colon < 0 {
				if strings.HasPrefix(t[i:], ":=") || strings.HasPrefix(t[i:], "::=") || strings.HasPrefix(t[i:], ":::=") {
					return -1, -1, false
				}
				colon = i
			}
		case ';':
			if depth == 0 && colon >= 0 {
				return colon, i, true
			}
		case '#':
			if depth == 0 {
				return colon, -1, colon >= 0
			}
		}
	}
	return colon, -1, colon >= 0
}

func firstWord(l []byte) string {
	f := bytes.Fields(l)
	if len(f) == 0 {
		return ""
	}
	return string(f[0])
}

func trimCR(l []byte) []byte { return bytes.TrimSuffix(l, []byte("\r")) }

// trailingBackslash reports whether a line ends in an odd number of
// backslashes: a continuation.
func trailingBackslash(l []byte) bool {
	n := 0
	for i := len(l) - 1; i >= 0 && l[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}
