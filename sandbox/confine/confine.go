// Package confine is guard's sandbox helper: the process guard starts
// with a plan on a pipe, which confines itself (Landlock, seccomp, the
// capability bounding set), starts the command and watches it. The
// sandbox package computes the plan and starts the helper; this package
// only applies it. It is small on purpose (no fmt, encoding/json,
// regexp, os/exec): its start is on the path of every guarded command.
package confine

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

func init() {
	if os.Getenv(Env) != "" {
		// The main goroutine keeps the main thread, the thread group's
		// leader, which is never confined (helper).
		runtime.LockOSThread()
	}
}

// Env marks the helper: guard starts it (guard-sandbox-exec, or guard
// itself re-executed) with Env=1. It reads the plan from PlanFD, then,
// once confined, the byte Go, which guard writes after the plan once it
// relays its signals to the command's group: the command starts only
// then, so every signal guard gets from then on reaches it, while the
// setting up of the relay overlaps the confinement. On StatusFD the
// helper writes one line: why the command did not run, or, once the
// command has exited and every process it started is reaped, its status
// (report). guard then checks the protected paths and writes its record
// while the helper exits. No line before EOF means the helper died
// before it could report.
const (
	Env      = "GUARD_SANDBOX_HELPER"
	PlanFD   = 3
	StatusFD = 4
	Go       = 'G'
)

// Exit codes of the helper when the command did not run. They follow
// the coreutils wrapper convention, like guard's own.
const (
	CodeFailed        = 125
	CodeNotExecutable = 126
	CodeNotFound      = 127
)

// cldStopped is siginfo's si_code for a stopped child (CLD_STOPPED).
const cldStopped = 5

// Forwarded are the signals guard relays to the command's process group
// instead of acting on them itself; the helper, in that group, ignores
// them (they are for the command).
var Forwarded = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGWINCH, syscall.SIGUSR1, syscall.SIGUSR2,
	syscall.SIGTSTP, syscall.SIGCONT,
}

// Main is the helper: it never returns when Env is set (it exits with
// the command's status or dies of its signal, or exits with 125, 126
// or 127); otherwise it returns at once.
func Main() {
	if v := os.Getenv(watchdogEnv); v != "" {
		os.Exit(watchdog(v))
	}
	if os.Getenv(Env) == "" {
		return
	}
	os.Exit(helper())
}

