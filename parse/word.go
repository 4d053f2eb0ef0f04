package parse

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// words converts argument words, applying brace expansion as bash does
// (one source word may become several).
func (c *conv) words(ws []*syntax.Word) []*Word {
	var out []*Word
	for _, w := range ws {
		if w == nil || c.err != nil {
			continue
		}
		out = append(out, c.word(w, false)...)
	}
	return out
}

// wordAssign converts the value of an assignment: no brace expansion, and
// tilde expansion after '=' and ':' (handled by the caller's context).
func (c *conv) wordAssign(w *syntax.Word) []*Word {
	return c.word(w, true)
}

func (c *conv) word(w *syntax.Word, assign bool) []*Word {
	if !c.tick() {
		return nil
	}
	pos, end := off(w.Pos()), off(w.End())
	if !assign && hasBraceCandidate(w) {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
		split := syntax.SplitBraces(cp)
		alts := [][]syntax.WordPart{w.Parts}
		ok := true
		if split {
			alts, ok = c.expandBraces(cp.Parts)
		}
		if raw := c.raw(w); ok && braceCheckable(raw) {
			bash, bok := bashBraces(raw, c.limits.MaxWords)
			ok = bok && bracesAgree(alts, bash)
		}
		if !ok {
			return []*Word{{Pos: pos, End: end, Parts: []Part{{Kind: Dynamic, Raw: c.raw(w)}}}}
		}
		if split {
			var out []*Word
			for _, parts := range alts {
				if emptyLits(parts) {
					// An alternative with nothing in it is an unquoted
					// empty word, which bash removes: {,} rm runs rm,
					// and a {x,} b has three words, not four.
					continue
				}
				w := c.convWord(parts, pos, end, false)
				w.Brace = true
				out = append(out, w)
			}
			return out
		}
	}
	return []*Word{c.convWord(w.Parts, pos, end, assign)}
}

func emptyLits(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); !ok || l.Value != "" {
			return false
		}
	}
	return true
}

func hasBraceCandidate(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// expandBraces returns the cartesian product of the brace alternatives,
// or false when it would exceed MaxWords.
func (c *conv) expandBraces(parts []syntax.WordPart) ([][]syntax.WordPart, bool) {
	acc := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range acc {
				acc[i] = append(acc[i], p)
			}
			continue
		}
		var alts [][]syntax.WordPart
		if be.Sequence {
			seq, ok := braceSeq(be, c.limits.MaxWords)
			if !ok {
				return nil, false
			}
			for _, s := range seq {
				alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, el := range be.Elems {
				sub, ok := c.expandBraces(el.Parts)
				if !ok {
					return nil, false
				}
				alts = append(alts, sub...)
			}
		}
		if len(acc)*len(alts) > c.limits.MaxWords {
			return nil, false
		}
		var next [][]syntax.WordPart
		for _, a := range acc {
			for _, b := range alts {
				n := append(append([]syntax.WordPart(nil), a...), b...)
				next = append(next, n)
			}
		}
		acc = next
	}
	return acc, true
}

