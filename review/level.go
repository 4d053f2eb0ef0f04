package review

import (
	"fmt"
	"strings"
)

// Level is a review level. The zero value is invalid on purpose: a verdict
// that was never computed must not read as A.
type Level int

const (
	// A runs at once, under the sandbox derived from its profile.
	A Level = iota + 1
	// B needs an explanation and the user's consent.
	B
	// C needs the explanation, consent and the PIN.
	C
	// Deny is refused; only a policy rule can declare it.
	Deny
)

func (l Level) String() string {
	switch l {
	case A:
		return "A"
	case B:
		return "B"
	case C:
		return "C"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText renders the level as "A", "B", "C" or "deny".
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText accepts what MarshalText writes, in any case.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLevel reads "A", "B", "C" or "deny" (case-insensitive).
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "a":
		return A, nil
	case "b":
		return B, nil
	case "c":
		return C, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("unknown level %q (want A, B or C)", s)
}

// Max returns the higher of two levels.
func Max(a, b Level) Level {
	if a > b {
		return a
	}
	return b
}
