package main

import (
	"errors"
	"fmt"
	printablepkg "github.com/guard-sh/guard/internal/printable"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/review"
)

// ttyPath names the terminal device prompts open. The test binary points
// it at a pseudo-terminal (testhooks_test.go); the shipped binary always
// opens /dev/tty and reads no variable for it.
var ttyPath = func() string { return "/dev/tty" }

// flushTypeAhead drops pending terminal input before each question. The
// test binary turns it off only for testscript's ttyin, which types every
// answer before the first question is asked.
var flushTypeAhead = true

// defaultAnswerTimeout is how long a prompt waits for each answer.
const defaultAnswerTimeout = 60 * time.Second

// defaultPINTries is how many PINs one consent prompt accepts before it
// gives up (each wrong one still counts towards the lockout).
const defaultPINTries = 3

var (
	// errNoTerminal: there is no terminal to ask on.
	errNoTerminal = errors.New("no terminal to ask on")
	// errAnswerTimeout: nobody answered in time.
	errAnswerTimeout = errors.New("no answer in time")
	// errInterrupted: ^C, or a signal, while asking.
	errInterrupted = errors.New("interrupted")
)

// terminal is the user's terminal: /dev/tty. Prompts and
// PIN entry use it and never stdin or stdout, which belong to the command
// and to machine output.
//
// While it is open, the terminal is in canonical mode with echo and
// output processing, whatever mode an agent's UI left it in, and ^C,
// SIGTERM, SIGHUP and SIGQUIT do not kill guard: they end the prompt as
// a refusal. Close puts the terminal's mode back and lets signals act
// again, so close it before running the command.
type terminal struct {
	f     *os.File
	color bool
	saved *term.State

	sigc         chan os.Signal
	done, exited chan struct{}
	mu           sync.Mutex
	interrupted  bool  // a signal came; every read from now on fails
	why          error // why the current read was cut short
}

// openTerminal opens the user's terminal. It fails (wrapping
// errNoTerminal) when there is none, when the device is not a terminal,
// and when guard is not in the terminal's foreground process group (a
// read would stop guard with SIGTTIN and hang the agent that started it).
func openTerminal() (*terminal, error) {
	name := ttyPath()
	f, err := os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %v", errNoTerminal, name, unwrapPath(err))
	}
	t := &terminal{f: f, color: colorAllowed()}
	var isTTY bool
	var fg, modeErr error
	if err := control(f, func(fd int) {
		if isTTY = term.IsTerminal(fd); !isTTY {
			return
		}
		if fg = checkForeground(fd); fg != nil {
			return
		}
		if t.saved, modeErr = term.GetState(fd); modeErr == nil {
			modeErr = setLineMode(fd, true)
		}
	}); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", errNoTerminal, name, err)
	}
	switch {
	case !isTTY:
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a terminal", errNoTerminal, name)
	case fg != nil:
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", errNoTerminal, name, fg)
	case modeErr != nil:
		if t.saved != nil {
			control(f, func(fd int) { term.Restore(fd, t.saved) })
		}
		f.Close()
		return nil, fmt.Errorf("%w: %s: set mode: %v", errNoTerminal, name, modeErr)
	}
	t.sigc = make(chan os.Signal, 1)
	t.done, t.exited = make(chan struct{}), make(chan struct{})
	signal.Notify(t.sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go t.watchSignals()
	return t, nil
}

// watchSignals turns a signal into the end of the current and every later
// read, so the terminal's mode is always put back by Close.
func (t *terminal) watchSignals() {
	defer close(t.exited)
	select {
	case <-t.sigc:
		t.mu.Lock()
		t.interrupted = true
		t.mu.Unlock()
		t.f.SetReadDeadline(time.Unix(1, 0))
	case <-t.done:
	}
}

// Close restores the terminal's mode and the default signal handling.
func (t *terminal) Close() error {
	signal.Stop(t.sigc)
	close(t.done)
	<-t.exited
	control(t.f, func(fd int) { term.Restore(fd, t.saved) })
	return t.f.Close()
}

// unwrapPath drops the path from an *fs.PathError, which the caller
// names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkForeground fails when fd is guard's controlling terminal and guard
// is not in its foreground process group. A terminal that is not the
// controlling one (ENOTTY) is fine: job control does not apply to it.
func checkForeground(fd int) error {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil {
		return nil
	}
	if pgrp != unix.Getpgrp() {
		return errors.New("guard is not in the terminal's foreground process group")
	}
	return nil
}

