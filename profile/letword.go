package profile

import (
	"strings"

	"github.com/guard-sh/guard/parse"
)

// letSubscripts reviews the subscripts in one argument of let as bash
// evaluates them. let's arguments are words: bash expands a[$i] to
// a[VALUE] first, then evaluates that text, expanding the subscript
// again, so i='$(cmd)'; let a[$i] runs cmd (checked with bash 5.2; in
// (( a[$i] )) and ${a[$i]} the value is not expanded again).
func (b *builder) letSubscripts(w *parse.Word, st *state, sp span) {
	for _, p := range w.Parts {
		for _, a := range p.Arith {
			var vals []string
			for _, f := range b.fields(a, st, sp) {
				if f.known {
					vals = append(vals, f.val)
				}
			}
			b.nameCode("a["+strings.Join(vals, " ")+"]", st, "let", sp)
		}
	}
}
