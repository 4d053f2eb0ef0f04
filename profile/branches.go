package profile

import (
	"maps"
	"slices"

	"github.com/guard-sh/guard/parse"
)

// Branches. guard reviews every branch of an if, a case, a && or ||
// list and a loop body, one after the other on the same shell state,
// because any of them may run. What a branch changes in the shell is
// therefore what the last one reviewed left, unless the line's state
// after the construct is the worse of every way through it:
// X='rm -rf ~'; [ -e f ] && X=echo; eval "$X" runs rm when f is absent,
// if c; then cd ~; else cd /tmp; fi; rm -rf ./* may empty the home
// directory, and rm() { :; } in one branch leaves rm the program in the
// other. After such a construct (mergeBranches), for every way out
// guard saw (the state before it and after each of its statements):
//   - a variable with two values is unknown (an unset one, which is
//     empty, is not a value: c && X='rm -rf ~'; eval "$X" stays rm);
//   - a directory with two values makes the current directory unknown;
//   - a function with two bodies, or defined on one way only, runs
//     every body it may have, and the program of its name where it may
//     have none;
//   - a descriptor with two contents holds both (then): a shell
//     reading it is reviewed with both, and with code it cannot see
//     where one way left it unfilled.
// A trap's code is the same: it ran or it did not (trap.go).

// branchy reports whether a block's statements are alternatives, or
// may run zero or more times, rather than a sequence.
//
// cd DIR && …, like cd DIR; …, is taken to succeed (guard reviews what
// follows in DIR, as it does after cd DIR;): a cd, pushd or popd that
// fails changes nothing, and the line after it is rarely written for
// that case. Its && list is then a sequence.
func branchy(c *parse.Block) bool {
	switch c.Kind {
	case "if", "case", "while":
		return true
	case "for":
		return c.Var == "" // for ((…)); a for … in loop is loop's
	case "list":
		return !c.And || len(c.Stmts) == 0 || !dirChange(c.Stmts[0])
	}
	return false
}

// loopy reports whether a block's statements may run again after
// they ran: a later pass sees what an earlier one left
// (X=echo; while c; do eval "$X"; X='rm -rf ~'; done).
func loopy(c *parse.Block) bool {
	return c.Kind == "while" || c.Kind == "for" && c.Var == ""
}

// dirChange reports whether s is a plain cd, pushd or popd.
func dirChange(s *parse.Stmt) bool {
	call, ok := s.Cmd.(*parse.Call)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 || len(s.Redirs) > 0 || s.Negated || s.Background {
		return false
	}
	switch name, _ := call.Args[0].Value(); name {
	case "cd", "pushd", "popd":
		return true
	}
	return false
}

// maxForks and maxForkBytes bound the extra reviews of what follows
// branches: how many, and how much text they review in all. Past them
// the merged state alone counts (an unknown value: B, not A).
const (
	maxForks     = 16
	maxForkBytes = 16 << 10
)

// pendingFork is what a branching statement leaves for the sequence it
// is in: the states, each a way out of it, in which to review the rest
// of the sequence too.
type pendingFork struct {
	stmt *parse.Stmt
	alts []*state
}

// branched makes st, the state after the branching statement s, the
// worse of every way out of it (ways: the states before it and after
// each of its statements), and leaves the distinct ways (with st as the
// last branch left it) for the rest of the sequence s is in: there,
// X='rm -rf ~'; c && X=echo; eval "$X" is reviewed with each value.
// Where no sequence follows, or the budget is spent, the merged state
// alone (an unknown value, an unknown directory) is what counts.
func (b *builder) branched(s *parse.Stmt, st *state, ways []*state) {
	final := st.clone()
	if !st.mergeBranches(ways) {
		return
	}
	alts := []*state{final}
	for _, w := range ways {
		dup := false
		for _, a := range alts {
			if sameShell(a, w) {
				dup = true
				break
			}
		}
		if !dup {
			alts = append(alts, w)
		}
	}
	b.fork = &pendingFork{stmt: s, alts: alts}
}

// sameShell reports whether two states agree on the directory and the
// variables (what the merge makes unknown).
func sameShell(a, b *state) bool {
	if a.cwd != b.cwd || len(a.vars) != len(b.vars) {
		return false
	}
	for k, v := range a.vars {
		if w, ok := b.vars[k]; !ok || !sameVal(v, w) {
			return false
		}
	}
	return true
}

