package forkcheck

import "testing"

// TestRuns: the check is made early for the command lines that start
// the sandbox helper, and for no other (guard's other subcommands would
// pay a thread and a child for nothing).
func TestRuns(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"guard", "--", "true"}, true},
		{[]string{"guard", "run", "--", "make"}, true},
		{[]string{"guard", "run", "make"}, true},
		{[]string{"guard", "--net", "--", "curl", "x"}, true},
		{[]string{"guard", "--allow-write", "build", "--", "make"}, true},
		{[]string{"guard"}, false},
		{[]string{"guard", "version"}, false},
		{[]string{"guard", "check", "git status"}, false},
		{[]string{"guard", "check", "--", "rm -rf ~"}, false},
		{[]string{"guard", "hook", "claude"}, false},
		{[]string{"guard", "--help"}, false},
		{[]string{"guard", "shell"}, false},
	} {
		if got := runs(c.argv); got != c.want {
			t.Errorf("runs(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}
