package main

import (
	"testing"
)

// TestCompletionFlagsExist: every flag given completion values exists in
// the command tree (a renamed flag would silently lose its completion).
func TestCompletionFlagsExist(t *testing.T) {
	root := newRootCmd(&streams{})
	if missing := registerCompletions(root); len(missing) != 0 {
		t.Errorf("completion values for flags that do not exist: %v", missing)
	}
	for _, path := range []string{"guard hook", "guard approve", "guard deny"} {
		c := findCommand(root, path)
		if c == nil || c.ValidArgsFunction == nil {
			t.Errorf("%s has no argument completion", path)
		}
	}
	if findCommand(root, "guard nope") != nil || findCommand(root, "other scan") != nil {
		t.Error("findCommand found a command that does not exist")
	}
}
