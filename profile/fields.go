package profile

import (
	"strconv"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// field is one argument after expansion, as bash would pass it, or as much
// of it as the context knows.
type field struct {
	val   string // the value when known; the pattern for globs
	known bool
	glob  bool
	taint stream // what flowed into it from substitutions
	raw   string // the source text, for messages about unknown words
	proc  bool   // a process substitution: /dev/fd/N, not a path in the tree
	exp   bool   // some part came from an expansion (not literal on the tree)
	brace bool   // produced by brace expansion
	pos   int
	end   int
}

func (f field) display() string {
	if f.known || f.glob {
		// A part of a pattern that stands for any directories (find's
		// files at any depth) reads as **.
		return anyDirsShown.Replace(f.val)
	}
	if f.raw != "" {
		return f.raw
	}
	return "(unknown)"
}

// staticField makes a known field (for words guard synthesises).
func staticField(v string, sp span) field {
	return field{val: v, known: true, pos: sp.pos, end: sp.end}
}

// fields expands a word into the arguments bash would pass: variables the
// context knows are substituted (and split when unquoted), substitutions are
// profiled (they run first), and what stays unknown is marked so.
func (b *builder) fields(w *parse.Word, st *state, sp span) []field {
	return b.expand(w, st, sp, true)
}

// arrayWord expands a word that is only "${NAME[@]}" (or unquoted
// ${NAME[@]}) of an array whose elements the line set: one field per
// element, as bash does ($NAME[*] quoted is one field of them joined by a
// space). Elements are static words, so unquoted they split alike.
func (b *builder) arrayWord(w *parse.Word, st *state, split bool) ([]field, bool) {
	if len(w.Parts) != 1 || w.Parts[0].Kind != parse.Dynamic {
		return nil, false
	}
	p := w.Parts[0]
	m := re(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}$`).FindStringSubmatch(p.Raw)
	if m == nil {
		return nil, false
	}
	elems, ok := st.array(m[1])
	if !ok {
		return nil, false
	}
	at := func(f field) field {
		f.pos, f.end, f.raw, f.exp = w.Pos, w.End, p.Raw, true
		return f
	}
	if m[2] == "*" && (p.Quoted || !split) {
		vals := make([]string, len(elems))
		for i, e := range elems {
			vals[i] = e.val
		}
		return []field{at(field{val: strings.Join(vals, " "), known: true})}, true
	}
	if !p.Quoted && split {
		for _, e := range elems {
			if strings.ContainsAny(e.val, " \t\n*?[") {
				return nil, false // it would split or glob again: left to the generic path
			}
		}
	}
	out := make([]field, 0, len(elems))
	for _, e := range elems {
		out = append(out, at(e))
	}
	return out, true
}

// arrayElem is ${NAME[N]} (N a number, negative from the end) of an
// array whose elements the line set (a=(x 'rm -rf /'); eval "${a[1]}"
// runs rm): the element, or "" past the end, as bash gives it.
func (s *state) arrayElem(p parse.Part) (string, bool) {
	if len(p.Nested) > 0 {
		return "", false
	}
	// The subscript is arithmetic (p.Arith): only a plain number is read.
	m := re(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\[(-?[0-9]+)\]\}$`).FindStringSubmatch(p.Raw)
	if m == nil {
		return "", false
	}
	elems, ok := s.array(m[1])
	if !ok || s.taint[m[1]].tainted() {
		return "", false
	}
	// The subscript is read as bash's arithmetic reads a number: a
	// leading 0 makes it octal (${a[010]} is element 8, not 10).
	num, neg := strings.CutPrefix(m[2], "-")
	base := 10
	if len(num) > 1 && num[0] == '0' {
		base = 8
	}
	n, err := strconv.ParseInt(num, base, 32)
	if err != nil {
		return "", false // 09: bash's "value too great for base"
	}
	i := int(n)
	if neg {
		i = -i
	}
	if i < 0 {
		i += len(elems)
	}
	if i < 0 || i >= len(elems) {
		return "", true
	}
	if !elems[i].known || elems[i].glob {
		return "", false
	}
	return elems[i].val, true
}

// assignFields expands an assignment value: no field splitting.
func (b *builder) assignFields(w *parse.Word, st *state, sp span) []field {
	return b.expand(w, st, sp, false)
}

