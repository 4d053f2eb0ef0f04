package pin

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// File names inside guard's config and state dirs.
const (
	HashFile     = "pin"
	AttemptsFile = "pin-attempts"
)

// Limits is the policy for failed attempts.
type Limits struct {
	// MaxFailures consecutive failures start a lockout.
	MaxFailures int
	// Lockout is how long a lockout lasts.
	Lockout time.Duration
	// Delays[i] is the pause after the (i+1)-th consecutive failure, before
	// Verify returns; the last entry repeats.
	Delays []time.Duration
}

// DefaultLimits: pauses of 0, 1, 2 and 4 seconds, then a 10-minute lockout
// at the fifth consecutive failure.
var DefaultLimits = Limits{
	MaxFailures: 5,
	Lockout:     10 * time.Minute,
	Delays:      []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second},
}

// Store is the PIN in ConfigDir and its attempt count in StateDir. The
// package-level functions use a Store with the defaults; tests and callers
// that need other limits, parameters or a fake sleep build their own.
type Store struct {
	ConfigDir string
	StateDir  string
	// Now is the clock. Required for Verify, Change and Status.
	Now func() time.Time
	// Sleep pauses after a failure; nil means time.Sleep.
	Sleep func(time.Duration)
	// Limits; the zero value means DefaultLimits.
	Limits Limits
	// Params for new hashes and the floor below which a stored hash is
	// redone after a successful Verify; the zero value means DefaultParams.
	Params Params
}

// Info is what Status reports.
type Info struct {
	// Set is true when a PIN exists.
	Set bool `json:"set"`
	// Params of the stored hash (zero when not Set).
	Params Params `json:"params"`
	// Failures is the count of consecutive failed attempts.
	Failures int `json:"failures"`
	// LockedUntil is the end of the current lockout; zero when not locked.
	LockedUntil time.Time `json:"locked_until,omitzero"`
}

// Set stores a new PIN in cfgDir. It fails with ErrExists if one is set
// and with an error wrapping ErrWeak if Validate refuses it.
func Set(cfgDir, pin string) error {
	return (&Store{ConfigDir: cfgDir}).Set(pin)
}

// Change replaces the PIN after verifying the old one exactly as Verify
// does (the attempt counts, a lockout applies).
func Change(cfgDir, stateDir, oldPIN, newPIN string, now func() time.Time) error {
	return (&Store{ConfigDir: cfgDir, StateDir: stateDir, Now: now}).Change(oldPIN, newPIN)
}

// Verify checks pin against the stored hash and counts the attempt. It
// returns nil on a match, ErrNoPIN, *WrongError, *LockedError, or another
// error when the files cannot be read or written (never a match then).
func Verify(cfgDir, stateDir, pin string, now func() time.Time) error {
	return (&Store{ConfigDir: cfgDir, StateDir: stateDir, Now: now}).Verify(pin)
}

// Status says whether a PIN is set, the failure count and any lockout.
func Status(cfgDir, stateDir string, now func() time.Time) (Info, error) {
	return (&Store{ConfigDir: cfgDir, StateDir: stateDir, Now: now}).Status()
}

// Set stores a new PIN; see the package-level Set.
func (s *Store) Set(pin string) error {
	if err := Validate(pin); err != nil {
		return err
	}
	if _, err := s.readHash(); err == nil {
		return ErrExists
	} else if !errors.Is(err, ErrNoPIN) {
		return err
	}
	enc, err := Hash(pin, s.params())
	if err != nil {
		return err
	}
	// Link refuses to replace an existing file, so two concurrent Sets
	// cannot both succeed.
	return s.writeHash(enc, func(tmp, dst string) error {
		if err := os.Link(tmp, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return ErrExists
			}
			return err
		}
		return nil
	})
}

// Change replaces the PIN; see the package-level Change.
func (s *Store) Change(oldPIN, newPIN string) error {
	if err := Validate(newPIN); err != nil {
		return err
	}
	if err := s.Verify(oldPIN); err != nil {
		return err
	}
	enc, err := Hash(newPIN, s.params())
	if err != nil {
		return err
	}
	return s.writeHash(enc, os.Rename)
}

// Verify checks a PIN; see the package-level Verify.
func (s *Store) Verify(pin string) error {
	if s.Now == nil {
		return errors.New("pin: Store.Now is nil")
	}
	enc, err := s.readHash()
	if err != nil {
		return err
	}
	lim := s.limits()
	f, err := s.openAttempts(true)
	if err != nil {
		return err
	}
	defer f.Close() // releases the flock
	a, err := readAttempts(f)
	if err != nil {
		return err
	}
	now := s.Now()
	if !a.LockedUntil.IsZero() {
		if now.Before(a.LockedUntil) {
			return &LockedError{Until: a.LockedUntil}
		}
		a = attempts{} // the lockout is over: a fresh start
	}
	ok, err := Match(enc, pin)
	if err != nil {
		return fmt.Errorf("read %s: %w", s.hashPath(), err)
	}
	if ok {
		if a != (attempts{}) {
			if err := writeAttempts(f, attempts{}); err != nil {
				return err
			}
		}
		s.upgrade(enc, pin)
		return nil
	}
	a.Failures++
	a.LastFailure = now
	if a.Failures >= lim.MaxFailures {
		a.LockedUntil = now.Add(lim.Lockout)
	}
	if err := writeAttempts(f, a); err != nil {
		return err
	}
	if !a.LockedUntil.IsZero() {
		return &LockedError{Until: a.LockedUntil, Now: true}
	}
	f.Close() // do not hold the lock while pausing
	if d := lim.Delays[min(a.Failures, len(lim.Delays))-1]; d > 0 {
		s.sleep(d)
	}
	return &WrongError{Remaining: lim.MaxFailures - a.Failures}
}

