package sandbox

import (
	"fmt"
	"slices"
	"sync"

	"github.com/guard-sh/guard/sandbox/confine"
	"golang.org/x/sys/unix"
)

// Nothing the command starts may outlive it. A process that leaves the
// command's process group (setsid, a double fork) would otherwise keep
// running after guard has checked the protected paths, and write them
// again. guard therefore makes itself the child subreaper of everything
// it starts: an orphaned descendant of the command becomes guard's own
// child instead of init's. Once the command has exited, reapDescendants
// kills every child guard did not have before, which makes their
// children guard's children in turn, and repeats until none is left.
// Only then are the protected paths checked.
//
// A child of guard cannot be recycled before guard reaps it, so
// signalling it by pid cannot hit an unrelated process.

var (
	// spawnMu orders starting a helper against listing the children to
	// kill, so one run never takes another run's helper, just started,
	// for a leftover.
	spawnMu sync.Mutex
	// helpers are the pids of the helpers of runs in progress.
	helpers = map[int]bool{}

	subreaperOnce sync.Once
	subreaperErr  error
)

// becomeSubreaper marks guard as the child subreaper. It stays so for
// the rest of the process's life.
func becomeSubreaper() error {
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			subreaperErr = fmt.Errorf("become child subreaper: %w", err)
		}
	})
	return subreaperErr
}

// reapDescendants kills and reaps every child of guard that is not in
// keep, is not helper (reaped by its exec.Cmd) and is not another run's
// helper, until none is left. It returns how many it reaped.
func reapDescendants(helper int, keep []int) (int, error) {
	return confine.ReapChildren(func(pid int) bool {
		return pid == helper || helpers[pid] || slices.Contains(keep, pid)
	}, &spawnMu)
}
