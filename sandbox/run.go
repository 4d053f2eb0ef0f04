package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/guard-sh/guard/sandbox/confine"
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
	// The helper starts first: its start (a process and a Go runtime)
	// then runs alongside the validation, the grants and the snapshot.
	// It does nothing before it has a plan.
	dir := spec.Dir
	if dir == "" {
		dir = filepath.Clean(spec.Workspace)
	}
	l, lerr := launch(ctx, helperPath(), argv[0], dir, stdio)
	s, err := spec.validate()
	sup := probe()
	if err == nil {
		res.Degraded = sup.Gaps(s.Net)
		if s.Require && len(res.Degraded) > 0 {
			err = fmt.Errorf("%w: %s", ErrNotEnforced, strings.Join(res.Degraded, "; "))
		}
	}
	if err != nil {
		if lerr == nil {
			l.finish(nil)
		}
		return res, err
	}
	if lerr != nil {
		return res, lerr
	}
	p, tmp, snap, err := prepare(s, sup, argv, stdio, &res)
	if tmp != "" {
		defer removeAll(tmp)
	}
	if err != nil {
		l.finish(nil)
		return res, err
	}
	defer snap.close()

	st, ps, denials, err := l.finish(p)
	if err == nil && st != nil && st.Stale {
		// A guard-sandbox-exec from another build: run as before it
		// existed, re-executing guard itself.
		if l, err = launch(ctx, selfExe, argv[0], s.Dir, stdio); err == nil {
			st, ps, denials, err = l.finish(p)
		}
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

// prepare computes the plan (and the private temp dir, to remove once
// the run is over, even on error) and takes the snapshot of the
// protected paths, filling res's grants and dropped variables.
func prepare(s Spec, sup Support, argv []string, stdio Stdio, res *Result) (p *confine.Plan, tmp string, snap *snapshot, err error) {
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env, res.DroppedEnv = filterEnv(env, s.KeepEnv)
	if s.Write {
		tmp, err = os.MkdirTemp("/tmp", "guard-run-")
		if err != nil {
			return nil, "", nil, fmt.Errorf("create private temp dir: %w", err)
		}
		env = setEnv(env, "TMPDIR", tmp)
	}
	gs, err := buildGrants(s, terminals(stdio), tmp)
	if err != nil {
		return nil, tmp, nil, err
	}
	res.Grants = gs.grants
	p = &confine.Plan{Argv: argv, Env: env, Rules: make([]confine.Rule, len(gs.rules))}
	for i, r := range gs.rules {
		p.Rules[i] = confine.Rule{Path: r.Path, Access: r.Access}
	}
	if sup.ABI > 0 {
		p.Landlock = true
		p.HandledFS, p.HandledNet, p.Scoped = handled(sup.ABI, s.Net)
	}
	if sup.Seccomp {
		if p.Filter, err = seccompProgram(s.Net); err != nil {
			return nil, tmp, nil, err
		}
	}
	snap = takeSnapshot(s.res, protectRoots(s, gs.grants.Write))
	return p, tmp, snap, nil
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

// launched is a helper started and waiting for its plan. guard starts
// it before computing the plan, so the helper's own start (a process
// and a Go runtime) runs alongside the grants and the snapshot.
type launched struct {
	cmd     *exec.Cmd
	pid     int
	planW   *os.File
	statR   *os.File
	tty     int
	before  []int // guard's children before the helper
	watcher *denialWatcher
	// undo are the steps that put guard back as it was, run last
	// first.
	undo []func()
}

// launch starts the helper in dir with stdio; name is the command's,
// for the helper's argv (ps shows it). finish must follow.
func launch(ctx context.Context, helper, name, dir string, stdio Stdio) (*launched, error) {
	l := &launched{tty: -1}
	ok := false
	defer func() {
		if !ok {
			l.cleanup()
		}
	}()
	planR, planW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	l.planW = planW
	l.undo = append(l.undo, func() { planR.Close(); planW.Close() })
	statR, statW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	l.statR = statR
	l.undo = append(l.undo, func() { statR.Close(); statW.Close() })

	cmd := &exec.Cmd{
		Path:       helper,
		Args:       []string{"guard-sandbox", name},
		Env:        []string{confine.Env + "=1"},
		Dir:        dir,
		Stdin:      stdio.In,
		Stdout:     stdio.Out,
		Stderr:     stdio.Err,
		ExtraFiles: []*os.File{planR, statW},
		// A background process that keeps a stdio pipe open must not
		// keep guard waiting once the group is gone.
		WaitDelay: time.Second,
		// No parent-death signal: should guard die, the helper must
		// live on to kill what the command started (confine/watch.go);
		// the plan pipe's EOF tells it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	l.cmd = cmd
	if stdio.WatchErr && stdio.Err != nil && !visibleInterposition(stdio) {
		l.watcher = &denialWatcher{w: stdio.Err}
		cmd.Stderr = l.watcher
	}
	l.tty = terminalFD(stdio)
	if l.tty >= 0 {
		if foreground(l.tty, unix.Getpgrp()) {
			cmd.SysProcAttr.Foreground = true
			cmd.SysProcAttr.Ctty = l.tty
		}
		// Moving the terminal between guard's group and the
		// command's is done from the background: SIGTTOU would stop
		// guard.
		signal.Ignore(syscall.SIGTTOU)
		l.undo = append(l.undo, func() { signal.Reset(syscall.SIGTTOU) })
	}

	// Registering the signals to relay (the first time, a goroutine
	// and a thread of the runtime's) runs alongside the helper's
	// start. A signal before it takes effect acts on guard as without
	// guard's handling: the helper, which has no plan yet, sees its
	// lifeline end and exits; nothing has run.
	sigs := make(chan os.Signal, 8)
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigs, confine.Forwarded...)
		close(notified)
	}()
	l.undo = append(l.undo, func() {
		<-notified
		signal.Stop(sigs)
	})

	if err := becomeSubreaper(); err != nil {
		return nil, err
	}
	spawnMu.Lock()
	l.before, err = confine.Children()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		spawnMu.Unlock()
		return nil, fmt.Errorf("start sandbox helper: %w", err)
	}
	pid := cmd.Process.Pid
	l.pid = pid
	helpers[pid] = true
	spawnMu.Unlock()
	l.undo = append(l.undo, func() {
		spawnMu.Lock()
		delete(helpers, pid)
		spawnMu.Unlock()
	})
	planR.Close()
	statW.Close()
	if l.tty >= 0 {
		tty := l.tty
		l.undo = append(l.undo, func() {
			if foreground(tty, pid) {
				unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
			}
		})
	}
	done := make(chan struct{})
	l.undo = append(l.undo, func() { close(done) })
	go relay(ctx, pid, sigs, done)
	ok = true
	return l, nil
}