// colorAllowed honours NO_COLOR and TERM=dumb.
func colorAllowed() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	t := os.Getenv("TERM")
	return t != "" && t != "dumb"
}

// say writes text to the terminal.
func (t *terminal) say(format string, args ...any) {
	fmt.Fprintf(t.f, format, args...)
}

// bold wraps s in bold when colour is allowed.
func (t *terminal) bold(s string) string {
	if !t.color {
		return s
	}
	return "\x1b[1m" + s + "\x1b[0m"
}

// control runs fn with f's descriptor without switching it to blocking
// mode (as Fd would), so deadlines keep working for reads.
func control(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// readLine shows prompt and reads one line, with the kernel's line
// editing, within timeout. With echo false, what is typed is not shown
// (echo comes back before readLine returns). ^D gives io.EOF, a signal
// errInterrupted, the timeout errAnswerTimeout.
func (t *terminal) readLine(prompt string, echo bool, timeout time.Duration) (string, error) {
	if timeout <= 0 {
		timeout = defaultAnswerTimeout
	}
	if !echo {
		var modeErr error
		control(t.f, func(fd int) { modeErr = setLineMode(fd, false) })
		if modeErr != nil {
			return "", fmt.Errorf("turn off terminal echo: %w", modeErr)
		}
		defer control(t.f, func(fd int) { setLineMode(fd, true) })
	}

	// The timer ends the read by moving its deadline into the past. It
	// may not outlive this call: a late one would cut the next read short.
	t.mu.Lock()
	t.why = nil
	t.mu.Unlock()
	t.f.SetReadDeadline(time.Time{})
	fired := make(chan struct{})
	timer := time.AfterFunc(timeout, func() {
		t.mu.Lock()
		t.why = errAnswerTimeout
		t.mu.Unlock()
		t.f.SetReadDeadline(time.Unix(1, 0))
		close(fired)
	})
	defer func() {
		if !timer.Stop() {
			<-fired
		}
	}()
	// A signal before the deadline was reset above must still count.
	t.mu.Lock()
	interrupted := t.interrupted
	t.mu.Unlock()
	if interrupted {
		return "", errInterrupted
	}

	if flushTypeAhead {
		// Input typed (or pushed with TIOCSTI) before the question was
		// asked is not an answer to it: drop it, so a "y" queued by a
		// program cannot approve what it has not seen.
		control(t.f, func(fd int) { unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) })
	}
	t.say("%s", prompt)
	var line []byte
	buf := make([]byte, 256)
	for {
		n, err := t.f.Read(buf)
		line = append(line, buf[:n]...)
		if i := strings.IndexByte(string(line), '\n'); i >= 0 {
			return strings.TrimRight(string(line[:i]), "\r"), nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.mu.Lock()
				switch {
				case t.interrupted:
					err = errInterrupted
				case t.why != nil:
					err = t.why
				}
				t.mu.Unlock()
			}
			t.say("\n")
			return "", err
		}
		if len(line) > 4096 {
			return "", errors.New("answer too long")
		}
	}
}

// setLineMode puts the terminal in canonical mode with signals, CR→NL and
// output processing, whatever mode the agent's own UI left it in; echo
// on or off. With echo off, the newline is still echoed (ECHONL).
func setLineMode(fd int, echo bool) error {
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Lflag |= unix.ICANON | unix.ISIG | unix.IEXTEN
	if echo {
		tio.Lflag |= unix.ECHO | unix.ECHOE | unix.ECHOK
	} else {
		tio.Lflag &^= unix.ECHO | unix.ECHOE | unix.ECHOK
		tio.Lflag |= unix.ECHONL
	}
	tio.Iflag |= unix.ICRNL
	tio.Iflag &^= unix.INLCR | unix.IGNCR
	tio.Oflag |= unix.OPOST | unix.ONLCR
	return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
}

// consentResult is how a consent prompt ended.
type consentResult int

const (
	// consentApproved: yes, and for C the right PIN.
	consentApproved consentResult = iota + 1
	// consentRefused: no, an empty answer, ^D or ^C.
	consentRefused
	// consentTimedOut: no answer within the timeout.
	consentTimedOut
	// consentWrongPIN: yes, but every PIN tried was wrong.
	consentWrongPIN
	// consentLockedOut: PIN entry is locked after too many failures.
	consentLockedOut
	// consentNoPIN: a C command, and no PIN has been set.
	consentNoPIN
	// consentSkipped: left for later (only when consent.allowSkip).
	consentSkipped
)

