package audit

import (
	"testing"
)

func TestSessionAndID(t *testing.T) {
	if got := Session("abc-123", 42); got != "abc-123" {
		t.Errorf("Session with a hook id = %q", got)
	}
	if got := Session("", 42); got != "ppid:42" {
		t.Errorf("Session without = %q", got)
	}
	if a, b := NewID(), NewID(); len(a) != 16 || a == b {
		t.Errorf("NewID: %q, %q", a, b)
	}
	if _, err := ParseDecision("approved-tty"); err != nil {
		t.Error(err)
	}
	if _, err := ParseDecision("approved"); err == nil {
		t.Error("ParseDecision accepted an unknown decision")
	}
}
