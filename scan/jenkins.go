package scan

import (
	"bytes"
	"strings"
)

// jenkinsfile reads the shell steps of a Jenkinsfile (Groovy): sh 'TEXT',
// sh "TEXT", sh ”'TEXT”', sh """TEXT""", sh(script: …), sh(label: …,
// script: …). Groovy decodes the string first: escapes become what they
// stand for, and in double-quoted strings ${expr} and $name are Groovy's
// interpolation, which become shell parameters (unknown values).
func (x *extractor) jenkinsfile() error {
	src := x.src
	for i := 0; i+2 < len(src); i++ {
		if src[i] != 's' || src[i+1] != 'h' || (i > 0 && groovyIdent(src[i-1])) || groovyIdent(src[i+2]) {
			continue
		}
		j := skipBlanks(src, i+2)
		if j < len(src) && src[j] == '(' {
			// sh(…): the string is the first argument or script's value.
			end := groovyCallEnd(src, j)
			k := skipBlanks(src, j+1)
			if !groovyQuote(src, k) {
				k = -1
				if s := bytes.Index(src[j:end], []byte("script")); s >= 0 {
					if c := skipBlanks(src, j+s+6); c < end && src[c] == ':' {
						k = skipBlanks(src, c+1)
					}
				}
			}
			j = k
		} else if bytes.HasPrefix(src[j:], []byte("script")) {
			// sh script: '…'
			if c := skipBlanks(src, j+6); c < len(src) && src[c] == ':' {
				j = skipBlanks(src, c+1)
			}
		}
		if j < 0 || !groovyQuote(src, j) {
			continue
		}
		b, next := x.groovyString(j)
		if b == nil {
			// A step whose string guard cannot read to its end: Groovy
			// may read it otherwise; what is not read is not safe.
			return x.syntaxError(j, "the string of an sh step does not end where guard can read it")
		}
		var s *Snippet
		if s = x.emit(CI, ".", &b.builder); s != nil {
			s.rewrite(groovyInterpolations(s.Text, b.interp))
		}
		i = next - 1
	}
	return nil
}

func groovyIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.'
}

func skipBlanks(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

func groovyQuote(src []byte, i int) bool {
	return i >= 0 && i < len(src) && (src[i] == '\'' || src[i] == '"')
}

// groovyCallEnd is the offset of the ) that closes the call opened at
// open (or the end of the file), outside strings.
func groovyCallEnd(src []byte, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		case '\'', '"':
			q := src[i]
			for i++; i < len(src) && src[i] != q; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		}
	}
	return len(src)
}

// groovyBuilder is a builder that also marks where a double-quoted
// string interpolates ($ not escaped), by offset in its text.
type groovyBuilder struct {
	builder
	interp []int
}

// groovyString decodes the string literal at i; it returns nil when it
// does not end.
func (x *extractor) groovyString(i int) (*groovyBuilder, int) {
	src := x.src
	delim := src[i : i+1]
	if bytes.HasPrefix(src[i:], []byte(`'''`)) || bytes.HasPrefix(src[i:], []byte(`"""`)) {
		delim = src[i : i+3]
	}
	double := delim[0] == '"'
	b := &groovyBuilder{}
	from := i + len(delim)
	for j := from; j < len(src); j++ {
		switch {
		case bytes.HasPrefix(src[j:], delim):
			b.copy(src, from, j)
			return b, j + len(delim)
		case len(delim) == 1 && src[j] == '\n':
			return nil, 0 // a one-line string does not end
		case src[j] == '\\' && j+1 < len(src):
			b.copy(src, from, j)
			b.put(groovyEscape(src[j:j+2]), j)
			j++
			from = j + 1
		case double && src[j] == '$':
			b.copy(src, from, j)
			b.interp = append(b.interp, b.len())
			from = j
			// ${…} holds Groovy code, strings and all: a quote there does
			// not end this string ("a ${"b"} c" is one string).
			if j+1 < len(src) && src[j+1] == '{' {
				if end := groovyCodeEnd(src, j+1); end > 0 {
					j = end - 1
				}
			}
		}
	}
	return nil, 0
}

// groovyCodeEnd is where the Groovy code in braces opened at src[open]
// ends (just after its }), its strings read as strings (a double-quoted
// one's ${…} nesting); -1 when it does not.
func groovyCodeEnd(src []byte, open int) int {
	depth := 0
	for k := open; k < len(src); k++ {
		switch c := src[k]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return k + 1
			}
		case '\'', '"':
			q := c
			for k++; k < len(src) && src[k] != q; k++ {
				switch {
				case src[k] == '\\':
					k++
				case q == '"' && src[k] == '$' && k+1 < len(src) && src[k+1] == '{':
					end := groovyCodeEnd(src, k+1)
					if end < 0 {
						return -1
					}
					k = end - 1
				}
			}
		}
	}
	return -1
}

// groovyEscape is what a Groovy escape (a backslash and a byte) stands
// for; an escape it does not know stays as written.
func groovyEscape(e []byte) string {
	if strings.IndexByte(`\'"$`, e[1]) >= 0 {
		return string(e[1])
	}
	if k := strings.IndexByte("ntrbf", e[1]); k >= 0 {
		return "\n\t\r\b\f"[k : k+1]
	}
	return string(e)
}

// isJenkinsfile reports whether a (lower-case) base name is a Jenkins
// pipeline.
func isJenkinsfile(lower string) bool {
	return lower == "jenkinsfile" || strings.HasPrefix(lower, "jenkinsfile.") || strings.HasSuffix(lower, ".jenkinsfile")
}

// groovyInterpolations are edits turning each interpolation ($name.path
// or ${expr}) at the marked offsets of t into a shell parameter.
func groovyInterpolations(t string, at []int) []edit {
	var edits []edit
	for _, i := range at {
		if i+1 >= len(t) {
			continue
		}
		end := i + 1
		if t[end] == '{' {
			if e := groovyCodeEnd([]byte(t), end); e > 0 {
				end = e
			} else {
				end = braceEnd(t, end)
			}
		} else {
			for end < len(t) && (groovyIdent(t[end]) && t[end] != '$') {
				end++
			}
		}
		if end == i+1 {
			continue // a lone $: Groovy would reject it
		}
		inner := strings.Trim(t[i+1:end], "{}")
		edits = append(edits, edit{from: i, to: end, with: placeholder("groovy_" + inner)})
	}
	return edits
}

// braceEnd is the offset just past the } that closes the { at t[open]
// (braces nest), or len(t).
func braceEnd(t string, open int) int {
	depth := 0
	for end := open; end < len(t); end++ {
		switch t[end] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return end + 1
			}
		}
	}
	return len(t)
}
