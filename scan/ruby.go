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

// rubyStyle is how a method's arguments make commands.
type rubyStyle int

const (
	// rubyArgv: one string is a shell line, several a program and its
	// arguments (Kernel#system, Open3.capture2).
	rubyArgv rubyStyle = iota
	// rubyFirst: only the first argument is the command (IO.popen's mode
	// and options follow it); an array there is an argv.
	rubyFirst
	// rubyEach: each argument is a command (Open3.pipeline).
	rubyEach
)

// rubyCalls are the methods that run commands, and how. A call with no
// receiver, or one of rubyReceivers, whose command is not a literal
// (system(cmd), `#{cmd}`, IO.popen(argv)) is reported as code guard
// cannot see (exec.dynamic-code), never skipped.
var rubyCalls = []struct {
	name  string
	style rubyStyle
}{
	{"sh", rubyArgv}, {"system", rubyArgv}, {"exec", rubyArgv}, {"spawn", rubyArgv},
	{"capture2", rubyArgv}, {"capture2e", rubyArgv}, {"capture3", rubyArgv},
	{"popen2", rubyArgv}, {"popen2e", rubyArgv}, {"popen3", rubyArgv},
	{"popen", rubyFirst},
	{"pipeline", rubyEach}, {"pipeline_r", rubyEach}, {"pipeline_w", rubyEach}, {"pipeline_rw", rubyEach}, {"pipeline_start", rubyEach},
}

// rubySends call the method their first argument names (send(:system,
// cmd)).
var rubySends = []string{"send", "public_send", "__send__"}

// rubyReceivers are the receivers whose methods of rubyCalls' names run
// commands: on another receiver (db.exec(sql)) a literal string is still
// read as a command, but a non-literal argument is not reported.
var rubyReceivers = []string{"Kernel", "Process", "IO", "Open3", "PTY", "self"}

// rubyCallStyle is the style of the method named word.
func rubyCallStyle(word string) (rubyStyle, bool) {
	for _, c := range rubyCalls {
		if c.name == word {
			return c.style, true
		}
	}
	return 0, false
}

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
			word := string(src[i:end])
			_, isCall := rubyCallStyle(word)
			if end < len(src) && src[end] != '?' && src[end] != '!' && (isCall || slices.Contains(rubySends, word)) && rubyCallSite(src, i, end) {
				if next, body := x.rubyCall(kind, word, rubyReceiver(src, i), end); next > end {
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

// rubyCallSite reports whether the name at src[i:end] is called there:
// not a method being defined (def system), a symbol (:system), a hash
// key (system: x) or a variable being assigned (exec = 1).
func rubyCallSite(src []byte, i, end int) bool {
	if i > 0 && src[i-1] == ':' && (i < 2 || src[i-2] != ':') {
		return false
	}
	before := strings.TrimRight(string(src[lineStartOf(src, i):i]), " \t")
	if strings.HasSuffix(before, "def") && (len(before) == 3 || !rubyIdent(before[len(before)-4])) {
		return false
	}
	k := end
	for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	switch {
	case k < len(src) && src[k] == ':' && (k+1 >= len(src) || src[k+1] != ':'):
		return false
	case k+1 < len(src) && src[k] == '=' && src[k+1] != '=' && src[k+1] != '~' && src[k+1] != '>':
		return false
	}
	return true
}

// lineStartOf is where the line holding src[i] starts.
func lineStartOf(src []byte, i int) int {
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}

// rubyReceiver is the constant or name a method call at src[i] is made
// on ("Open3" in Open3.capture2, "" for none).
func rubyReceiver(src []byte, i int) string {
	if i == 0 || src[i-1] != '.' {
		return ""
	}
	k := i - 1
	for k > 0 && rubyIdent(src[k-1]) {
		k--
	}
	if k == i-1 {
		return "?" // (expr).system: a receiver guard does not name
	}
	return string(src[k : i-1])
}

// rubyArg is one argument of a call: its text in the file, and the
// string literal it is when it is exactly one.
type rubyArg struct {
	from, to int
	lit      *rubyText
}

// rubyArgEnds are the words that end a call's arguments written without
// parentheses (system cmd if ok; system cmd or raise).
var rubyArgEnds = []string{"if", "unless", "while", "until", "rescue", "and", "or", "do", "then"}

// rubyArgs reads the arguments of a call from src[j] up to close (')'
// or ']' after an opening one, 0 for arguments without parentheses, which
// end at the line's end, a ; or a modifier). It returns them, where they
// end, and where the body of a heredoc among them ends (0 for none).
func rubyArgs(src []byte, j int, close byte) (args []rubyArg, next, bodyEnd int) {
	blank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || close != 0 && c == '\n' }
	for {
		for j < len(src) && blank(src[j]) {
			j++
		}
		start := j
		depth := 0
		lit, litEnd, isLit := rubyString(src, j)
	arg:
		for j < len(src) {
			c := src[j]
			switch {
			case c == '\'' || c == '"' || c == '`' || c == '%' || c == '<' && j+1 < len(src) && src[j+1] == '<':
				if b, n, ok := rubyString(src, j); ok {
					bodyEnd = max(bodyEnd, b.bodyEnd)
					j = n
					continue
				}
			case c == '(' || c == '[' || c == '{':
				depth++
			case (c == ')' || c == ']' || c == '}') && depth > 0:
				depth--
			case depth > 0:
			case c == ',' || c == ')' || c == ']' || c == '}' || c == ';':
				break arg
			case c == '#' && close == 0 || c == '\n' && close == 0:
				break arg
			case c == '#':
				j = lineEnd(src, j)
				continue
			case close == 0 && rubyIdentStart(c) && (j == 0 || !rubyIdent(src[j-1])):
				e := j
				for e < len(src) && rubyIdent(src[e]) {
					e++
				}
				if slices.Contains(rubyArgEnds, string(src[j:e])) {
					break arg
				}
				j = e
				continue
			case close == 0 && (c == '&' || c == '|') && j+1 < len(src) && src[j+1] == c:
				break arg
			}
			j++
		}
		to := j
		for to > start && (src[to-1] == ' ' || src[to-1] == '\t' || src[to-1] == '\r' || src[to-1] == '\n') {
			to--
		}
		if to > start {
			a := rubyArg{from: start, to: to}
			if isLit && litEnd == to {
				a.lit = lit
			}
			args = append(args, a)
		}
		if j < len(src) && src[j] == ',' {
			j++
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r' || src[j] == '\n') {
				j++ // a line that ends with a comma goes on
			}
			continue
		}
		if close != 0 && j < len(src) && src[j] == close {
			j++
		}
		return args, j, bodyEnd
	}
}

