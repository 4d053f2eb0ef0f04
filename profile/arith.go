package profile

import (
	"fmt"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// Bash evaluates text as an arithmetic expression in more places than
// $(( )): (( )), let, the operands of [[ -eq ]] and its kin, array
// subscripts, and the variable names builtins take as strings (printf -v,
// read, unset, test -v, getopts, mapfile, wait -p). Evaluating an array
// subscript expands it, command substitutions included, and a variable
// named in an expression has its value evaluated in turn:
//
//	x='a[$(rm -rf ~)]'; echo $((x))    runs rm -rf ~
//	read 'a[$(rm -rf ~)]' <<< v         runs rm -rf ~
//
// arithCode reviews what such an evaluation runs: the command
// substitutions in subscripts, and, through variables whose values the
// line set, the same in their values. Values guard does not know are not
// followed (the line did not write them).

// maxArithDepth bounds how far variables naming variables, and subscripts
// within subscripts, are followed; deeper is reported, not passed over.
const maxArithDepth = 8

// arithCode reviews text bash evaluates as an arithmetic expression.
func (b *builder) arithCode(text string, st *state, via string, sp span) {
	b.arithEval(text, st, via, sp, 0, map[string]bool{})
}

// arithEval follows each variable once per expression (seen): a value
// that names a variable many times, level after level, would otherwise
// be reviewed exponentially often.
func (b *builder) arithEval(text string, st *state, via string, sp span, depth int, seen map[string]bool) {
	if text == "" {
		return
	}
	if depth > maxArithDepth {
		b.add(Effect{Cap: CapLimit, Rule: "limit.nesting", Target: via, Msg: fmt.Sprintf("an arithmetic expression (%s) names variables or subscripts deeper than %d levels", via, maxArithDepth)}, sp)
		return
	}
	for _, sub := range subscripts(text) {
		if strings.ContainsAny(sub, "$`") {
			// The subscript is expanded like a word: its substitutions run.
			b.text(": "+sub, st.clone(), stream{}, via, sp)
		}
		b.arithEval(sub, st, via, sp, depth+1, seen)
	}
	for _, name := range arithNames(text) {
		if t, ok := st.taint[name]; ok && t.tainted() && !seen[name] {
			// x=$(curl …); echo $((x)): the value is evaluated in turn,
			// and it came from the network or from decoding.
			seen[name] = true
			b.arithTainted(field{raw: "$" + name, taint: t}, via, sp)
			continue
		}
		if v := st.vars[name]; v != nil && !seen[name] && strings.ContainsAny(*v, "[ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") {
			seen[name] = true
			b.arithEval(*v, st, via, sp, depth+1, seen)
		}
	}
}

// arithWord reviews one word of an arithmetic expression: its value, as
// one expression (no word splitting in arithmetic).
func (b *builder) arithWord(w *parse.Word, st *state, via string, sp span) {
	var vals []string
	for _, f := range b.fields(w, st, sp) {
		if f.known {
			vals = append(vals, f.val)
		}
		b.arithTainted(f, via, sp)
	}
	b.arithCode(strings.Join(vals, " "), st, via, sp)
}

// arithTainted records a value from the network or from decoding that
// bash evaluates as arithmetic: the command substitutions of any array
// subscript in it run ($(($(curl …))) is curl | sh), so it is code.
func (b *builder) arithTainted(f field, via string, sp span) {
	if f.taint.tainted() {
		b.add(Effect{Cap: CapNetCode, Rule: "exec.code-from-network", Target: f.display(), Msg: "evaluates data from the network or from decoding as arithmetic (" + via + "), which runs the command substitutions of its array subscripts"}, sp)
	}
}

// subscripts returns the text inside each outermost [ ] of s.
func subscripts(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case ']':
			if depth > 0 {
				depth--
				if depth == 0 {
					out = append(out, s[start:i])
				}
			}
		}
	}
	if depth > 0 {
		out = append(out, s[start:]) // unclosed: bash still expands it
	}
	return out
}

// arithNames returns the variable names an arithmetic expression refers
// to: identifiers, with or without a $, outside subscripts too.
func arithNames(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if i == 0 || s[i-1] < '0' || s[i-1] > '9' { // 0x1f is a number
				out = append(out, s[i:j])
			}
			i = j
			continue
		}
		i++
	}
	return out
}

// nameArgs are the arguments builtins take as variable names, which may
// carry an array subscript bash evaluates.
func nameArgs(c *call) []field {
	switch c.prog {
	case "printf":
		return c.a.values("-v")
	case "read":
		return append(c.a.values("-a"), c.a.ops...)
	case "unset", "export", "readonly", "local", "declare", "typeset":
		return c.a.ops
	case "getopts":
		if len(c.a.ops) > 1 {
			return c.a.ops[1:2]
		}
	case "mapfile", "readarray":
		if n := len(c.a.ops); n > 0 {
			return c.a.ops[n-1:]
		}
	case "wait":
		return c.a.values("-p")
	case "test", "[":
		var out []field
		for i, f := range c.fs {
			if f.known && f.val == "-v" && i+1 < len(c.fs) {
				out = append(out, c.fs[i+1])
			}
		}
		return out
	}
	return nil
}

// nameSubscripts reviews the subscripts of the variable names a builtin
// was given (read 'a[$(cmd)]').
func (b *builder) nameSubscripts(c *call) {
	for _, f := range nameArgs(c) {
		if f.known {
			b.nameCode(f.val, c.st, c.prog+" variable name", c.sp)
		}
		b.arithTainted(f, c.prog+" variable name", c.sp)
	}
}

// nameCode reviews the subscript of a variable name given as a string
// (NAME or NAME=VALUE): bash evaluates it when it assigns or tests NAME.
func (b *builder) nameCode(arg string, st *state, via string, sp span) {
	name, _, _ := strings.Cut(arg, "=")
	if !strings.Contains(name, "[") {
		return
	}
	for _, sub := range subscripts(name) {
		if strings.ContainsAny(sub, "$`") {
			// A subscript is expanded as here-document text is: quotes
			// are plain characters there (unset "a['\$(cmd)']" runs cmd).
			const end = "GUARD_SUBSCRIPT_END"
			if strings.Contains(sub, end) {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Target: shorten(sub), Msg: "evaluates an array subscript (" + via + ") guard does not analyse"}, sp)
			} else {
				b.text(": <<"+end+"\n"+sub+"\n"+end+"\n", st.clone(), stream{}, via, sp)
			}
		}
		b.arithCode(sub, st, via, sp)
	}
}

// testArith reviews the operands of test's integer comparisons (-eq, -ne,
// -lt, -le, -gt, -ge), which bash evaluates as arithmetic.
func (b *builder) testArith(c *call) {
	for i, f := range c.fs {
		switch f.val {
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			for _, j := range []int{i - 1, i + 1} {
				if j < 0 || j >= len(c.fs) {
					continue
				}
				if c.fs[j].known {
					b.arithCode(c.fs[j].val, c.st, c.prog+" "+f.val, c.sp)
				}
				b.arithTainted(c.fs[j], c.prog+" "+f.val, c.sp)
			}
		}
	}
}