// cleanup undoes what launch did, last step first.
func (l *launched) cleanup() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		l.undo[i]()
	}
	l.undo = nil
}

// finish sends the plan (nil: none, the helper gives up), waits for the
// command and everything it started, and puts guard back. It returns
// the helper's status when the command was not executed, or the
// command's process state.
func (l *launched) finish(p *confine.Plan) (*status, *os.ProcessState, []string, error) {
	defer l.cleanup()
	// planW stays open until the run is over: it is the helper's
	// lifeline, whose EOF means guard is gone.
	var encErr error
	if p != nil {
		_, encErr = l.planW.Write(p.Encode())
	} else {
		l.planW.Close()
	}
	st, stErr := readStatus(l.statR)

	waitExit(l.pid, l.tty)
	// Whatever the command left running goes with it: its group, and
	// every descendant that left the group (guard is their subreaper).
	syscall.Kill(-l.pid, syscall.SIGKILL)
	_, reapErr := reapDescendants(l.pid, l.before)
	waitErr := l.cmd.Wait()
	var denials []string
	if l.watcher != nil {
		denials = l.watcher.denials()
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
	return nil, l.cmd.ProcessState, denials, nil
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
	for confine.WaitStop(pid) {
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

// probe is Probe, replaceable in tests that simulate a weaker kernel.
var probe = Probe
