package profile

import (
	"maps"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// Associative arrays (declare -A) are read as bash reads them: keys are
// strings, NAME=(k v …) is pairs of key and value, and ${NAME[KEY]} is
// the value set with that key. guard follows the elements the line set
// with static keys and values (declare -A a=([k]='rm -rf ~'); eval
// "${a[k]}" runs rm); anything else that changes NAME makes them unknown
// again, and an element guard does not know stays unknown.

type assocVal struct {
	first *string // $NAME when the elements were set (see state.array)
	elems map[string]string
}

// assocElems returns NAME's elements when the line set them and nothing
// has changed NAME since.
func (s *state) assocElems(name string) (map[string]string, bool) {
	av, ok := s.assoc[name]
	if !ok || av.first == nil || s.vars[name] != av.first {
		return nil, false
	}
	return av.elems, true
}

// declareAssoc records declare/local/typeset -A NAME… before the
// assignments are made; it returns the names it declares without a
// value, empty arrays once they are (initAssoc).
func (s *state) declareAssoc(opts []string, assigns []*parse.Assign) []string {
	assoc := false
	for _, o := range opts {
		if strings.HasPrefix(o, "-") && strings.Contains(o, "A") {
			assoc = true
		}
	}
	if !assoc {
		return nil
	}
	var fresh []string
	for _, o := range opts {
		// A quoted 'NAME=(…)' is an argument guard parses later: NAME
		// is associative there too.
		if n, _, _ := strings.Cut(o, "="); !strings.HasPrefix(o, "-") && !strings.HasPrefix(o, "+") && validName(n) {
			if s.assocs == nil {
				s.assocs = map[string]bool{}
			}
			s.assocs[n] = true
		}
	}
	for _, a := range assigns {
		if s.assocs == nil {
			s.assocs = map[string]bool{}
		}
		if _, set := s.vars[a.Name]; !set && !s.assocs[a.Name] && a.Value == nil && !a.IsArray && len(a.Index) == 0 {
			fresh = append(fresh, a.Name)
		}
		s.assocs[a.Name] = true
	}
	return fresh
}

// initAssoc: declare -A NAME, NAME not set before, is an empty array.
func (s *state) initAssoc(names []string) {
	for _, n := range names {
		empty := ""
		s.vars[n] = &empty
		s.setAssocElems(n, map[string]string{})
	}
}

// setAssoc follows an assignment to the associative array NAME: NAME=(…)
// and NAME+=(…) with static keys and values, NAME[KEY]=VALUE with a
// static key onto elements guard knows. valFields are VALUE's fields,
// wordFields those of each word of NAME=(…).
func (s *state) setAssoc(a *parse.Assign, name string, prev map[string]string, hadPrev bool, valFields []field, wordFields [][]field) {
	if s.readonly[name] {
		return // bash refuses the write; its elements stay unknown (set)
	}
	var elems map[string]string
	switch {
	case a.IsArray:
		if a.Append {
			if !hadPrev {
				return
			}
			elems = maps.Clone(prev)
		} else {
			elems = map[string]string{}
		}
		i := 0
		for _, e := range a.Elems {
			if !e.Keyed || !e.KeyStatic || len(e.Value) > 1 {
				return // k v pairs, a key guard cannot read: unknown
			}
			v := ""
			if len(e.Value) == 1 {
				if i >= len(wordFields) {
					return
				}
				fs := wordFields[i]
				i++
				if len(fs) != 1 || !fs[0].known || fs[0].glob {
					return
				}
				v = fs[0].val
			}
			elems[e.Key] = *s.convertCase(name, &v) // declare -lA, -uA convert values
		}
	case len(a.Index) == 1 && hadPrev && a.Value != nil:
		key, ok := a.Index[0].Value()
		if !ok || len(valFields) != 1 || !valFields[0].known || valFields[0].glob {
			return
		}
		v := valFields[0].val
		if a.Append {
			v = prev[key] + v
		}
		elems = maps.Clone(prev)
		elems[key] = *s.convertCase(name, &v)
	default:
		return
	}
	zero := elems["0"] // $NAME is ${NAME[0]}
	s.vars[name] = &zero
	s.setAssocElems(name, elems)
}

func (s *state) setAssocElems(name string, elems map[string]string) {
	if s.assoc == nil {
		s.assoc = map[string]assocVal{}
	}
	s.assoc[name] = assocVal{first: s.vars[name], elems: elems}
}

// assocElem is ${NAME[KEY]} of an associative array whose elements the
// line set, KEY a plain word or a string in quotes: the value, or ""
// for a key it does not have, as bash gives it.
func (s *state) assocElem(p parse.Part) (string, bool) {
	if len(p.Nested) > 0 || !s.assocs[arrayRefName(p.Raw)] {
		return "", false
	}
	m := re(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z0-9_.:/+,%=-]+|"[A-Za-z0-9_.:/+,%= -]*"|'[A-Za-z0-9_.:/+,%= -]*')\]\}$`).FindStringSubmatch(p.Raw)
	if m == nil || s.taint[m[1]].tainted() {
		return "", false
	}
	elems, ok := s.assocElems(m[1])
	if !ok {
		return "", false
	}
	key := m[2]
	if key[0] == '"' || key[0] == '\'' {
		key = key[1 : len(key)-1]
	}
	return elems[key], true
}

// arrayRefName is NAME in ${NAME[…]…}, or "".
func arrayRefName(raw string) string {
	rest, ok := strings.CutPrefix(raw, "${")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "[")
	if !ok {
		return ""
	}
	return name
}