func (b *builder) expand(w *parse.Word, st *state, sp span, split bool) []field {
	if w == nil {
		return nil
	}
	if fs, ok := b.arrayWord(w, st, split); ok {
		return fs
	}
	raw := ""
	if b.anchor == nil && w.End <= len(b.sourceText()) && w.Pos <= w.End {
		raw = b.sourceText()[w.Pos:w.End]
	}
	fresh := func() field { return field{known: true, pos: w.Pos, end: w.End, raw: raw, brace: w.Brace} }
	cur := fresh()
	var out []field
	started := false // the current field has content (or quotes)
	push := func() {
		out = append(out, cur)
		cur = fresh()
		started = false
	}
	appendText := func(s string, quoted bool) {
		if !split || quoted {
			cur.val += s
			started = started || quoted || s != ""
			return
		}
		// Unquoted expansion: split on IFS (blanks unless the line set it).
		ifs := " \t\n"
		if v, ok := st.vars["IFS"]; ok {
			if v == nil {
				// IFS is unknown: the words cannot be known either.
				cur.known = false
				cur.val += s
				started = true
				return
			}
			ifs = *v
		}
		// An unquoted expansion is a pattern when it holds * ? or [:
		// x='/???/r?'; $x -rf ~ runs rm, x='/h*/*/.ssh'; rm -rf $x
		// deletes every user's keys.
		if strings.ContainsAny(s, "*?[") {
			cur.glob = true
		}
		if ifs == "" {
			cur.val += s
			started = started || s != ""
			return
		}
		// As bash splits: IFS blanks (space, tab, newline) run together
		// and end a field only before more text; any other IFS
		// character ends the field before it, even an empty one
		// (IFS=, and a,,b is a, "" and b; ,a is "" and a).
		taint := cur.taint // every field split from a tainted value is tainted
		blank := false     // IFS blanks since the last text
		for _, r := range s {
			switch {
			case !strings.ContainsRune(ifs, r):
				if blank && started {
					push()
					cur.taint = taint
				}
				blank = false
				cur.val += string(r)
				started = true
			case r == ' ' || r == '\t' || r == '\n':
				blank = true
			default:
				push()
				cur.taint = taint
				blank = false
			}
		}
		if blank && started {
			push()
			cur.taint = taint
		}
	}
	// positional adds positional parameters as bash expands them: quoted
	// @, one field each; quoted *, one field, joined by IFS's first
	// character; unquoted, each a word
	// of its own, split by IFS (IFS=, then $@ of "rm" "-rf" "~" is still
	// three words: rm -rf ~).
	positional := func(elems []field, quoted, all bool) {
		for i, a := range elems {
			cur.taint = worse(cur.taint, a.taint)
			cur.known = cur.known && a.known
			switch {
			case quoted && !all:
				if i > 0 {
					// "$*" joins with IFS's first character: none
					// when IFS is empty.
					sep := " "
					if v, set := st.vars["IFS"]; set {
						if v == nil {
							cur.known = false
						} else if r := []rune(*v); len(r) > 0 {
							sep = string(r[0])
						} else {
							sep = ""
						}
					}
					cur.val += sep
				}
				cur.val += a.val
				started = true
			case quoted:
				if i > 0 {
					push()
				}
				cur.val += a.val
				started = true
			default:
				if i > 0 && started {
					push()
				}
				appendText(a.val, false)
			}
		}
	}
	for _, p := range w.Parts {
		switch p.Kind {
		case parse.Lit:
			cur.val += p.Text
			started = true
		case parse.Glob:
			cur.val += p.Text
			cur.glob = true
			started = true
		case parse.Tilde:
			home := ""
			// ~ and ~USER are home; ~+ is $PWD and ~- is $OLDPWD.
			from := map[string]string{"": "HOME", "+": "PWD", "-": "OLDPWD"}[p.Text]
			if p.Text == b.ctx.User && p.Text != "" {
				from = "HOME"
			}
			if from != "" {
				if v := st.vars[from]; v != nil {
					home = *v
				}
			}
			if home == "" {
				cur.known = false
				if p.Text == "root" {
					home = "/root"
				} else if p.Text != "" {
					// Another user's home: unknown, but matched against
					// the secret locations of any home.
					home = "/home/" + p.Text
				}
			}
			cur.val += home
			started = true
		case parse.Var:
			cur.exp = true
			name := p.Text
			if _, ref := st.refs[name]; ref {
				name = st.resolveRef(name)
			}
			if st.globs[name] {
				cur.glob = true
			}
			cur.taint = worse(cur.taint, st.taint[name])
			if st.argv != nil && (name == "@" || name == "*" && (!p.Quoted || len(st.argv) > 0)) {
				// "$@", $@ and $*: one word per positional parameter;
				// "$*" joined by IFS as it is now, not as set -- left
				// $* (IFS=/; set -- '' etc; rm -rf "$*" deletes /etc).
				positional(st.argv, p.Quoted, name == "@")
				continue
			}
			v, ok := st.vars[name]
			if !ok || v == nil {
				cur.known = false
				cur.val += "$" + p.Text
				started = true
				continue
			}
			appendText(*v, p.Quoted)
		case parse.CmdSubst:
			cur.exp = true
			out := b.substitute(p.Script, st, "$(…)", span{w.Pos, w.End})
			if r := readOnlySubst(p.Script); r != nil {
				// $(<FILE) is FILE's text, as $(cat FILE) is.
				out = b.fileStream(b.fields(r.Target, st, span{w.Pos, w.End}), st)
			}
			cur.taint = worse(cur.taint, out)
			if out.kind == streamText {
				appendText(strings.TrimRight(out.text, "\n"), p.Quoted)
			} else {
				cur.known = false
				cur.val += p.Raw
				started = true
			}
		case parse.ProcSubst:
			if p.Out {
				// >(…) reads what the command it is given to writes:
				// profiled with that output once the statement is (stmt).
				b.outProcs = append(b.outProcs, outProc{script: p.Script, st: st, sp: span{w.Pos, w.End}})
			} else {
				out := b.substitute(p.Script, st, "<(…)", span{w.Pos, w.End})
				cur.taint = worse(cur.taint, out)
				if out.kind == streamText {
					cur.taint = stream{kind: streamText, text: out.text}
				}
			}
			cur.proc = true
			cur.exp = true
			cur.known = false
			cur.val += "/dev/fd/63"
			started = true
		default: // Dynamic
			cur.exp = true
			cur.taint = worse(cur.taint, st.taintIn(p.Raw))
			for _, s := range p.Nested {
				cur.taint = worse(cur.taint, b.substitute(s, st, "$(…)", span{w.Pos, w.End}))
			}
			for _, a := range p.Arith {
				b.arithWord(a, st, p.Raw, span{w.Pos, w.End})
			}
			b.indirectName(p.Raw, st, span{w.Pos, w.End})
			if p.Prompt {
				b.promptParam(p.Raw, st, span{w.Pos, w.End})
			}
			b.paramAssigns(p, st, span{w.Pos, w.End})
			// Inside double quotes a ${…}'s single quotes are characters
			// ("${x:+'y'}" is 'y'), which mvdan/sh's expand removes.
			if v, ok := st.expandParam(p); ok && (p.Quoted && !strings.Contains(p.Raw, "'") || !p.Quoted && !quotedOperandSplits(p.Raw, v, st)) {
				// ${x,,}, ${x@E}, ${x#pat} of known values: what bash
				// makes of them (x=RM; eval "${x,,} -rf /" is rm).
				appendText(v, p.Quoted)
				continue
			}
			if v, ok := st.arrayElem(p); ok {
				appendText(v, p.Quoted)
				continue
			}
			if v, ok := st.assocElem(p); ok {
				appendText(v, p.Quoted)
				continue
			}
			if elems, all, ok := st.positionalSlice(p.Raw, p.Quoted); ok {
				positional(elems, p.Quoted, all)
				continue
			}
			cur.known = false
			cur.val += p.Raw
			started = true
		}
	}
	if started || len(out) == 0 && !split {
		out = append(out, cur)
	} else if len(out) == 0 && len(w.Parts) == 0 {
		out = append(out, cur)
	}
	return out
}

