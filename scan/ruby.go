package scan

import (
	"bytes"
	"slices"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// Ruby files that run commands: a Rakefile's tasks run shell through sh,
// system, exec, spawn, backticks and %x(); a Vagrantfile's shell
// provisioners run their inline script (or a script file by path) in the
// virtual machine, and its triggers' run (not run_remote) on the host.

// isRakefile reports whether a (lower-case) base name is a Rakefile or a
// rake task file.
func isRakefile(lower string) bool {
	return lower == "rakefile" || lower == "rakefile.rb" || strings.HasSuffix(lower, ".rake")
}

// rubyCalls are the methods that run their string argument with the
// shell (one string) or as a program and its arguments (several).
var rubyCalls = []string{"sh", "system", "exec", "spawn"}

// rakefile reads the commands of a Rakefile: the string arguments of
// sh, system, exec and spawn, and every backtick and %x() literal.
func (x *extractor) rakefile() {
	x.rubyCommands(Rake)
}

// rubyCommands emits, as kind, every command a Ruby file runs through
// rubyCalls, backticks or %x().
func (x *extractor) rubyCommands(kind Kind) {
	x.rubyScan(kind, 0, len(x.src))
}

// rubyScan reads src[from:to] as Ruby code. The code of a string's #{…}
// is code too: "#{system('…')}" in a string that is otherwise data
// runs its command.
func (x *extractor) rubyScan(kind Kind, from, to int) {
	src := x.src[:to]
	skipTo := 0 // the end of a heredoc body that starts on the next line
	for i := from; i < len(src); i++ {
		if src[i] == '\n' && skipTo > i {
			i = skipTo
			continue
		}
		switch c := src[i]; {
		case c == '<' && i+1 < len(src) && src[i+1] == '<':
			if b, next, ok := rubyString(src, i); ok {
				skipTo = max(skipTo, b.bodyEnd) // data, or an argument read below
				x.rubyInterpolated(kind, b, i, max(next, b.bodyEnd))
				i = next - 1
			}
		case c == '#' && (i == 0 || src[i-1] != '$'):
			i = lineEnd(src, i) // a comment
		case c == '\'' || c == '"':
			if b, next, ok := rubyString(src, i); ok {
				x.rubyInterpolated(kind, b, i, next) // a string that is only data
				i = next - 1
			}
		case c == '`' || c == '%' && i+1 < len(src) && src[i+1] == 'x':
			if b, next, ok := rubyString(src, i); ok {
				x.emitRuby(kind, b)
				x.rubyInterpolated(kind, b, i, next)
				i = next - 1
			}
		case rubyIdentStart(c) && (i == 0 || !rubyIdent(src[i-1])):
			end := i
			for end < len(src) && rubyIdent(src[end]) {
				end++
			}
			if word := string(src[i:end]); end < len(src) && src[end] != '?' && src[end] != '!' && slices.Contains(rubyCalls, word) {
				if next, body := x.rubyCall(kind, end); next > end {
					x.rubyInterpolated(kind, nil, end, max(next, body))
					skipTo = max(skipTo, body)
					i = next - 1
					continue
				}
			}
			i = end - 1
		}
	}
}

// rubyInterpolated reads the code of each #{…} in src[from:to] (a string
// literal b, or a call's arguments when b is nil) as Ruby code.
func (x *extractor) rubyInterpolated(kind Kind, b *rubyText, from, to int) {
	if b != nil && len(b.interp) == 0 {
		return
	}
	src := string(x.src[:to])
	for k := from; k+1 < to; k++ {
		if src[k] != '#' || src[k+1] != '{' || k > 0 && src[k-1] == '\\' {
			continue
		}
		end := braceEnd(src, k+1)
		if end-1 > k+2 {
			x.rubyScan(kind, k+2, end-1)
		}
		k = end - 1
	}
}

// rubyCall reads the string arguments of a call whose name ends at i:
// one string is a command line, several are a program and its arguments.
// It returns where the arguments end (i when there is no string), and
// where the body of a heredoc among them ends (0 when there is none).
func (x *extractor) rubyCall(kind Kind, i int) (next, bodyEnd int) {
	src := x.src
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if j < len(src) && src[j] == '(' {
		j = skipBlanks(src, j+1)
	} else if j == i {
		return i, 0 // sh"x" is not Ruby's call syntax for these
	}
	var args []*rubyText
	for {
		b, next, ok := rubyString(src, j)
		if !ok || b == nil {
			break
		}
		bodyEnd = max(bodyEnd, b.bodyEnd)
		args = append(args, b)
		k := next
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k >= len(src) || src[k] != ',' {
			j = next
			break
		}
		j = skipBlanks(src, k+1)
	}
	switch len(args) {
	case 0:
		return i, 0
	case 1:
		x.emitRuby(kind, args[0])
	default:
		words := make([]string, len(args))
		for k, a := range args {
			words[k] = a.b.String()
			if len(a.interp) > 0 {
				words[k] = "" // a word Ruby fills in: unknown
			}
		}
		var b builder
		for k, w := range words {
			if k > 0 {
				b.put(" ", args[k].segStart())
			}
			if w == "" {
				b.put(placeholder("ruby_arg"), args[k].segStart())
				continue
			}
			q, err := parse.Quote([]string{w})
			if err != nil {
				return j, bodyEnd
			}
			b.put(q, args[k].segStart())
		}
		x.emit(kind, x.dir, &b)
	}
	return j, bodyEnd
}

// rubyText is a decoded Ruby string: its text, where it interpolates,
// and for a heredoc where its body ends in the file.
type rubyText struct {
	groovyBuilder
	bodyEnd int
}

// segStart is where a decoded string begins in its file.
func (g *groovyBuilder) segStart() int {
	if len(g.segs) == 0 {
		return 0
	}
	return g.segs[0].src
}

// emitRuby emits a decoded Ruby string as a command, its #{…}
// interpolations as unknown values.
func (x *extractor) emitRuby(kind Kind, b *rubyText) *Snippet {
	s := x.emit(kind, x.dir, &b.builder)
	if s != nil {
		s.rewrite(rubyInterpolations(s.Text, b.interp))
	}
	return s
}

// rubyString decodes the string literal at src[i]: '…', "…", `…`, %q(…),
// %Q(…), %(…), %x(…) (any delimiter, brackets nesting) or a heredoc
// (<<ID, <<-ID, <<~ID, with the ID quoted or not). It returns the text,
// where the literal ends in src (for a heredoc: the end of the line that
// names it; its body comes after), and false when there is none.
func rubyString(src []byte, i int) (*rubyText, int, bool) {
	if i >= len(src) {
		return nil, 0, false
	}
	switch c := src[i]; {
	case c == '\'':
		return rubyDelimited(src, i+1, 0, '\'', false)
	case c == '"' || c == '`':
		return rubyDelimited(src, i+1, 0, c, true)
	case c == '%' && i+2 < len(src):
		kind, d := src[i+1], i+2
		interp := true
		switch kind {
		case 'q':
			interp = false
		case 'Q', 'x':
		default:
			if rubyIdent(kind) || kind == ' ' || kind == '\n' || kind == '=' {
				return nil, 0, false // %w, %i, a modulo
			}
			d = i + 1
		}
		if d >= len(src) {
			return nil, 0, false
		}
		open, close := src[d], src[d]
		if k := strings.IndexByte("([{<", open); k >= 0 {
			close = ")]}>"[k]
		} else {
			open = 0
		}
		return rubyDelimited(src, d+1, open, close, interp)
	case c == '<' && bytes.HasPrefix(src[i:], []byte("<<")):
		return rubyHeredoc(src, i+2)
	}
	return nil, 0, false
}

// rubyDelimited decodes a string body from src[from:] up to the close
// delimiter (open nests, when not 0).
func rubyDelimited(src []byte, from int, open, close byte, interp bool) (*rubyText, int, bool) {
	b := &rubyText{}
	depth := 0
	start := from
	for j := from; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\' && j+1 < len(src):
			b.copy(src, start, j)
			if interp {
				b.put(rubyEscape(src[j+1]), j)
			} else if src[j+1] == close || src[j+1] == '\\' || open != 0 && src[j+1] == open {
				b.put(string(src[j+1]), j)
			} else {
				b.copy(src, j, j+2)
			}
			j++
			start = j + 1
		case open != 0 && c == open:
			depth++
		case c == close && depth > 0:
			depth--
		case c == close:
			b.copy(src, start, j)
			return b, j + 1, true
		case interp && c == '#' && j+1 < len(src) && src[j+1] == '{':
			b.copy(src, start, j)
			b.interp = append(b.interp, b.len())
			start = j
		}
	}
	return nil, 0, false
}

