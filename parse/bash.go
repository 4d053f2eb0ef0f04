package parse

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits bound the analysis so a hostile input is decided quickly.
type Limits struct {
	MaxBytes int // input size
	MaxDepth int // nesting of blocks, subshells and substitutions
	MaxNodes int // statements and words in the tree
	MaxWords int // words one brace expansion may produce
}

// DefaultLimits are generous for real command lines and scripts and small
// enough that a line over them is decided in milliseconds.
var DefaultLimits = Limits{MaxBytes: 512 << 10, MaxDepth: 64, MaxNodes: 50_000, MaxWords: 256}

// SyntaxError is text bash would not accept.
type SyntaxError struct {
	Pos       int // byte offset
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// LimitError is input over an analysis limit.
type LimitError struct {
	What  string // "size", "depth", "nodes"
	Limit int
}

func (e *LimitError) Error() string {
	switch e.What {
	case "size":
		return fmt.Sprintf("input is larger than %d bytes", e.Limit)
	case "depth":
		return fmt.Sprintf("input nests deeper than %d levels", e.Limit)
	}
	return fmt.Sprintf("input has more than %d %s", e.Limit, e.What)
}

// parsers reuses mvdan/sh parsers; one is a few KiB to set up. Parse
// resets a parser's state, so a pooled one behaves as a new one.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Bash parses text as bash with the default limits.
func Bash(text string) (*Script, error) { return DefaultLimits.Bash(text) }

// Bash parses text as bash within the limits.
func (l Limits) Bash(text string) (*Script, error) {
	if len(text) > l.MaxBytes {
		return nil, &LimitError{What: "size", Limit: l.MaxBytes}
	}
	if roughDepth(text) > l.MaxDepth*4 {
		// The parser recurses on nesting; refuse absurd depth before it.
		return nil, &LimitError{What: "depth", Limit: l.MaxDepth}
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(text), "")
	parsers.Put(p)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Pos: int(pe.Pos.Offset()), Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Msg: pe.Text}
		}
		var le syntax.LangError
		if errors.As(err, &le) {
			return nil, &SyntaxError{Pos: int(le.Pos.Offset()), Line: int(le.Pos.Line()), Col: int(le.Pos.Col()), Msg: le.Error()}
		}
		return nil, &SyntaxError{Line: 1, Col: 1, Msg: err.Error()}
	}
	c := &conv{limits: l, text: text}
	s := c.stmts(f.Stmts)
	if c.err != nil {
		return nil, c.err
	}
	return s, nil
}

// roughDepth is the deepest run of unmatched opening brackets, ignoring
// quoting: an over-estimate that is cheap and only used as a guard.
func roughDepth(text string) int {
	d, max := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '{':
			d++
			if d > max {
				max = d
			}
		case ')', '}':
			if d > 0 {
				d--
			}
		}
	}
	return max
}

type conv struct {
	limits Limits
	text   string
	nodes  int
	depth  int
	err    error
	arith  int // inside an arithmetic expression (see arithConv)
}

func (c *conv) tick() bool {
	c.nodes++
	if c.nodes > c.limits.MaxNodes && c.err == nil {
		c.err = &LimitError{What: "nodes", Limit: c.limits.MaxNodes}
	}
	return c.err == nil
}

func (c *conv) enter() bool {
	c.depth++
	if c.depth > c.limits.MaxDepth && c.err == nil {
		c.err = &LimitError{What: "depth", Limit: c.limits.MaxDepth}
	}
	return c.err == nil
}

func (c *conv) leave() { c.depth-- }

func (c *conv) stmts(list []*syntax.Stmt) *Script {
	s := &Script{}
	if !c.enter() {
		return s
	}
	defer c.leave()
	for _, st := range list {
		if c.err != nil {
			break
		}
		s.Stmts = append(s.Stmts, c.stmt(st))
	}
	return s
}

func (c *conv) stmt(st *syntax.Stmt) *Stmt {
	out := &Stmt{Pos: off(st.Pos()), End: off(st.End()), Background: st.Background || st.Disown, Negated: st.Negated}
	if !c.tick() {
		return out
	}
	for _, r := range st.Redirs {
		out.Redirs = append(out.Redirs, c.redirect(r))
	}
	if st.Coprocess {
		out.Cmd = &Unsupported{Pos: out.Pos, What: "mksh coprocess"}
		return out
	}
	if st.Cmd == nil {
		out.Cmd = &Call{}
		return out
	}
	out.Cmd = c.command(st.Cmd)
	return out
}

