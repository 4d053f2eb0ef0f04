package parse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Brace expansion as bash does it, on a word's source text, to check the
// expansion guard takes from mvdan/sh. The two differ where a word's
// braces are unusual: bash skips a } that closes no alternatives yet
// (x{1}/,[} is x1}/ and x[), counts the braces inside ${…} as its own, and
// drops alternatives mvdan/sh keeps. A word on which they disagree is
// reviewed as a word guard does not know (TestBashAgrees found these).

// braceCheckable: the text holds nothing this reading does not follow
// (lines, ${ cmd; }), so its result can be compared.
func braceCheckable(text string) bool {
	if strings.Contains(text, "\n") {
		return false
	}
	for _, s := range []string{"${ ", "${\t", "${|"} {
		if strings.Contains(text, s) {
			return false
		}
	}
	return true
}

// bashBraces returns the words bash's brace expansion makes of text (the
// word as written, quotes included), or false past max words or for a
// sequence it does not read.
func bashBraces(text string, max int) ([]string, bool) {
	i := 0
	found := false
	for {
		j, ok, _ := braceScan(text, i, '{')
		if !ok {
			break
		}
		end, closed, kind := braceScan(text, j+1, '}')
		if closed && kind == braceSeqKind && !seqTermShape(text[j+1:end]) {
			closed = false
		}
		if closed {
			i, found = j, true
			break
		}
		i = j + 1
	}
	if !found {
		return []string{text}, true
	}
	pre := text[:i]
	end, _, kind := braceScan(text, i+1, '}')
	amble := text[i+1 : end]
	var tack []string
	if kind == braceSeqKind && !unescapedComma(amble) {
		seq, ok := bashSeq(amble, max)
		if !ok {
			if end+1 >= len(text) {
				return []string{text}, true
			}
			seq = []string{text[i : end+1]}
		}
		tack = seq
	} else {
		var ok bool
		if tack, ok = bashAmble(amble, max); !ok {
			return nil, false
		}
	}
	out := make([]string, 0, len(tack))
	for _, t := range tack {
		out = append(out, pre+t)
	}
	if post := text[end+1:]; post != "" {
		rest, ok := bashBraces(post, max)
		if !ok || len(out)*len(rest) > max {
			return nil, false
		}
		var next []string
		for _, a := range out {
			for _, b := range rest {
				next = append(next, a+b)
			}
		}
		out = next
	}
	if len(out) > max {
		return nil, false
	}
	return out, true
}

// bashAmble splits the inside of braces at its top-level commas and
// expands each piece.
func bashAmble(amble string, max int) ([]string, bool) {
	var out []string
	for i := 0; ; {
		j, _, _ := braceScan(amble, i, ',')
		part, ok := bashBraces(amble[i:j], max)
		if !ok || len(out)+len(part) > max {
			return nil, false
		}
		out = append(out, part...)
		if j >= len(amble) {
			return out, true
		}
		i = j + 1
	}
}

const (
	braceNoKind = iota
	braceCommaKind
	braceSeqKind
)

// braceScan looks from i for the byte want outside quotes, escapes and
// ${…}: a '{' that may open braces, the '}' that closes them (only once
// a comma or .. was seen at their level), or a ',' between alternatives.
// It returns where it stopped, whether it found want, and for '}' what
// the braces hold.
func braceScan(text string, i int, want byte) (int, bool, int) {
	level, quote, kind := 0, byte(0), braceNoKind
	seps := 1
	if want == '}' {
		seps = 0
	}
	for ; i < len(text); i++ {
		c := text[i]
		if c == '\\' && quote != '\'' {
			i++
			continue
		}
		if i+1 < len(text) && text[i+1] == '(' && (c == '$' && quote != '\'' && quote != 'E' || (c == '<' || c == '>') && quote == 0) {
			// $(…), $((…)), <(…) and >(…) pass whole.
			i = closeParen(text, i+1)
			continue
		}
		if c == '$' && i+1 < len(text) && text[i+1] == '\'' && quote == 0 {
			// $'…', where a backslash escapes ('E' until its ').
			i, quote = i+1, 'E'
			continue
		}
		if c == '$' && i+1 < len(text) && text[i+1] == '{' && quote != '\'' && quote != 'E' {
			i++
			if quote == 0 {
				level++
			}
			continue
		}
		if quote != 0 {
			if c == quote || quote == 'E' && c == '\'' {
				quote = 0
			}
			continue
		}
		if c == '"' || c == '\'' || c == '`' {
			quote = c
			continue
		}
		if c == want && level == 0 && seps > 0 {
			return i, true, kind
		}
		switch {
		case c == '{':
			level++
		case c == '}' && level > 0:
			level--
		case want == '}' && c == ',' && level == 0:
			kind = braceCommaKind
			seps++
		case want == '}' && level == 0 && kind == braceNoKind && strings.HasPrefix(text[i:], "..") && (i+2 >= len(text) || text[i+2] != '}'):
			kind = braceSeqKind
			seps++
		}
	}
	return len(text), false, kind
}

// closeParen returns the index of the ) that closes the ( at i, passing
// over quotes and escapes, or the end of text.
func closeParen(text string, i int) int {
	depth, quote := 0, byte(0)
	for ; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(text)
}

