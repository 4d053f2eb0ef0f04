package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/guard-sh/guard/sandbox/confine"
	"golang.org/x/sys/unix"
)

// noUserns is set once starting the helper in namespaces of its own
// was refused in a way that means this machine has none for this user
// (namespacesRefused): this process does not try again. Any other
// failure to start it (a limit a concurrent command can reach: the
// user's processes, live namespaces, memory) fails that run and leaves
// the next one as confined as ever.
var noUserns atomic.Bool

// namespacesRefused reports whether err, starting the helper in
// namespaces of its own, means they are not allowed here at all: the
// kernel has none (EINVAL, ENOSYS), a sysctl, a security module or a
// container's seccomp profile refuses them (EPERM, EACCES), or the
// user's namespace limit is zero (ENOSPC, with
// /proc/sys/user/max_user_namespaces 0). ENOSPC under a limit above
// zero is the limit reached by the namespaces that are live (a command
// can make them), and EAGAIN, ENOMEM and the like are limits of the
// moment: none of those says anything of the next run.
func namespacesRefused(err error) bool {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return true
	case errors.Is(err, unix.ENOSPC):
		b, rerr := os.ReadFile(maxUserNamespaces)
		return rerr == nil && strings.TrimSpace(string(b)) == "0"
	}
	return false
}

// maxUserNamespaces is the sysctl of the user namespaces each user may
// have (a variable for tests).
var maxUserNamespaces = "/proc/sys/user/max_user_namespaces"

// namespaced starts the helper in mount and IPC namespaces of its own, and,
// unless guard runs as root, in a user namespace of its own too, where
// the user keeps its ids (each is mapped to itself) and has
// CAP_SYS_ADMIN (and CAP_DAC_OVERRIDE): the helper covers the unix
// sockets (sockets.go) and lays guard's layer over the cache (layer.go)
// with them, then drops every capability before it confines itself. The mounts are
// the helper's own: nothing changes outside it. (Measured here: a user
// namespace adds about 0.35 ms to starting a process, a mount namespace
// 0.1 to 0.2; for a user who is not root, Start forks from a goroutine of
// its own so guard's thread does not wait for it.)
func namespaced(cmd *exec.Cmd) {
	uid, gid := os.Geteuid(), os.Getegid()
	a := cmd.SysProcAttr
	// An IPC namespace too: System V shared memory, semaphores and
	// message queues are named by numbers, not paths, so Landlock never
	// sees them; in guard's namespace the command could read and write
	// the segments of the user's other processes (TestAttackSysVIPC).
	a.Cloneflags |= syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC
	if uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		// CAP_DAC_OVERRIDE too: overlayfs wants it of whoever mounts
		// guard's layer over the cache (layer.go). Both hold only in the
		// helper's own namespace (over the user's own files there), and
		// the helper drops them before the command runs. CAP_SYS_PTRACE
		// stays with the helper's other threads (never the confined one,
		// nor so the command): with the network grant the helper takes
		// the socket of the command's listen(2) with pidfd_getfd
		// (confine: listen.go), which a program that made itself
		// undumpable (ssh-agent) refuses to a tracer without it
		// (TestNetListenUndumpableWithoutUserns).
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE, unix.CAP_SYS_PTRACE}
	}
	cmd.Env = []string{confine.Env + "=" + confine.Namespaced}
}

// needNamespaces reports whether a helper for a run in home has work to
// do in namespaces of its own: always, since it seals the file system
// (Plan.Seal: Landlock does not confine chmod and kin); where user
// namespaces are not allowed, launch finds out once and goes without.
func needNamespaces(home string) bool { return true }

// ProbeUserns reports whether a helper can be started in namespaces of
// its own here and make its mounts there, and if not, why: it starts
// true so, then runs it sandboxed (a security module may let the
// namespace be made and refuse every mount in it: Ubuntu's restriction
// of unprivileged user namespaces), and the run says whether its mounts
// were made. For guard doctor, and tests.
func ProbeUserns() error {
	path, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: path, Args: []string{"true"}, SysProcAttr: &syscall.SysProcAttr{}}
	namespaced(cmd)
	if err := cmd.Run(); err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "guard-userns-probe-")
	if err != nil {
		return err
	}
	defer confine.RemoveTree(root)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	spec := Spec{Workspace: root, Home: filepath.Join(root, "home"), Env: []string{"PATH=" + filepath.Dir(path)}}
	res, err := Run(ctx, spec, []string{path}, Stdio{})
	if err != nil {
		return fmt.Errorf("the probe did not run: %w", err)
	}
	if res.Unmounted != "" {
		return &NoMountsError{Why: res.Unmounted}
	}
	return nil
}

// NoMountsError is ProbeUserns' answer where the helper starts in
// namespaces of its own but may not mount in them (a security module's
// restriction of unprivileged user namespaces): Why is the helper's own
// account.
type NoMountsError struct{ Why string }

func (e *NoMountsError) Error() string { return e.Why }
