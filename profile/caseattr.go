package profile

import (
	"strings"

	"github.com/guard-sh/guard/parse"
)

// declare -l, -u and -c give a variable a case attribute: bash converts
// every value assigned to it afterwards, to lower case, upper case, or
// capitalised (the first letter upper, the rest lower). A value guard
// kept as written would be another command line than the one bash runs
// (declare -l x=RM; $x -rf ~ runs rm).

// declareCase records the case attribute that a declaration's option word
// o gives or takes from the names it declares. Of -l and -u, the last
// given wins, as in bash.
func (s *state) declareCase(o string, assigns []*parse.Assign) {
	if len(o) < 2 || o[0] != '-' && o[0] != '+' || o == "--" {
		return
	}
	var attr byte
	for i := 1; i < len(o); i++ {
		switch o[i] {
		case 'l', 'u', 'c':
			attr = o[i]
		}
	}
	if attr == 0 {
		return
	}
	for _, a := range assigns {
		if o[0] == '+' {
			delete(s.cases, a.Name)
			continue
		}
		if s.cases == nil {
			s.cases = map[string]byte{}
		}
		s.cases[a.Name] = attr
	}
}

// convertCase is v as bash stores it in name: converted when name has a
// case attribute. nil stays nil.
func (s *state) convertCase(name string, v *string) *string {
	attr, ok := s.cases[name]
	if !ok || v == nil {
		return v
	}
	var out string
	switch attr {
	case 'l':
		out = strings.ToLower(*v)
	case 'u':
		out = strings.ToUpper(*v)
	default:
		out = strings.ToLower(*v)
		if out != "" {
			r := []rune(out)
			r[0] = []rune(strings.ToUpper(string(r[0])))[0]
			out = string(r)
		}
	}
	return &out
}

// expandParam is the value of a parameter expansion whose variables the
// line knows, as bash computes it (parse.ExpandParam); ok is false when
// it has nested substitutions or arithmetic, names a variable guard does
// not know (or one that is tainted, a glob or a nameref), or uses an
// operator guard does not evaluate.
func (s *state) expandParam(p parse.Part) (string, bool) {
	if len(p.Nested) > 0 {
		return "", false
	}
	for _, a := range p.Arith {
		// A substring's offset and length written as numbers
		// (${x:0:8}) is evaluated; ExpandParam takes nothing else.
		if !a.Static() {
			return "", false
		}
	}
	return parse.ExpandParam(p.Raw, func(name string) (string, bool) {
		if _, ref := s.refs[name]; ref || s.globs[name] || s.taint[name].tainted() {
			return "", false
		}
		if _, arr := s.arrays[name]; arr {
			return "", false
		}
		v := s.vars[name]
		if v == nil {
			return "", false
		}
		return *v, true
	})
}
