package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/pin"
)

// pinOptions are shared by the pin subcommands.
type pinOptions struct {
	store   *pin.Store
	timeout time.Duration
	json    bool
}

func newPinOptions() *pinOptions {
	return &pinOptions{
		timeout: defaultAnswerTimeout,
	}
}

// resolve sets the PIN store in guard's config dir (exit 125 without an
// absolute HOME) unless a test set one.
func (o *pinOptions) resolve() error {
	if o.store != nil {
		return nil
	}
	d, err := guardDirs()
	if err != nil {
		return err
	}
	o.store = &pin.Store{ConfigDir: d.Config, StateDir: d.State, Now: time.Now}
	return nil
}

// newPinCmd is `guard pin`: the PIN that level C commands ask for.
func newPinCmd(s *streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "pin",
		Short: "Set, change or inspect the PIN that level C commands ask for",
		Long: `Level C commands run only after your consent and your PIN. The PIN is kept
as an argon2id hash in guard's config dir. Five wrong PINs in a row lock PIN
entry for 10 minutes. PINs are typed on the terminal (/dev/tty), never read
from stdin.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newPinSetCmd(s), newPinChangeCmd(s), newPinStatusCmd(s))
	return c
}

func newPinSetCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "set",
		Short: "Set the PIN (typed twice on the terminal)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			opts := newPinOptions()
			if err := opts.resolve(); err != nil {
				return err
			}
			return runPinSet(s, opts)
		},
	}
}

func newPinChangeCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "change",
		Short: "Change the PIN (the current one first)",
		Long: `Change the PIN: the current one first, then the new one twice. Approvals
given with the old PIN that have not run yet, and the grants given with it,
are withdrawn (revoked).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			opts := newPinOptions()
			if err := opts.resolve(); err != nil {
				return err
			}
			return runPinChange(s, opts)
		},
	}
}

func newPinStatusCmd(s *streams) *cobra.Command {
	opts := newPinOptions()
	c := &cobra.Command{
		Use:   "status",
		Short: "Show whether a PIN is set, failed attempts and any lockout",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			return runPinStatus(s, opts)
		},
	}
	c.Flags().BoolVar(&opts.json, "json", false, "print the status as JSON")
	return c
}

func runPinSet(s *streams, opts *pinOptions) error {
	info, err := opts.store.Status()
	if err != nil {
		return failf(nil, "%v", err)
	}
	if info.Set {
		return failf([]string{"run 'guard pin change' to change it"}, "%v", pin.ErrExists)
	}
	t, err := openTerminal()
	if err != nil {
		return noTerminalError(err, "run 'guard pin set' in a terminal")
	}
	defer t.Close()
	p, err := readNewPIN(t, "New PIN: ", "Repeat the PIN: ", opts.timeout, "guard pin set", 1)
	if err != nil {
		return err
	}
	if err := opts.store.Set(p); errors.Is(err, pin.ErrExists) {
		return failf([]string{"run 'guard pin change' to change it"}, "%v", err)
	} else if err != nil {
		return failf(nil, "%v", err)
	}
	fmt.Fprintln(s.err, "guard: PIN set; level C commands will ask for it")
	return nil
}

func runPinChange(s *streams, opts *pinOptions) error {
	info, err := opts.store.Status()
	if err != nil {
		return failf(nil, "%v", err)
	}
	if !info.Set {
		return noPINError(exitGuardFailed)
	}
	if !info.LockedUntil.IsZero() {
		return lockedError(exitGuardFailed, info.LockedUntil)
	}
	t, err := openTerminal()
	if err != nil {
		return noTerminalError(err, "run 'guard pin change' in a terminal")
	}
	defer t.Close()
	old, err := readPINLine(t, "Current PIN: ", opts.timeout)
	if err != nil {
		return err
	}
	// Check the current PIN before asking for a new one; Change checks
	// it again (a second, successful attempt) when it writes.
	if err := opts.store.Verify(old); err != nil {
		return pinError(err)
	}
	p, err := readNewPIN(t, "New PIN: ", "Repeat the new PIN: ", opts.timeout, "guard pin change", 1)
	if err != nil {
		return err
	}
	if err := opts.store.Change(old, p); err != nil {
		return pinError(err)
	}
	fmt.Fprintln(s.err, "guard: PIN changed")
	return revokePINApprovals(s)
}