// rubyOption reports whether an argument is a keyword or hash option
// (chdir: "x", :out => f, **opts, exception: true), not a command word.
func rubyOption(text string) bool {
	if strings.HasPrefix(text, "**") || strings.HasPrefix(text, "&") {
		return true
	}
	k := 0
	for k < len(text) && rubyIdent(text[k]) {
		k++
	}
	if k > 0 && k < len(text) && text[k] == ':' && (k+1 == len(text) || text[k+1] == ' ' || text[k+1] == '\t') {
		return true
	}
	return strings.Contains(text, "=>")
}

// rubyCall reads the arguments of a call of word (on receiver recv)
// whose name ends at i, and emits the commands they make (rubyStyle). A
// command that is not a literal is emitted as code guard cannot see,
// when the method is one that runs commands on that receiver. It returns
// where the arguments end (i when there are none), and where the body of
// a heredoc among them ends (0 when there is none).
func (x *extractor) rubyCall(kind Kind, word, recv string, i int) (next, bodyEnd int) {
	src := x.src
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	var close byte
	switch {
	case j < len(src) && src[j] == '(':
		close, j = ')', j+1
	case j == i:
		return i, 0 // sh"x" is not Ruby's call syntax for these
	case j >= len(src) || src[j] == '\n' || src[j] == '=' || src[j] == '.':
		return i, 0
	}
	args, next, bodyEnd := rubyArgs(src, j, close)
	if len(args) == 0 {
		return i, 0
	}
	style, _ := rubyCallStyle(word)
	if slices.Contains(rubySends, word) {
		// send(:system, cmd): the method the first argument names.
		name := strings.TrimPrefix(string(src[args[0].from:args[0].to]), ":")
		if args[0].lit != nil {
			name = args[0].lit.b.String()
		}
		s, ok := rubyCallStyle(name)
		if !ok {
			return next, bodyEnd
		}
		style, args = s, args[1:]
	}
	known := recv == "" || slices.Contains(rubyReceivers, recv)
	if len(args) > 0 && src[args[0].from] == '{' {
		args = args[1:] // the environment
	}
	// A string literal is a command word, whatever it holds ("… =>").
	for len(args) > 0 && args[len(args)-1].lit == nil && rubyOption(string(src[args[len(args)-1].from:args[len(args)-1].to])) {
		args = args[:len(args)-1]
	}
	switch {
	case len(args) == 0:
	case style == rubyEach:
		for _, a := range args {
			x.rubyCommand(kind, []rubyArg{a}, known)
		}
	case style == rubyFirst:
		x.rubyCommand(kind, args[:1], known)
	default:
		x.rubyCommand(kind, args, known)
	}
	return next, bodyEnd
}

