package parse

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// ExpandParam evaluates one parameter expansion, raw as the line spells
// it (${x,,}, ${x@E}, ${x#*/}, ${x/a/b}, ${x:-y}), the way bash would,
// given the values of the variables it names; an indirection (${!y})
// through known names, and a substring with its offset and length written
// as numbers (${x:0:8}, ${x: -3}), too. ok is false when that cannot be
// done exactly: raw is not a single ${…}, it names a variable lookup does
// not know or a special parameter, it assigns (${x:=y}), fails (${x:?}),
// indexes or slices by arithmetic, holds a substitution, or uses an
// operator other than the case, escape, quote, pattern and default ones.
// lookup reports a variable's value and whether it is known.
func ExpandParam(raw string, lookup func(name string) (string, bool)) (val string, ok bool) {
	defer func() {
		if recover() != nil {
			val, ok = "", false
		}
	}()
	if !strings.HasPrefix(raw, "${") || !strings.HasSuffix(raw, "}") {
		return "", false
	}
	var ws []*syntax.Word
	for w, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).WordsSeq(strings.NewReader(raw)) {
		if err != nil || len(ws) > 1 {
			return "", false
		}
		ws = append(ws, w)
	}
	if len(ws) != 1 || len(ws[0].Parts) != 1 {
		return "", false
	}
	w := ws[0]
	top, isParam := w.Parts[0].(*syntax.ParamExp)
	if !isParam {
		return "", false
	}
	env := knownEnv{}
	good := true
	syntax.Walk(w, func(n syntax.Node) bool {
		if !good {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob:
			good = false
		case *syntax.ParamExp:
			if !simpleParamOp(x, x == top) || x.Param == nil || !syntax.ValidName(x.Param.Value) {
				good = false
				return false
			}
			v, known := lookup(x.Param.Value)
			if !known {
				good = false
				return false
			}
			env[x.Param.Value] = v
			if x.Repl != nil && x.Repl.With != nil && !(x == top && bashReplaces(x.Repl)) {
				// bash removes the backslashes of a replacement, quoted
				// or not (${x/o/\/} puts a /); mvdan/sh's expand keeps
				// them. This word is ExpandParam's own copy.
				for _, p := range x.Repl.With.Parts {
					if l, ok := p.(*syntax.Lit); ok {
						l.Value = dropEscapes(l.Value)
					}
				}
			}
			if x.Excl {
				// ${!y}: y's value names the variable whose value it is.
				tv, known := lookup(v)
				if !syntax.ValidName(v) || !known {
					good = false
					return false
				}
				env[v] = tv
			}
		}
		return true
	})
	if !good || top.Param == nil {
		return "", false
	}
	cfg := &expand.Config{Env: env}
	if top.Repl != nil && bashReplaces(top.Repl) {
		return bashReplace(cfg, env[top.Param.Value], top.Repl, replAnchor(top.Repl))
	}
	out, err := expand.Literal(cfg, w)
	if err != nil || strings.IndexByte(out, 0) >= 0 {
		// A NUL (${y@E} of \0) ends bash's string where it stands,
		// inside whatever expansion made it: y='r\0x'; ${y@E}m is rm.
		return "", false
	}
	return out, true
}

