package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Errors for a command that could not be started. The error Run
// returns wraps one of them and reads "NAME: command not found".
var (
	ErrNotFound      = errors.New("command not found")
	ErrNotExecutable = errors.New("cannot execute")
)

// Result is the outcome of a run.
type Result struct {
	// Started reports whether the command was executed.
	Started bool
	// ExitCode is the command's exit status, 128+N when signal N killed
	// it. When the command was not started it is 127 (not found), 126
	// (not executable) or 125 (guard failed).
	ExitCode int
	// Signal is the signal that killed the command, or 0.
	Signal syscall.Signal
	// Violations are the changes made to protected paths, already
	// restored where possible. Any violation must fail the run.
	Violations []Violation
	// Grants is what the command was allowed, for hints.
	Grants Grants
	// Degraded lists what was not enforced on this kernel (empty when
	// the sandbox is complete). The caller must warn about each.
	Degraded []string
	// DroppedEnv lists the environment variables not passed on.
	DroppedEnv []string
	// Denials are stderr lines that mention a denial ("Permission
	// denied", "Operation not permitted", "Invalid cross-device link"),
	// when stderr was watched.
	Denials []string
}

// forwarded are the signals guard passes on to the command's process
// group instead of acting on them itself.
var forwarded = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGWINCH, syscall.SIGUSR1, syscall.SIGUSR2,
	syscall.SIGTSTP, syscall.SIGCONT,
}

// killDelay is how long a cancelled run gets between SIGTERM and SIGKILL.
const killDelay = 3 * time.Second

// Run runs argv confined by spec and waits for it. It returns an error
// when the command could not be run (bad spec, setup failure, not
// found); the command's own failure is its ExitCode, not an error.
// Cancelling ctx sends SIGTERM to the command's process group, then
// SIGKILL.
func Run(ctx context.Context, spec Spec, argv []string, stdio Stdio) (Result, error) {
	res := Result{ExitCode: codeFailed}
	if len(argv) == 0 || argv[0] == "" {
		return res, errors.New("no command to run")
	}
	s, err := spec.validate()
	if err != nil {
		return res, err
	}
	sup := probe()
	res.Degraded = sup.Gaps(s.Net)
	if s.Require && len(res.Degraded) > 0 {
		return res, fmt.Errorf("%w: %s", ErrNotEnforced, strings.Join(res.Degraded, "; "))
	}

	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env, res.DroppedEnv = filterEnv(env, s.KeepEnv)
	tmp := ""
	if s.Write {
		tmp, err = os.MkdirTemp("/tmp", "guard-run-")
		if err != nil {
			return res, fmt.Errorf("create private temp dir: %w", err)
		}
		defer removeAll(tmp)
		env = setEnv(env, "TMPDIR", tmp)
	}

	gs, err := buildGrants(s, terminals(stdio), tmp)
	if err != nil {
		return res, err
	}
	res.Grants = gs.grants
	p := plan{Format: planFormat, Argv: argv, Env: env, Rules: gs.rules}
	if sup.ABI > 0 {
		p.Landlock = true
		p.HandledFS, p.HandledNet, p.Scoped = handled(sup.ABI, s.Net)
	}
	if sup.Seccomp {
		if p.Filter, err = seccompProgram(s.Net); err != nil {
			return res, err
		}
	}

	snap := takeSnapshot(s.res, protectRoots(s, gs.grants.Write))
	defer snap.close()

	st, ps, denials, err := start(ctx, helperPath(), p, s.Dir, stdio)
	if err == nil && st != nil && st.Stale {
		// A guard-sandbox-exec from another build: run as before it
		// existed, re-executing guard itself.
		st, ps, denials, err = start(ctx, selfExe, p, s.Dir, stdio)
	}
	res.Denials = denials
	res.Violations = snap.check()
	if err != nil {
		return res, err
	}
	if st != nil {
		res.ExitCode = st.Code
		switch st.Code {
		case codeNotFound:
			return res, fmt.Errorf("%s: %w", st.Name, ErrNotFound)
		case codeNotExecutable:
			return res, fmt.Errorf("%s: %w: %s", st.Name, ErrNotExecutable, st.Err)
		}
		return res, fmt.Errorf("sandbox setup: %s", st.Err)
	}
	res.Started = true
	ws := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(res.Signal)
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	return res, nil
}