// rubyCommand emits one command: a single string is a shell line, an
// array or several arguments a program and its arguments. Non-literal
// parts are words guard cannot know; a non-literal shell line is code it
// cannot see (emitted only when known says the method runs commands).
func (x *extractor) rubyCommand(kind Kind, args []rubyArg, known bool) {
	src := x.src
	if len(args) == 1 && args[0].lit != nil {
		x.emitRuby(kind, args[0].lit)
		return
	}
	if len(args) == 1 && src[args[0].from] == '[' {
		// An argv ([program, args…]).
		inner, _, _ := rubyArgs(src, args[0].from+1, ']')
		if len(inner) == 0 {
			return
		}
		args = inner
	} else if len(args) == 1 {
		if !known {
			return
		}
		var b builder
		from := args[0].from
		b.put("eval ", from)
		b.put(`"`+placeholder("ruby_"+string(src[from:args[0].to]))+`"`, from)
		x.emit(kind, x.dir, &b)
		return
	}
	var b builder
	for k, a := range args {
		at := a.from
		if a.lit != nil {
			at = a.lit.segStart()
		}
		if k > 0 {
			b.put(" ", at)
		}
		if a.lit == nil || len(a.lit.interp) > 0 {
			if a.lit == nil && !known {
				return
			}
			b.put(placeholder("ruby_"+string(src[a.from:a.to])), at) // a word Ruby fills in: unknown
			continue
		}
		q, err := parse.Quote([]string{a.lit.b.String()})
		if err != nil {
			return
		}
		b.put(q, at)
	}
	x.emit(kind, x.dir, &b)
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
			// The code inside is Ruby's, strings and all: a quote there
			// does not end this string ("a #{"b"} c" is one string).
			if end := rubyCodeEnd(src, j+1); end > 0 {
				j = end - 1
			}
		}
	}
	return nil, 0, false
}

// rubyCodeEnd is where the Ruby code in braces opened at src[open] ends
// (just after its }), its strings read as strings; -1 when it does not.
func rubyCodeEnd(src []byte, open int) int {
	depth := 0
	for k := open; k < len(src); k++ {
		switch c := src[k]; {
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return k + 1
			}
		case c == '\'' || c == '"' || c == '`':
			if _, next, ok := rubyString(src, k); ok {
				k = next - 1
			}
		}
	}
	return -1
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
		end := rubyCodeEnd([]byte(t), i+1)
		if end < 0 {
			end = braceEnd(t, i+1)
		}
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
		kind := Vagrant
		if vagrantOnHost(src, at) {
			kind = VagrantHost
		}
		b, _, ok := rubyString(src, at)
		if !ok || b == nil {
			// inline: $script, the usual form: the string assigned to
			// that variable ($script = <<-SCRIPT … SCRIPT). Anything
			// else is code guard cannot see, never skipped.
			if b = rubyAssigned(src, at); b == nil {
				end := at
				for end < len(src) && src[end] != '\n' && src[end] != ',' && src[end] != '}' && src[end] != ')' {
					end++
				}
				x.rubyCommand(kind, []rubyArg{{from: at, to: max(at+1, min(end, len(src)))}}, true)
				continue
			}
		}
		x.emitRuby(kind, b)
	}
}

// rubyAssigned is the string literal assigned to the variable or
// constant named at src[at] ($script, SCRIPT, script) by its last
// assignment before at; nil when there is none or its value is not one
// literal.
func rubyAssigned(src []byte, at int) *rubyText {
	end := at
	if end < len(src) && (src[end] == '$' || src[end] == '@') {
		end++
	}
	for end < len(src) && rubyIdent(src[end]) {
		end++
	}
	name := string(src[at:end])
	if end == at || name == "$" || name == "@" {
		return nil
	}
	var found *rubyText
	for k := 0; k < at; {
		i := bytes.Index(src[k:at], []byte(name))
		if i < 0 {
			break
		}
		i += k
		k = i + len(name)
		if i > 0 && (rubyIdent(src[i-1]) || src[i-1] == '$' || src[i-1] == '@' || src[i-1] == '.') || k < len(src) && rubyIdent(src[k]) {
			continue
		}
		j := k
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j+1 >= len(src) || src[j] != '=' || src[j+1] == '=' || src[j+1] == '~' || src[j+1] == '>' {
			continue
		}
		j = skipBlanks(src, j+1)
		b, _, ok := rubyString(src, j)
		if !ok || b == nil {
			found = nil // assigned something else
			continue
		}
		found = b
	}
	return found
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
