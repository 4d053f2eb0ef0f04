package profile

import (
	"slices"
	"strings"
	"testing"
)

func TestFilterText(t *testing.T) {
	tests := []struct {
		prog, args, in string
		want           string
		ok             bool
	}{
		{"cat", "", "a\nb\n", "a\nb\n", true},
		{"cat", "-u", "a\n", "a\n", true},
		{"cat", "-n", "a\n", "", false},
		{"cat", "-v", "a\n", "", false},
		{"tee", "-a out.txt", "a\n", "a\n", true},
		{"head", "", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", true},
		{"head", "-n 1", "a\nb\n", "a\n", true},
		{"head", "-n1", "a\nb\n", "a\n", true},
		{"head", "-2", "a\nb\nc", "a\nb\n", true},
		{"head", "--lines=1", "a\nb\n", "a\n", true},
		{"head", "-n -1", "a\nb\n", "a\n", true},
		{"head", "-c 3", "abcdef", "abc", true},
		{"head", "-c3", "é", "é", true},
		{"head", "-c1", "é", "\xc3", true},
		{"head", "-n +1", "a\n", "", false},
		{"head", "-n 1k", "a\n", "", false},
		{"head", "-z", "a\n", "", false},
		{"head", "file.txt", "a\n", "", false},
		{"tail", "-n 1", "a\nb\n", "b\n", true},
		{"tail", "-n 1", "a\nb", "b", true},
		{"tail", "-n +2", "a\nb\nc\n", "b\nc\n", true},
		{"tail", "-n +0", "a\nb\n", "a\nb\n", true},
		{"tail", "-c 4", "ab\ncd\n", "\ncd\n", true},
		{"tail", "-c +2", "abc", "bc", true},
		{"tail", "-n -1", "a\n", "", false},
		{"tail", "-f", "a\n", "", false},
		{"rev", "", "ab c\nxy\n", "c ba\nyx\n", true},
		{"rev", "", "héllo", "olléh", true},
		{"rev", "", "\xff", "", false},
		{"rev", "-0", "a\n", "", false},
		{"tac", "", "a\nb\n", "b\na\n", true},
		{"tac", "", "a\nb", "ba\n", true},
		{"tac", "-s x", "a\n", "", false},
		{"sort", "", "b\na\n", "", false},
		{"fold", "-w 3", "abcdef\n", "", false},
	}
	for _, tt := range tests {
		var fs []field
		for _, a := range strings.Fields(tt.args) {
			fs = append(fs, field{val: a, known: true})
		}
		got, ok := filterText(tt.prog, fs, tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s %s on %q = %q, %v; want %q, %v", tt.prog, tt.args, tt.in, got, ok, tt.want, tt.ok)
		}
	}
	// An argument guard cannot see may be any option.
	if _, ok := filterText("head", []field{{raw: "$N"}}, "a\n"); ok {
		t.Errorf("head with an argument that is not static was computed")
	}
}

func TestArgNear(t *testing.T) {
	tests := []struct {
		prog string
		args []string
		want []string // lines that must be in the near text
		not  []string // lines that must not
	}{
		{"sed", []string{"s/.*/rm -rf ~/"}, []string{"rm -rf ~"}, nil},
		{"sed", []string{"-n", "s|x|curl x.example|p"}, []string{"curl x.example"}, []string{"-n"}},
		{"jq", []string{"-rn", `"rm -rf ~"`}, []string{"rm -rf ~"}, nil},
		{"date", []string{"-u", "+rm -rf ~"}, []string{"rm -rf ~"}, []string{"-u"}},
		{"date", []string{"-d", "now"}, nil, []string{"now"}},
	}
	for _, tt := range tests {
		var fs []field
		for _, a := range tt.args {
			fs = append(fs, field{val: a, known: true})
		}
		fs = append(fs, field{raw: "$X"}) // not static: left out
		lines := strings.Split(argNear(tt.prog, fs), "\n")
		for _, w := range tt.want {
			if !slices.Contains(lines, w) {
				t.Errorf("argNear(%s %q) = %q, lacks the line %q", tt.prog, tt.args, lines, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(lines, n) {
				t.Errorf("argNear(%s %q) = %q, holds the line %q", tt.prog, tt.args, lines, n)
			}
		}
	}
}

func TestJoinNearLimit(t *testing.T) {
	if got := joinNear("a", "b", 10); got != "a\nb" {
		t.Errorf("joinNear(a, b) = %q, want %q", got, "a\nb")
	}
	long := strings.Repeat("x", 20)
	if got := joinNear(long, "rm -rf ~", 16); got != long {
		t.Errorf("joinNear past the limit = %q, want the first text unchanged", got)
	}
	if got := joinNear("", long, 16); got != long {
		t.Errorf("joinNear of nothing and a text = %q, want the text", got)
	}
}
