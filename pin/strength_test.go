package pin

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		pin  string
		weak string // "" = accepted
	}{
		{"", "shorter"},
		{"48291", "shorter"},
		{"ä8291", "shorter"},
		{"000000", "repeated"},
		{"111111", "repeated"},
		{"aaaaaaaa", "repeated"},
		{"123456", "sequence"},
		{"654321", "sequence"},
		{"012345", "sequence"},
		{"890123", "sequence"},
		{"1234567890", "sequence"},
		{"135791", "sequence"},
		{"abcdef", "sequence"},
		{"ABCDEF", "sequence"},
		{"121212", "pattern"},
		{"123123", "pattern"},
		{"1212121", "pattern"},
		{"abcabc", "pattern"},
		{"password", "common"},
		{"PassWord", "common"},
		{"qwerty", "common"},
		{"112233", "common"},
		{"123321", "common"},
		{"159753", "common"},
		// Controls: ordinary PINs and passphrases are accepted.
		{"482916", ""},
		{"739154", ""},
		{"246813", ""},
		{"12341234x", ""},
		{"correct horse", ""},
		{"ünïcode", ""},
	} {
		err := Validate(tc.pin)
		if tc.weak == "" {
			if err != nil {
				t.Errorf("Validate(%q) = %v, want nil", tc.pin, err)
			}
			continue
		}
		if !errors.Is(err, ErrWeak) {
			t.Errorf("Validate(%q) = %v, want ErrWeak (%s)", tc.pin, err, tc.weak)
		}
	}
	if err := Validate(string(make([]byte, MaxLength+1))); err == nil {
		t.Error("Validate accepted an over-long PIN")
	}
}
