package confine

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// startSleeper starts `sleep 30` as a child with a pidfd, standing in
// for the watchdog (the real one needs the helper's lifeline).
func startSleeper(t *testing.T) (int, int) {
	t.Helper()
	pidfd := -1
	pid, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "30"}, &syscall.ProcAttr{
		Sys: &syscall.SysProcAttr{PidFD: &pidfd},
	})
	if err != nil || pidfd < 0 {
		t.Fatalf("start sleep: %v (pidfd %d)", err, pidfd)
	}
	return pid, pidfd
}

// alive reports whether the process behind pidfd has not exited.
func alive(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, _ := unix.Poll(fds, 0)
	return n == 0
}

// TestWatchdogOneOwner: once the command has exited, the confined
// thread kills and reaps every child of the helper but the watchdog,
// which the main goroutine alone kills and reaps, through its pidfd.
// Before, the confined thread's reaping (a wait for any child, then
// ReapChildren's kill of every child by pid) killed and reaped the
// watchdog too: while the helper was about to stop for guard's job
// control, which left it stopped without a watchdog (nothing then saw
// guard's end), and with the main goroutine's kill by pid aimed at a
// pid already reaped, perhaps an unrelated process's by then.
func TestWatchdogOneOwner(t *testing.T) {
	wdPid, wdFD := startSleeper(t)
	other, otherFD := startSleeper(t)
	defer unix.Close(otherFD)
	slot := &watchdogSlot{pid: wdPid, pidfd: wdFD}
	w := &watched{slot: slot}
	w.killDescendants()
	if !alive(wdFD) {
		t.Error("the confined thread's reaping killed the watchdog")
	}
	if alive(otherFD) {
		t.Error("a leftover child of the command was not killed")
	}
	if kids, _ := Children(); len(kids) != 1 || kids[0] != wdPid {
		t.Errorf("children left: %v, want only the watchdog %d (the other, %d, reaped)", kids, wdPid, other)
	}
	slot.stop()
	if slot.pid != 0 {
		t.Error("the slot still names the watchdog")
	}
	if kids, _ := Children(); len(kids) != 0 {
		t.Errorf("children left after the watchdog's stop: %v", kids)
	}
	// Stopping again is a no-op (no kill of a pid reaped already).
	slot.stop()
}

// TestWatchdogStopAfterEnd: a stop the confined thread asked for just
// before the command exited is not made once it has (the helper would
// stop after its report), and no watchdog is started.
func TestWatchdogStopAfterEnd(t *testing.T) {
	stopped := 0
	slot := &watchdogSlot{pidfd: -1, stopSelf: func() { stopped++ }}
	slot.finish()
	if slot.stopForGuard() || stopped != 0 {
		t.Errorf("stopped after the command's end (%d)", stopped)
	}
	if kids, _ := Children(); len(kids) != 0 {
		t.Errorf("children left: %v", kids)
	}
}
