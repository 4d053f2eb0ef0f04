package confine

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// When the command stops, the helper stops itself for guard's job
// control (helper): stopped, it no longer sees guard's end. Were guard
// then SIGKILLed (an agent's timeout), no one would continue it (a
// process of the command can keep the helper's process group from
// being orphaned, which would have the kernel continue it), and what
// the command started would outlive the run. So before each stop the
// helper starts a watchdog: a process outside the command's Landlock
// domain (started from the main thread, never confined, so the
// command's scoped signals cannot reach it) that holds the lifeline and,
// once guard is gone, continues the helper until the helper, running
// again, kills it. The helper then sees guard's end and kills and reaps
// the command and everything it started.

// watchdogEnv marks the watchdog; its value is the helper's pid. The
// watchdog writes a byte on watchdogReadyFD once it holds the helper.
const (
	watchdogEnv     = "GUARD_SANDBOX_WATCHDOG"
	watchdogReadyFD = 4
)

// watchdogEvery is how often the watchdog continues the helper once
// guard is gone (the helper may stop itself again before it sees guard's
// end; it kills the watchdog once it runs).
const watchdogEvery = 20 // ms

// watchdogSlot is the helper's one watchdog, owned by the main
// goroutine through its pidfd: only the main goroutine signals and
// reaps it, by the pidfd, never by pid. The confined thread, which
// kills and reaps every other child once the command has exited
// (killDescendants), spares it while the slot holds it, with mu held
// as it lists and kills; the main goroutine kills and reaps it with mu
// held too. So no one signals its pid after another reaped it (the pid
// may be an unrelated process's by then), and the confined thread
// cannot kill it while the helper is about to stop (a stopped helper
// without its watchdog never sees guard's end). Before, both reaped
// it: the confined thread's wait for any child, and ReapChildren's
// kill of every child, took it too (TestWatchdogOneOwner).
type watchdogSlot struct {
	mu    sync.Mutex
	pid   int // 0: no watchdog
	pidfd int
	// finished: the command has exited and the confined thread reaps
	// (watch). A stop asked for before then is not made: the helper
	// would stop after its report, for nothing guard needs to see.
	finished bool
	// stopSelf stops the helper's process (tests replace it).
	stopSelf func()
}

// spared reports whether pid is the watchdog; mu is held.
func (s *watchdogSlot) spared(pid int) bool {
	return s.pid != 0 && pid == s.pid
}

// finish marks the command exited: no stop from now on.
func (s *watchdogSlot) finish() {
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
}

// stopForGuard stops the helper for guard's job control, with a
// watchdog running while it is stopped; no watchdog, no stop. It
// reports whether it stopped. The stop is made with mu held, so the
// confined thread cannot pass finish (and report to guard) between the
// check and the stop, nor kill the watchdog while the helper stops.
func (s *watchdogSlot) stopForGuard() bool {
	s.mu.Lock()
	done := s.finished
	s.mu.Unlock()
	if done {
		return false
	}
	if err := s.start(); err != nil {
		return false
	}
	defer s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return false
	}
	if s.stopSelf != nil {
		s.stopSelf()
	} else {
		unix.Kill(os.Getpid(), unix.SIGSTOP)
	}
	return true
}

// start starts the watchdog for a stop of the helper. It must run on
// the main thread (not confined). It returns once the watchdog says it
// holds the helper (a pidfd): one that died before that is an error,
// and the helper then does not stop. Without a pidfd for the watchdog
// (a kernel before 5.3) there is no watchdog either.
func (s *watchdogSlot) start() error {
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(null)
	var ready [2]int
	if err := unix.Pipe2(ready[:], unix.O_CLOEXEC); err != nil {
		return err
	}
	defer unix.Close(ready[0])
	pidfd := -1
	s.mu.Lock()
	pid, err := syscall.ForkExec("/proc/self/exe", []string{"guard-sandbox-watchdog"}, &syscall.ProcAttr{
		Env:   []string{watchdogEnv + "=" + strconv.Itoa(os.Getpid())},
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), PlanFD, uintptr(ready[1])},
		// A group of its own: the signals guard relays to the
		// command's group, and ^C and ^Z from the terminal, must not
		// end or stop it in the very window it watches.
		Sys: &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	if err == nil {
		s.pid, s.pidfd = pid, pidfd
	}
	s.mu.Unlock()
	unix.Close(ready[1])
	if err != nil {
		return err
	}
	if pidfd < 0 {
		// Still ours to reap; by pid, as nothing else reaps it while
		// the slot holds it.
		s.stop()
		return errors.New("no pidfd for the watchdog")
	}
	var b [1]byte
	for {
		n, err := unix.Read(ready[0], b[:])
		if err == unix.EINTR {
			continue
		}
		if n == 1 {
			return nil
		}
		s.stop()
		return errors.New("the watchdog ended before it was ready")
	}
}

// stop kills and reaps the watchdog, if there is one, through its
// pidfd (once the helper runs again).
func (s *watchdogSlot) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pid == 0 {
		return
	}
	if s.pidfd < 0 {
		unix.Kill(s.pid, unix.SIGKILL)
		for {
			if _, err := unix.Wait4(s.pid, nil, 0, nil); err != unix.EINTR {
				break
			}
		}
	} else {
		unix.PidfdSendSignal(s.pidfd, unix.SIGKILL, nil, 0)
		var info unix.Siginfo
		for {
			if err := unix.Waitid(unix.P_PIDFD, s.pidfd, &info, unix.WEXITED, nil); err != unix.EINTR {
				break
			}
		}
		unix.Close(s.pidfd)
	}
	s.pid, s.pidfd = 0, -1
}

// watchdog is the watchdog process: it waits for the lifeline (fd
// PlanFD, which only guard keeps open for writing) to read EOF, then
// continues the helper every watchdogEvery until the helper exits or
// kills it. It returns its exit code.
func watchdog(helper string) int {
	pid, err := strconv.Atoi(helper)
	if err != nil {
		return CodeFailed
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return CodeFailed // the helper is gone already, or no pidfds: it will not stop
	}
	// Ready (watchdogReadyFD): the helper may stop now.
	unix.Write(watchdogReadyFD, []byte{1})
	unix.Close(watchdogReadyFD)
	var buf [64]byte
	for {
		fds := []unix.PollFd{{Fd: PlanFD, Events: unix.POLLIN}, {Fd: int32(pfd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
			return CodeFailed
		}
		if fds[1].Revents != 0 {
			return 0 // the helper exited
		}
		if fds[0].Revents == 0 {
			continue
		}
		n, err := unix.Read(PlanFD, buf[:])
		if n > 0 || err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		break // EOF (or an error): guard is gone
	}
	for {
		unix.PidfdSendSignal(pfd, unix.SIGCONT, nil, 0)
		fds := []unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}
		if n, _ := unix.Poll(fds, watchdogEvery); n > 0 {
			return 0
		}
	}
}
