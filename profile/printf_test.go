package profile

import "testing"

// The outputs below are what bash 5 prints for the same words.
func TestPrintfOut(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{`\x72\x6d`}, "rm", true},
		{[]string{`\162\155`}, "rm", true},
		{[]string{`%b`, `\0162\0155`}, "rm", true},
		{[]string{`%b`, `rm -rf \176`}, "rm -rf ~", true},
		{[]string{`%s%s`, "r", "m"}, "rm", true},
		{[]string{`%c%c`, "rat", "mat"}, "rm", true},
		{[]string{`%s\n`, "a", "b", "c"}, "a\nb\nc\n", true},
		{[]string{`%s=%s;`, "a", "1", "b"}, "a=1;b=;", true},
		{[]string{`%-4s|%3d|`, "ab", "7"}, "ab  |  7|", true},
		{[]string{`%x %o %d`, "255", "8", "'A"}, "ff 10 65", true},
		{[]string{`%5.2s|`, "abc"}, "   ab|", true},
		{[]string{`a%%b`}, "a%b", true},
		{[]string{`%b`, `x\cy`, "z"}, "x", true},
		{[]string{`\u00e9`}, "é", true},
		{[]string{`%f`, "1"}, "", false},
		{[]string{`%d`, "abc"}, "", false},
		{[]string{`%q`, "x"}, "", false},
		{[]string{`%*s`, "100000000", "x"}, "", false},
		{[]string{`%0999999999d`, "1"}, "", false},
	} {
		got, ok := printfOut(tc.args)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("printf %q = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestEchoOut(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", `\x72\x6d`}, "rm\n"},
		{[]string{"-e", `\0162\0155`}, "rm\n"},
		{[]string{`\x72\x6d`}, `\x72\x6d` + "\n"},
		{[]string{"-n", "-e", `a\tb`}, "a\tb"},
		{[]string{"-en", `a\cb`}, "a"},
		{[]string{"-x", "a"}, "-x a\n"},
		{[]string{"-eE", `a\nb`}, `a\nb` + "\n"},
		{[]string{"-e", `\"q\"`}, `\"q\"` + "\n"},
	} {
		if got := echoOut(tc.args); got != tc.want {
			t.Errorf("echo %q = %q, want %q", tc.args, got, tc.want)
		}
	}
}