func helper() int {
	// The status pipe must not reach the command.
	unix.CloseOnExec(StatusFD)
	// Before the plan: guard relays its signals to the helper's group
	// as soon as it has sent it.
	ignoreForwarded()
	p, err := readPlan(PlanFD)
	if err != nil {
		var stale errStale
		if errors.As(err, &stale) {
			writeStatus(CodeFailed, "", err.Error(), true)
			return CodeFailed
		}
		return fail(CodeFailed, "", "read sandbox plan: "+err.Error())
	}
	if len(p.Argv) == 0 {
		return fail(CodeFailed, "", "no command")
	}
	name := p.Argv[0]
	// Before the lookup (./script is relative to it) and before the
	// confinement (the directory may be one the command cannot open).
	if p.Dir != "" {
		if err := unix.Chdir(p.Dir); err != nil {
			return fail(CodeFailed, name, "chdir "+p.Dir+": "+err.Error())
		}
	}
	// Only stdin, stdout and stderr reach the command: descriptors
	// guard itself inherited without close-on-exec are not passed on.
	if err := closeOnExecFrom(3); err != nil {
		return fail(CodeFailed, name, err.Error())
	}
	path, err := lookPath(name, p.Env)
	if err != nil {
		code := CodeNotExecutable
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotFound) {
			code = CodeNotFound
		}
		return fail(code, name, err.Error())
	}

	// Before the confinement, which forbids every mount.
	if err := mounts(p); err != nil {
		return fail(CodeFailed, name, err.Error())
	}
	// The command, and everything it starts, first in line for the
	// kernel's OOM killer, guard never before them: a command that
	// fills memory with processes each smaller than guard made guard
	// the largest, and its death left what the command had planted
	// unchecked. Raising it needs no privilege (and the helper, which
	// shares the value, may go: guard then cleans up). Before the
	// confinement, which refuses writes in /proc.
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0); err != nil {
		return fail(CodeFailed, name, "first in line for the OOM killer: "+err.Error())
	}

	// The confinement, the fork and the watch run on a thread of their
	// own, locked to their goroutine, never on the main thread: init
	// keeps that one, the thread group's leader, for the main goroutine,
	// and it is never confined. A signal aimed at the helper's pid (kill,
	// a process group's, kill(-1), a pidfd's, SIGIO for an owner that
	// names the pid) is checked against the leader's Landlock domain,
	// none, so the command, whose signals are scoped to its domain,
	// can neither kill nor stop its watcher; the few ways to aim a
	// signal at the confined thread itself are refused by that thread's
	// own filter (guardThread), which the command inherits. The main
	// goroutine does what the confined thread then may not: stop the
	// helper for guard's job control, and end it with the command's
	// signal.
	done := make(chan [2]int, 1)
	stops := make(chan struct{}, 1)
	slot := &watchdogSlot{pidfd: -1}
	go func() {
		runtime.LockOSThread()
		code, sig := confined(p, path, name, stops, slot)
		done <- [2]int{code, int(sig)}
	}()
	for {
		select {
		case <-stops:
			// Stopped, the helper would not see guard's end: a
			// watchdog continues it if guard goes (watchdog.go). No
			// watchdog, no stop: guard's job control then misses this
			// one, and nothing outlives guard. Nor once the command
			// has exited (the stop and the end raced).
			slot.stopForGuard()
		case e := <-done:
			if e[1] != 0 {
				dieOfSignal(syscall.Signal(e[1]))
			}
			return e[0]
		}
	}
}

// confined confines the calling thread, starts the command from it and
// watches it (helper): it returns the helper's exit code, and the
// signal the command died of, for the helper to die of too (0: none).
func confined(p *Plan, path, name string, stops chan<- struct{}, slot *watchdogSlot) (int, syscall.Signal) {
	// Every step from here to the fork runs on this one thread, and
	// confines this thread only: Landlock domains, no_new_privs, the
	// seccomp filter and the bounding set belong to a thread, and the
	// fork copies the calling thread's to the command.
	if err := ownNet(p); err != nil {
		return fail(CodeFailed, name, err.Error()), 0
	}
	if p.Landlock {
		if err := restrict(p); err != nil {
			return fail(CodeFailed, name, "landlock: "+err.Error()), 0
		}
	}
	if err := dropCapabilities(); err != nil {
		return fail(CodeFailed, name, err.Error()), 0
	}
	if len(p.Filter) > 0 {
		if err := installSeccomp(p.Filter); err != nil {
			return fail(CodeFailed, name, err.Error()), 0
		}
		if err := installSeccomp(guardThread(unix.Gettid())); err != nil {
			return fail(CodeFailed, name, err.Error()), 0
		}
		if p.Listen {
			notify, err := installListenFilter()
			if err != nil {
				return fail(CodeFailed, name, err.Error()), 0
			}
			// On a thread of the helper's other than this one (locked
			// here), which the filter does not reach.
			go superviseListen(notify)
		}
	} else if p.Listen {
		return fail(CodeFailed, name, "the listen supervisor needs the seccomp filter"), 0
	}
	var goByte [1]byte
	if err := readFull(PlanFD, goByte[:]); err != nil || goByte[0] != Go {
		// guard is gone, or never said go: nothing runs, and the
		// private temp dir guard made for the run goes (guard, if it is
		// still there, removes it too).
		if p.Tmp != "" {
			removeOwnTmp(p.Tmp)
		}
		return fail(CodeFailed, name, "sandbox helper: no go from guard"), 0
	}
	w, err := startWatched(path, p)
	if err != nil {
		code := CodeNotExecutable
		switch {
		case errors.Is(err, syscall.ENOENT) && covered(p, path):
			// Found before the mounts, in a hidden directory they
			// covered (as root, which searches it anyway): refused, as
			// Landlock refuses it where there is no cover, not missing.
			err = &fs.PathError{Op: "exec", Path: path, Err: syscall.EACCES}
		case errors.Is(err, syscall.ENOENT):
			code = CodeNotFound // e.g. a missing script interpreter
		}
		return fail(code, name, err.Error()), 0
	}
	w.stops, w.slot = stops, slot
	// The command runs; the status pipe stays open for the report.
	return w.watch()
}

