package policy

import (
	"fmt"
	"reflect"
	"testing"
)

// TestParseEmptyDocument: a file of blank lines and comments (the built-in
// policy is one) is read without the TOML decoder, and the result is the
// decoder's: the same File, or the same error for what TOML forbids in a
// comment. Anything that sets a key still goes to the decoder.
func TestParseEmptyDocument(t *testing.T) {
	for _, tc := range []struct {
		text string
		fast bool // answered without the decoder
	}{
		{"", true},
		{"\n\n", true},
		{"# only a comment", true},
		{"# a\n\n  # indented\n\t# tab\n", true},
		{"# ünïcödé and = signs [[rules]] in a comment\n", true},
		{string(defaultTOML), true},
		{"# a\r\n# b\r\n", false},              // \r goes to the decoder (valid before \n)
		{"# bell \x07 in a comment\n", false},  // TOML forbids it: the decoder's error
		{"# del \x7f in a comment\n", false},   // the same
		{"# nul \x00\n", false},                // the same
		{"\ufeff# a byte order mark\n", false}, // the decoder's answer
		{"# a\nmin_level = \"B\"\n", false},    // sets a key
		{"  min_level = \"C\" # trailing\n", false},
		{"# a\n[[rules]]\nid = \"x\"\ncommand = \"ls\"\n", false},
		{"# a\n= \"no key\"\n", false}, // a syntax error, reported with its line
		{"#a\nwhat is this\n", false},
	} {
		t.Run(fmt.Sprintf("%q", tc.text), func(t *testing.T) {
			if got := onlyComments([]byte(tc.text)); got != tc.fast {
				t.Fatalf("onlyComments = %v, want %v", got, tc.fast)
			}
			for _, scope := range []Scope{Builtin, User, Project} {
				f, err := Parse("p.toml", []byte(tc.text), scope)
				wf, werr := parseTOML("p.toml", []byte(tc.text), scope)
				if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(f, wf) {
					t.Errorf("scope %v: Parse = %+v, %v; the decoder says %+v, %v", scope, f, err, wf, werr)
				}
			}
		})
	}
}
