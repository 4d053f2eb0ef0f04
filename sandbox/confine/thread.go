package confine

import "golang.org/x/sys/unix"

// guardThread is the seccomp filter the confined thread adds to guard's
// (helper): it refuses the calls that aim a signal at that thread by its
// id, tid, rather than at the helper's process, whose leader is outside
// the command's Landlock domain (and so out of the command's reach):
// kill and rt_sigqueueinfo of its id (which signal the whole process,
// but are checked against the thread the id names), tkill, tgkill and
// rt_tgsigqueueinfo to it, a pidfd of it (pidfd_open of a thread id),
// and SIGIO, which F_SETSIG makes any signal, for an owner that names
// it (F_SETOWN with its id). F_SETOWN_EX, FIOSETOWN
// and SIOCSPGRP pass the owner behind a pointer, which a filter cannot
// read: refused whatever they name (programs use them rarely; F_SETOWN
// with a pid still works). The command inherits the filter; the
// helper's own signals to itself are sent from its main thread.
//
// The syscall numbers are this build's: the helper runs where it was
// built, and guard's filter, installed first, already kills any call of
// another architecture and refuses x32's. Arguments are read as their
// low 32 bits (offset 16+8*i), as guard's filter reads them: the
// architectures guard filters are little-endian.
func guardThread(tid int) []unix.SockFilter {
	// FIOSETOWN and SIOCSPGRP (include/uapi/linux/sockios.h, the same
	// on every architecture).
	const fioSetOwn, sioCSPgrp = 0x8901, 0x8902
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	arg := func(i uint32) uint32 { return 16 + 8*i }
	t := uint32(tid)
	// Each check is a load and a run of comparisons; a comparison that
	// matches jumps to the deny at the end of its block, or to the
	// block named; every block ends allowing.
	type cmp struct {
		val uint32
		to  string // "" denies
	}
	type block struct {
		name string
		load uint32
		cmps []cmp
	}
	blocks := []block{
		{"nr", 0, []cmp{
			{unix.SYS_KILL, "arg0"}, {unix.SYS_RT_SIGQUEUEINFO, "arg0"},
			{unix.SYS_TKILL, "arg0"}, {unix.SYS_PIDFD_OPEN, "arg0"},
			{unix.SYS_TGKILL, "arg1"}, {unix.SYS_RT_TGSIGQUEUEINFO, "arg1"},
			{unix.SYS_FCNTL, "fcntl"}, {unix.SYS_IOCTL, "ioctl"},
		}},
		{"arg0", arg(0), []cmp{{t, ""}}},
		{"arg1", arg(1), []cmp{{t, ""}}},
		{"fcntl", arg(1), []cmp{{unix.F_SETOWN_EX, ""}, {unix.F_SETOWN, "owner"}}},
		{"owner", arg(2), []cmp{{t, ""}}},
		{"ioctl", arg(1), []cmp{{fioSetOwn, ""}, {sioCSPgrp, ""}}},
	}
	// Layout: each block is its load, its comparisons, ret allow, ret
	// deny.
	start := map[string]int{}
	n := 0
	for _, b := range blocks {
		start[b.name] = n
		n += 1 + len(b.cmps) + 2
	}
	prog := make([]unix.SockFilter, 0, n)
	for _, b := range blocks {
		prog = append(prog, unix.SockFilter{Code: ld, K: b.load})
		denyAt := len(prog) + len(b.cmps) + 1
		for _, c := range b.cmps {
			to := denyAt
			if c.to != "" {
				to = start[c.to]
			}
			prog = append(prog, unix.SockFilter{Code: jeq, K: c.val, Jt: uint8(to - len(prog) - 1)})
		}
		prog = append(prog, unix.SockFilter{Code: ret, K: allow}, unix.SockFilter{Code: ret, K: deny})
	}
	return prog
}