func (r consentResult) String() string {
	switch r {
	case consentApproved:
		return "approved"
	case consentRefused:
		return "refused"
	case consentTimedOut:
		return "timed out"
	case consentWrongPIN:
		return "wrong PIN"
	case consentLockedOut:
		return "locked out"
	case consentNoPIN:
		return "no PIN"
	case consentSkipped:
		return "skipped"
	}
	return fmt.Sprintf("consentResult(%d)", int(r))
}

// consent is what the run path, `guard approve` and `guard review` ask.
type consent struct {
	// level is B (consent) or C (consent and PIN).
	level review.Level
	// explanation is shown before the question.
	explanation string
	// details (the full profile) is shown when the answer is ? or e.
	details string
	// question defaults to "Run this?".
	question string
	// auditHead is the audit log's head hash, shown before the PIN
	// prompt so the user notices a log that was cut or replaced.
	auditHead string
	// timeout is per answer; zero means 60 s. It is a refusal.
	timeout time.Duration
	// pinTries is how many PINs to accept; zero means 3.
	pinTries int
	// pins checks the PIN for C. Required for C.
	pins *pin.Store
	// allowSkip makes an empty answer "skip" rather than "no" ([y/n/S]).
	allowSkip bool
}

// consentOutcome is the typed result of askConsent.
type consentOutcome struct {
	result consentResult
	// timeout is the timeout that applied (for the message).
	timeout time.Duration
	// lockedUntil is set for consentLockedOut.
	lockedUntil time.Time
	// remaining is the attempts left before a lockout, after wrong PINs.
	remaining int
}

// askConsent asks on t whether to go ahead, and for C the PIN. It never
// writes to stdout. The error is for a terminal that failed; every
// decision, including a timeout, is an outcome.
func askConsent(t *terminal, c consent) (consentOutcome, error) {
	out := consentOutcome{timeout: c.timeout}
	if out.timeout <= 0 {
		out.timeout = defaultAnswerTimeout
	}
	if c.level != review.B && c.level != review.C {
		// A never asks; a policy denial can never be consented to.
		return out, fmt.Errorf("askConsent: level %v is not for consent", c.level)
	}
	if c.level == review.C {
		if c.pins == nil {
			return out, errors.New("askConsent: level C without a PIN store")
		}
		// Do not ask for a consent that cannot be completed.
		info, err := c.pins.Status()
		if err != nil {
			return out, err
		}
		if !info.Set {
			out.result = consentNoPIN
			return out, nil
		}
		if !info.LockedUntil.IsZero() {
			out.result, out.lockedUntil = consentLockedOut, info.LockedUntil
			return out, nil
		}
	}

	if c.explanation != "" {
		t.say("%s\n", printable(strings.TrimRight(c.explanation, "\n"), true))
	}
	q := c.question
	if q == "" {
		q = "Run this?"
	}
	choices := "[y/N]"
	if c.allowSkip {
		choices = "[y/n/S]"
	}
	if c.level == review.C {
		q = fmt.Sprintf("%s (level C: consent and PIN)", q)
	}
	for {
		ans, err := t.readLine(t.bold(q+" "+choices)+" ", true, out.timeout)
		switch {
		case errors.Is(err, errAnswerTimeout):
			out.result = consentTimedOut
			return out, nil
		case errors.Is(err, errInterrupted), errors.Is(err, io.EOF):
			out.result = consentRefused
			return out, nil
		case err != nil:
			return out, err
		}
		switch strings.ToLower(strings.TrimSpace(ans)) {
		case "y", "yes":
			// Consent: leave the loop, on to the PIN for C.
		case "?", "e", "explain", "details":
			if c.details == "" {
				t.say("(no details)\n")
			} else {
				t.say("%s\n", printable(strings.TrimRight(c.details, "\n"), true))
			}
			continue
		case "", "s", "skip":
			if c.allowSkip {
				out.result = consentSkipped
				return out, nil
			}
			out.result = consentRefused
			return out, nil
		default:
			out.result = consentRefused
			return out, nil
		}
		break
	}
	if c.level == review.B {
		out.result = consentApproved
		return out, nil
	}
	return askPIN(t, c, out)
}