// braceSeq expands {x..y[..incr]} for integers and single letters.
func braceSeq(be *syntax.BraceExp, max int) ([]string, bool) {
	if len(be.Elems) < 2 {
		return nil, false
	}
	lit := func(w *syntax.Word) string { return w.Lit() }
	from, to := lit(be.Elems[0]), lit(be.Elems[1])
	incr := 1
	if len(be.Elems) > 2 {
		n, err := strconv.Atoi(lit(be.Elems[2]))
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n == 0 {
			n = 1
		}
		incr = n
	}
	a, errA := strconv.Atoi(from)
	b, errB := strconv.Atoi(to)
	isChar := false
	if errA != nil || errB != nil {
		if len(from) != 1 || len(to) != 1 {
			return nil, false
		}
		a, b, isChar = int(from[0]), int(to[0]), true
	}
	step := incr
	if a > b {
		step = -incr
	}
	if (b-a)/step+1 > max {
		return nil, false
	}
	var out []string
	for i := a; (step > 0 && i <= b) || (step < 0 && i >= b); i += step {
		if isChar {
			out = append(out, string(rune(i)))
		} else {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out, true
}

// convWord converts word parts; assign enables tilde expansion after ':'
// as in assignment values. Tilde after '=' in an argument that looks like an
// assignment (of=~/x) is expanded too, as bash does.
func (c *conv) convWord(parts []syntax.WordPart, pos, end int, assign bool) *Word {
	w := &Word{Pos: pos, End: end}
	// Brace expansion can leave empty literals around an element; they
	// would hide a tilde at the end of the word.
	// Adjacent literals (brace expansion leaves ~u and /x of ~u{/x,y},
	// or a[b and %] of a[b{^,%]}) are one text for tilde and pattern
	// reading, as in bash, which expands braces first.
	kept := parts[:0:0]
	for _, p := range parts {
		l, ok := p.(*syntax.Lit)
		if ok && l.Value == "" {
			continue
		}
		if n := len(kept); ok && n > 0 {
			if prev, ok := kept[n-1].(*syntax.Lit); ok {
				kept[n-1] = &syntax.Lit{ValuePos: prev.ValuePos, ValueEnd: l.ValueEnd, Value: prev.Value + l.Value}
				continue
			}
		}
		kept = append(kept, p)
	}
	parts = kept
	for i, p := range parts {
		if lit, ok := p.(*syntax.Lit); ok {
			w.Parts = append(w.Parts, c.unquotedLit(lit.Value, i == 0, i == len(parts)-1, assign)...)
			continue
		}
		w.Parts = append(w.Parts, c.part(p, false)...)
	}
	w.Parts = mergeLits(w.Parts)
	return w
}

// unquotedLit handles an unquoted literal: backslash removal, glob
// characters and tilde prefixes.
func (c *conv) unquotedLit(v string, first, last, assign bool) []Part {
	if !strings.ContainsAny(v, "\\*?[~") {
		// Most literals have nothing to remove or expand.
		return []Part{{Kind: Lit, Text: v}}
	}
	var parts []Part
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, Part{Kind: Lit, Text: b.String()})
			b.Reset()
		}
	}
	tildeAt := func(i int) bool {
		// A tilde prefix: ~ or ~name up to '/' or ':' (bash expands
		// ~:x in any word, ~ after ':' only in assignments), ending
		// inside this literal or at the end of the word.
		j := i + 1
		for j < len(v) && v[j] != '/' && v[j] != ':' {
			if v[j] == '\\' || strings.ContainsRune("*?[]{}$'\"", rune(v[j])) {
				return false
			}
			j++
		}
		return j < len(v) || last
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case ch == '\\':
			if i+1 < len(v) {
				if v[i+1] != '\n' {
					b.WriteByte(v[i+1])
				}
				i++
			} else {
				b.WriteByte('\\')
			}
		case ch == '*' || ch == '?' || (ch == '[' && strings.IndexByte(v[i+1:], ']') >= 0):
			flush()
			g := string(ch)
			if ch == '[' {
				k := strings.IndexByte(v[i+1:], ']')
				g = v[i : i+k+2]
				i += k + 1
			}
			parts = append(parts, Part{Kind: Glob, Text: g, Raw: g})
		case ch == '~' && tildeStart(v, i, first, assign) && tildeAt(i):
			flush()
			j := i + 1
			for j < len(v) && v[j] != '/' && v[j] != ':' {
				j++
			}
			if !assign && j < len(v) && v[j] == ':' {
				// ~:x outside an assignment: bash expands it in some
				// words and not in others (~+:"…"); not known here.
				parts = append(parts, Part{Kind: Dynamic, Raw: v[i:j]})
				i = j - 1
				continue
			}
			parts = append(parts, Part{Kind: Tilde, Text: v[i+1 : j], Raw: v[i:j]})
			i = j - 1
		default:
			b.WriteByte(ch)
		}
	}
	flush()
	return parts
}

// tildeStart reports whether a '~' at v[i] starts a tilde prefix: at the
// start of a word, after the first '=' of an assignment-like word, or after
// ':' in an assignment value.
func tildeStart(v string, i int, first, assign bool) bool {
	if !first {
		return assign && i > 0 && v[i-1] == ':'
	}
	if i == 0 {
		return true
	}
	if v[i-1] == '=' && syntax.ValidName(v[:i-1]) {
		return true
	}
	if assign && v[i-1] == ':' {
		return true
	}
	return false
}

