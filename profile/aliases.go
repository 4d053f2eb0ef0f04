package profile

import (
	"maps"

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
	args := make([]string, 0, len(argv)-1)
	unknown := false
	for _, f := range argv[1:] {
		if !f.known {
			unknown = true
			break
		}
		args = append(args, f.val)
	}
	text := body
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
