package profile

import (
	"strconv"
	"strings"
)

// promptParam reviews an expansion that applies @P: bash expands the
// value as a prompt string, so the substitutions in it run. ${NAME@P},
// ${N@P}, ${!NAME@P}, ${a[@]@P}, ${a[N]@P} and ${@@P} of values the line
// set are reviewed as that text (every element of an array: which one an
// index picks is not tracked); any other (a value guard does not know,
// an @P nested in another expansion) is code guard cannot see.
func (b *builder) promptParam(raw string, st *state, sp span) {
	vals, ok := st.promptValues(raw)
	if !ok {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Target: raw, Msg: "expands a value guard does not know as a prompt (" + raw + "), running what it substitutes"}, sp)
		return
	}
	for _, v := range vals {
		b.promptText(decodePrompt(v), st, sp)
	}
}

// promptValues are the values a ${…@P} expands as prompts, when known.
func (s *state) promptValues(raw string) ([]string, bool) {
	m := re(`^\$\{(!?)([a-z_][a-z0-9_]*|[0-9]+|[@*])(\[([^]]*)\])?@P\}$`).FindStringSubmatch(raw)
	if m == nil {
		return nil, false
	}
	name, indexed, index := m[2], m[3] != "", m[4]
	if m[1] == "!" {
		// ${!n@P}: the variable n's value names.
		v := s.vars[s.resolveRef(name)]
		if indexed || v == nil || !validName(*v) && !isDigits(*v) {
			return nil, false
		}
		name = *v
	}
	var fs []field
	switch {
	case name == "@" || name == "*":
		if s.argv == nil {
			return nil, false
		}
		fs = s.argv
	case indexed:
		elems, ok := s.array(s.resolveRef(name))
		if i, err := strconv.Atoi(index); !ok || index != "@" && index != "*" && (err != nil || i >= len(elems)) {
			return nil, false
		}
		fs = elems
	default:
		v := s.vars[s.resolveRef(name)]
		if v == nil {
			return nil, false
		}
		return []string{*v}, true
	}
	var out []string
	for _, f := range fs {
		if !f.known {
			return nil, false
		}
		out = append(out, f.val)
	}
	return out, true
}

// decodePrompt applies the backslash escapes bash decodes in a prompt
// string (PS0–PS4, ${x@P}) before it expands the result: an octal escape
// becomes its character unquoted, so '\044(cmd)' is a command
// substitution by the time the shell expands it, and '\140cmd\140' a
// backquoted one. \\ becomes one backslash, which then quotes the next
// character as it does in the expansion. Every other escape is left as
// it is: the shell either keeps it, quotes what it inserts (\w, \u, \D{…})
// or, for \$, inserts a quoted '$' (or '#' for root).
func decodePrompt(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == '\\':
			out.WriteByte('\\')
			i++
		case c >= '0' && c <= '7':
			n, j := 0, i+1
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			out.WriteByte(byte(n))
			i = j - 1
		default:
			out.WriteByte('\\')
		}
	}
	return out.String()
}