// rubyEscape is what an escape in a double-quoted Ruby string stands for.
func rubyEscape(e byte) string {
	if k := strings.IndexByte("ntrbfesa0", e); k >= 0 {
		return "\n\t\r\b\f\x1b \a\x00"[k : k+1]
	}
	return string(e) // \\, \", \#, and any other character as itself
}

// rubyHeredoc decodes a heredoc whose name starts at src[i] (after <<).
func rubyHeredoc(src []byte, i int) (*rubyText, int, bool) {
	squiggly, dash := false, false
	switch {
	case i < len(src) && src[i] == '~':
		squiggly = true
		i++
	case i < len(src) && src[i] == '-':
		dash = true
		i++
	}
	interp := true
	var quote byte
	if i < len(src) && (src[i] == '\'' || src[i] == '"' || src[i] == '`') {
		quote = src[i]
		interp = quote != '\''
		i++
	}
	start := i
	for i < len(src) && rubyIdent(src[i]) {
		i++
	}
	id := string(src[start:i])
	if id == "" || quote == 0 && !rubyIdentStart(id[0]) {
		return nil, 0, false
	}
	if quote != 0 {
		if i >= len(src) || src[i] != quote {
			return nil, 0, false
		}
		i++
	}
	// The body: the lines after this one, up to the line that is the id.
	lineAfter := lineEnd(src, i) + 1
	var lines [][2]int
	end := -1
	for ln := lineAfter; ln < len(src); {
		le := lineEnd(src, ln)
		text := strings.TrimRight(string(src[ln:le]), "\r")
		if (squiggly || dash) && strings.TrimSpace(text) == id || text == id {
			end = le
			break
		}
		lines = append(lines, [2]int{ln, le})
		ln = le + 1
	}
	if end < 0 {
		return nil, 0, false
	}
	indent := 0
	if squiggly {
		indent = -1
		for _, l := range lines {
			t := src[l[0]:l[1]]
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			n := len(t) - len(bytes.TrimLeft(t, " \t"))
			if indent < 0 || n < indent {
				indent = n
			}
		}
		indent = max(indent, 0)
	}
	b := &rubyText{}
	for _, l := range lines {
		from := min(l[0]+indent, l[1])
		for k := l[0]; k < from; k++ {
			if src[k] != ' ' && src[k] != '\t' {
				from = k
				break
			}
		}
		if interp {
			if sub, _, ok := rubyDelimited(append(src[from:l[1]:l[1]], '\n'), 0, 0, '\n', true); ok {
				for _, s := range sub.segs {
					s.src += from
					b.segs = append(b.segs, segment{off: b.len() + s.off, src: s.src, exact: s.exact})
				}
				for _, at := range sub.interp {
					b.interp = append(b.interp, b.len()+at)
				}
				b.b.WriteString(sub.b.String())
				b.put("\n", l[1])
				continue
			}
		}
		b.copy(src, from, l[1])
		b.put("\n", l[1])
	}
	b.bodyEnd = end
	return b, i, true
}