// mergeBranches makes s, the state after a construct, the worse of s
// and every state in ways (the ways out of it guard saw), and reports
// whether that changed s.
func (s *state) mergeBranches(ways []*state) bool {
	changed := false
	taint := map[string]stream{}
	for _, w := range ways {
		for k, v := range w.vars {
			if cur, ok := s.vars[k]; !ok || !sameVal(cur, v) {
				changed = changed || !ok || cur != nil
				s.set(k, nil)
			}
		}
		for k, t := range w.taint {
			taint[k] = worse(taint[k], t)
		}
		if w.cwd != s.cwd {
			changed = changed || s.cwd != ""
			s.cwd = ""
		}
	}
	for k, t := range taint {
		if v, ok := s.vars[k]; ok && v == nil {
			s.setTainted(k, nil, worse(t, s.taint[k]))
		}
	}
	// Elements set on one way only (a[1]=x, m[k]=x) are unknown after.
	for _, w := range ways {
		for k, av := range s.arrays {
			if wv, ok := w.arrays[k]; !ok || wv.first != av.first || !slices.Equal(wv.elems, av.elems) {
				delete(s.arrays, k)
				changed = true
			}
		}
		for k, av := range s.assoc {
			if wv, ok := w.assoc[k]; !ok || wv.first != av.first || !maps.Equal(wv.elems, av.elems) {
				delete(s.assoc, k)
				changed = true
			}
		}
	}
	f := s.mergeFuncs(ways)
	d := s.mergeFds(ways)
	return changed || f || d
}

// sameVal reports whether two variable values are the same value.
func sameVal(a, b *string) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && *a == *b
}

// mergeFuncs gives every function defined differently on some way a
// body that runs all it may be: each body, and NAME the program where
// one way has no such function.
func (s *state) mergeFuncs(ways []*state) bool {
	names := map[string]bool{}
	for _, w := range ways {
		for k, f := range w.funcs {
			if s.funcs[k] != f {
				names[k] = true
			}
		}
		for k := range s.funcs {
			if _, ok := w.funcs[k]; !ok {
				names[k] = true
			}
		}
	}
	for name := range names {
		var bodies []*parse.Stmt
		absent := false
		add := func(f *parse.Stmt, ok bool) {
			if !ok || f == nil {
				absent = true
				return
			}
			for _, g := range bodies {
				if g == f {
					return
				}
			}
			bodies = append(bodies, f)
		}
		f, ok := s.funcs[name]
		add(f, ok)
		for _, w := range ways {
			f, ok := w.funcs[name]
			add(f, ok)
		}
		if absent {
			bodies = append(bodies, programStmt(name))
		}
		s.funcs[name] = &parse.Stmt{Pos: bodies[0].Pos, End: bodies[0].End, Cmd: &parse.Block{Kind: "list", Stmts: bodies}}
	}
	return len(names) > 0
}

// programStmt is `command NAME "$@"` inside a function: the program
// (or builtin) NAME run with the function's arguments.
func programStmt(name string) *parse.Stmt {
	lit := func(v string) *parse.Word {
		return &parse.Word{Parts: []parse.Part{{Kind: parse.Lit, Text: v, Raw: v}}}
	}
	all := &parse.Word{Parts: []parse.Part{{Kind: parse.Var, Text: "@", Quoted: true, Raw: `"$@"`}}}
	return &parse.Stmt{Cmd: &parse.Call{Args: []*parse.Word{lit("command"), lit("--"), lit(name), all}}}
}

// mergeFds gives every input descriptor filled differently on some way
// all it may hold.
func (s *state) mergeFds(ways []*state) bool {
	var m map[string]stream
	for _, w := range ways {
		for k, d := range w.inFds {
			if cur, ok := s.inFds[k]; !ok || cur != d {
				m = s.fdUnion(m, k, d)
			}
		}
		for k := range s.inFds {
			if _, ok := w.inFds[k]; !ok {
				m = s.fdUnion(m, k, stream{kind: streamUnknown})
			}
		}
	}
	if m != nil {
		s.inFds = m
	}
	return m != nil
}

// fdUnion is m (a copy of s.inFds once written) with descriptor k
// holding also d.
func (s *state) fdUnion(m map[string]stream, k string, d stream) map[string]stream {
	if m == nil {
		m = cloneMap(s.inFds)
	}
	cur, ok := m[k]
	if !ok {
		cur = stream{kind: streamUnknown}
	}
	m[k] = then(then(cur, stream{kind: streamText, text: "\n"}), d)
	return m
}
