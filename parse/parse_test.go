package parse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/guard-sh/guard/parse"
)

func firstCall(t *testing.T, text string) *parse.Call {
	t.Helper()
	s, err := parse.Bash(text)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	c, ok := s.Stmts[0].Cmd.(*parse.Call)
	if !ok {
		t.Fatalf("parse %q: first statement is %T, not a call", text, s.Stmts[0].Cmd)
	}
	return c
}

// TestStaticWords checks the pitfalls STYLE.md lists: bash removes
// backslashes and quotes and decodes $'…'; the IR must agree.
func TestStaticWords(t *testing.T) {
	tests := []struct {
		text   string
		want   string
		static bool
	}{
		{`rm`, "rm", true},
		{`r\m`, "rm", true},
		{`"r"m`, "rm", true},
		{`'r'm`, "rm", true},
		{`\rm`, "rm", true},
		{`$'\x72\x6d'`, "rm", true},
		{`$'\162\155'`, "rm", true},
		{`$'\u0072m'`, "rm", true},
		{`"a\$b"`, "a$b", true},
		{`'a\nb'`, `a\nb`, true},
		{`$HOME`, "", false},
		{`"$HOME"`, "", false},
		{`$(which rm)`, "", false},
		{`*.go`, "", false},
		{`\*.go`, "*.go", true},
		{`"*.go"`, "*.go", true},
		{`~`, "", false},
		{`"~"`, "~", true},
		{`\~`, "~", true},
		{`~root/x`, "", false},
	}
	for _, tt := range tests {
		c := firstCall(t, tt.text)
		w := c.Args[0]
		got, ok := w.Value()
		if ok != tt.static || got != tt.want {
			t.Errorf("%s: Value() = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.static)
		}
		if w.Static() != tt.static {
			t.Errorf("%s: Static() = %v, want %v", tt.text, w.Static(), tt.static)
		}
	}
}

func TestPartKinds(t *testing.T) {
	tests := []struct {
		text string
		kind parse.PartKind
		arg  int
	}{
		{`echo ~/x`, parse.Tilde, 1},
		{`dd of=~/x`, parse.Tilde, 1},
		{`echo $X`, parse.Var, 1},
		{`echo ${X}`, parse.Var, 1},
		{`echo ${X:-$(rm -rf /)}`, parse.Dynamic, 1},
		{`echo $(ls)`, parse.CmdSubst, 1},
		{"echo `ls`", parse.CmdSubst, 1},
		{`cat <(curl x)`, parse.ProcSubst, 1},
		{`ls *.go`, parse.Glob, 1},
		{`ls @(a|b)`, parse.Glob, 1},
	}
	for _, tt := range tests {
		c := firstCall(t, tt.text)
		found := false
		for _, p := range c.Args[tt.arg].Parts {
			if p.Kind == tt.kind {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: argument %d has no part of kind %d: %+v", tt.text, tt.arg, tt.kind, c.Args[tt.arg].Parts)
		}
	}
	// Nested substitutions inside other expansions are kept for review.
	c := firstCall(t, `echo ${X:-$(rm -rf /)}`)
	if len(c.Args[1].Scripts()) != 1 {
		t.Errorf("nested $(…) in ${X:-…} not kept")
	}
}

func TestBraceExpansion(t *testing.T) {
	c := firstCall(t, `{rm,-rf,~}`)
	if len(c.Args) != 3 || !c.Args[0].Brace {
		t.Fatalf("got %d words, want 3 brace words", len(c.Args))
	}
	if v, _ := c.Args[0].Value(); v != "rm" {
		t.Errorf("first word %q, want rm", v)
	}
	if c.Args[2].Parts[0].Kind != parse.Tilde {
		t.Errorf("~ after brace expansion is not a tilde")
	}
	c = firstCall(t, `echo {1..5}`)
	if len(c.Args) != 6 {
		t.Errorf("{1..5}: got %d words, want 6", len(c.Args))
	}
	// A huge sequence is not expanded: it stays unknown instead.
	c = firstCall(t, `echo {1..100000000}`)
	if len(c.Args) != 2 || c.Args[1].Static() {
		t.Errorf("huge sequence should be one unknown word, got %d words", len(c.Args))
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	_, err := parse.Bash("git log &&& rm -rf /")
	var se *parse.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want *SyntaxError, got %v", err)
	}
	if se.Line != 1 || se.Col != 9 {
		t.Errorf("position %d:%d, want 1:9", se.Line, se.Col)
	}
	if _, err := parse.Bash("$((cmd); (cmd2))"); err == nil {
		t.Errorf("$((cmd); (cmd2)) parsed; mvdan/sh does not backtrack and guard must fail closed")
	}
}

// TestLimits: the pathological inputs from the issue are refused with a
// LimitError or SyntaxError, never a hang or a panic.
func TestLimits(t *testing.T) {
	inputs := map[string]string{
		"1MB line":           "echo " + strings.Repeat("a", 1<<20),
		"40 unclosed $(":     strings.Repeat("$(", 40),
		"10000 nested ( )":   strings.Repeat("(", 10000) + "true" + strings.Repeat(")", 10000),
		"10000 nested { }":   strings.Repeat("{ ", 10000) + "true" + strings.Repeat("; }", 10000),
		"deep $( )":          strings.Repeat("$(", 500) + "x" + strings.Repeat(")", 500),
		"many commands":      strings.Repeat("true;", 60000),
		"huge brace product": strings.Repeat("{a,b}", 40),
	}
	for name, in := range inputs {
		_, err := parse.Bash(in)
		if name == "huge brace product" {
			continue // allowed to parse; the product is bounded (see TestBraceExpansion)
		}
		var le *parse.LimitError
		var se *parse.SyntaxError
		if !errors.As(err, &le) && !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a limit or syntax error", name, err)
		}
	}
}

func TestUnsupportedIsKept(t *testing.T) {
	s, err := parse.Bash("coproc cat")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Stmts[0].Cmd.(*parse.Block); !ok {
		t.Errorf("coproc: got %T", s.Stmts[0].Cmd)
	}
}

func BenchmarkPathological(b *testing.B) {
	inputs := map[string]string{
		"1MB":      "echo " + strings.Repeat("a", 1<<20),
		"unclosed": strings.Repeat("$(", 40),
		"nested":   strings.Repeat("(", 10000) + "true" + strings.Repeat(")", 10000),
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				parse.Bash(in)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	text := `cd sub && for f in *.go; do gofmt -l "$f"; done | xargs -r grep -n TODO > out.txt 2>&1`
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := parse.Bash(text); err != nil {
			b.Fatal(err)
		}
	}
}
