package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// The helper is guard-sandbox-exec, or guard re-executed
// (/proc/self/exe), with helperEnv set. It reads its plan from planFD,
// confines itself, starts the command as its child and stays as its
// watcher (watcher.go). Until the command runs it can report a failure
// on statusFD, which it closes then: the parent reading EOF there means
// the command was executed.
const (
	helperEnv = "GUARD_SANDBOX_HELPER"
	planFD    = 3
	statusFD  = 4
)

// Exit codes of the helper when it fails before the exec. They follow
// the coreutils wrapper convention, like guard's own.
const (
	codeFailed        = 125
	codeNotExecutable = 126
	codeNotFound      = 127
)

// planFormat is the version of the plan: a helper from another guard
// build refuses a plan it does not know (and guard then re-executes
// itself instead). Bump it with every change to plan or to what the
// helper does with it.
const planFormat = 3

// plan is everything the helper needs, computed by the parent: the
// helper only applies it, so a helper binary cannot enforce less than
// the guard that started it.
type plan struct {
	Format int      `json:"format"`
	Argv   []string `json:"argv"`
	Env    []string `json:"env"`

	Landlock   bool   `json:"landlock"`
	HandledFS  uint64 `json:"handled_fs"`
	HandledNet uint64 `json:"handled_net"`
	Scoped     uint64 `json:"scoped"`
	Rules      []rule `json:"rules"`

	// Filter is the seccomp program, assembled by the parent; empty
	// when the kernel or the architecture has no seccomp filter.
	Filter []unix.SockFilter `json:"filter,omitempty"`
}

// status is the helper's report of a failure before the exec.
type status struct {
	Code int    `json:"code"`
	Err  string `json:"err"`
	Name string `json:"name"` // the command, for "name: command not found"
	// Stale: the helper does not know this plan's format (a helper
	// binary from another guard build). Nothing ran.
	Stale bool `json:"stale,omitempty"`
}

// ChildMain must be called first thing in main (and in TestMain of
// packages that test Run). In guard's ordinary runs it returns at once.
// In the sandbox helper it never returns: it confines the process,
// runs the command and exits with its status (watcher.go), or exits
// with 125, 126 or 127.
func ChildMain() {
	if os.Getenv(helperEnv) == "" {
		return
	}
	os.Exit(helperMain())
}

func helperMain() int {
	// The status pipe must not reach the target.
	unix.CloseOnExec(statusFD)
	st := os.NewFile(statusFD, "status")
	fail := func(code int, name string, err error) int {
		json.NewEncoder(st).Encode(status{Code: code, Err: err.Error(), Name: name})
		return code
	}
	// The plan pipe stays open: it is the lifeline (see watcher.go).
	in := os.NewFile(planFD, "plan")
	var p plan
	err := json.NewDecoder(in).Decode(&p)
	if err != nil {
		return fail(codeFailed, "", fmt.Errorf("read sandbox plan: %w", err))
	}
	if p.Format != planFormat {
		json.NewEncoder(st).Encode(status{Code: codeFailed, Stale: true,
			Err: fmt.Sprintf("sandbox helper understands plan format %d, not %d: reinstall guard and guard-sandbox-exec together", planFormat, p.Format)})
		return codeFailed
	}
	if len(p.Argv) == 0 {
		return fail(codeFailed, "", errors.New("no command"))
	}
	name := p.Argv[0]
	// Only stdin, stdout and stderr reach the command: descriptors
	// guard itself inherited without close-on-exec are not passed on.
	if err := closeOnExecFrom(3); err != nil {
		return fail(codeFailed, name, err)
	}

	path, err := lookPath(name, p.Env)
	if err != nil {
		code := codeNotExecutable
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			code = codeNotFound
		}
		return fail(code, name, err)
	}

	// Every step from here to the fork runs on this one thread: the
	// seccomp no_new_privs bit is per thread, and the fork copies the
	// calling thread's credentials and filter to the command.
	runtime.LockOSThread()
	if p.Landlock {
		if err := restrict(p); err != nil {
			return fail(codeFailed, name, fmt.Errorf("landlock: %w", err))
		}
	}
	if err := dropCapabilities(); err != nil {
		return fail(codeFailed, name, err)
	}
	if len(p.Filter) > 0 {
		if err := installSeccomp(p.Filter); err != nil {
			return fail(codeFailed, name, err)
		}
	}
	w, err := startWatched(path, p)
	if err != nil {
		code := codeNotExecutable
		if errors.Is(err, syscall.ENOENT) {
			code = codeNotFound // e.g. a missing script interpreter
		}
		return fail(code, name, err)
	}
	// The command runs: guard reads EOF on the status pipe.
	st.Close()
	return w.watch()
}

// restrict applies the plan's Landlock ruleset to this process.
func restrict(p plan) error {
	cfg, err := landlock.NewConfig(
		landlock.AccessFSSet(p.HandledFS),
		landlock.AccessNetSet(p.HandledNet),
		landlock.ScopedSet(p.Scoped),
	)
	if err != nil {
		return err
	}
	rules := make([]landlock.Rule, 0, len(p.Rules))
	for _, r := range p.Rules {
		access := r.Access & p.HandledFS
		if access == 0 {
			continue
		}
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(access), r.Path).IgnoreIfMissing())
	}
	// No BestEffort: the parent sized the config to this kernel, and
	// anything it cannot enforce must fail rather than be dropped.
	return cfg.Restrict(rules...)
}

// lookPath finds the command like a shell would, using the child's PATH.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		fi, err := os.Stat(name)
		if err != nil {
			return "", err
		}
		if fi.IsDir() {
			return "", fmt.Errorf("%s: is a directory", name)
		}
		return name, nil
	}
	pathEnv, _ := lookEnv(env, "PATH")
	notExec := ""
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.Mode()&0o111 != 0 {
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
	return "", exec.ErrNotFound
}

// readStatus reads the helper's report: nil when it reached the exec.
func readStatus(r io.Reader) (*status, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read sandbox helper status: %w", err)
	}
	if len(data) == 0 {
		return nil, nil
	}
	var st status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("sandbox helper status %q: %w", data, err)
	}
	return &st, nil
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
		return fmt.Errorf("close inherited descriptors: %w", err)
	}
	for _, e := range entries {
		fd, cerr := strconv.Atoi(e.Name())
		if cerr == nil && fd >= first {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

// keptCapabilities are the capabilities a command run as root keeps
// (a container runtime's usual set, less mknod and raw sockets). The
// others are dropped from the bounding set, so the exec cannot grant
// them: with CAP_SYS_PTRACE, for one, root could read the environment
// of processes outside the sandbox, which Landlock otherwise refuses.
var keptCapabilities = []uintptr{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID,
	unix.CAP_KILL, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETPCAP,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_SYS_CHROOT, unix.CAP_AUDIT_WRITE,
	unix.CAP_SETFCAP,
}

// dropCapabilities empties the bounding set but for keptCapabilities.
// Without CAP_SETPCAP (guard run as a user) there is nothing to drop:
// no_new_privs already keeps the exec from granting capabilities.
func dropCapabilities() error {
	last := uintptr(unix.CAP_LAST_CAP)
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = uintptr(n)
		}
	}
	for c := uintptr(0); c <= last; c++ {
		if slices.Contains(keptCapabilities, c) {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		if errors.Is(err, unix.EPERM) {
			return nil
		}
		if err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}