// rubyInterpolations are edits turning each #{…} at the marked offsets of
// t into a shell parameter.
func rubyInterpolations(t string, at []int) []edit {
	var edits []edit
	for _, i := range at {
		if i+1 >= len(t) || t[i+1] != '{' {
			continue
		}
		end := braceEnd(t, i+1)
		edits = append(edits, edit{from: i, to: end, with: placeholder("ruby_" + strings.Trim(t[i+1:end], "{}"))})
	}
	return edits
}

func rubyIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func rubyIdent(c byte) bool { return rubyIdentStart(c) || c >= '0' && c <= '9' }

// vagrantfile reads a Vagrantfile's shell: each inline script (inline:
// VALUE, :inline => VALUE, s.inline = VALUE) of a shell provisioner runs
// in the virtual machine (kind Vagrant), that of a trigger's run on the
// host (kind VagrantHost; run_remote is the machine's).
func (x *extractor) vagrantfile() {
	src := x.src
	for _, at := range rubyKeyValues(src, "inline") {
		b, _, ok := rubyString(src, at)
		if !ok || b == nil {
			continue
		}
		kind := Vagrant
		if vagrantOnHost(src, at) {
			kind = VagrantHost
		}
		x.emitRuby(kind, b)
	}
}

// vagrantPaths are the scripts (from the root) a Vagrantfile's
// provisioners and triggers run by path: shell scripts whatever they are
// named.
func vagrantPaths(name string, src []byte) []string {
	var out []string
	for _, at := range rubyKeyValues(src, "path") {
		b, _, ok := rubyString(src, at)
		if !ok || b == nil || len(b.interp) > 0 {
			continue
		}
		if p := b.b.String(); !strings.Contains(p, "://") {
			out = append(out, p)
		}
	}
	return repoPaths(name, out)
}

