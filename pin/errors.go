package pin

import (
	"errors"
	"fmt"
	"time"
)

// ErrNoPIN: no PIN has been set (the file "pin" does not exist).
var ErrNoPIN = errors.New("no PIN is set")

// ErrExists: Set was asked to create a PIN where one exists already.
var ErrExists = errors.New("a PIN is already set")

// ErrWrong matches (errors.Is) every *WrongError.
var ErrWrong = errors.New("wrong PIN")

// ErrLocked matches (errors.Is) every *LockedError.
var ErrLocked = errors.New("PIN entry is locked")

// WrongError is a wrong PIN that did not (yet) cause a lockout.
type WrongError struct {
	// Remaining is how many more consecutive failures are allowed before
	// the lockout.
	Remaining int
}

func (e *WrongError) Error() string {
	if e.Remaining == 1 {
		return "wrong PIN (1 attempt left)"
	}
	return fmt.Sprintf("wrong PIN (%d attempts left)", e.Remaining)
}

func (e *WrongError) Is(target error) bool { return target == ErrWrong }

// LockedError means no attempt is allowed until Until. Verify returns it
// without looking at the PIN while a lockout lasts, and for the failure
// that starts one (then Now is true: this very PIN was wrong).
type LockedError struct {
	Until time.Time
	// Now is true when this attempt was the one that caused the lockout.
	Now bool
}

func (e *LockedError) Error() string {
	if e.Now {
		return fmt.Sprintf("wrong PIN; too many failures, PIN entry locked until %s", e.Until.Format(time.RFC3339))
	}
	return fmt.Sprintf("too many wrong PINs; PIN entry locked until %s", e.Until.Format(time.RFC3339))
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }
