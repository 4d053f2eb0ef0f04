package confine

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Nothing the command starts may outlive guard, even a guard that is
// SIGKILLed (an agent's tool timeout does that): guard's own cleanup
// (sandbox/reap.go) never runs then. So the helper does not exec the command.
// Once confined it becomes the child subreaper, starts the command as
// its child (which inherits the Landlock domain, the seccomp filter and
// no_new_privs of the helper's thread) and stays as a small watcher:
//
//   - when the command exits, the watcher kills and reaps every
//     descendant left (orphans are its children, as subreaper), reports
//     the command's status to guard on the status pipe and exits with
//     it, dying of the same signal if a signal killed it;
//   - when the lifeline reads EOF, guard is gone: the watcher kills and
//     reaps the command and every descendant, and exits.
//
// The lifeline is the plan pipe: guard keeps its write end open until
// the run is over and it is close-on-exec in guard, so EOF means guard's
// process has ended. The read end is close-on-exec in the helper; the
// command never holds either end.
//
// The watcher stays in the command's process group, so the terminal's
// signals and guard's relayed ones reach both; it ignores them (they are
// for the command; see ignoreForwarded), and when the command stops it
// stops itself, so guard sees the stop and does its job control as
// before. It is not dumpable:
// processes of the same user cannot ptrace it or read its memory. What
// it cannot prevent: the command shares its Landlock domain and may
// SIGKILL it; then the command gets its parent-death signal and guard's
// own cleanup remains (see docs/threat-model.md).

// ScopeSignal is LANDLOCK_SCOPE_SIGNAL (linux/landlock.h, ABI 6), which
// golang.org/x/sys does not have yet.
const ScopeSignal = 1 << 1

// watched is the command, started by the helper.
type watched struct {
	pid int
	// killAll: kill(-1) reaches only the command's Landlock domain
	// (signal scoping), so it may end every process in it at once.
	killAll bool
	// tmp is the run's private temp dir (Plan.Tmp), absent the shared
	// temp dir's names absent before the run (Plan.Absent).
	tmp    string
	absent []string
	// unmounted: why the command runs without the plan's mounts.
	unmounted string
	// stops asks the main goroutine to stop the helper (helper): this
	// thread may not signal its own process, whose leader is outside
	// its Landlock domain.
	stops chan<- struct{}
	// slot is the main goroutine's watchdog, which killDescendants
	// spares (watchdogSlot).
	slot *watchdogSlot
}

// ignoreForwarded makes the helper survive the signals meant for the
// command (the group's, from the terminal or relayed by guard); the
// command must not start before. The command must get the default
// action for each, as it always did (guard handles and relays them, so
// it never passed an ignored one on), and without os/signal, whose
// first use starts two runtime threads and takes a round trip to one of
// them per signal:
//
//   - SIGUSR1, SIGUSR2 and SIGWINCH: Go catches them and does nothing;
//     SIGCONT's default continues. Nothing to do: the exec resets a
//     caught signal to its default.
//   - SIGTSTP, which Go leaves at its default (stop): it gets Go's own
//     handler, copied from SIGUSR1's, which does nothing with it (Go
//     does not count it as its own, so it forwards it to its default,
//     which for SIGTSTP is to do nothing); the exec resets it.
//   - SIGHUP, SIGINT, SIGTERM and SIGQUIT, which Go's handler would end
//     the helper for: ignored in the kernel, behind Go's back. Go still
//     counts them its own, so the fork of the command sets them back to
//     their default before the exec (syscall's fork does so for every
//     signal Go handles). One the helper inherited ignored (Go then
//     leaves SIGHUP and SIGINT alone, and would not set them back) is
//     handled through os/signal instead.
func ignoreForwarded() {
	var goHandler sigaction
	rtSigaction(syscall.SIGUSR1, nil, &goHandler)
	var inherited []os.Signal
	for _, s := range Forwarded {
		switch sig := s.(syscall.Signal); sig {
		case syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT:
		case syscall.SIGTSTP:
			rtSigaction(sig, &goHandler, nil)
		default:
			var old sigaction
			rtSigaction(sig, nil, &old)
			if old[0] == sigIgn {
				inherited = append(inherited, s)
				continue
			}
			rtSigaction(sig, &sigaction{sigIgn}, nil)
		}
	}
	if len(inherited) > 0 {
		// The channel is never read: a signal that finds it full is
		// dropped, which is all the helper wants done with it.
		signal.Notify(make(chan os.Signal, 1), inherited...)
	}
}

// sigaction is the kernel's struct sigaction on Linux (handler, flags,
// restorer, mask), copied whole; sigIgn is SIG_IGN.
type sigaction [4]uint64

const sigIgn = 1

// rtSigaction sets sig's action to act and stores the previous one in
// old (either may be nil).
func rtSigaction(sig syscall.Signal, act, old *sigaction) {
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), 8, 0, 0)
}