// ownNet moves the calling thread (the one the command is forked from)
// into a network namespace of its own when the plan says so
// (Plan.OwnNet) and the helper made its mounts, so has namespaces of
// its own (with CAP_SYS_ADMIN in them, still held here). Only this
// thread's: the Go runtime starts its other threads from a template
// thread, never from one locked and changed. A helper without
// namespaces of its own already says so in its report (unmounted),
// and makes none; one that has them and cannot make this one (the
// user's limit of network namespaces reached) fails the run.
func ownNet(p *Plan) error {
	if !p.OwnNet || p.unmounted != "" {
		return nil
	}
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return errors.New("a network namespace of the command's own: " + err.Error())
	}
	return nil
}

// covered reports whether path (relative to the plan's directory) lies
// in a hidden directory the helper covered (Plan.Conceal).
func covered(p *Plan, path string) bool {
	if !strings.HasPrefix(path, "/") {
		path = strings.TrimSuffix(p.Dir, "/") + "/" + path
	}
	for _, d := range p.Conceal {
		if below(path, d) {
			return true
		}
	}
	return false
}

func fail(code int, name, msg string) int {
	writeStatus(code, name, msg, false)
	return code
}

// writeStatus reports why the command did not run, as the line guard
// reads (sandbox.readStatus): {"code":N,"err":"…","name":"…"}.
func writeStatus(code int, name, msg string, stale bool) {
	b := []byte(`{"code":`)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"err":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, name)
	if stale {
		b = append(b, `,"stale":true`...)
	}
	b = append(b, '}', '\n')
	unix.Write(StatusFD, b)
}

// report tells guard the command has exited with code, or died of sig,
// and nothing it started is left: {"code":N,"ran":true,"signal":S}, with
// "unmounted":"why" when it ran without the plan's mounts (why, Plan.unmounted).
// One write of a short line, so guard reads it whole.
func report(code int, sig syscall.Signal, why string) {
	b := []byte(`{"code":`)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"ran":true,"signal":`...)
	b = strconv.AppendInt(b, int64(sig), 10)
	if why != "" {
		b = append(b, `,"unmounted":`...)
		b = appendJSONString(b, why)
	}
	b = append(b, '}', '\n')
	unix.Write(StatusFD, b)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes
// U+FFFD, as encoding/json would make it.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

var errNotFound = errors.New("executable file not found in $PATH")

// lookPath finds the command like a shell would, using the child's PATH.
func lookPath(name string, env []string) (string, error) {
	var st unix.Stat_t
	if strings.Contains(name, "/") {
		if err := unix.Stat(name, &st); err != nil {
			return "", &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return "", errors.New(name + ": is a directory")
		}
		return name, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	notExec := ""
	for dir := range strings.SplitSeq(pathEnv, ":") {
		if dir == "" {
			dir = "."
		}
		p := strings.TrimSuffix(dir, "/") + "/" + name
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
			continue
		}
		if st.Mode&0o111 != 0 {
			return p, nil
		}
		if notExec == "" {
			notExec = p
		}
	}
	if notExec != "" {
		// Like a shell: found, but not executable.
		return "", &fs.PathError{Op: "exec", Path: notExec, Err: fs.ErrPermission}
	}
	return "", errNotFound
}

// closeOnExecFrom marks every descriptor from first on close-on-exec.
func closeOnExecFrom(first int) error {
	err := unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: mark them one by one.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return errors.New("close inherited descriptors: " + err.Error())
	}
	for _, e := range entries {
		fd, cerr := strconv.Atoi(e.Name())
		if cerr == nil && fd >= first {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}
