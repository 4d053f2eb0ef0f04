package profile

import (
	"path"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// A new shell does not inherit the shell's own variables. A shell the
// line starts (bash -c TEXT, sh SCRIPT, TEXT | sh, find -exec sh -c,
// xargs sh -c) gets the environment: a variable the line set without
// exporting it is there only when it was already in the environment
// (then with the line's value), and unset otherwise. D=$PWD/build; bash
// -c 'rm -rf "$D"/*' deletes /* when D was not exported. So code a new
// shell runs is reviewed both ways: with the values the line set, and
// with the variables it mentions that the line set without exporting
// unset (values guard does not know, priced as the worst they could be).
// Variables of the environment guard was given (HOME, PWD, USER) and
// those the line exported (export, declare -x) or put in a command's
// environment (NAME=V cmd, env NAME=V cmd) are inherited.

// exportDecl records the names a declaration exports: export NAME…,
// declare/typeset/local -x NAME… (export -n takes the attribute away:
// not inherited).
func (s *state) exportDecl(variant string, opts []string, assigns []*parse.Assign) {
	on, off, funcs := variant == "export", false, false
	for _, o := range opts {
		if strings.HasPrefix(o, "-") && strings.Contains(o, "f") {
			funcs = true // export -f NAME, declare -fx NAME: a function
		}
		switch {
		case strings.HasPrefix(o, "-") && strings.Contains(o, "x"):
			on = true
		case strings.HasPrefix(o, "+") && strings.Contains(o, "x"), variant == "export" && strings.HasPrefix(o, "-") && strings.Contains(o, "n"):
			off = true
		}
	}
	if !on {
		return
	}
	var names []string
	for _, a := range assigns {
		if funcs {
			names = append(names, funcKey(a.Name))
			continue
		}
		names = append(names, a.Name)
	}
	for _, o := range opts {
		// A quoted 'NAME=VALUE' operand (declAssign).
		if n, _, ok := strings.Cut(o, "="); ok && validName(strings.TrimSuffix(n, "+")) {
			names = append(names, strings.TrimSuffix(n, "+"))
		}
	}
	s.setExported(names, !off)
}

// setExported marks names exported (or not) in s.
func (s *state) setExported(names []string, on bool) {
	if len(names) == 0 {
		return
	}
	m := make(map[string]bool, len(s.exported)+len(names))
	for k, v := range s.exported {
		m[k] = v
	}
	for _, n := range names {
		m[n] = on
	}
	s.exported = m
}

// childShell is s as a new shell starts from it: none of its aliases,
// its hash table or its functions but, when imported, those the line
// exported (export -f, declare -fx). rm() { :; }; bash -c 'rm -rf ~' runs
// rm. Only bash imports exported functions (dash as sh does not).
func (s *state) childShell(imported bool) *state {
	c := s.clone()
	c.funcs = map[string]*parse.Stmt{}
	for n, body := range s.funcs {
		if imported && s.exported[funcKey(n)] {
			c.funcs[n] = body
		}
	}
	c.aliases = nil
	c.hashed = nil
	return c
}

// exportsFuncs reports whether the line exported a function.
func (s *state) exportsFuncs() bool {
	for n := range s.funcs {
		if s.exported[funcKey(n)] {
			return true
		}
	}
	return false
}

// funcKey is a function's name in state.exported.
func funcKey(name string) string { return "()" + name }

// hUnset: unset -f NAME removes the function NAME, so NAME is the program
// again (rm() { :; }; unset -f rm; rm -rf ~ runs rm); unset NAME, with
// neither -v nor -f, removes the variable NAME, or, when there is none,
// the function: guard takes both away (the variable's value becomes
// unknown). A name guard cannot see may be any function.
func hUnset(b *builder, c *call) stream {
	funcs, vars := !c.a.has("-v"), !c.a.has("-f")
	for _, f := range c.a.ops {
		if !f.known {
			// It may be any function or none: each runs its body or,
			// taken away, the program (taking them all away made
			// ls() { rm -rf ~; }; unset -f "$X"; ls the program ls).
			// And any variable may now be unset.
			if funcs {
				c.st.mergeFuncs([]*state{{funcs: map[string]*parse.Stmt{}}})
			}
			if vars {
				for name := range c.st.vars {
					c.st.set(name, nil)
				}
			}
			continue
		}
		if vars {
			c.st.set(f.val, nil)
		}
		if funcs && c.st.funcs[f.val] != nil {
			fs := make(map[string]*parse.Stmt, len(c.st.funcs))
			for k, v := range c.st.funcs {
				if k != f.val {
					fs[k] = v
				}
			}
			c.st.funcs = fs
		}
	}
	return stream{}
}

// hShift: shift [N] drops the first N positional parameters: $1 is then
// what $N+1 was (set -- x 'rm -rf ~'; shift; eval "$1" runs rm). With
// parameters or a count guard does not know, they are unknown after.
func hShift(b *builder, c *call) stream {
	n := 1
	if len(c.a.ops) > 0 {
		f := c.a.ops[0]
		v, err := strconv.Atoi(f.val)
		if !f.known || err != nil || v < 0 {
			n = -1
		} else {
			n = v
		}
	}
	switch {
	case c.st.argv != nil && n >= 0:
		if n > len(c.st.argv) {
			return stream{} // shift fails: nothing changes
		}
		c.st.setParams(c.st.argv[n:])
	case n == 0:
	default:
		// Unknown: every parameter may now be any of them.
		for name := range c.st.vars {
			if isDigits(name) && name != "0" || name == "@" || name == "*" || name == "#" {
				c.st.set(name, nil)
			}
		}
		c.st.argv = nil
	}
	return stream{}
}

// startNames are the variables of the environment the review starts
// from (inherited by every shell).
func (b *builder) startNames() map[string]bool {
	if b.start == nil {
		b.start = map[string]bool{"HOME": true, "PWD": true, "USER": true, "OLDPWD": true}
		for k := range b.ctx.Env {
			b.start[k] = true
		}
	}
	return b.start
}

// newShell runs run for each state a new shell (the program prog, ""
// when not known) started from st may run text in (see the top of the
// file and childShell): with the line's exported functions, and without
// them when prog may not be bash; each with the line's variables, and,
// when text mentions a variable the line set without exporting it,
// without those. It returns the first run's output.
func (b *builder) newShell(prog string, st *state, text string, run func(*state) stream) stream {
	out := b.newShellVars(st.childShell(true), text, run)
	if p := path.Base(prog); p != "bash" && p != "rbash" && st.exportsFuncs() {
		b.newShellVars(st.childShell(false), text, run)
	}
	return out
}

// newShellVars is newShell for one start state st (a copy it may change).
func (b *builder) newShellVars(st *state, text string, run func(*state) stream) stream {
	out := run(st.clone())
	var drop []string
	for n := range st.vars {
		if validName(n) && n != "IFS" && !b.startNames()[n] && !st.exported[n] && mentionsVar(text, n) {
			drop = append(drop, n)
		}
	}
	if len(drop) == 0 {
		return out
	}
	alt := st.clone()
	for _, n := range drop {
		delete(alt.vars, n)
		delete(alt.taint, n)
		delete(alt.globs, n)
		delete(alt.arrays, n)
	}
	run(alt)
	return out
}