// Status reports on the PIN; see the package-level Status.
func (s *Store) Status() (Info, error) {
	var info Info
	enc, err := s.readHash()
	switch {
	case err == nil:
		info.Set = true
		if info.Params, err = ParseParams(enc); err != nil {
			return info, fmt.Errorf("read %s: %w", s.hashPath(), err)
		}
	case !errors.Is(err, ErrNoPIN):
		return info, err
	}
	f, err := s.openAttempts(false)
	if errors.Is(err, fs.ErrNotExist) {
		return info, nil
	} else if err != nil {
		return info, err
	}
	defer f.Close()
	a, err := readAttempts(f)
	if err != nil {
		return info, err
	}
	if !a.LockedUntil.IsZero() {
		if s.Now == nil {
			return info, errors.New("pin: Store.Now is nil")
		}
		if !s.Now().Before(a.LockedUntil) {
			return info, nil // expired: Verify will start afresh
		}
		info.LockedUntil = a.LockedUntil
	}
	info.Failures = a.Failures
	return info, nil
}

// upgrade rehashes the PIN when its stored parameters are below the
// Store's. It runs after a successful match, under the attempts lock; a
// failure leaves the old, still valid hash in place.
func (s *Store) upgrade(enc, pin string) {
	p, err := ParseParams(enc)
	if err != nil || !p.weakerThan(s.params()) {
		return
	}
	if enc, err = Hash(pin, s.params()); err == nil {
		_ = s.writeHash(enc, os.Rename)
	}
}

func (s *Store) params() Params {
	if s.Params == (Params{}) {
		return DefaultParams
	}
	return s.Params
}

func (s *Store) limits() Limits {
	if s.Limits.MaxFailures <= 0 {
		return DefaultLimits
	}
	l := s.Limits
	if len(l.Delays) == 0 {
		l.Delays = []time.Duration{0}
	}
	return l
}

func (s *Store) sleep(d time.Duration) {
	if s.Sleep != nil {
		s.Sleep(d)
		return
	}
	time.Sleep(d)
}

func (s *Store) hashPath() string { return filepath.Join(s.ConfigDir, HashFile) }

// readHash returns the stored PHC string, refusing a file others could
// read or replace.
func (s *Store) readHash() (string, error) {
	path := s.hashPath()
	// O_NONBLOCK: a FIFO planted as the PIN file must not hang guard.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoPIN
	} else if err != nil {
		return "", fmt.Errorf("open PIN file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("stat PIN file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("PIN file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("PIN file %s has mode %#o, want 0600", path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("read PIN file: %w", err)
	}
	return string(bytes.TrimSpace(b)), nil
}

// writeHash writes enc to a fresh 0600 file in the config dir and moves
// it into place with install (os.Rename to replace, a link to create).
func (s *Store) writeHash(enc string, install func(tmp, dst string) error) error {
	if err := os.MkdirAll(s.ConfigDir, 0o700); err != nil {
		return fmt.Errorf("create config dir: %w", err)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("read random: %w", err)
	}
	tmp := filepath.Join(s.ConfigDir, ".pin-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write PIN file: %w", err)
	}
	defer os.Remove(tmp)
	_, err = f.WriteString(enc + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write PIN file: %w", err)
	}
	if err := install(tmp, s.hashPath()); err != nil {
		if errors.Is(err, ErrExists) {
			return err
		}
		return fmt.Errorf("install PIN file: %w", err)
	}
	return nil
}

// attempts is the content of the attempts file: one JSON line.
type attempts struct {
	Failures    int       `json:"failures"`
	LastFailure time.Time `json:"last_failure,omitzero"`
	LockedUntil time.Time `json:"locked_until,omitzero"`
}

// openAttempts opens the attempts file and takes an flock on it:
// exclusive (creating the file) for a read-modify-write, shared for a
// read. Closing the file releases the lock.
func (s *Store) openAttempts(write bool) (*os.File, error) {
	path := filepath.Join(s.StateDir, AttemptsFile)
	flag, how := os.O_RDONLY, syscall.LOCK_SH
	if write {
		if err := os.MkdirAll(s.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("create state dir: %w", err)
		}
		flag, how = os.O_RDWR|os.O_CREATE, syscall.LOCK_EX
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open PIN attempts: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// readAttempts parses the first line of the file. An empty file is no
// failures; anything unreadable is an error, so a damaged count never
// reads as zero.
func readAttempts(f *os.File) (attempts, error) {
	var a attempts
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return a, fmt.Errorf("read PIN attempts: %w", err)
	}
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return a, fmt.Errorf("read PIN attempts: %w", err)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return a, nil
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return a, fmt.Errorf("PIN attempts file %s is damaged: %w", f.Name(), err)
	}
	return a, nil
}

// writeAttempts rewrites the file in place, under the caller's exclusive
// lock. The record is one line written before the truncation, so a crash
// in between leaves the new line first, which is what readAttempts reads.
func writeAttempts(f *os.File, a attempts) error {
	b, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encode PIN attempts: %w", err)
	}
	b = append(b, '\n')
	if _, err := f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("write PIN attempts: %w", err)
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		return fmt.Errorf("write PIN attempts: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write PIN attempts: %w", err)
	}
	return nil
}