// rubyKeyValues are the offsets of the values given to key: key: VALUE,
// :key => VALUE, "key" => VALUE, obj.key = VALUE.
func rubyKeyValues(src []byte, key string) []int {
	var out []int
	for i := 0; ; {
		k := bytes.Index(src[i:], []byte(key))
		if k < 0 {
			return out
		}
		at := i + k
		i = at + len(key)
		if at > 0 && rubyIdent(src[at-1]) || i < len(src) && rubyIdent(src[i]) {
			continue
		}
		j := i
		if j < len(src) && (src[j] == '"' || src[j] == '\'') {
			j++ // "inline" => …
		}
		switch {
		case j < len(src) && src[j] == ':' && (j+1 >= len(src) || src[j+1] != ':'):
			out = append(out, skipBlanks(src, j+1))
			continue
		}
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		switch {
		case bytes.HasPrefix(src[j:], []byte("=>")):
			out = append(out, skipBlanks(src, j+2))
		case j < len(src) && src[j] == '=' && (j+1 >= len(src) || src[j+1] != '=') && at > 0 && src[at-1] == '.':
			out = append(out, skipBlanks(src, j+1))
		}
	}
}

// vagrantOnHost reports whether the inline script at at belongs to a
// trigger's run (the host) rather than a provisioner or a trigger's
// run_remote (the machine): the nearest of those words before it.
func vagrantOnHost(src []byte, at int) bool {
	best, host := -1, false
	for _, w := range []struct {
		word string
		host bool
	}{{"provision", false}, {"run_remote", false}, {"run", true}} {
		for k := at - 1; k >= 0; k-- {
			k = bytes.LastIndex(src[:k+1], []byte(w.word))
			if k < 0 {
				break
			}
			e := k + len(w.word)
			if (k == 0 || !rubyIdent(src[k-1])) && (e >= len(src) || !rubyIdent(src[e])) {
				if k > best {
					best, host = k, w.host
				}
				break
			}
		}
	}
	return host
}
