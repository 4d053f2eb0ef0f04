package review_test

import (
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestLookalikeBlanks: a blank that is not an ASCII space inside a
// command name or an option is one word that shows as two (the corpus
// files carry the ideographic space; editors turn the others into
// spaces, so they are here). Each was A at 6ee89b7. Inside other words
// (a message) such a blank is text.
func TestLookalikeBlanks(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		text  string
		level review.Level
		rules string
	}{
		{"ls --al\u00a0l", review.B, "text.lookalike"},
		{"ls --al\u202fl", review.B, "text.lookalike"},
		{"ls -l\u2007a", review.B, "text.lookalike"},
		{"git log --one\u2003line", review.B, "text.lookalike"},
		{"echo 'a\u00a0b'", review.A, "-"},
		{"git commit -m 'prix\u00a0: 3\u00a0€'", review.A, "-"},
	} {
		v := assess(fx, t, corpusCase{ctx: "-", text: c.text})
		if v.Level != c.level || levelRules(v) != c.rules {
			t.Errorf("%q: %s %s, want %s %s", c.text, v.Level, levelRules(v), c.level, c.rules)
		}
	}
}