// startWatched makes the helper a subreaper and starts the command. It
// must run on the thread that confined itself.
func startWatched(path string, p *Plan) (*watched, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, errors.New("become child subreaper: " + err.Error())
	}
	// Not dumpable: ptrace, /proc/PID/mem, environ and pidfd_getfd
	// need CAP_SYS_PTRACE, and dying of a signal dumps no core. The
	// exec gives the command its own dumpable flag back.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, errors.New("make the sandbox helper undumpable: " + err.Error())
	}
	pid, err := syscall.ForkExec(path, p.Argv, &syscall.ProcAttr{
		Env:   p.Env,
		Files: []uintptr{0, 1, 2},
		// Should the command kill its watcher, it dies too.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return nil, err
	}
	return &watched{pid: pid, killAll: p.Landlock && p.Scoped&ScopeSignal != 0, tmp: p.Tmp, absent: p.Absent, unmounted: p.unmounted}, nil
}

// watch waits for the command or for guard's end, whichever is first,
// and returns the command's exit status (or dies of its signal). It runs
// on the confined thread, which waits for the command itself: Landlock's
// signal scoping lets kill(-1) there reach the command's domain only (a
// domain belongs to the thread that made it). A goroutine waits for the
// lifeline. The helper so keeps few threads, which it must start and,
// on the critical path, end.
func (w *watched) watch() (int, syscall.Signal) {
	var (
		mu     sync.Mutex
		gone   bool
		reaped bool // the pid may be another process's now
	)
	go func() {
		awaitGuard()
		mu.Lock()
		gone = true
		if !reaped {
			// This thread is outside the command's domain, which
			// scoping lets signal into it.
			unix.Kill(w.pid, unix.SIGKILL)
		}
		mu.Unlock()
	}()
	// When the command stops, the helper stops too (the main
	// goroutine sends the stop: this thread may not signal its own
	// process), so guard sees the stop; guard continues the helper at
	// once and does its job control as before, continuing the group
	// when the job is.
	for WaitStop(w.pid) {
		select {
		case w.stops <- struct{}{}:
		default: // a stop asked for already
		}
	}
	// No stop from now on: one asked for but not made yet is dropped.
	w.slot.finish()
	mu.Lock()
	reaped = true
	killed := gone
	mu.Unlock()
	var ws unix.WaitStatus
	var err error
	for {
		_, err = unix.Wait4(w.pid, &ws, 0, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	w.killDescendants()
	if killed {
		// Before the temp dir, whose removal tells that the helper is
		// done with the file system.
		for _, a := range w.absent {
			RemoveTree(a)
		}
	}
	if killed && w.tmp != "" {
		// guard is gone and cannot remove the private temp dir, which
		// would stay in /tmp with what the command wrote there: nothing
		// of the command is left to write it now. (Inside the
		// command's own grants: the temp dir is writable.)
		removeOwnTmp(w.tmp)
	}
	if err != nil || killed {
		// No report: guard takes the helper's own status.
		return CodeFailed, 0
	}
	// Everything is reaped: guard may check the protected paths and
	// write its record while this process exits. The helper writes
	// nothing more to the command's stdio: closing them first ends
	// guard's copy of stderr (sandbox.copyErr) with the report.
	unix.Close(0)
	unix.Close(1)
	unix.Close(2)
	if ws.Signaled() {
		report(128+int(ws.Signal()), ws.Signal(), w.unmounted)
		return 128 + int(ws.Signal()), ws.Signal()
	}
	report(ws.ExitStatus(), 0, w.unmounted)
	return ws.ExitStatus(), 0
}

// WaitStop blocks until child pid stops or exits. It reports true for a
// stop, which it consumes (the next call blocks), and false once the
// child has exited (or cannot be waited for), which it leaves to reap.
func WaitStop(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || info.Code != cldStopped {
			return false
		}
		unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		return true
	}
}

// awaitGuard returns when the lifeline reads EOF (or fails): guard is
// gone.
func awaitGuard() {
	var buf [64]byte
	for {
		n, err := unix.Read(PlanFD, buf[:])
		if n > 0 || errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			fds := []unix.PollFd{{Fd: PlanFD, Events: unix.POLLIN}}
			unix.Poll(fds, -1)
			continue
		}
		return
	}
}

// killDescendants kills and reaps every process the command started,
// and never the watchdog, which is the main goroutine's to kill and
// reap (watchdogSlot): no wait for any child here.
func (w *watched) killDescendants() {
	if w.killAll {
		// Every process in this thread's Landlock domain, the
		// command's (kill(-1) skips the helper itself, whose leader is
		// outside it anyway, and the watchdog, outside it too):
		// scoping refuses signals to processes outside it, so nothing
		// else is hit. It is one pass under the kernel's task list
		// lock, so a fork loop cannot outrun it; every process killed
		// is a descendant, so they all end up this subreaper's
		// children, and reaping until none is left reaps them all.
		unix.Kill(-1, unix.SIGKILL)
	}
	ReapChildren(w.slot.spared, &w.slot.mu)
}

// dieOfSignal ends the helper with sig, as the command ended: with the
// default action restored (Go handles most signals itself) and sig
// unblocked, sent to this thread. It returns if sig does not kill.
func dieOfSignal(sig syscall.Signal) {
	// struct sigaction all zero: SIG_DFL, no flags, empty mask.
	rtSigaction(sig, &sigaction{}, nil)
	var set unix.Sigset_t
	set.Val[(sig-1)/64] |= 1 << ((uint(sig) - 1) % 64)
	unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
}