func (c *conv) block(kind string, subshell bool, list ...[]*syntax.Stmt) *Block {
	b := &Block{Kind: kind, Subshell: subshell}
	for _, l := range list {
		b.Stmts = append(b.Stmts, c.stmts(l).Stmts...)
	}
	return b
}

func (c *conv) command(cmd syntax.Command) Node {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		call := &Call{}
		for _, a := range x.Assigns {
			if a.Name != nil && !syntax.ValidName(a.Name.Value) {
				// mvdan/sh takes probe{x=[,y} for an assignment to
				// "probe{x"; bash, for no name, runs it as a command
				// (after brace expansion: probex=[ probey).
				return &Unsupported{Pos: off(a.Pos()), What: "an assignment to " + a.Name.Value + ", which is not a name"}
			}
			call.Assigns = append(call.Assigns, c.assign(a))
		}
		call.Args = c.words(x.Args)
		return call
	case *syntax.Block:
		return c.block("group", false, x.Stmts)
	case *syntax.Subshell:
		return c.block("subshell", true, x.Stmts)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			p := &Pipeline{}
			c.flattenPipe(x, p)
			return p
		default: // && and ||: both sides may run, in this shell
			return &Block{Kind: "list", Stmts: []*Stmt{c.stmt(x.X), c.stmt(x.Y)}, And: x.Op == syntax.AndStmt}
		}
	case *syntax.IfClause:
		b := &Block{Kind: "if"}
		for ic := x; ic != nil; ic = ic.Else {
			b.Stmts = append(b.Stmts, c.stmts(ic.Cond).Stmts...)
			b.Stmts = append(b.Stmts, c.stmts(ic.Then).Stmts...)
		}
		return b
	case *syntax.WhileClause:
		return c.block("while", false, x.Cond, x.Do)
	case *syntax.ForClause:
		kind := "for"
		if x.Select {
			kind = "select"
		}
		b := &Block{Kind: kind}
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			if l.Name == nil {
				return &Unsupported{Pos: off(x.Pos()), What: "for loop without a name"}
			}
			b.Var = l.Name.Value
			b.Stmts = append(b.Stmts, &Stmt{Pos: off(l.Pos()), End: off(l.End()), Cmd: &Words{Kind: "for-list", Words: c.words(l.Items)}})
		case *syntax.CStyleLoop:
			var ws []*syntax.Word
			for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				ws = arithWords(e, ws)
			}
			b.Stmts = append(b.Stmts, &Stmt{Pos: off(l.Pos()), End: off(l.End()), Cmd: &Words{Kind: "arith", Words: c.arithConv(ws)}})
		default:
			return &Unsupported{Pos: off(x.Pos()), What: fmt.Sprintf("for loop form %T", l)}
		}
		b.Stmts = append(b.Stmts, c.stmts(x.Do).Stmts...)
		return b
	case *syntax.CaseClause:
		b := &Block{Kind: "case"}
		ws := []*syntax.Word{x.Word}
		for _, it := range x.Items {
			ws = append(ws, it.Patterns...)
		}
		b.Stmts = append(b.Stmts, &Stmt{Pos: off(x.Pos()), End: off(x.End()), Cmd: &Words{Kind: "case", Words: c.words(ws)}})
		for _, it := range x.Items {
			b.Stmts = append(b.Stmts, c.stmts(it.Stmts).Stmts...)
		}
		return b
	case *syntax.FuncDecl:
		if x.Name == nil || x.Body == nil {
			// An anonymous function (zsh syntax mvdan/sh also accepts):
			// not bash, so fail closed.
			return &Unsupported{Pos: off(x.Pos()), What: "anonymous function"}
		}
		return &FuncDecl{Name: x.Name.Value, Body: c.stmt(x.Body)}
	case *syntax.ArithmCmd:
		return &Words{Kind: "arith", Words: c.arithConv(arithWords(x.X, nil))}
	case *syntax.TestClause:
		plain, arith := testWords(x.X, nil, nil, false)
		return &Words{Kind: "test", Words: c.words(plain), Arith: c.words(arith)}
	case *syntax.LetClause:
		var ws []*syntax.Word
		for _, e := range x.Exprs {
			ws = arithWords(e, ws)
		}
		return &Words{Kind: "let", Words: c.words(ws)}
	case *syntax.DeclClause:
		if x.Variant == nil {
			return &Unsupported{Pos: off(x.Pos()), What: "declaration without a keyword"}
		}
		d := &Decl{Variant: x.Variant.Value}
		for _, a := range x.Args {
			if a.Naked && a.Name == nil {
				d.Opts = append(d.Opts, c.words([]*syntax.Word{a.Value})...)
				continue
			}
			as := c.assign(a)
			if as.Value != nil && declBraces(c.raw(a), c.limits.MaxWords) {
				// declare p={.,/} is declare p=. p=/: bash brace-expands
				// a declaration's arguments, where a plain p={.,/} is
				// taken as written. The value is the last (or, for
				// readonly, the first) word's: unknown here.
				as.Value = &Word{Pos: as.Value.Pos, End: as.Value.End, Parts: []Part{{Kind: Dynamic, Raw: c.raw(a.Value)}}}
			}
			d.Assigns = append(d.Assigns, as)
		}
		return d
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return &Call{}
		}
		return &Block{Kind: "group", Stmts: []*Stmt{c.stmt(x.Stmt)}}
	case *syntax.CoprocClause:
		if x.Stmt == nil {
			return &Unsupported{Pos: off(x.Pos()), What: "coproc without a command"}
		}
		return &Block{Kind: "coproc", Subshell: true, Stmts: []*Stmt{c.stmt(x.Stmt)}}
	default:
		return &Unsupported{Pos: off(cmd.Pos()), What: fmt.Sprintf("%T", cmd)}
	}
}

