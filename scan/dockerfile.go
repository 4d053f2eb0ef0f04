package scan

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// dockerfile reads the RUN instructions of a Dockerfile (and ONBUILD RUN).
// A shell-form RUN is a command once its continuations are joined the way
// Docker joins them (escape and line break removed, comment lines inside
// dropped); flags such as --mount are not shell and are skipped. A RUN whose
// command is a heredoc (RUN <<EOF) runs the heredoc's body; a heredoc
// feeding a command is part of it. An exec-form RUN ["prog", "arg"] is an
// argument vector, quoted for the reviewer. After a SHELL instruction that
// names neither sh nor bash (powershell, cmd), shell-form RUNs of that stage
// are skipped.
func (x *extractor) dockerfile() {
	escape := byte('\\')
	n := len(x.lines.starts)
	ln := 1
	// Parser directives: # key=value comments before anything else.
	for ; ln <= n; ln++ {
		m := dockerDirective().FindSubmatch(trimCR(x.lines.line(ln)))
		if m == nil {
			break
		}
		if strings.EqualFold(string(m[1]), "escape") && len(m[2]) == 1 {
			escape = m[2][0]
		}
	}
	shellOK := true
	for ln <= n {
		line := trimCR(x.lines.line(ln))
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			ln++
			continue
		}
		from := x.lines.lineStart(ln) + len(line) - len(trimmed)
		var b builder
		next := x.joinDocker(&b, ln, from, escape)
		logical := b.snippet(x.name, Dockerfile, x.dir, x.lines)
		instr, args := splitInstruction(logical.Text)
		if strings.EqualFold(instr, "ONBUILD") {
			logical.rewrite([]edit{{from: 0, to: len(logical.Text) - len(args)}})
			instr, args = splitInstruction(logical.Text)
		}
		// Heredoc bodies (BuildKit) follow the instruction's last line.
		bodyFrom := x.lines.lineStart(next)
		switch strings.ToUpper(instr) {
		case "RUN", "COPY", "ADD":
			next = x.heredocs(logical.Text, next)
		}
		bodyTo := x.lines.lineStart(next)
		switch strings.ToUpper(instr) {
		case "FROM":
			shellOK = true
		case "SHELL":
			var argv []string
			if json.Unmarshal([]byte(args), &argv) == nil && len(argv) > 0 {
				shellOK = isShellCommand(argv[0])
			}
		case "RUN":
			logical.rewrite([]edit{{from: 0, to: len(logical.Text) - len(args)}})
			x.dockerRun(logical, shellOK, bodyFrom, bodyTo)
		}
		ln = next
	}
}

var dockerDirective = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$`) })

// splitInstruction splits "RUN  apt-get update" into "RUN" and what follows
// the blanks after it.
func splitInstruction(t string) (instr, args string) {
	i := strings.IndexAny(t, " \t")
	if i < 0 {
		return t, ""
	}
	return t[:i], strings.TrimLeft(t[i:], " \t")
}

// joinDocker copies an instruction from offset from through its
// continuation lines and returns the line after it.
func (x *extractor) joinDocker(b *builder, ln, from int, escape byte) int {
	n := len(x.lines.starts)
	for {
		l := trimCR(x.lines.line(ln))
		ls := x.lines.lineStart(ln)
		end := ls + len(bytes.TrimRight(l, " \t"))
		if end <= from || x.src[end-1] != escape || ln >= n {
			b.copy(x.src, from, ls+len(l))
			return ln + 1
		}
		b.copy(x.src, from, end-1)
		// Empty and comment lines inside a continuation are dropped.
		for ln++; ln <= n; ln++ {
			t := bytes.TrimLeft(trimCR(x.lines.line(ln)), " \t")
			if len(t) > 0 && t[0] != '#' {
				break
			}
		}
		if ln > n {
			return ln
		}
		from = x.lines.lineStart(ln)
	}
}

// heredocMarker is <<EOF, <<-EOF, <<'EOF', <<"EOF" in an instruction.
var heredocMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<(-?)\s*(["']?)([A-Za-z_][A-Za-z0-9_.-]*)(["']?)`) })