// unescapedComma: s holds a comma not after a backslash.
func unescapedComma(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			return true
		}
	}
	return false
}

// seqTermShape: x..y looks like a sequence bash would try (numbers or
// single letters on both sides).
func seqTermShape(s string) bool {
	lhs, rhs, ok := strings.Cut(s, "..")
	if !ok || lhs == "" || rhs == "" || lhs[0] == '.' {
		return false
	}
	kind := func(t string, right bool) int {
		switch {
		case isDigit(t[0]) || (t[0] == '+' || t[0] == '-') && len(t) > 1 && isDigit(t[1]):
			return 1
		case isAlpha(t[0]) && (len(t) == 1 || t[1] == '.' || right && t[1] == '}'):
			return 2
		}
		return 0
	}
	l, r := kind(lhs, false), kind(rhs, true)
	return l != 0 && l == r
}

// bashSeq expands x..y[..incr] (integers, zero-padded when either end is
// written with a leading zero, or single letters).
func bashSeq(s string, max int) ([]string, bool) {
	terms := strings.Split(s, "..")
	if len(terms) < 2 || len(terms) > 3 {
		return nil, false
	}
	incr := int64(1)
	if len(terms) == 3 {
		n, err := strconv.ParseInt(terms[2], 10, 64)
		if err != nil {
			return nil, false
		}
		incr = n
	}
	if incr < 0 {
		incr = -incr
	}
	if incr == 0 {
		incr = 1
	}
	lhs, rhs := terms[0], terms[1]
	a, errA := strconv.ParseInt(lhs, 10, 64)
	b, errB := strconv.ParseInt(rhs, 10, 64)
	width, chars := 0, false
	switch {
	case errA == nil && errB == nil:
		for _, t := range []string{lhs, rhs} {
			u := strings.TrimPrefix(t, "-")
			if len(u) > 1 && u[0] == '0' && len(t) > width {
				width = len(t)
			}
		}
	case len(lhs) == 1 && len(rhs) == 1 && isAlpha(lhs[0]) && isAlpha(rhs[0]):
		a, b, chars = int64(lhs[0]), int64(rhs[0]), true
	default:
		return nil, false
	}
	step := incr
	if a > b {
		step = -incr
	}
	if (b-a)/step+1 > int64(max) {
		return nil, false
	}
	var out []string
	for n := a; step > 0 && n <= b || step < 0 && n >= b; n += step {
		switch {
		case chars:
			out = append(out, string(rune(n)))
		case width > 0:
			v := strconv.FormatInt(n, 10)
			neg := strings.HasPrefix(v, "-")
			digits := strings.TrimPrefix(v, "-")
			pad := width - len(v)
			if pad > 0 {
				digits = strings.Repeat("0", pad) + digits
			}
			if neg {
				digits = "-" + digits
			}
			out = append(out, digits)
		default:
			out = append(out, strconv.FormatInt(n, 10))
		}
	}
	return out, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// declBraces: bash's brace expansion makes more than one word (or none it
// can read) of a declaration's argument NAME=VALUE.
func declBraces(text string, max int) bool {
	if !strings.Contains(text, "{") {
		return false
	}
	if !braceCheckable(text) {
		return true
	}
	ws, ok := bashBraces(text, max)
	return !ok || len(ws) != 1 || ws[0] != text
}

// bracesAgree: the alternatives mvdan/sh made (alts) print as the words
// bash makes of the same text.
func bracesAgree(alts [][]syntax.WordPart, bash []string) bool {
	if len(alts) != len(bash) {
		return false
	}
	p := syntax.NewPrinter()
	for i, parts := range alts {
		var a, b strings.Builder
		if err := p.Print(&a, &syntax.Word{Parts: parts}); err != nil {
			return false
		}
		if bash[i] != "" {
			w, err := syntax.NewParser().Document(strings.NewReader(bash[i]))
			if err != nil || p.Print(&b, w) != nil {
				return false
			}
		}
		if a.String() != b.String() {
			return false
		}
		// The same text must also be the same parts: bash expands the
		// braces of $IFS{1,2} into $IFS1 and $IFS2, other variables,
		// where mvdan/sh's parts stay $IFS then 1.
		if a.Len() > 0 {
			w, err := syntax.NewParser().Document(strings.NewReader(a.String()))
			if err != nil || partsSig(p, w.Parts) != partsSig(p, parts) {
				return false
			}
		}
	}
	return true
}

// partsSig is a word's parts as text, one entry a part, adjacent
// literals joined.
func partsSig(p *syntax.Printer, parts []syntax.WordPart) string {
	var out, lit strings.Builder
	for _, part := range parts {
		if l, ok := part.(*syntax.Lit); ok {
			lit.WriteString(l.Value)
			continue
		}
		if lit.Len() > 0 {
			out.WriteString("L" + lit.String() + "\x00")
			lit.Reset()
		}
		var b strings.Builder
		if p.Print(&b, part) != nil {
			return "\x01"
		}
		out.WriteString("P" + b.String() + "\x00")
	}
	if lit.Len() > 0 {
		out.WriteString("L" + lit.String() + "\x00")
	}
	return out.String()
}