func (c *conv) flattenPipe(x *syntax.BinaryCmd, p *Pipeline) {
	if l, ok := x.X.Cmd.(*syntax.BinaryCmd); ok && (l.Op == syntax.Pipe || l.Op == syntax.PipeAll) && len(x.X.Redirs) == 0 && !x.X.Negated && !x.X.Background {
		c.flattenPipe(l, p)
	} else {
		p.Stmts = append(p.Stmts, c.stmt(x.X))
	}
	p.Stmts = append(p.Stmts, c.stmt(x.Y))
}

func (c *conv) assign(a *syntax.Assign) *Assign {
	out := &Assign{Pos: off(a.Pos()), Append: a.Append, Naked: a.Naked}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Value != nil {
		ws := c.wordAssign(a.Value)
		if len(ws) == 1 {
			out.Value = ws[0]
		} else {
			// Brace expansion does not apply to assignment values; a
			// split here means we could not model it: keep it unknown.
			out.Value = &Word{Pos: off(a.Value.Pos()), End: off(a.Value.End()), Parts: []Part{{Kind: Dynamic, Raw: c.raw(a.Value)}}}
		}
	}
	if a.Array != nil {
		out.IsArray = true
		var keys []*Word
		for _, el := range a.Array.Elems {
			var e ArrayElem
			if el.Value != nil {
				e.Value = c.words([]*syntax.Word{el.Value})
				out.Array = append(out.Array, e.Value...)
			}
			if el.Index != nil {
				e.Keyed = true
				e.Key, e.KeyStatic = c.staticKey(el.Index)
			}
			out.Elems = append(out.Elems, e)
			if el.Index != nil {
				// NAME=([INDEX]=x): bash evaluates INDEX as it does in
				// NAME[INDEX]=x (an associative key is expanded), so
				// NAME=([$(cmd)]=x) runs cmd.
				keys = append(keys, c.arithConv(arithWords(el.Index, nil))...)
			}
		}
		out.Array = append(out.Array, keys...)
		out.Index = append(out.Index, keys...)
	}
	if a.Index != nil {
		// NAME[$(cmd)]=x runs cmd.
		idx := c.arithConv(arithWords(a.Index, nil))
		out.Array = append(out.Array, idx...)
		out.Index = idx
	}
	return out
}

