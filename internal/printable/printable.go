// Package printable makes text a command, a file or a repository chose
// safe to show: on a terminal (no escape sequence may rewrite what guard
// prints, no direction-changing character may reorder it) and in a CI
// log (no line may start a GitHub Actions workflow command).
package printable

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with control characters written as escapes: a newline
// as \n (kept as it is when multiline), other controls as \xNN or
// \uNNNN, invalid UTF-8 bytes as \xNN. Tabs stay. A line that would begin
// a workflow command ("::stop-commands::…", "::error::…", after blanks)
// has its first colon written \x3a.
func String(s string, multiline bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\t' || (multiline && r == '\n'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case unicode.IsControl(r), Invisible(r), r == '\u2028', r == '\u2029':
			if r > 0xffff {
				fmt.Fprintf(&b, "\\U%08x", r)
			} else {
				fmt.Fprintf(&b, "\\u%04x", r)
			}
		default:
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "::") {
			lines[i] = l[:len(l)-len(t)] + `\x3a` + t[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// Invisible reports whether r shows as nothing, or reorders what
// follows it, so that text holding it looks like other text: the
// characters Unicode says to ignore when not supported (format
// characters such as zero-width spaces and joiners, the soft hyphen,
// word joiners, the tag characters U+E0000-E007F that spell text no
// terminal shows, variation selectors, Hangul fillers) and the
// direction-changing characters. String escapes each; the review counts
// a word holding one as a look-alike (text.lookalike).
func Invisible(r rune) bool {
	if r < 0x80 {
		return false
	}
	return unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Bidi_Control, r)
}

// Blank reports whether r is a blank other than an ASCII space or tab
// (a no-break space, an ideographic space): inside a shell word it
// shows as a break between two words. The review counts a command name
// or option holding one as a look-alike; in other words (a commit
// message in French or Japanese) it is ordinary text.
func Blank(r rune) bool {
	return r >= 0x80 && unicode.Is(unicode.White_Space, r)
}
