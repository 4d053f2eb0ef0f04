package pin

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MinLength is the shortest PIN accepted, in characters.
const MinLength = 6

// MaxLength is the longest PIN accepted, in bytes.
const MaxLength = 256

// ErrWeak is wrapped by Validate's errors: the PIN is too easy to guess.
var ErrWeak = errors.New("the PIN is too weak")

// common are PINs and passwords near the top of every leaked-password list
// that the structural checks below do not already catch; s is lower case.
// A switch, not a map: nothing is built at start (every guard process would
// pay for a list only setting a PIN asks).
func common(s string) bool {
	switch s {
	case "password", "passw0rd", "password1", "p@ssw0rd",
		"qwerty", "qwertz", "azerty", "qwertyuiop",
		"qwerty123", "qwe123", "123qwe", "1q2w3e",
		"1q2w3e4r", "1qaz2wsx", "qazwsx", "asdfgh",
		"zxcvbn", "abc123", "iloveyou", "letmein",
		"monkey", "dragon", "secret", "welcome",
		"trustno1", "changeme", "admin123", "football",
		"112233", "123321", "123654", "147258",
		"147852", "159357", "159753", "102030",
		"696969", "789456", "753951", "852456",
		"111222", "121314", "131313", "7777777",
		"11223344", "12344321":
		return true
	}
	return false
}

// Validate refuses PINs that are trivial to guess: too short, one repeated
// character (000000), a sequence (123456, 654321, 890123, abcdef), a short
// pattern repeated (121212, 123123) or a common choice (password, qwerty).
// The error wraps ErrWeak and says which rule it broke.
func Validate(pin string) error {
	if !utf8.ValidString(pin) {
		return fmt.Errorf("%w: not valid UTF-8", ErrWeak)
	}
	if n := utf8.RuneCountInString(pin); n < MinLength {
		return fmt.Errorf("%w: shorter than %d characters", ErrWeak, MinLength)
	}
	if len(pin) > MaxLength {
		return fmt.Errorf("the PIN is longer than %d bytes", MaxLength)
	}
	lower := strings.ToLower(pin)
	rs := []rune(lower)
	switch {
	case period(rs) == 1:
		return fmt.Errorf("%w: one character repeated", ErrWeak)
	case isSequence(rs):
		return fmt.Errorf("%w: a sequence", ErrWeak)
	case period(rs) <= 3:
		return fmt.Errorf("%w: a short pattern repeated", ErrWeak)
	case common(lower):
		return fmt.Errorf("%w: a common PIN", ErrWeak)
	}
	return nil
}

// period is the length of the shortest prefix that, repeated, makes up all
// of rs ("121212" → 2; "123123" → 3; "1212121" → 2; "123456" → 6).
// A trailing partial repeat counts.
func period(rs []rune) int {
	for p := 1; p < len(rs); p++ {
		ok := true
		for i := p; i < len(rs); i++ {
			if rs[i] != rs[i-p] {
				ok = false
				break
			}
		}
		if ok {
			return p
		}
	}
	return len(rs)
}

// isSequence reports whether every character differs from the previous one
// by the same step: 123456, 654321, 135791 (digits wrap: 890123), abcdef.
func isSequence(rs []rune) bool {
	digits := true
	for _, r := range rs {
		if r < '0' || r > '9' {
			digits = false
			break
		}
	}
	step := func(i int) rune {
		d := rs[i] - rs[i-1]
		if digits {
			d = (d + 10) % 10
		}
		return d
	}
	first := step(1)
	for i := 2; i < len(rs); i++ {
		if step(i) != first {
			return false
		}
	}
	return true
}
