package printable

import "testing"

// TestInvisible: every character that shows as nothing or reorders the
// text counts, whatever block it is in; letters, marks that show and
// ASCII do not. Blank is the blanks that are not ASCII.
func TestInvisible(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x034f, 0x061c, 0x115f, 0x180e, 0x200b, 0x200d, 0x200e, 0x202e, 0x2060, 0x2066, 0x3164, 0xfe0f, 0xfeff, 0xffa0, 0xe0001, 0xe0041, 0xe007f, 0xe0100} {
		if !Invisible(r) {
			t.Errorf("Invisible(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', '\t', 'a', '-', 0x00e9, 0x00a0, 0x3000, 0x4fee, 0x1f468, 0x0301} {
		if Invisible(r) {
			t.Errorf("Invisible(%U) = true", r)
		}
	}
	for _, r := range []rune{0x00a0, 0x1680, 0x2007, 0x202f, 0x205f, 0x3000} {
		if !Blank(r) {
			t.Errorf("Blank(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', '\t', '\n', 'a', 0x200b} {
		if Blank(r) {
			t.Errorf("Blank(%U) = true", r)
		}
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{"git status", false, "git status"},
		{"a\tb", false, "a\tb"},
		{"a\nb", false, `a\nb`},
		{"a\nb", true, "a\nb"},
		{"\x1b[2K\rLevel A", false, `\x1b[2K\x0dLevel A`},
		{"ls \u202e txt", false, `ls \u202e txt`},
		{"bad \xff byte", false, `bad \xff byte`},
		{"::stop-commands::x", false, `\x3a:stop-commands::x`},
		{"  ::error::x", false, `  \x3a:error::x`},
		// A word's newline in a multi-line verdict cannot start a
		// workflow command on the next line.
		{"echo 'a\n::add-mask::secret'", true, "echo 'a\n\\x3a:add-mask::secret'"},
		{"echo 'a\n::add-mask::secret'", false, `echo 'a\n::add-mask::secret'`},
		{"a :: b", true, "a :: b"},
		// Characters that show as nothing: a zero-width space, a tag
		// character (beyond U+FFFF, written \U), a Hangul filler, a
		// variation selector. Until session 14 they were shown raw:
		// "rm -r bu\u200bild" showed as "rm -r build".
		{"rm -r bu\u200bild", false, `rm -r bu\u200bild`},
		{"rm -r bu\U000E0041ild", false, `rm -r bu\U000e0041ild`},
		{"ls\u3164 -l", false, `ls\u3164 -l`},
		{"ls -l\ufe0fa", false, `ls -l\ufe0fa`},
		// Ordinary text stays: accents, CJK with its ideographic space,
		// a no-break space (a word break, shown as one).
		{"déjà 修正\u3000バグ a\u00a0b", false, "déjà 修正\u3000バグ a\u00a0b"},
	} {
		if got := String(c.in, c.multiline); got != c.want {
			t.Errorf("String(%q, %v) = %q, want %q", c.in, c.multiline, got, c.want)
		}
	}
}