func (c *conv) redirect(r *syntax.Redirect) *Redirect {
	out := &Redirect{Pos: off(r.Pos()), Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	if r.Word != nil {
		if ws := c.words([]*syntax.Word{r.Word}); len(ws) > 0 {
			out.Target = ws[0]
		}
	}
	if r.Hdoc != nil {
		out.Heredoc = c.heredoc(r.Hdoc, r.Word != nil && quotedDelim(r.Word))
	}
	return out
}

// quotedDelim reports whether a heredoc delimiter is quoted, which makes the
// body literal.
func quotedDelim(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(x.Value, `\`) {
				return true
			}
		}
	}
	return false
}

func (c *conv) heredoc(w *syntax.Word, literal bool) *Word {
	out := &Word{Pos: off(w.Pos()), End: off(w.End())}
	if !c.tick() {
		return out
	}
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			v := lit.Value
			if !literal {
				v = unescapeDouble(v)
			}
			out.Parts = appendLit(out.Parts, v, true)
			continue
		}
		out.Parts = append(out.Parts, c.part(p, true)...)
	}
	return out
}

// raw returns the source text of a node.
func (c *conv) raw(n syntax.Node) string {
	a, b := off(n.Pos()), off(n.End())
	if a >= 0 && b <= len(c.text) && a <= b {
		return c.text[a:b]
	}
	return ""
}

func off(p syntax.Pos) int { return int(p.Offset()) }

// staticKey is the text of an array element's key, [KEY]=…, when it is
// the same string for every array: a plain word of name characters, or
// one in quotes without expansions ([k], ["k"], ['k']; bash removes the
// quotes). Blanks around the key, which bash keeps in an associative
// key, or anything it expands are not static.
func (c *conv) staticKey(idx syntax.ArithmExpr) (string, bool) {
	a, b := off(idx.Pos()), off(idx.End())
	if a < 1 || b >= len(c.text) || a >= b || c.text[a-1] != '[' || c.text[b] != ']' {
		return "", false
	}
	raw := c.text[a:b]
	plain := func(s string, space bool) bool {
		for _, r := range s {
			ok := r == '_' || r == '.' || r == ':' || r == '/' || r == '-' || r == '+' || r == ',' || r == '%' || r == '=' ||
				r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || space && r == ' '
			if !ok {
				return false
			}
		}
		return true
	}
	switch {
	case plain(raw, false):
		return raw, true
	case len(raw) >= 2 && (raw[0] == '"' || raw[0] == '\'') && raw[len(raw)-1] == raw[0] && plain(raw[1:len(raw)-1], true):
		return raw[1 : len(raw)-1], true
	}
	return "", false
}

func arithWords(e syntax.ArithmExpr, acc []*syntax.Word) []*syntax.Word {
	switch x := e.(type) {
	case nil:
	case *syntax.Word:
		acc = append(acc, x)
	case *syntax.BinaryArithm:
		acc = arithWords(x.X, acc)
		acc = arithWords(x.Y, acc)
	case *syntax.UnaryArithm:
		acc = arithWords(x.X, acc)
	case *syntax.ParenArithm:
		acc = arithWords(x.X, acc)
	}
	return acc
}

func testWords(e syntax.TestExpr, plain, arith []*syntax.Word, inArith bool) ([]*syntax.Word, []*syntax.Word) {
	switch x := e.(type) {
	case nil:
	case *syntax.Word:
		if inArith {
			arith = append(arith, x)
		} else {
			plain = append(plain, x)
		}
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			inArith = true
		}
		plain, arith = testWords(x.X, plain, arith, inArith)
		plain, arith = testWords(x.Y, plain, arith, inArith)
	case *syntax.UnaryTest:
		// -v NAME and -R NAME evaluate NAME's subscript.
		plain, arith = testWords(x.X, plain, arith, inArith || x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar)
	case *syntax.ParenTest:
		plain, arith = testWords(x.X, plain, arith, inArith)
	}
	return plain, arith
}

// Quote renders argv as bash text that a shell would split back into the
// same words: the text guard reviews for `guard -- CMD ARGS…`.
func Quote(argv []string) (string, error) {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argument %d cannot be quoted for review: %w", i+1, err)
		}
		parts[i] = q
	}
	return strings.Join(parts, " "), nil
}
