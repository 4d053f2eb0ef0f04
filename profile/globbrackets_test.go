package profile

import (
	"path"
	"testing"
)

// TestBashBrackets: a glob component, converted, matches in path.Match
// what it matches in bash (or more, for the classes path.Match lacks).
func TestBashBrackets(t *testing.T) {
	cases := []struct {
		glob, name string
		match      bool
	}{
		{".ss[!x]", ".ssh", true},
		{".ss[!h]", ".ssh", false},
		{".ss[^h]", ".ssh", false},
		{".ss[[:alpha:]]", ".ssh", true},
		{".[[:alpha:]]sh", ".ssh", true},
		{".ss[]h]", ".ssh", true},
		{".ss[!]x]", ".ssh", true},
		{".ss[[=h=]]", ".ssh", true},
		{".s[s", ".s[s", true},
		{".s[s", ".ssh", false},
		{"id_[r-s]sa", "id_rsa", true},
		{`\[x]`, "[x]", true},
	}
	for _, c := range cases {
		got, err := path.Match(bashBrackets(c.glob), c.name)
		if err != nil || got != c.match {
			t.Errorf("%q (as %q) on %q: match %v, err %v; bash: %v", c.glob, bashBrackets(c.glob), c.name, got, err, c.match)
		}
	}
}