// positionalSlice evaluates ${@:N}, ${@:N:M}, ${*:N}, ${*:N:M} and ${!#}
// over the positional parameters the line set (bash -c TEXT NAME ARGS…,
// a function's arguments), as bash does: the parameters from the Nth
// (N ≥ 1, or -N from the end; M of them), or the last one. all is true
// for @, whose quoted form makes one field per parameter. ok is false
// when the parameters are not all known, for an offset of 0 (which takes
// $0 too), arithmetic or a variable in the offset, or with IFS set (which
// joins ${*…} otherwise) to anything but blanks. Before, these were
// dynamic names (B):
// bash -c '${@:1}' x rm -rf ~ runs rm -rf ~.
func (s *state) positionalSlice(raw string, quoted bool) (elems []field, all, ok bool) {
	if s.argv == nil {
		return nil, false, false
	}
	if raw == "${!#}" {
		if len(s.argv) == 0 {
			return nil, false, false
		}
		return s.argv[len(s.argv)-1:], false, true
	}
	// A negative offset needs a blank after the colon: ${@:-1} is the
	// default-value operator, all of $@ when it is set.
	m := re(`^\$\{([@*]):(\s*[1-9][0-9]{0,5}|\s+-[1-9][0-9]{0,5})(?::\s*([0-9]{1,6}))?\}$`).FindStringSubmatch(raw)
	if m == nil {
		return nil, false, false
	}
	if ifs := s.vars["IFS"]; quoted && m[1] == "*" && (ifs == nil || *ifs != " \t\n") {
		return nil, false, false
	}
	off, _ := strconv.Atoi(strings.TrimSpace(m[2]))
	n := len(s.argv)
	start := off - 1
	if off < 0 {
		start = n + off
	}
	if start < 0 || start > n {
		// bash gives nothing for an offset past the end, and nothing
		// for a negative one before the start.
		return []field{}, m[1] == "@", true
	}
	end := n
	if m[3] != "" {
		l, _ := strconv.Atoi(m[3])
		end = min(n, start+l)
	}
	return s.argv[start:end], m[1] == "@", true
}

