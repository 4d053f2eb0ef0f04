package confine

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestGuardThreadFilter runs the confined thread's own filter in a BPF
// machine: every call that aims a signal at that thread by its id is
// refused, the same call aimed elsewhere passes, and so do the calls
// the filter does not look at. (x/net/bpf loads words big-endian, the
// kernel in the machine's order: the data is laid out for the former,
// as the sandbox package's filter tests do.)
func TestGuardThreadFilter(t *testing.T) {
	const tid, other = 4242, 4243
	vm, data := filterVM(t, guardThread(tid)), seccompData
	const allow, deny = unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	for _, c := range []struct {
		name string
		in   []byte
		want uint32
	}{
		{"tgkill it", data(unix.SYS_TGKILL, 1, tid, 9), deny},
		{"tgkill another", data(unix.SYS_TGKILL, other, other, 9), allow},
		{"tkill it", data(unix.SYS_TKILL, tid, 19), deny},
		{"tkill another", data(unix.SYS_TKILL, other, 19), allow},
		{"rt_tgsigqueueinfo it", data(unix.SYS_RT_TGSIGQUEUEINFO, 1, tid, 9), deny},
		{"rt_tgsigqueueinfo another", data(unix.SYS_RT_TGSIGQUEUEINFO, other, other, 9), allow},
		{"pidfd_open it", data(unix.SYS_PIDFD_OPEN, tid, unix.O_EXCL), deny},
		{"pidfd_open another", data(unix.SYS_PIDFD_OPEN, other, 0), allow},
		{"F_SETOWN it", data(unix.SYS_FCNTL, 3, unix.F_SETOWN, tid), deny},
		{"F_SETOWN another", data(unix.SYS_FCNTL, 3, unix.F_SETOWN, other), allow},
		{"F_SETOWN_EX", data(unix.SYS_FCNTL, 3, unix.F_SETOWN_EX, 0), deny},
		{"F_SETSIG", data(unix.SYS_FCNTL, 3, unix.F_SETSIG, 9), allow},
		{"F_GETFL", data(unix.SYS_FCNTL, 3, unix.F_GETFL), allow},
		{"FIOSETOWN", data(unix.SYS_IOCTL, 3, 0x8901, 0), deny},
		{"SIOCSPGRP", data(unix.SYS_IOCTL, 3, 0x8902, 0), deny},
		{"TIOCGWINSZ", data(unix.SYS_IOCTL, 0, unix.TIOCGWINSZ, 0), allow},
		{"kill it", data(unix.SYS_KILL, tid, 9), deny},
		{"kill another", data(unix.SYS_KILL, other, 9), allow},
		{"kill -1", data(unix.SYS_KILL, 0xffffffff, 9), allow},
		{"rt_sigqueueinfo it", data(unix.SYS_RT_SIGQUEUEINFO, tid, 9), deny},
		{"rt_sigqueueinfo another", data(unix.SYS_RT_SIGQUEUEINFO, other, 9), allow},
		{"read", data(unix.SYS_READ, tid), allow},
	} {
		got, err := vm.Run(c.in)
		if err != nil || uint32(got) != c.want {
			t.Errorf("%s: got %#x, %v; want %#x", c.name, got, err, c.want)
		}
	}
}

// filterVM is a BPF machine running the filter raw, as the kernel takes
// it.
func filterVM(t *testing.T, raw []unix.SockFilter) *bpf.VM {
	t.Helper()
	ins := make([]bpf.RawInstruction, len(raw))
	for i, r := range raw {
		ins[i] = bpf.RawInstruction{Op: r.Code, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog, ok := bpf.Disassemble(ins)
	if !ok {
		t.Fatal("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// seccompData is struct seccomp_data for a call nr with the low halves
// of its arguments, laid out for filterVM.
func seccompData(nr uint32, args ...uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], a)
	}
	return b
}
