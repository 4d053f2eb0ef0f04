package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompArch holds what the filter needs to know about an architecture.
// Only little-endian architectures are listed: the filter reads the low
// 32 bits of each argument at offset 16+8*i.
type seccompArch struct {
	audit        uint32 // AUDIT_ARCH_* value in seccomp_data.arch
	socket       uint32 // socket(2) syscall number
	ioUringSetup uint32 // io_uring_setup(2) syscall number
	x32          bool   // syscall numbers with bit 30 set are the x32 ABI
}

// seccompArches are the architectures guard can filter; on any other
// the filter is not installed and Probe reports it missing.
var seccompArches = map[string]seccompArch{
	"amd64": {audit: unix.AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425, x32: true},
	"arm64": {audit: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425},
}

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // socket: domain
	offArg1 = 24 // socket: type
	offArg2 = 32 // socket: protocol
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
	x32Bit   = 0x40000000
	sockType = 0xf // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC/NONBLOCK
)

// seccompFilter builds the filter. It refuses with EPERM (so programs
// fall back or fail cleanly):
//
//   - io_uring_setup, always: io_uring can open sockets without socket(2);
//   - socket(AF_INET/AF_INET6, …, IPPROTO_MPTCP), always: Landlock's TCP
//     rules do not cover MPTCP, and Go ≥ 1.24 falls back to TCP;
//   - any AF_INET/AF_INET6 socket but a TCP stream socket, and with net
//     a UDP/ICMP datagram socket;
//   - any other family but AF_UNIX and AF_NETLINK (packet, vsock, …);
//   - every x32 syscall.
//
// A syscall from a foreign architecture (32-bit compat mode) kills the
// process: there socket(2) hides behind socketcall(2).
func seccompFilter(a seccompArch, net bool) ([]bpf.RawInstruction, error) {
	var p asm
	p.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	p.jeq(a.audit, "", "kill")
	p.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32 {
		p.jset(x32Bit, "deny", "")
	}
	p.jeq(a.ioUringSetup, "deny", "")
	p.jeq(a.socket, "", "allow")

	p.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	p.jeq(unix.AF_UNIX, "allow", "")
	p.jeq(unix.AF_NETLINK, "allow", "")
	p.jeq(unix.AF_INET, "inet", "")
	p.jeq(unix.AF_INET6, "inet", "deny")

	p.label("inet")
	p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
	p.jeq(unix.IPPROTO_MPTCP, "deny", "")
	p.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockType})
	if net {
		p.jeq(unix.SOCK_DGRAM, "allow", "")
	}
	p.jeq(unix.SOCK_STREAM, "", "deny")
	p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
	p.jeq(0, "allow", "")
	p.jeq(unix.IPPROTO_TCP, "allow", "deny")

	p.label("allow")
	p.op(bpf.RetConstant{Val: retAllow})
	p.label("deny")
	p.op(bpf.RetConstant{Val: retEPERM})
	p.label("kill")
	p.op(bpf.RetConstant{Val: retKill})
	return p.assemble()
}

// installSeccomp installs the filter on every thread (TSYNC) after
// setting no_new_privs on the calling thread, which the caller must have
// locked and must exec from.
func installSeccomp(net bool) error {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("seccomp filter: unsupported architecture %s", runtime.GOARCH)
	}
	raw, err := seccompFilter(a, net)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("install seccomp filter: thread %d could not be synchronised", r)
	}
	return nil
}

// asm is a tiny assembler over x/net/bpf with named jump targets, so the
// filter reads top to bottom without hand-counted skips. An empty label
// means the next instruction.
type asm struct {
	ins    []bpf.Instruction
	labels map[string]int
	jumps  []asmJump
}

type asmJump struct {
	at              int
	onTrue, onFalse string
}

func (p *asm) op(i bpf.Instruction) { p.ins = append(p.ins, i) }

func (p *asm) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *asm) jeq(val uint32, t, f string) { p.jump(bpf.JumpEqual, val, t, f) }

func (p *asm) jset(val uint32, t, f string) { p.jump(bpf.JumpBitsSet, val, t, f) }

func (p *asm) jump(cond bpf.JumpTest, val uint32, t, f string) {
	p.jumps = append(p.jumps, asmJump{at: len(p.ins), onTrue: t, onFalse: f})
	p.ins = append(p.ins, bpf.JumpIf{Cond: cond, Val: val})
}

func (p *asm) assemble() ([]bpf.RawInstruction, error) {
	skip := func(at int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := p.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp filter: undefined label %q", label)
		}
		d := to - at - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp filter: jump to %q out of range", label)
		}
		return uint8(d), nil
	}
	for _, j := range p.jumps {
		ji := p.ins[j.at].(bpf.JumpIf)
		var err error
		if ji.SkipTrue, err = skip(j.at, j.onTrue); err != nil {
			return nil, err
		}
		if ji.SkipFalse, err = skip(j.at, j.onFalse); err != nil {
			return nil, err
		}
		p.ins[j.at] = ji
	}
	return bpf.Assemble(p.ins)
}
