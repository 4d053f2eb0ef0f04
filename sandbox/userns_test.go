package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failNamespacedStart makes the helper's next namespaced start fail
// with errno, as the kernel fails it when a limit is reached or
// namespaces are refused, under a user namespace limit of max (the
// sysctl's text); noUserns and the rest are restored after the test.
// With errno 0 every namespaced start succeeds without the namespaces
// (a helper told it has them, which finds it may not mount: as a
// security module that lets the namespaces be made but refuses every
// mount in them leaves it).
func failNamespacedStart(t *testing.T, errno syscall.Errno, max string) {
	t.Helper()
	if err := ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v)", err)
	}
	if Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	saved, was, sysctl := startHelper, noUserns.Load(), maxUserNamespaces
	noUserns.Store(false)
	maxUserNamespaces = filepath.Join(t.TempDir(), "max_user_namespaces")
	if err := os.WriteFile(maxUserNamespaces, []byte(max+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { startHelper, maxUserNamespaces = saved, sysctl; noUserns.Store(was) })
	n := 1
	startHelper = func(cmd *exec.Cmd) error {
		if errno == 0 && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWNS != 0 {
			a := cmd.SysProcAttr
			a.Cloneflags, a.UidMappings, a.GidMappings, a.AmbientCaps = 0, nil, nil, nil
		}
		if errno != 0 && n > 0 && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWNS != 0 {
			n--
			return &fs.PathError{Op: "fork/exec", Path: cmd.Path, Err: errno}
		}
		return saved(cmd)
	}
}

// refuseMounts makes the helper's namespaced starts give it namespaces
// of its own (a user namespace and a mount namespace, as ever) but no
// capability in them: no ambient capabilities, and for root a user
// namespace where root is mapped to another id (after exec a process
// that is not root there has none). Its mounts are then refused by the
// kernel itself, as a security module refuses them (Ubuntu's AppArmor
// restriction of unprivileged user namespaces): the real branch of the
// helper's mounts, not a helper without namespaces.
func refuseMounts(t *testing.T) {
	t.Helper()
	if err := ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v)", err)
	}
	if Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	saved, was := startHelper, noUserns.Load()
	noUserns.Store(false)
	t.Cleanup(func() { startHelper = saved; noUserns.Store(was) })
	startHelper = func(cmd *exec.Cmd) error {
		a := cmd.SysProcAttr
		if a.Cloneflags&syscall.CLONE_NEWNS != 0 {
			a.AmbientCaps = nil
			if a.Cloneflags&syscall.CLONE_NEWUSER == 0 {
				a.Cloneflags |= syscall.CLONE_NEWUSER
				a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 1, HostID: os.Geteuid(), Size: 1}}
				a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 1, HostID: os.Getegid(), Size: 1}}
				a.GidMappingsEnableSetgroups = false
			}
		}
		return saved(cmd)
	}
}

// shmName is a fresh name in the machine's /dev/shm, removed after the
// test: where a writing run's write lands shows whether its helper had
// a mount namespace (and a /dev/shm) of its own.
func shmName(t *testing.T) string {
	t.Helper()
	p := fmt.Sprintf("/dev/shm/guard-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { os.Remove(p) })
	return p
}

func runShell(t *testing.T, spec Spec, script string, args ...string) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Run(ctx, spec, append([]string{"/bin/sh", "-c", script, "sh"}, args...), Stdio{})
}

// TestAttackHelperStartLimit: a command can make the next helper's start
// fail for a moment (a concurrent run forks up to the user's process
// limit, or holds the user's namespaces up to theirs: EAGAIN, ENOSPC).
// Any such failure used to turn namespaces off for the rest of the guard
// process (guard shell runs many lines in one), so every later run went
// without the helper's mounts (a /dev/shm shared with the user's
// programs, the real caches, chmod outside the writable trees), and said
// nothing. Now the run that hit the limit fails, and the next one is as
// confined as before.
func TestAttackHelperStartLimit(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EAGAIN, syscall.ENOMEM, syscall.ENOSPC} {
		t.Run(errno.Error(), func(t *testing.T) {
			// Under a namespace limit above zero, ENOSPC is the limit
			// reached, not namespaces refused.
			failNamespacedStart(t, errno, "1000")
			spec := writableSpec(t)
			shm := shmName(t)
			res, err := runShell(t, spec, `echo planted > "$1"`, shm)
			if err == nil || res.Started {
				t.Errorf("the run whose helper could not start in its namespaces ran (%+v, %v): fail it", res, err)
			}
			if _, err := os.Stat(shm); err == nil {
				t.Fatal("a command reached the user's /dev/shm")
			}
			res, err = runShell(t, spec, `echo planted > "$1"`, shm)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("the next run: %+v, %v", res, err)
			}
			if _, err := os.Stat(shm); err == nil {
				t.Error("after a start failure of the moment, the next run wrote the user's /dev/shm: it had no mount namespace of its own")
			}
			for _, d := range res.Degraded {
				if strings.Contains(d, "mounts") {
					t.Errorf("the next run went without its mounts: %q", d)
				}
			}
		})
	}
}

