package confine

import (
	"errors"
	"os"
	"strconv"
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

// startWatchdog starts the watchdog for a stop of the helper. It must
// run on the main thread (not confined). It returns the watchdog's pid
// once the watchdog says it holds the helper (a pidfd): one that died
// before that is an error, and the helper then does not stop.
func startWatchdog() (int, error) {
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(null)
	var ready [2]int
	if err := unix.Pipe2(ready[:], unix.O_CLOEXEC); err != nil {
		return 0, err
	}
	defer unix.Close(ready[0])
	pid, err := syscall.ForkExec("/proc/self/exe", []string{"guard-sandbox-watchdog"}, &syscall.ProcAttr{
		Env:   []string{watchdogEnv + "=" + strconv.Itoa(os.Getpid())},
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), PlanFD, uintptr(ready[1])},
		// A group of its own: the signals guard relays to the
		// command's group, and ^C and ^Z from the terminal, must not
		// end or stop it in the very window it watches.
		Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	unix.Close(ready[1])
	if err != nil {
		return 0, err
	}
	var b [1]byte
	for {
		n, err := unix.Read(ready[0], b[:])
		if err == unix.EINTR {
			continue
		}
		if n == 1 {
			return pid, nil
		}
		stopWatchdog(pid)
		return 0, errors.New("the watchdog ended before it was ready")
	}
}

// stopWatchdog kills and reaps the watchdog once the helper runs again.
func stopWatchdog(pid int) {
	unix.Kill(pid, unix.SIGKILL)
	for {
		if _, err := unix.Wait4(pid, nil, 0, nil); err != unix.EINTR {
			return
		}
	}
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