// substitute profiles a command or process substitution: it runs in a
// subshell and its output is what it writes to stdout.
func (b *builder) substitute(s *parse.Script, st *state, via string, sp span) stream {
	if st.fds["1"] != nil {
		// Its output is captured, not written to the shell's.
		cp := *st
		cp.fds = withoutStdout(st.fds)
		st = &cp
	}
	return b.substituteIn(s, st, stream{}, via, sp)
}

// readOnlySubst is the redirection of a command substitution that is
// only `< FILE` ($(<FILE), $( < FILE )): bash replaces it with FILE's
// text.
func readOnlySubst(s *parse.Script) *parse.Redirect {
	if s == nil || len(s.Stmts) != 1 || len(s.Stmts[0].Redirs) != 1 {
		return nil
	}
	x := s.Stmts[0]
	if c, ok := x.Cmd.(*parse.Call); x.Cmd != nil && (!ok || len(c.Args) > 0 || len(c.Assigns) > 0) {
		return nil
	}
	if r := x.Redirs[0]; r.Op == "<" && (r.Fd == "" || r.Fd == "0") && r.Target != nil {
		return r
	}
	return nil
}

// substituteIn is substitute with stdin in (a >(…) reads what it is
// written).
func (b *builder) substituteIn(s *parse.Script, st *state, in stream, via string, sp span) stream {
	if s == nil {
		return stream{kind: streamText}
	}
	inner := st.clone()
	prev := b.anchor
	if prev == nil && b.depth > 1 {
		b.anchor = &sp
	}
	out := b.script(s, inner, in, via)
	b.anchor = prev
	return out
}

// sourceText is the top-level text, for raw word text in messages.
func (b *builder) sourceText() string { return b.src }

// quotedOperandSplits: an unquoted ${…} whose operand quotes some of its
// text (${x:+' -rf'}, ${x:+$'a\tb'}) has a value whose IFS and pattern
// characters bash splits or globs only where they were not quoted, which
// the flat value no longer tells: it is reviewed as unknown when it holds
// any.
func quotedOperandSplits(raw, v string, st *state) bool {
	if len(raw) < 3 || !strings.ContainsAny(raw[2:], `'"`) {
		return false
	}
	ifs := " \t\n"
	if x, ok := st.vars["IFS"]; ok && x != nil {
		ifs = *x
	}
	return strings.ContainsAny(v, ifs+"*?[")
}
