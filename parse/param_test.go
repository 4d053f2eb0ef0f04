package parse

import "testing"

func TestExpandParam(t *testing.T) {
	vars := map[string]string{"x": "RM", "e": `rm -rf \x7e`, "p": "a/b/c", "q": "it's", "empty": ""}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	for _, tc := range []struct {
		raw  string
		want string
		ok   bool
	}{
		{"${x,,}", "rm", true},
		{"${x,}", "rM", true},
		{"${x@L}", "rm", true},
		{"${e@E}", "rm -rf ~", true},
		{"${p#*/}", "b/c", true},
		{"${p%%/*}", "a", true},
		{"${p//\\//-}", "a-b-c", true},
		{"${empty:-rm}", "rm", true},
		{"${x:+y}", "y", true},
		{"${q@Q}", "", false},
		{"${unknown,,}", "", false},
		{"${empty:-$unknown}", "", false},
		{"${!x}", "", false},
		{"${x:=y}", "", false},
		{"${x:?}", "", false},
		{"${x:0:1}", "", false},
		{"${x:-$(rm -rf ~)}", "", false},
		{"${x@P}", "", false},
		{"${#x}", "", false},
		{"$x", "", false},
		{"${x}y", "", false},
		{"${1}", "", false},
	} {
		got, ok := ExpandParam(tc.raw, lookup)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ExpandParam(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}
