package printable

import "testing"

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
	} {
		if got := String(c.in, c.multiline); got != c.want {
			t.Errorf("String(%q, %v) = %q, want %q", c.in, c.multiline, got, c.want)
		}
	}
}
