package sandbox_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAttackSysVIPC: System V shared memory and message queues, and
// POSIX message queues, are named by a number or a name in the IPC
// namespace, not by a path: Landlock never sees them, and the seccomp
// filter let them through. A sandboxed command could read another of
// the user's processes' shared memory (an X client's MIT-SHM images, a
// database's buffers), write into it, or send into a queue a program
// outside reads. The helper runs in an IPC namespace of its own: the
// objects outside are not there. Each case makes the object here, in the
// test process (outside the sandbox), and checks it after the run.
func TestAttackSysVIPC(t *testing.T) {
	f := newFixture(t)
	key := func() int { return 0x6a000000 | rand.IntN(0xffffff) }

	t.Run("shared memory", func(t *testing.T) {
		k := key()
		id, err := unix.SysvShmGet(k, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
		if err != nil {
			t.Skipf("System V shared memory unavailable: %v", err)
		}
		t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
		mem, err := unix.SysvShmAttach(id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.SysvShmDetach(mem)
		copy(mem, "SECRET-IN-SHM")
		o := run(t, f.spec(), f.proc("sysv-shm", fmt.Sprint(k), "PWNED-BY-COMMAND")...)
		if strings.Contains(o.stdout, "SECRET") {
			t.Errorf("the command read shared memory outside the sandbox: %v", o)
		}
		if got := string(mem[:13]); got != "SECRET-IN-SHM" {
			t.Errorf("shared memory outside the sandbox = %q after the run, want it unchanged", got)
		}
		mustFail(t, o)
	})

	t.Run("message queue", func(t *testing.T) {
		k := key()
		r, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(k), unix.IPC_CREAT|unix.IPC_EXCL|0o600, 0)
		if errno != 0 {
			t.Skipf("System V message queues unavailable: %v", errno)
		}
		q := int(r)
		t.Cleanup(func() { unix.Syscall(unix.SYS_MSGCTL, uintptr(q), unix.IPC_RMID, 0) })
		o := run(t, f.spec(), f.proc("sysv-msg", fmt.Sprint(k), "INJECTED")...)
		var msg [8 + 64]byte
		n, _, errno := unix.Syscall6(unix.SYS_MSGRCV, uintptr(q), uintptr(unsafe.Pointer(&msg[0])), 64, 0, unix.IPC_NOWAIT, 0)
		if errno == 0 {
			t.Errorf("the command sent %q into a queue outside the sandbox: %v", msg[8:8+n], o)
		} else if !errors.Is(errno, unix.ENOMSG) {
			t.Fatalf("msgrcv: %v", errno)
		}
		mustFail(t, o)
	})

	t.Run("POSIX message queue", func(t *testing.T) {
		name := fmt.Sprintf("guard-test-%x", key())
		cname, _ := unix.BytePtrFromString(name)
		r, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(cname)), unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_NONBLOCK, 0o600, 0, 0, 0)
		if errno != 0 {
			t.Skipf("POSIX message queues unavailable: %v", errno)
		}
		q := int(r)
		t.Cleanup(func() {
			unix.Close(q)
			unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(cname)), 0, 0)
		})
		o := run(t, f.spec(), f.proc("mqueue", "/"+name, "INJECTED")...)
		var msg [8192]byte
		n, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDRECEIVE, uintptr(q), uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg)), 0, 0, 0)
		if errno == 0 {
			t.Errorf("the command sent %q into a POSIX queue outside the sandbox: %v", msg[:n], o)
		} else if !errors.Is(errno, unix.EAGAIN) {
			t.Fatalf("mq_timedreceive: %v", errno)
		}
		mustFail(t, o)
	})

	t.Run("control: private IPC works inside", func(t *testing.T) {
		// A program that uses System V IPC for itself (a database's test
		// server) still can: the namespace is its own, not empty of rights.
		o := run(t, f.spec(), "/usr/bin/python3", "-c", `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
i = libc.shmget(0, 4096, 0o1600)
sys.exit(0 if i >= 0 and libc.shmctl(i, 0, None) == 0 else 1)`)
		mustSucceed(t, o)
	})
}