// handled sizes the Landlock ruleset to the kernel's ABI: every
// filesystem right it knows is handled (so denied unless granted), TCP
// bind always and TCP connect without net, both scopes.
func handled(abi int, net bool) (fsSet, netSet, scoped uint64) {
	if abi >= 1 {
		fsSet = 1<<13 - 1
	}
	if abi >= 2 {
		fsSet |= ll.AccessFSRefer
	}
	if abi >= 3 {
		fsSet |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		fsSet |= ll.AccessFSIoctlDev
	}
	if abi >= 9 {
		fsSet |= ll.AccessFSResolveUnix
	}
	if abi >= 4 {
		netSet = ll.AccessNetBindTCP
		if !net {
			netSet |= ll.AccessNetConnectTCP
		}
	}
	if abi >= 10 && !net {
		netSet |= ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP
	}
	if abi >= 6 {
		scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return fsSet, netSet, scoped
}

// start runs the helper with the plan and waits for the command. It
// returns the helper's status when the command was not executed, or the
// command's process state.
func start(ctx context.Context, helper string, p plan, dir string, stdio Stdio) (*status, *os.ProcessState, []string, error) {
	planR, planW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	defer planR.Close()
	defer planW.Close()
	statR, statW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	defer statR.Close()
	defer statW.Close()

	cmd := &exec.Cmd{
		Path:       helper,
		Args:       []string{"guard-sandbox", p.Argv[0]},
		Env:        []string{helperEnv + "=1"},
		Dir:        dir,
		Stdin:      stdio.In,
		Stdout:     stdio.Out,
		Stderr:     stdio.Err,
		ExtraFiles: []*os.File{planR, statW},
		// A background process that keeps a stdio pipe open must not
		// keep guard waiting once the group is gone.
		WaitDelay: time.Second,
		// No parent-death signal: should guard die, the helper must
		// live on to kill what the command started (watcher.go); the
		// plan pipe's EOF tells it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	var watcher *denialWatcher
	if stdio.WatchErr && stdio.Err != nil && !visibleInterposition(stdio) {
		watcher = &denialWatcher{w: stdio.Err}
		cmd.Stderr = watcher
	}
	tty := terminalFD(stdio)
	if tty >= 0 {
		if foreground(tty, unix.Getpgrp()) {
			cmd.SysProcAttr.Foreground = true
			cmd.SysProcAttr.Ctty = tty
		}
		// Moving the terminal between guard's group and the
		// command's is done from the background: SIGTTOU would stop
		// guard.
		signal.Ignore(syscall.SIGTTOU)
		defer signal.Reset(syscall.SIGTTOU)
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)

	if err := becomeSubreaper(); err != nil {
		return nil, nil, nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spawnMu.Lock()
	before, err := children()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		spawnMu.Unlock()
		return nil, nil, nil, fmt.Errorf("start sandbox helper: %w", err)
	}
	pid := cmd.Process.Pid
	helpers[pid] = true
	spawnMu.Unlock()
	defer func() {
		spawnMu.Lock()
		delete(helpers, pid)
		spawnMu.Unlock()
	}()
	planR.Close()
	statW.Close()
	defer func() {
		if tty >= 0 && foreground(tty, pid) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
		}
	}()

	done := make(chan struct{})
	defer close(done)
	go relay(ctx, pid, sigs, done)

	// planW stays open until the run is over: it is the helper's
	// lifeline, whose EOF means guard is gone.
	encErr := json.NewEncoder(planW).Encode(p)
	st, stErr := readStatus(statR)

	waitExit(pid, tty)
	// Whatever the command left running goes with it: its group, and
	// every descendant that left the group (guard is their subreaper).
	syscall.Kill(-pid, syscall.SIGKILL)
	_, reapErr := reapDescendants(pid, before)
	waitErr := cmd.Wait()
	var denials []string
	if watcher != nil {
		denials = watcher.denials()
	}
	if reapErr != nil {
		return nil, nil, denials, reapErr
	}
	if st != nil {
		return st, nil, denials, nil
	}
	if stErr != nil {
		return nil, nil, denials, stErr
	}
	if encErr != nil {
		return nil, nil, denials, fmt.Errorf("send sandbox plan: %w", encErr)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return nil, nil, denials, fmt.Errorf("wait for command: %w", waitErr)
	}
	return nil, cmd.ProcessState, denials, nil
}

// relay forwards guard's signals to the command's process group and
// turns a cancelled ctx into SIGTERM, then SIGKILL.
func relay(ctx context.Context, pid int, sigs <-chan os.Signal, done <-chan struct{}) {
	var kill <-chan time.Time
	cancelled := ctx.Done()
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			syscall.Kill(-pid, sig.(syscall.Signal))
		case <-cancelled:
			cancelled = nil
			syscall.Kill(-pid, syscall.SIGTERM)
			kill = time.After(killDelay)
		case <-kill:
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

// waitExit blocks until the command has exited, without reaping it
// (cmd.Wait does). When the command stops (^Z, or reading the terminal
// from the background) and its stdio has a terminal, guard stops too,
// as a shell's job would, taking the terminal back if the command had
// it. When guard is continued in the foreground (fg), it hands the
// terminal to the command; either way it continues the command.
func waitExit(pid, tty int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || info.Code != cldStopped {
			return
		}
		// Consume the stop so the next wait blocks.
		unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		if tty < 0 {
			continue
		}
		if foreground(tty, pid) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
		}
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		// Continued.
		if foreground(tty, unix.Getpgrp()) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pid)
		}
		syscall.Kill(-pid, syscall.SIGCONT)
	}
}

