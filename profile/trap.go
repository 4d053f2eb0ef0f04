package profile

import (
	"maps"
	"strings"
)

// A trap's code runs when the shell chooses, not where the line sets
// it: a DEBUG trap before every later command, RETURN after every
// function, ERR on every failure, a signal's whenever one comes. What
// the code changes in the shell is therefore changed at any point after
// the trap: X='echo hi'; trap 'X="rm -rf ~"' DEBUG; eval "$X" runs rm,
// and trap 'cd ~' DEBUG; rm -rf ./* deletes the home directory's files.
// guard reviews the code once (on a copy of the shell) and then takes,
// for the rest of the line, the worse of "it ran" and "it did not":
//   - a variable it assigns is volatile: unknown now and whatever the
//     line assigns it later;
//   - a function or alias it defines is defined;
//   - a directory it changes to makes the current directory unknown.

// afterTrap applies what the trap code reviewed on alt may change.
func (s *state) afterTrap(alt *state) {
	for k, v := range alt.vars {
		if old, ok := s.vars[k]; !ok || old != v {
			s.markVolatile(k)
		}
	}
	for k := range s.vars {
		if _, ok := alt.vars[k]; !ok {
			s.markVolatile(k)
		}
	}
	// An element it sets (a[1]=…) leaves $a as it was.
	for k, av := range s.arrays {
		if alt.arrays[k].first != av.first {
			s.markVolatile(k)
		}
	}
	for k, av := range s.assoc {
		if alt.assoc[k].first != av.first {
			s.markVolatile(k)
		}
	}
	// A function it defines or unsets runs either body (or the
	// program); a descriptor it fills holds either text (branches.go).
	s.mergeFuncs([]*state{alt})
	s.mergeFds([]*state{alt})
	if len(alt.aliases) > 0 && !maps.Equal(alt.aliases, s.aliases) {
		a := maps.Clone(s.aliases)
		if a == nil {
			a = map[string]string{}
		}
		maps.Copy(a, alt.aliases)
		s.aliases = a
	}
	if len(alt.hashed) > 0 {
		if s.hashed == nil {
			s.hashed = map[string]string{}
		}
		maps.Copy(s.hashed, alt.hashed)
	}
	if alt.cwd != s.cwd {
		s.cwd = ""
	}
	// Options and attributes it sets hold from then on: a glob option
	// it turns on matches more, an integer attribute makes later values
	// arithmetic, and a variable it makes a reference (declare -n) or
	// gives a case attribute is unknown.
	for k, on := range alt.shopts {
		if on && !s.shopts[k] {
			opts := maps.Clone(s.shopts)
			if opts == nil {
				opts = map[string]bool{}
			}
			opts[k] = true
			s.shopts = opts
		}
	}
	for k := range alt.ints {
		if s.ints == nil {
			s.ints = map[string]bool{}
		}
		s.ints[k] = true
	}
	for k, r := range alt.refs {
		if s.refs[k] != r {
			s.markVolatile(k)
		}
	}
	for k, c := range alt.cases {
		if s.cases[k] != c {
			s.markVolatile(k)
		}
	}
}

func (s *state) markVolatile(name string) {
	base := name
	if i := strings.IndexByte(name, '['); i >= 0 {
		base = name[:i]
	}
	if s.volatile == nil {
		s.volatile = map[string]bool{}
	}
	s.volatile[base] = true
	s.set(base, nil)
	delete(s.arrays, base)
	delete(s.assoc, base)
}
