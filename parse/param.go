package parse

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
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
			if !simpleParamOp(x) || !plainReplace(x, raw) || x.Param == nil || !syntax.ValidName(x.Param.Value) {
				good = false
				return false
			}
			v, known := lookup(x.Param.Value)
			if !known {
				good = false
				return false
			}
			env[x.Param.Value] = v
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
	if top.Param != nil && top.Repl != nil && !plainReplace(top, raw) {
		return anchoredReplace(top, raw, lookup)
	}
	if !good || top.Param == nil {
		return "", false
	}
	cfg := &expand.Config{Env: env}
	out, err := expand.Literal(cfg, w)
	if err != nil {
		return "", false
	}
	return out, true
}

// simpleParamOp: the operators ExpandParam evaluates. Case changes
// (^ ^^ , ,,), the @E @U @u @L transformations (not @Q: bash and
// mvdan/sh quote differently), # ## % %%
// patterns, / // /# /% replacements and the default and alternative
// values (- :- + :+).
func simpleParamOp(x *syntax.ParamExp) bool {
	if x.Length || x.Width || x.IsSet || x.Index != nil || x.Names != 0 || x.NestedParam != nil || x.Flags != nil || len(x.Modifiers) != 0 {
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

// plainReplace: a ${x/PAT/REP} mvdan/sh computes as bash does. It does
// not anchor: ${x/#PAT/REP} and ${x/%PAT/REP} (an empty PAT inserts
// REP at the start or the end: x=rf; ${x/#/rm -} is "rm -rf") it takes
// as a literal # or %; and bash 5.2 (patsub_replacement) puts the
// matched text in place of an & in REP, which it leaves.
func plainReplace(x *syntax.ParamExp, raw string) bool {
	if x.Repl == nil {
		return true
	}
	text := func(w *syntax.Word) string {
		if w == nil {
			return ""
		}
		from, to := int(w.Pos().Offset()), int(w.End().Offset())
		if from < 0 || to > len(raw) || from > to {
			return "#" // not where raw says: do not guess
		}
		return raw[from:to]
	}
	orig := text(x.Repl.Orig)
	if strings.HasPrefix(orig, "#") || strings.HasPrefix(orig, "%") || strings.Contains(text(x.Repl.With), "&") {
		return false
	}
	// The anchor may also stand alone before an empty pattern, outside
	// the word: ${x/#/REP}.
	if x.Repl.Orig == nil || x.Repl.Orig.Pos().Offset() == 0 {
		return !strings.Contains(raw, "/#") && !strings.Contains(raw, "/%")
	}
	if at := int(x.Repl.Orig.Pos().Offset()); at > 0 && (raw[at-1] == '#' || raw[at-1] == '%') {
		return false
	}
	return true
}

// anchoredReplace computes ${NAME/PAT/REP}, with // /# /% (also //#
// and //%, which bash anchors too) and an & in REP, as bash 5.2 does,
// when NAME is known and PAT and REP are plain literal text (no
// quoting, expansion or pattern character): an & stands for the text
// matched (patsub_replacement, on by default).
func anchoredReplace(x *syntax.ParamExp, raw string, lookup func(string) (string, bool)) (string, bool) {
	if x.Excl || !syntax.ValidName(x.Param.Value) || x.Slice != nil || x.Exp != nil || x.Index != nil || x.Length || x.Width || x.IsSet || x.Names != 0 || x.NestedParam != nil || x.Flags != nil || len(x.Modifiers) != 0 {
		return "", false
	}
	val, ok := lookup(x.Param.Value)
	if !ok || x.Repl.Orig == nil {
		return "", false
	}
	word := func(w *syntax.Word) (string, bool) {
		if w == nil {
			return "", true
		}
		s := raw[w.Pos().Offset():w.End().Offset()]
		return s, !strings.ContainsAny(s, "\\'\"$`*?[]()!@+{}")
	}
	pat, ok1 := word(x.Repl.Orig)
	rep, ok2 := word(x.Repl.With)
	if !ok1 || !ok2 || pat == "" {
		return "", false
	}
	with := func(m string) string { return strings.ReplaceAll(rep, "&", m) }
	switch anchor, p := pat[0], pat[1:]; {
	case anchor == '#' && strings.HasPrefix(val, p):
		return with(p) + val[len(p):], true
	case anchor == '%' && strings.HasSuffix(val, p):
		return val[:len(val)-len(p)] + with(p), true
	case anchor == '#' || anchor == '%':
		return val, true
	case x.Repl.All:
		return strings.ReplaceAll(val, pat, with(pat)), true
	}
	return strings.Replace(val, pat, with(pat), 1), true
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