// simpleParamOp: the operators ExpandParam evaluates. Case changes
// (^ ^^ , ,,), the @E @U @u @L transformations (not @Q: bash and
// mvdan/sh quote differently), # ## % %%
// patterns, / // /# /% replacements and the default and alternative
// values (- :- + :+). An anchored replacement (/# /%) only at the top
// (ExpandParam does it itself); none whose replacement holds an &.
func simpleParamOp(x *syntax.ParamExp, top bool) bool {
	if x.Length || x.Width || x.IsSet || x.Index != nil || x.Names != 0 || x.NestedParam != nil || x.Flags != nil || len(x.Modifiers) != 0 {
		return false
	}
	if x.Repl != nil && (!top && bashReplaces(x.Repl) || quotedEscapes(x.Repl.With) || extPattern(x.Repl.Orig) || ansiQuoted(x.Repl.With)) {
		return false
	}
	if x.Exp != nil && leadingTilde(x.Exp.Word) || x.Repl != nil && (leadingTilde(x.Repl.Orig) || leadingTilde(x.Repl.With)) {
		// bash tilde-expands an operand (x=; rm -rf ${x:-~} deletes
		// your home); mvdan/sh's expand leaves the ~.
		return false
	}
	if x.Exp != nil && ansiQuoted(x.Exp.Word) {
		// $'…' in an operand: mvdan/sh decodes it otherwise than bash
		// (\cA, a NUL), so the value is not known here.
		return false
	}
	if x.Exp != nil && (x.Exp.Op == syntax.RemSmallPrefix || x.Exp.Op == syntax.RemLargePrefix ||
		x.Exp.Op == syntax.RemSmallSuffix || x.Exp.Op == syntax.RemLargeSuffix) && extPattern(x.Exp.Word) {
		return false
	}
	if x.Slice != nil && (x.Exp != nil || !literalInt(x.Slice.Offset) || x.Slice.Length != nil && !literalInt(x.Slice.Length)) {
		// ${x:OFF:LEN} with numbers written out; an offset that names a
		// variable is arithmetic guard does not do here.
		return false
	}
	if x.Exp != nil {
		switch x.Exp.Op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix,
			syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll,
			syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if operand := x.Exp.Op != syntax.RemSmallPrefix && x.Exp.Op != syntax.RemLargePrefix &&
				x.Exp.Op != syntax.RemSmallSuffix && x.Exp.Op != syntax.RemLargeSuffix; operand && escapes(x.Exp.Word) {
				// A value (- :- + :+), not a pattern: bash removes its
				// backslashes (${x:-\/} is /), mvdan/sh's expand keeps
				// them.
				return false
			}
		case syntax.OtherParamOps:
			switch x.Exp.Word.Lit() {
			case "E", "U", "u", "L":
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// replAnchor is the anchor of ${x/#p/r} ('#', a prefix) or ${x/%p/r}
// ('%', a suffix), 0 for none. mvdan/sh reads the # or % as the first
// character of the pattern, so its expand looks for "#p" and leaves the
// value as it was where bash replaces: x=ok; rm -rf ${x/%ok/..} deletes
// .., not ok. After // bash too takes them for pattern characters.
func replAnchor(r *syntax.Replace) byte {
	if r == nil || r.All || r.Orig == nil || len(r.Orig.Parts) == 0 {
		return 0
	}
	l, ok := r.Orig.Parts[0].(*syntax.Lit)
	if !ok || l.Value == "" || l.Value[0] != '#' && l.Value[0] != '%' {
		return 0
	}
	return l.Value[0]
}

// escapes: w holds a backslash outside single quotes, which bash removes
// from a replacement or a default value and mvdan/sh's expand keeps
// (x=ok; "${x/#o/\/}" is /k).
func escapes(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Lit); ok && strings.Contains(l.Value, `\`) {
			found = true
		}
		return !found
	})
	return found
}

// extPattern: a pattern guard does not evaluate here: it holds ?( *( +(
// @( or !(, an extended glob under shopt -s extglob (which guard does not
// follow here) and plain characters without it, or quotes.
func extPattern(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ExtGlob, *syntax.SglQuoted, *syntax.DblQuoted:
			// Quoted pattern characters are plain ones in bash
			// (${x##'*'} removes a *); mvdan/sh's expand does not
			// always keep them so.
			found = true
		case *syntax.Lit:
			for _, op := range []string{"?(", "*(", "+(", "@(", "!("} {
				found = found || strings.Contains(x.Value, op)
			}
		}
		return !found
	})
	return found
}

// leadingTilde: w begins with an unquoted ~.
func leadingTilde(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && strings.HasPrefix(l.Value, "~")
}

// ansiQuoted: w holds a $'…' string.
func ansiQuoted(w *syntax.Word) bool {
	found := false
	if w != nil {
		syntax.Walk(w, func(n syntax.Node) bool {
			if q, ok := n.(*syntax.SglQuoted); ok && q.Dollar {
				found = true
			}
			return !found
		})
	}
	return found
}

// quotedEscapes: a backslash inside quotes or a nested expansion of w
// (those of w's own literal parts ExpandParam removes).
func quotedEscapes(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		if _, lit := p.(*syntax.Lit); !lit && escapes(&syntax.Word{Parts: []syntax.WordPart{p}}) {
			return true
		}
	}
	return false
}

// dropEscapes removes backslashes: \X is X.
func dropEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// replAmp: the replacement holds an &, which bash (patsub_replacement,
// on by default since 5.2) replaces with the text matched unless quoted
// in ways mvdan/sh does not tell apart: ${x/m/r&} is rm.
func replAmp(r *syntax.Replace) bool {
	if r.With == nil {
		return false
	}
	amp := false
	syntax.Walk(r.With, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			amp = amp || strings.Contains(x.Value, "&")
		case *syntax.SglQuoted:
			amp = amp || strings.Contains(x.Value, "&")
		}
		return !amp
	})
	return amp
}

// bashReplaces: a replacement ExpandParam does itself (bashReplace), at
// the top only: an anchored one or one with an &.
func bashReplaces(r *syntax.Replace) bool {
	return replAnchor(r) != 0 || replAmp(r)
}

// bashReplace does ${v/pat/with}, ${v//pat/with}, ${v/#pat/with} and
// ${v/%pat/with} as bash 5.2 does, for the forms mvdan/sh's expand gets
// wrong: an anchor replaces the longest prefix (or suffix) pat matches,
// and an & in with is the text matched (patsub_replacement), \& an &.
// An & is only read in a replacement of plain unquoted text.
func bashReplace(cfg *expand.Config, v string, r *syntax.Replace, anchor byte) (string, bool) {
	orig := r.Orig
	if anchor != 0 {
		first := r.Orig.Parts[0].(*syntax.Lit)
		orig = &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: first.Value[1:]}}, r.Orig.Parts[1:]...)}
	}
	pat := ""
	if orig != nil {
		var err error
		if pat, err = expand.Pattern(cfg, orig); err != nil {
			return "", false
		}
	}
	if pat == "" && anchor == 0 {
		return v, true // ${v/} and ${v//}: nothing to replace
	}
	with := func(string) string { return "" }
	if r.With != nil {
		var tmpl strings.Builder
		for _, p := range r.With.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				if replAmp(r) {
					return "", false
				}
				for _, p := range r.With.Parts {
					if l, ok := p.(*syntax.Lit); ok {
						l.Value = dropEscapes(l.Value)
					}
				}
				s, err := expand.Literal(cfg, r.With)
				if err != nil {
					return "", false
				}
				with = func(string) string { return s }
				tmpl.Reset()
				break
			}
			tmpl.WriteString(l.Value)
		}
		if t := tmpl.String(); t != "" {
			with = func(m string) string { return ampersand(t, m) }
		}
	}
	expr, err := pattern.Regexp(pat, 0)
	if err != nil {
		return "", false
	}
	switch anchor {
	case '#':
		expr = "^(?:" + expr + ")"
	case '%':
		expr = "(?:" + expr + ")$"
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	rx.Longest()
	n := 1
	if r.All && anchor == 0 {
		n = -1
	}
	var b strings.Builder
	last := 0
	for _, loc := range rx.FindAllStringIndex(v, n) {
		if loc[0] == loc[1] && anchor == 0 {
			return "", false // an empty match of a global pattern: not followed here
		}
		b.WriteString(v[last:loc[0]])
		b.WriteString(with(v[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(v[last:])
	return b.String(), true
}

// ampersand renders a replacement's plain text: & is the text matched,
// \& an &, \X is X.
func ampersand(t, match string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t):
			i++
			b.WriteByte(t[i])
		case t[i] == '&':
			b.WriteString(match)
		default:
			b.WriteByte(t[i])
		}
	}
	return b.String()
}

// literalInt: an arithmetic expression that is a number written out, or
// one with a sign (${x: -3}).
func literalInt(e syntax.ArithmExpr) bool {
	if u, ok := e.(*syntax.UnaryArithm); ok && (u.Op == syntax.Minus || u.Op == syntax.Plus) && !u.Post {
		e = u.X
	}
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	lit := w.Lit()
	if lit == "" || len(lit) > 9 || len(lit) > 1 && lit[0] == '0' {
		return false
	}
	for _, c := range lit {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// knownEnv is an expand.Environ of the variables ExpandParam was told.
type knownEnv map[string]string

func (e knownEnv) Get(name string) expand.Variable {
	v, ok := e[name]
	if !ok {
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: v}
}

func (e knownEnv) Each(f func(name string, vr expand.Variable) bool) {
	for k := range e {
		if !f(k, e.Get(k)) {
			return
		}
	}
}