// askPIN is the second half of a C consent: the PIN, without echo.
func askPIN(t *terminal, c consent, out consentOutcome) (consentOutcome, error) {
	if c.auditHead != "" {
		t.say("audit head: %s\n", shortHash(c.auditHead))
	}
	tries := c.pinTries
	if tries <= 0 {
		tries = defaultPINTries
	}
	for range tries {
		p, err := t.readLine("PIN: ", false, out.timeout)
		switch {
		case errors.Is(err, errAnswerTimeout):
			out.result = consentTimedOut
			return out, nil
		case errors.Is(err, errInterrupted), errors.Is(err, io.EOF):
			out.result = consentRefused
			return out, nil
		case err != nil:
			return out, err
		}
		err = c.pins.Verify(p)
		var we *pin.WrongError
		var le *pin.LockedError
		switch {
		case err == nil:
			out.result = consentApproved
			return out, nil
		case errors.As(err, &we):
			out.remaining = we.Remaining
			t.say("%s\n", we.Error())
		case errors.As(err, &le):
			out.result, out.lockedUntil = consentLockedOut, le.Until
			t.say("too many wrong PINs; PIN entry is locked until %s\n", clock(le.Until))
			return out, nil
		case errors.Is(err, pin.ErrNoPIN):
			out.result = consentNoPIN
			return out, nil
		default:
			return out, err
		}
	}
	out.result = consentWrongPIN
	return out, nil
}

// auditDecision is the audit record's decision for an outcome at level.
func (o consentOutcome) auditDecision(level review.Level) audit.Decision {
	switch o.result {
	case consentApproved:
		if level >= review.C {
			return audit.ApprovedPIN
		}
		return audit.ApprovedTTY
	case consentTimedOut:
		return audit.TimedOut
	case consentWrongPIN, consentLockedOut, consentNoPIN:
		return audit.DeniedPIN
	}
	return audit.Refused
}

// consentFailure is guard's error for an outcome other than approved:
// exit 126 (not run / not approved) with what to do next.
func consentFailure(o consentOutcome) error {
	switch o.result {
	case consentTimedOut:
		return &exitError{code: exitNotRun, err: fmt.Errorf("no answer within %s; not approved", shortDuration(o.timeout))}
	case consentWrongPIN:
		return &exitError{code: exitNotRun, err: errors.New("wrong PIN; not approved"),
			hints: []string{fmt.Sprintf("%d more wrong PINs lock PIN entry for %s", o.remaining, shortDuration(pin.DefaultLimits.Lockout))}}
	case consentLockedOut:
		return lockedError(exitNotRun, o.lockedUntil)
	case consentNoPIN:
		return noPINError(exitNotRun)
	}
	return &exitError{code: exitNotRun, err: errors.New("not approved")}
}

// noPINError is the failure for a C approval, or a PIN command, with no
// PIN set.
func noPINError(code int) error {
	return &exitError{code: code, err: pin.ErrNoPIN, hints: []string{"run 'guard pin set'"}}
}

// lockedError is the failure while PIN entry is locked.
func lockedError(code int, until time.Time) error {
	return &exitError{code: code, err: fmt.Errorf("PIN entry is locked until %s after too many wrong PINs", clock(until)),
		hints: []string{"wait until then; 'guard pin status' shows the lockout"}}
}

// noTerminalError is the failure of a command that must ask on a terminal.
func noTerminalError(err error, hint string) error {
	return &exitError{code: exitGuardFailed, err: err, hints: []string{hint}}
}

// printable makes text from a request safe to show on a terminal and in
// a CI log (internal/printable): control characters, invalid UTF-8 and
// bidirectional overrides escaped, no line starting a workflow command.
// Newlines are kept when multiline.
func printable(s string, multiline bool) string { return printablepkg.String(s, multiline) }

// shortHash abbreviates a hex hash for display: 3fa2b1c09d8e….
func shortHash(h string) string {
	if len(h) > 12 && strings.Trim(h, "0123456789abcdef") == "" {
		return h[:12] + "…"
	}
	return h
}

// clock renders a time for people, in local time.
func clock(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

// shortDuration renders a duration as people say it: 45s, 15m, 1h30m, 3d.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		if s := int(d.Seconds()) % 60; s != 0 && d < 10*time.Minute {
			return fmt.Sprintf("%dm%ds", int(d.Minutes()), s)
		}
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours())/24)
	}
	if m := int(d.Minutes()) % 60; m != 0 {
		return fmt.Sprintf("%dh%dm", int(d.Hours()), m)
	}
	return fmt.Sprintf("%dh", int(d.Hours()))
}

// auditHeadText is what the PIN prompt shows as the audit head: the hash,
// or why there is none.
func auditHeadText(head func() (string, error)) string {
	if head == nil {
		return "unavailable (no audit log)"
	}
	h, err := head()
	switch {
	case err != nil:
		return fmt.Sprintf("unavailable (%v)", err)
	case h == "":
		return "none (the log is empty)"
	}
	return h
}