func runPinStatus(s *streams, opts *pinOptions) error {
	info, err := opts.store.Status()
	if err != nil {
		return failf(nil, "%v", err)
	}
	if opts.json {
		return writePinStatusJSON(s.out, info)
	}
	if !info.Set {
		fmt.Fprintln(s.out, "PIN: not set")
	} else {
		fmt.Fprintf(s.out, "PIN: set (argon2id %s)\n", info.Params)
	}
	fmt.Fprintf(s.out, "failed attempts: %d of %d\n", info.Failures, pin.DefaultLimits.MaxFailures)
	if !info.LockedUntil.IsZero() {
		fmt.Fprintf(s.out, "locked until: %s (%s from now)\n", clock(info.LockedUntil), shortDuration(info.LockedUntil.Sub(opts.store.Now())))
	}
	if !info.Set {
		fmt.Fprintln(s.err, "guard: hint: run 'guard pin set' to set one")
	}
	return nil
}

func writePinStatusJSON(w io.Writer, info pin.Info) error {
	v := struct {
		Set         bool       `json:"set"`
		Params      string     `json:"params,omitempty"`
		Failures    int        `json:"failures"`
		MaxFailures int        `json:"max_failures"`
		LockedUntil *time.Time `json:"locked_until,omitempty"`
	}{Set: info.Set, Failures: info.Failures, MaxFailures: pin.DefaultLimits.MaxFailures}
	if info.Set {
		v.Params = "argon2id " + info.Params.String()
	}
	if !info.LockedUntil.IsZero() {
		v.LockedUntil = &info.LockedUntil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// readPINLine reads a PIN without echo; a timeout or ^C/^D is a failure.
func readPINLine(t *terminal, prompt string, timeout time.Duration) (string, error) {
	p, err := t.readLine(prompt, false, timeout)
	switch {
	case errors.Is(err, errAnswerTimeout):
		return "", failf([]string{"nothing was changed; run the command again and type the PIN"}, "no PIN typed within %s", shortDuration(timeout))
	case errors.Is(err, errInterrupted), errors.Is(err, io.EOF):
		return "", failf([]string{"nothing was changed"}, "cancelled")
	case err != nil:
		return "", failf(nil, "read PIN: %v", err)
	}
	return p, nil
}

// readNewPIN asks for a new PIN twice, refusing a weak one before asking
// for the repeat. A weak PIN or two that differ ask again, up to tries
// rounds in all; the last one fails with a hint to run retry.
func readNewPIN(t *terminal, prompt, again string, timeout time.Duration, retry string, tries int) (string, error) {
	weakHint := fmt.Sprintf("use at least %d characters, not one repeated, a sequence like 123456, a pattern like 121212 or a common PIN", pin.MinLength)
	for round := 1; ; round++ {
		last := round >= tries
		p, err := readPINLine(t, prompt, timeout)
		if err != nil {
			return "", err
		}
		if err := pin.Validate(p); err != nil {
			if last {
				return "", failf([]string{weakHint, fmt.Sprintf("run '%s' again", retry)}, "%v", err)
			}
			t.say("  %v: %s. Try again.\n", err, weakHint)
			continue
		}
		q, err := readPINLine(t, again, timeout)
		if err != nil {
			return "", err
		}
		if p != q {
			if last {
				return "", failf([]string{fmt.Sprintf("run '%s' again", retry)}, "the two PINs differ")
			}
			t.say("  The two PINs differ. Try again.\n")
			continue
		}
		return p, nil
	}
}

// pinError is guard's error for a failed pin.Verify in the pin commands.
func pinError(err error) error {
	var le *pin.LockedError
	switch {
	case errors.As(err, &le):
		return lockedError(exitGuardFailed, le.Until)
	case errors.Is(err, pin.ErrNoPIN):
		return noPINError(exitGuardFailed)
	}
	return failf(nil, "%v", err) // wrong PIN (n attempts left), or I/O
}
