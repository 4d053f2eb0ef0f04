package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// children lists the pids whose parent is this process.
func children() ([]int, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "children"))
		if errors.Is(err, os.ErrNotExist) {
			// A thread that just ended, or a kernel without
			// CONFIG_PROC_CHILDREN: look at every process instead.
			if _, serr := os.Stat("/proc/self/task/" + t.Name()); serr == nil {
				return childrenByScan()
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out, nil
}

// childrenByScan finds this process's children through /proc/PID/stat.
func childrenByScan() ([]int, error) {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The parent pid is the second field after the command name,
		// which is in parentheses and may hold anything.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 {
			if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == self {
				out = append(out, pid)
			}
		}
	}
	return out, nil
}

// reapDescendants kills and reaps every child of guard that is not in
// keep, is not helper (reaped by its exec.Cmd) and is not another run's
// helper, until none is left. It returns how many it reaped.
func reapDescendants(helper int, keep []int) (int, error) {
	return reapChildren(func(pid int) bool {
		return pid == helper || helpers[pid] || slices.Contains(keep, pid)
	})
}

// reapChildren kills and reaps every child of this process but those
// spared names (asked with spawnMu held), until none is left: killing a
// child makes its children this process's (a subreaper's) in turn. The
// sandbox helper's watcher spares none. It returns how many it reaped.
func reapChildren(spared func(pid int) bool) (int, error) {
	n := 0
	for {
		spawnMu.Lock()
		kids, err := children()
		var targets []int
		for _, pid := range kids {
			if !spared(pid) {
				targets = append(targets, pid)
			}
		}
		for _, pid := range targets {
			unix.Kill(pid, unix.SIGKILL)
		}
		spawnMu.Unlock()
		if err != nil {
			return n, fmt.Errorf("list leftover processes: %w", err)
		}
		if len(targets) == 0 {
			return n, nil
		}
		for _, pid := range targets {
			var ws unix.WaitStatus
			for {
				_, err := unix.Wait4(pid, &ws, 0, nil)
				if !errors.Is(err, unix.EINTR) {
					break
				}
			}
			n++
		}
	}
}