// part converts a non-literal word part. quoted is true inside double
// quotes or a heredoc body.
func (c *conv) part(p syntax.WordPart, quoted bool) []Part {
	switch x := p.(type) {
	case *syntax.Lit:
		// Inside double quotes only \$ \` \" \\ and \newline are escapes.
		return []Part{{Kind: Lit, Text: unescapeDouble(x.Value), Quoted: quoted}}
	case *syntax.SglQuoted:
		if c.arith > 0 && !x.Dollar {
			return c.arithQuoted(x)
		}
		v := x.Value
		if x.Dollar {
			v = decodeANSIC(v)
		}
		return []Part{{Kind: Lit, Text: v, Quoted: true}}
	case *syntax.DblQuoted:
		var out []Part
		for _, q := range x.Parts {
			out = append(out, c.part(q, true)...)
		}
		if len(out) == 0 {
			out = []Part{{Kind: Lit, Text: "", Quoted: true}}
		}
		return out
	case *syntax.ParamExp:
		if simpleParam(x) {
			return []Part{{Kind: Var, Text: x.Param.Value, Quoted: quoted, Raw: c.raw(x)}}
		}
		var arith []*syntax.Word
		if x.Slice != nil {
			arith = arithWords(x.Slice.Length, arithWords(x.Slice.Offset, nil))
		}
		arith = arithWords(x.Index, arith)
		return []Part{{Kind: Dynamic, Quoted: quoted, Raw: c.raw(x), Nested: c.paramScripts(x), Arith: c.arithConv(arith), Prompt: promptOp(x), Assigns: c.paramAssigns(x)}}
	case *syntax.CmdSubst:
		return []Part{{Kind: CmdSubst, Quoted: quoted, Script: c.script(x.Stmts), Raw: c.raw(x)}}
	case *syntax.ProcSubst:
		return []Part{{Kind: ProcSubst, Script: c.script(x.Stmts), Out: x.Op == syntax.CmdOut, Raw: c.raw(x)}}
	case *syntax.ArithmExp:
		ws := arithWords(x.X, nil)
		arith := c.arithConv(ws)
		var nested []*Script
		for _, w := range arith {
			nested = append(nested, w.Scripts()...)
		}
		return []Part{{Kind: Dynamic, Quoted: quoted, Raw: c.raw(x), Nested: nested, Arith: arith}}
	case *syntax.ExtGlob:
		return []Part{{Kind: Glob, Text: x.Op.String() + x.Pattern.Value + ")", Raw: c.raw(x)}}
	default:
		return []Part{{Kind: Dynamic, Quoted: quoted, Raw: fmt.Sprintf("%T", p)}}
	}
}

// paramAssigns are the ${NAME:=VALUE} and ${NAME=VALUE} in x (not those
// inside a command substitution, which runs in a subshell).
func (c *conv) paramAssigns(x *syntax.ParamExp) []*Assign {
	var out []*Assign
	syntax.Walk(x, func(n syntax.Node) bool {
		switch e := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.ParamExp:
			if e.Exp == nil || e.Exp.Op != syntax.AssignUnset && e.Exp.Op != syntax.AssignUnsetOrNull {
				return true
			}
			a := &Assign{Pos: off(e.Pos()), Maybe: e != x, IfUnset: e.Exp.Op == syntax.AssignUnset}
			if e.Param != nil && !e.Excl && e.Index == nil && syntax.ValidName(e.Param.Value) {
				a.Name = e.Param.Value
			}
			if e.Exp.Word != nil {
				if ws := c.wordAssign(e.Exp.Word); len(ws) == 1 {
					a.Value = ws[0]
				}
			}
			if a.Value == nil {
				a.Value = &Word{Pos: off(e.End()), End: off(e.End())}
			}
			out = append(out, a)
		}
		return true
	})
	return out
}

// promptOp reports whether x, or an expansion nested in its words,
// applies @P (${x@P}, ${!n@P}, ${a[@]@P}, ${y:-${x@P}}).
func promptOp(x *syntax.ParamExp) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if e, ok := n.(*syntax.ParamExp); ok && e.Exp != nil && e.Exp.Op == syntax.OtherParamOps {
			op := ""
			if e.Exp.Word != nil {
				op = e.Exp.Word.Lit()
			}
			// Quoting, escapes, case, attributes and assignments give
			// text; @P, or an operator guard does not know, may run it.
			found = len(op) != 1 || !strings.Contains("QEUuLAKak", op)
		}
		return !found
	})
	return found
}

func simpleParam(x *syntax.ParamExp) bool {
	return x.Param != nil && !x.Excl && !x.Length && !x.Width && !x.IsSet && x.Index == nil &&
		x.Slice == nil && x.Repl == nil && x.Exp == nil && x.Names == 0 && x.NestedParam == nil && x.Flags == nil && len(x.Modifiers) == 0
}