// runUnmounted runs a writing command whose helper cannot mount: it
// must run, its write must reach the machine's /dev/shm (the control:
// it had no /dev/shm of its own), and the result must say why
// (Unmounted, and the Degraded line for it). Then, with Require
// (--require-sandbox), nothing may run. It returns the first result.
func runUnmounted(t *testing.T) Result {
	t.Helper()
	spec := writableSpec(t)
	shm := shmName(t)
	res, err := runShell(t, spec, `echo planted > "$1"`, shm)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run without the helper's mounts: %+v, %v", res, err)
	}
	if _, err := os.Stat(shm); err != nil {
		t.Fatalf("control: without its mounts the write should reach /dev/shm: %v", err)
	}
	os.Remove(shm)
	if res.Unmounted == "" || !slices.Contains(res.Degraded, unmountedGap+" ("+res.Unmounted+")") {
		t.Errorf("a run without the helper's mounts did not say so: Unmounted %q, Degraded %q", res.Unmounted, res.Degraded)
	}
	spec.Require = true
	if res, err := runShell(t, spec, `echo planted > "$1"`, shm); err == nil || res.Started {
		t.Errorf("--require-sandbox ran without the helper's mounts: %+v, %v", res, err)
	}
	if _, err := os.Stat(shm); err == nil {
		t.Error("--require-sandbox: the command ran and wrote /dev/shm")
	}
	return res
}

// TestNoNamespacesVisible: where namespaces are refused (EPERM: a
// sysctl, a security module, a container's profile; ENOSPC with a
// limit of zero), the run goes on without the helper's mounts, and its
// result says so (the caller warns, and records it); with Require
// (--require-sandbox) nothing runs.
func TestNoNamespacesVisible(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.ENOSPC} {
		t.Run(errno.Error(), func(t *testing.T) {
			failNamespacedStart(t, errno, "0")
			runUnmounted(t)
			if !noUserns.Load() {
				t.Error("namespaces refused, and guard will try again on every run")
			}
		})
	}
}

// TestNamespacesWithoutMounts: where the helper gets its namespaces but
// no right to mount in them (Ubuntu 24.04 restricts unprivileged user
// namespaces so), its mounts used to be skipped in silence: guard
// doctor's probe (which only started a process in them) said they were
// there, and runs said nothing. Now each run says so, and the probe,
// with the helper's own reason (a NoMountsError, not text parsed).
//
// "refused" is the real branch: the helper has its user and mount
// namespaces and the kernel refuses its first mount there
// (refuseMounts); "not its own" a helper told it has namespaces that
// finds its mount namespace is guard's.
func TestNamespacesWithoutMounts(t *testing.T) {
	for name, c := range map[string]struct {
		fake func(t *testing.T)
		why  string
	}{
		"refused":     {refuseMounts, "may not mount in its namespace"},
		"not its own": {func(t *testing.T) { failNamespacedStart(t, 0, "1000") }, "no namespaces of its own"},
	} {
		t.Run(name, func(t *testing.T) {
			c.fake(t)
			res := runUnmounted(t)
			if !strings.Contains(res.Unmounted, c.why) {
				t.Errorf("Unmounted %q: want %q", res.Unmounted, c.why)
			}
			if noUserns.Load() {
				t.Error("namespaces turned off for later runs: the start succeeded")
			}
			var nm *NoMountsError
			if err := ProbeUserns(); !errors.As(err, &nm) || nm.Why != res.Unmounted {
				t.Errorf("ProbeUserns (guard doctor): %v, want a NoMountsError %q", err, res.Unmounted)
			}
		})
	}
}