// terminals lists the terminal devices among the child's stdio, which
// it may reopen (and use ioctl on).
func terminals(stdio Stdio) []string {
	var out []string
	for _, f := range stdioFiles(stdio) {
		if !isTerminal(f) {
			continue
		}
		name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err == nil && strings.HasPrefix(name, "/dev/") && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// terminalFD returns the descriptor of the first terminal among the
// stdio, or -1. When guard's group is in its foreground, the command's
// group is put there instead, so ^C and ^Z reach it directly.
func terminalFD(stdio Stdio) int {
	for _, f := range stdioFiles(stdio) {
		if isTerminal(f) {
			return int(f.Fd())
		}
	}
	return -1
}

// foreground reports whether process group pgid owns the terminal.
func foreground(tty, pgid int) bool {
	pg, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP)
	return err == nil && pg == pgid
}

// visibleInterposition reports whether putting a pipe between the
// child's stderr and its destination would change what the user sees:
// a terminal stays a terminal, and 2>&1 keeps its interleaving.
func visibleInterposition(stdio Stdio) bool {
	ef, ok := stdio.Err.(*os.File)
	if !ok {
		return false
	}
	if isTerminal(ef) {
		return true
	}
	of, ok := stdio.Out.(*os.File)
	if !ok {
		return false
	}
	var a, b unix.Stat_t
	if unix.Fstat(int(ef.Fd()), &a) != nil || unix.Fstat(int(of.Fd()), &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

func stdioFiles(stdio Stdio) []*os.File {
	var out []*os.File
	for _, x := range []any{stdio.In, stdio.Out, stdio.Err} {
		if f, ok := x.(*os.File); ok && f != nil {
			out = append(out, f)
		}
	}
	return out
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// cldStopped is siginfo's si_code for a stopped child (CLD_STOPPED).
const cldStopped = 5

// probe is Probe, replaceable in tests that simulate a weaker kernel.
var probe = Probe
