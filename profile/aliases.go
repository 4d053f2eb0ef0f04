package profile

import (
	"maps"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// Aliases are bound to their arguments when they are used (principle
// 10): alias x='rm -rf'; … x ~ runs rm -rf ~, which reviewing the body
// alone ("rm -rf") does not show. guard expands an alias wherever its
// name is run later on the line, whether or not bash would (expand_aliases
// is off in a shell that is not interactive, and an alias applies only to
// text read after it): the review takes the worse of the two.

// defineAlias records alias NAME=BODY for the rest of the line.
func (s *state) defineAlias(name, body string) {
	a := maps.Clone(s.aliases)
	if a == nil {
		a = map[string]string{}
	}
	a[name] = body
	s.aliases = a
}

// hUnalias: unalias NAME… and unalias -a forget aliases.
func hUnalias(b *builder, c *call) stream {
	a := maps.Clone(c.st.aliases)
	for _, f := range c.fs {
		switch {
		case !f.known:
		case f.val == "-a":
			a = nil
		default:
			delete(a, f.val)
		}
	}
	c.st.aliases = a
	return stream{}
}

// runAlias reviews NAME ARGS… where NAME is an alias: its body followed
// by the arguments, in this shell (an alias can cd or set variables). The
// alias is not expanded again inside its own body, as in bash. An
// argument guard cannot see stays one it cannot see.
func (b *builder) runAlias(body string, argv []field, st *state, in stream, via string, sp span) stream {
	name := argv[0].val
	text, rest := chainAliases(body, argv, st.aliases)
	args := make([]string, 0, len(rest))
	unknown := false
	for _, f := range rest {
		if !f.known {
			unknown = true
			break
		}
		args = append(args, f.val)
	}
	if len(args) > 0 {
		q, err := parse.Quote(args)
		if err != nil {
			unknown = true
		} else {
			text += " " + q
		}
	}
	if unknown {
		text += ` "$GUARD_UNKNOWN_ARGS"`
	}
	saved := st.aliases
	inner := maps.Clone(saved)
	delete(inner, name)
	st.aliases = inner
	out := b.text(text, st, in, "alias "+name, sp)
	if st.aliases != nil {
		st.defineAlias(name, body)
	}
	return out
}

// chainAliases applies bash's rule for an alias whose body ends in a
// blank: the next word is checked for an alias too, and so on while the
// bodies end in blanks. alias e='eval '; alias y='"rm -rf ~"'; e y runs
// eval "rm -rf ~", and alias x='rm '; alias y='-rf ~'; x y runs rm -rf ~:
// y's body is shell text, not the argument "y". As bash does, a word in
// quotes is not expanded but keeps the check on for the word after it, a
// word from an expansion ends the chain, and an alias already expanded
// in the chain is a plain word. It returns the text and the arguments
// left after it.
func chainAliases(body string, argv []field, aliases map[string]string) (string, []field) {
	text := body
	seen := map[string]bool{argv[0].val: true}
	rest := argv[1:]
	for len(rest) > 0 && strings.TrimRight(text, " \t") != text {
		f := rest[0]
		if !f.known || f.exp || f.glob {
			break
		}
		next, isAlias := aliases[f.val]
		quoted := f.raw != "" && f.raw != f.val
		if isAlias && !quoted && !seen[f.val] {
			seen[f.val] = true
			text += next
			rest = rest[1:]
			continue
		}
		if !quoted && !seen[f.val] {
			break
		}
		// The check stays on past this word (bash's e 'a' z and e e z
		// expand z): it goes in as a quoted argument.
		q, err := parse.Quote([]string{f.val})
		if err != nil {
			break
		}
		text += q + " "
		rest = rest[1:]
	}
	return text, rest
}
