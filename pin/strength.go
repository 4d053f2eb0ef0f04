package pin

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/guard-sh/guard/internal/lazy"
)

// MinLength is the shortest PIN accepted, in characters.
const MinLength = 6

// MaxLength is the longest PIN accepted, in bytes.
const MaxLength = 256

// ErrWeak is wrapped by Validate's errors: the PIN is too easy to guess.
var ErrWeak = errors.New("the PIN is too weak")

// common are PINs and passwords near the top of every leaked-password list
// that the structural checks below do not already catch. Lower case. Built
// on first use: only setting a PIN asks, every guard process would build it.
var common = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"password": true, "passw0rd": true, "password1": true, "p@ssw0rd": true,
		"qwerty": true, "qwertz": true, "azerty": true, "qwertyuiop": true,
		"qwerty123": true, "qwe123": true, "123qwe": true, "1q2w3e": true,
		"1q2w3e4r": true, "1qaz2wsx": true, "qazwsx": true, "asdfgh": true,
		"zxcvbn": true, "abc123": true, "iloveyou": true, "letmein": true,
		"monkey": true, "dragon": true, "secret": true, "welcome": true,
		"trustno1": true, "changeme": true, "admin123": true, "football": true,
		"112233": true, "123321": true, "123654": true, "147258": true,
		"147852": true, "159357": true, "159753": true, "102030": true,
		"696969": true, "789456": true, "753951": true, "852456": true,
		"111222": true, "121314": true, "131313": true, "7777777": true,
		"11223344": true, "12344321": true,
	}
}}

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
	case common.Get()[lower]:
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
