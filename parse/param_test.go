package parse

import "testing"

func TestExpandParam(t *testing.T) {
	vars := map[string]string{"x": "RM", "e": `rm -rf \x7e`, "p": "a/b/c", "q": "it's", "empty": "", "n": "e", "u": "nosuch", "b": "a b"}
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
		{"${p/b/x}", "a/x/c", true},
		// mvdan/sh does not anchor /# and /%: guard does (each row as
		// bash 5.2 prints it); an & in the replacement (the text
		// matched, bash 5.2) is not computed.
		{"${x/#/rm -}", "rm -RM", true},
		{"${x/%/ ~}", "RM ~", true},
		{"${p/#a/x}", "x/b/c", true},
		{"${p/#b/x}", "a/b/c", true},
		{"${p/%c/x}", "a/b/x", true},
		{"${p/%*/x}", "x", true},
		{"${p//#a/x}", "a/b/c", true}, // after //, # is a pattern character
		{"${p//%c/x}", "a/b/c", true},
		{"${p/b/&&}", "a/bb/c", true},
		{"${p//[ac]/<&>}", "<a>/b/<c>", true},
		{"${p/b/\\&}", "a/&/c", true},
		{"${p/%?/&&}", "a/b/cc", true},
		{"${p//\\//&&}", "a//b//c", true},
		{"${p/#a/[&]}", "[a]/b/c", true},
		{"${p/*/&}", "a/b/c", true},
		{"${p/b/'&'}", "", false}, // a quoted &: not computed
		{"${empty:-rm}", "rm", true},
		{"${x:+y}", "y", true},
		{"${q@Q}", "", false},
		{"${unknown,,}", "", false},
		{"${empty:-$unknown}", "", false},
		{"${!x}", "", false}, // x's value, RM, names no known variable
		{"${!n}", "rm -rf \\x7e", true},
		{"${!n,,}", "rm -rf \\x7e", true},
		{"${!u}", "", false}, // u names a variable not known
		{"${!b}", "", false}, // b's value is not a name
		{"${x:=y}", "", false},
		{"${x:?}", "", false},
		{"${x:0:1}", "R", true},
		{"${e:0:6}", "rm -rf", true},
		{"${e: -4}", "\\x7e", true},
		{"${e:3}", "-rf \\x7e", true},
		{"${e:0:-5}", "rm -rf", true},
		{"${e:010}", "", false}, // octal in bash
		{"${e:k}", "", false},   // arithmetic on a name
		{"${e:1+1}", "", false},
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
