package audit

import (
	"testing"
)

func TestDefaultDir(t *testing.T) {
	for _, tt := range []struct {
		env     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/guard", false},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/guard", false},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.local/state/guard", false},
		{map[string]string{"HOME": "relative"}, "", true},
		{map[string]string{}, "", true},
	} {
		got, err := DefaultDir(func(k string) string { return tt.env[k] })
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("DefaultDir(%v) = %q, %v; want %q, error %v", tt.env, got, err, tt.want, tt.wantErr)
		}
	}
}

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