// heredocs skips the bodies of the heredocs an instruction opens, starting
// at line ln, and returns the line after the last terminator.
func (x *extractor) heredocs(instr string, ln int) int {
	n := len(x.lines.starts)
	for _, m := range heredocMarker().FindAllStringSubmatch(instr, -1) {
		if m[2] != m[4] {
			continue
		}
		word, dash := m[3], m[1] == "-"
		for ; ln <= n; ln++ {
			l := string(trimCR(x.lines.line(ln)))
			if dash {
				l = strings.TrimLeft(l, "\t")
			}
			if l == word {
				ln++
				break
			}
		}
	}
	return ln
}

// dockerRun emits the command of a RUN whose text (flags and all, the
// instruction word removed) is s. Heredoc bodies are in src[bodyFrom:bodyTo].
func (x *extractor) dockerRun(s Snippet, shellOK bool, bodyFrom, bodyTo int) {
	// Flags (--mount=…, --network=…, --security=…) come first.
	t := s.Text
	i := 0
	for strings.HasPrefix(t[i:], "--") {
		j := strings.IndexAny(t[i:], " \t")
		if j < 0 {
			return
		}
		i += j
		for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
			i++
		}
	}
	s.rewrite([]edit{{from: 0, to: i}})
	if strings.HasPrefix(s.Text, "[") {
		if argv, ok := x.execForm(s); ok {
			x.out = append(x.out, argv)
			return
		}
	}
	if !shellOK {
		return
	}
	var b builder
	if heredocOnly(s.Text) && bodyTo > bodyFrom {
		// RUN <<EOF: the body is the script, up to the terminator line.
		last := bytes.LastIndexByte(bytes.TrimSuffix(x.src[bodyFrom:bodyTo], []byte("\n")), '\n')
		end := bodyFrom
		if last >= 0 {
			end = bodyFrom + last + 1
		}
		b.copy(x.src, bodyFrom, end)
		x.emit(Dockerfile, x.dir, &b)
		return
	}
	if bodyTo > bodyFrom {
		b.segs = append(b.segs, s.segs...)
		b.b.WriteString(s.Text)
		b.put("\n", s.srcOffset(len(s.Text)))
		b.copy(x.src, bodyFrom, bodyTo)
		x.emit(Dockerfile, x.dir, &b)
		return
	}
	if strings.TrimSpace(s.Text) != "" {
		x.out = append(x.out, s)
	}
}

// heredocOnly reports whether a RUN's command is nothing but heredocs.
func heredocOnly(t string) bool {
	rest := heredocMarker().ReplaceAllString(t, "")
	return strings.HasPrefix(strings.TrimSpace(t), "<<") && strings.TrimSpace(rest) == ""
}

// execForm reads RUN ["prog", "arg", …] and quotes it for the shell, each
// word mapped to where its string starts. ok is false when the text is not
// a JSON array of strings, which Docker then runs as shell form.
func (x *extractor) execForm(s Snippet) (Snippet, bool) {
	dec := json.NewDecoder(strings.NewReader(s.Text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return s, false
	}
	var b builder
	for dec.More() {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		str, isString := tok.(string)
		if err != nil || !isString {
			return s, false
		}
		quote := strings.IndexByte(s.Text[before:], '"')
		if b.len() > 0 {
			b.put(" ", s.srcOffset(before+quote))
		}
		b.put(shellQuote(str), s.srcOffset(before+quote+1))
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') || strings.TrimSpace(s.Text[dec.InputOffset():]) != "" {
		return s, false
	}
	argv := b.snippet(x.name, Dockerfile, x.dir, x.lines)
	argv.Argv = true
	return argv, b.len() > 0
}

// shellQuote quotes a word so the shell reads it back unchanged.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