// paramScripts collects substitutions nested in a parameter expansion
// (${X:-$(cmd)}, ${X/$(a)/$(b)}, ${X[$(i)]}).
func (c *conv) paramScripts(x *syntax.ParamExp) []*Script {
	var ws []*syntax.Word
	if x.Exp != nil && x.Exp.Word != nil {
		ws = append(ws, x.Exp.Word)
	}
	if x.Repl != nil {
		for _, w := range []*syntax.Word{x.Repl.Orig, x.Repl.With} {
			if w != nil {
				ws = append(ws, w)
			}
		}
	}
	out := c.nested(ws)
	var arith []*syntax.Word
	if x.Slice != nil {
		arith = arithWords(x.Slice.Offset, arith)
		arith = arithWords(x.Slice.Length, arith)
	}
	for _, w := range c.arithConv(arithWords(x.Index, arith)) {
		out = append(out, w.Scripts()...)
	}
	return out
}

// arithConv converts the words of an arithmetic expression (an array
// subscript, $(( )), (( )), let's, a slice's offset): there bash reads
// the text as if it were within double quotes, so single quotes are
// plain characters (see arithQuoted).
func (c *conv) arithConv(ws []*syntax.Word) []*Word {
	c.arith++
	defer func() { c.arith-- }()
	return c.words(ws)
}

// script converts the statements of a command or process substitution,
// which are shell code again whatever surrounds them.
func (c *conv) script(stmts []*syntax.Stmt) *Script {
	saved := c.arith
	c.arith = 0
	defer func() { c.arith = saved }()
	return c.stmts(stmts)
}

// arithQuoted converts '…' inside an arithmetic expression. Bash does
// not take the quotes as quoting there: ${a['$(cmd)']} and
// $(( '$(cmd)' )) run cmd (checked with bash 5.2 on a harmless file).
// The text is parsed again as a here-document's body is (expansions
// live, quotes literal), at its own place in the line.
func (c *conv) arithQuoted(x *syntax.SglQuoted) []Part {
	start := off(x.Pos()) + 1
	if start < 0 || start > len(c.text) {
		return []Part{{Kind: Dynamic, Raw: c.raw(x)}}
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	doc, err := p.Document(strings.NewReader(strings.Repeat(" ", start) + x.Value))
	if err != nil {
		// Bash would fail on it too, but only after running what it
		// could expand: fail closed.
		if c.err == nil {
			c.err = &SyntaxError{Pos: start, Line: 1, Col: start + 1, Msg: "an arithmetic expression's quoted text does not parse: " + err.Error()}
		}
		return nil
	}
	sub := &conv{limits: c.limits, text: strings.Repeat(" ", start) + x.Value, nodes: c.nodes, depth: c.depth}
	var out []Part
	for _, q := range doc.Parts {
		if lit, ok := q.(*syntax.Lit); ok {
			out = appendLit(out, strings.TrimLeft(unescapeDouble(lit.Value), " "), true)
			continue
		}
		out = append(out, sub.part(q, true)...)
	}
	c.nodes = sub.nodes
	if sub.err != nil && c.err == nil {
		c.err = sub.err
	}
	return out
}

func (c *conv) nested(ws []*syntax.Word) []*Script {
	var out []*Script
	for _, w := range c.words(ws) {
		out = append(out, w.Scripts()...)
	}
	return out
}

func appendLit(parts []Part, s string, quoted bool) []Part {
	return append(parts, Part{Kind: Lit, Text: s, Quoted: quoted})
}

// mergeLits joins adjacent literal parts.
func mergeLits(parts []Part) []Part {
	out := parts[:0]
	for _, p := range parts {
		if n := len(out); n > 0 && p.Kind == Lit && out[n-1].Kind == Lit {
			out[n-1].Text += p.Text
			out[n-1].Quoted = out[n-1].Quoted && p.Quoted
			continue
		}
		out = append(out, p)
	}
	return out
}

// unescapeDouble removes the backslashes bash removes inside double quotes.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of $'…' as bash does. Bash keeps words as
// C strings: a NUL the escapes make (\0, \x00, \c@) ends the quoted text
// there, so $'\0x'm is "m" and r$'\x00…'m is rm.
func decodeANSIC(v string) string {
	s := decodeEscapes(v)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

func decodeEscapes(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch != '\\' || i+1 >= len(v) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch e := v[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(v) {
				i++
				c := v[i]
				if c == '\\' && i+1 < len(v) && v[i+1] == '\\' {
					i++ // \c\\ is control-backslash
				}
				if c == '?' {
					b.WriteByte(0x7f)
				} else {
					b.WriteByte(c & 0x1f)
				}
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(v) && j-i-1 < max && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(v[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j-i < 3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}
