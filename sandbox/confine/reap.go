package confine

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Children lists the pids whose parent is this process. It is called
// on every run (by guard before it starts the helper), so it reads
// /proc/self/task/*/children with plain system calls.
func Children() ([]int, error) {
	// No child at all, the common case (guard before a run, the helper
	// once it has reaped everything): one system call, not a read per
	// thread. WNOWAIT: a child's state stays to be waited for.
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	if errors.Is(err, unix.ECHILD) {
		return nil, nil
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var out []int
	var buf [4096]byte
	for _, t := range tasks {
		fd, err := unix.Open("/proc/self/task/"+t.Name()+"/children", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
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
		// Space-separated pids; a pid split across reads is carried.
		pid, digits := 0, false
		for {
			n, err := unix.Read(fd, buf[:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				unix.Close(fd)
				return nil, err
			}
			for _, c := range buf[:n] {
				if c >= '0' && c <= '9' {
					pid, digits = pid*10+int(c-'0'), true
					continue
				}
				if digits && !slices.Contains(out, pid) {
					out = append(out, pid)
				}
				pid, digits = 0, false
			}
			if n == 0 {
				break
			}
		}
		if digits && !slices.Contains(out, pid) {
			out = append(out, pid)
		}
		unix.Close(fd)
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

// ReapChildren kills and reaps every child of this process but those
// spared names, until none is left: killing a child makes its children
// this process's (a subreaper's) in turn. Listing, asking spared and
// killing happen with mu held, when mu is not nil. It returns how many
// it reaped.
func ReapChildren(spared func(pid int) bool, mu sync.Locker) (int, error) {
	n := 0
	for {
		if mu != nil {
			mu.Lock()
		}
		kids, err := Children()
		var targets []int
		for _, pid := range kids {
			if !spared(pid) {
				targets = append(targets, pid)
			}
		}
		// A child cannot be recycled before it is reaped, so
		// signalling it by pid cannot hit an unrelated process.
		for _, pid := range targets {
			unix.Kill(pid, unix.SIGKILL)
		}
		if mu != nil {
			mu.Unlock()
		}
		if err != nil {
			return n, errors.New("list leftover processes: " + err.Error())
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
