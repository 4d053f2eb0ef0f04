package sandbox

import (
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompArch holds what the filter needs to know about an architecture.
// Only little-endian architectures are listed: the filter reads the low
// 32 bits of each argument at offset 16+8*i.
type seccompArch struct {
	audit uint32 // AUDIT_ARCH_* value in seccomp_data.arch
	x32   bool   // syscall numbers with bit 30 set are the x32 ABI
	nr    map[string]uint32
}

// seccompArches are the architectures guard can filter; on any other
// the filter is not installed and Probe reports it missing. The syscall
// numbers are this table's, not the build's, so both filters can be
// tested on either machine.
var seccompArches = map[string]seccompArch{
	"amd64": {audit: unix.AUDIT_ARCH_X86_64, x32: true, nr: map[string]uint32{
		"socket": 41, "ioctl": 16, "io_uring_setup": 425,
		"keyctl": 250, "add_key": 248, "request_key": 249,
		"prlimit64": 302, "sched_setaffinity": 203, "sched_setscheduler": 144,
		"sched_setparam": 142, "sched_setattr": 314,
		"setpriority": 141, "ioprio_set": 251,
		"chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
		"open": 2, "openat": 257, "creat": 85, "mknod": 133, "mknodat": 259, "openat2": 437,
	}},
	"arm64": {audit: unix.AUDIT_ARCH_AARCH64, nr: map[string]uint32{
		"socket": 198, "ioctl": 29, "io_uring_setup": 425,
		"keyctl": 219, "add_key": 217, "request_key": 218,
		"prlimit64": 261, "sched_setaffinity": 122, "sched_setscheduler": 119,
		"sched_setparam": 118, "sched_setattr": 274,
		"setpriority": 140, "ioprio_set": 30,
		"fchmod": 52, "fchmodat": 53, "fchmodat2": 452,
		"openat": 56, "mknodat": 33, "openat2": 437,
	}},
}

// refusedSyscalls are refused outright: io_uring can open sockets
// without socket(2); the kernel keyrings hold the session's secrets and
// are not confined by Landlock.
var refusedSyscalls = []string{"io_uring_setup", "keyctl", "add_key", "request_key"}

// selfOnlySyscalls change a resource of the process named by their
// first argument; only 0 (the caller) is allowed. Landlock does not
// confine them, and on guard (same user) they would let the command
// make guard unable to restore anything: prlimit64 lowering guard's
// RLIMIT_NOFILE, RLIMIT_FSIZE or RLIMIT_CPU, or starving it of CPU.
var selfOnlySyscalls = []string{"prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"}

// whoSyscalls take (which, who): only who 0 is allowed, and never
// which 2 for setpriority / 3 for ioprio_set (the user: every process
// of the user, guard included).
var whoSyscalls = []struct {
	name string
	user uint32 // the "which" value that names a user
}{{"setpriority", unix.PRIO_USER}, {"ioprio_set", 3}}

// refusedIoctls are terminal requests that inject input, act on the
// console or outlast the run: TIOCSTI pushes bytes into the terminal's
// input queue (a sandboxed program could type "y" into guard's next
// prompt, or a command into the user's shell), TIOCLINUX can paste the
// selection, and TIOCSETD switches the terminal to another line
// discipline, which stays after the run: the null one drops every byte
// the user types and every byte written (the user's shell and guard's
// next prompt are dead), the others are kernel protocol drivers, loaded
// on demand (n_gsm, n_hdlc: paths to root before); TIOCEXCL puts it in
// exclusive mode, which stays too: no process without CAP_SYS_ADMIN
// opens it again, guard's next consent and PIN prompts included.
var refusedIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCSETD, unix.TIOCEXCL}

// refusedIoctlTypes are the type bytes of old-style ioctl requests
// (0x0000TTNN, no direction or size bits) refused whole: the Linux
// console's keyboard ('K', 0x4B: KDSKBSENT sets the string a function
// key types, KDSKBENT what any key types, KDSKBMODE and KDSETMODE leave
// the keyboard or the screen dead) and VT switching ('V', 0x56). On a
// virtual console that is the command's terminal, the kernel lets it
// (its controlling terminal: no capability needed), and every such
// change outlasts the run: a function key, or Enter, that types a
// command of the planter's choice into the user's shell afterwards.
// Terminal emulators' ptys answer none of them, so nothing a command
// run there needs is refused (TestAttackConsoleKeymap).
var refusedIoctlTypes = []uint32{0x4B, 0x56}

// netlinkProtocols are the netlink families a command may open a socket
// of (socket(AF_NETLINK, …, protocol)), with or without the network
// grant: the ones ordinary programs query the kernel through.
// NETLINK_ROUTE: glibc's getaddrinfo (AI_ADDRCONFIG), if_nameindex, `ip
// addr`; NETLINK_SOCK_DIAG: `ss`; NETLINK_GENERIC: `ethtool`, `iw`,
// `wg show`, taskstats. Every other family is refused: above all
// NETLINK_USERSOCK, whose only use is messages between user processes
// (a sandboxed command could send to a process of the user's outside
// the run that listens on one: netlink has no Landlock rule, and the
// helper shares the network namespace), and the kernel families a user
// has no business with (audit, netfilter, uevents, SELinux, crypto,
// xfrm, …). A socket of an allowed family can still unicast to another
// process's socket of that family (netlink checks no sender): the
// programs that listen there take only the kernel's messages (sender
// port 0), and that stays a stated limit (docs/threat-model.md;
// TestAttackNetlink).
var netlinkProtocols = []uint32{unix.NETLINK_ROUTE, unix.NETLINK_SOCK_DIAG, unix.NETLINK_GENERIC}

// modeSyscall is a call that sets a file's mode: its mode argument, and
// the flags argument that says whether it creates a file (-1: it
// always sets the mode).
type modeSyscall struct {
	name   string
	mode   uint32
	flags  int
	legacy bool // absent on architectures with only the *at calls
}

// modeSyscalls are refused when they would set the set-user-ID bit
// (setUIDBit) of a file, with EPERM: a file the command
// writes that runs as you for whoever runs it (a copy of python3 made
// set-user-ID in /tmp or in the workspace) outlasts the run and hands
// your account, with the secrets the sandbox hid, to any other local
// user or service that can reach it (TestAttackSetIDPlant). openat2,
// whose mode a filter cannot read (it is in a struct), answers ENOSYS,
// on which its callers fall back to openat. The set-group-ID bit is
// left alone: a filter cannot tell a directory's (git init --shared,
// group project directories; chmod 755 keeps it, passing it back) from
// a file's, and a file of your group gives less than your account.
var modeSyscalls = []modeSyscall{
	{"chmod", 1, -1, true}, {"fchmod", 1, -1, false},
	{"fchmodat", 2, -1, false}, {"fchmodat2", 2, -1, false},
	{"creat", 1, -1, true}, {"mknod", 1, -1, true}, {"mknodat", 2, -1, false},
	{"open", 2, 1, true}, {"openat", 3, 2, false},
}

const (
	setUIDBit   = 0o4000             // S_ISUID (S_ISGID is left alone, above)
	createFlags = 0o100 | 0o20000000 // O_CREAT | __O_TMPFILE (asm-generic, x86 alike)
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // socket: domain
	offArg1 = 24 // socket: type
	offArg2 = 32 // socket: protocol
)

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
	x32Bit    = 0x40000000
	sockType  = 0xf // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC/NONBLOCK
)

// seccompFilter builds the filter. It refuses with EPERM (so programs
// fall back or fail cleanly):
//
//   - refusedSyscalls, always;
//   - selfOnlySyscalls and whoSyscalls aimed at another process;
//   - ioctl with a refusedIoctls request;
//   - socket(AF_INET/AF_INET6, …, IPPROTO_MPTCP), always: Landlock's TCP
//     rules do not cover MPTCP, and Go ≥ 1.24 falls back to TCP;
//   - without net, every AF_INET/AF_INET6 socket: Landlock only sees
//     connect(2), and TCP Fast Open (sendto with MSG_FASTOPEN) connects
//     without it;
//   - with net, any AF_INET/AF_INET6 socket but a TCP stream socket or a
//     UDP/ICMP datagram socket;
//   - any other family but AF_UNIX and AF_NETLINK (packet, vsock, …),
//     and AF_NETLINK but for netlinkProtocols (NETLINK_USERSOCK, …);
//   - every x32 syscall.
//
// A syscall from a foreign architecture (32-bit compat mode) kills the
// process: there socket(2) hides behind socketcall(2).
func seccompFilter(a seccompArch, net bool) ([]bpf.RawInstruction, error) {
	// A name missing from the table would match syscall 0 (read on
	// amd64) instead of the one meant: refuse to build the filter.
	var missing []string
	nr := func(name string) uint32 {
		n, ok := a.nr[name]
		if !ok {
			missing = append(missing, name)
		}
		return n
	}
	var p asm
	p.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	p.jeq(a.audit, "", "kill")
	p.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32 {
		p.jset(x32Bit, "deny", "")
	}
	for _, name := range refusedSyscalls {
		p.jeq(nr(name), "deny", "")
	}
	for _, name := range selfOnlySyscalls {
		p.jeq(nr(name), "arg0-self", "")
	}
	for _, w := range whoSyscalls {
		p.jeq(nr(w.name), "who-"+w.name, "")
	}
	p.jeq(nr("ioctl"), "ioctl", "")
	var modes []modeSyscall
	for _, m := range modeSyscalls {
		if _, ok := a.nr[m.name]; !ok && m.legacy {
			continue // not on this architecture (arm64 has only the *at calls)
		}
		modes = append(modes, m)
		p.jeq(nr(m.name), "mode-"+m.name, "")
	}
	p.jeq(nr("openat2"), "enosys", "")
	p.jeq(nr("socket"), "", "allow")

	p.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	p.jeq(unix.AF_UNIX, "allow", "")
	p.jeq(unix.AF_NETLINK, "netlink", "")
	if !net {
		p.jeq(unix.AF_INET, "deny", "")
		p.jeq(unix.AF_INET6, "deny", "deny")
	} else {
		p.jeq(unix.AF_INET, "inet", "")
		p.jeq(unix.AF_INET6, "inet", "deny")

		p.label("inet")
		p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
		p.jeq(unix.IPPROTO_MPTCP, "deny", "")
		p.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockType})
		p.jeq(unix.SOCK_DGRAM, "allow", "")
		p.jeq(unix.SOCK_STREAM, "", "deny")
		p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
		p.jeq(0, "allow", "")
		p.jeq(unix.IPPROTO_TCP, "allow", "deny")
	}

	p.label("netlink")
	p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
	for i, proto := range netlinkProtocols {
		if i == len(netlinkProtocols)-1 {
			p.jeq(proto, "allow", "deny")
		} else {
			p.jeq(proto, "allow", "")
		}
	}

	p.label("arg0-self")
	p.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	p.jeq(0, "allow", "deny")

	for _, w := range whoSyscalls {
		p.label("who-" + w.name)
		p.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		p.jeq(w.user, "deny", "")
		p.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		p.jeq(0, "allow", "deny")
	}

	for _, m := range modes {
		p.label("mode-" + m.name)
		if m.flags >= 0 {
			// The mode counts only when the call creates a file.
			p.op(bpf.LoadAbsolute{Off: offArg0 + 8*uint32(m.flags), Size: 4})
			p.jset(createFlags, "", "allow")
		}
		p.op(bpf.LoadAbsolute{Off: offArg0 + 8*m.mode, Size: 4})
		p.jset(setUIDBit, "deny", "allow")
	}

	p.label("ioctl")
	p.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	for _, req := range refusedIoctls {
		p.jeq(req, "deny", "")
	}
	// The Linux console's keyboard and VT requests, by their type byte
	// (refusedIoctlTypes).
	p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xffffff00})
	for _, ty := range refusedIoctlTypes {
		p.jeq(ty<<8, "deny", "")
	}

	p.label("allow")
	p.op(bpf.RetConstant{Val: retAllow})
	p.label("deny")
	p.op(bpf.RetConstant{Val: retEPERM})
	p.label("enosys")
	p.op(bpf.RetConstant{Val: retENOSYS})
	p.label("kill")
	p.op(bpf.RetConstant{Val: retKill})
	if len(missing) > 0 {
		return nil, fmt.Errorf("seccomp filter: no system call number for %s", strings.Join(missing, ", "))
	}
	return p.assemble()
}

// seccompProgram is the filter for this machine's architecture, as the
// kernel takes it.
func seccompProgram(net bool) ([]unix.SockFilter, error) {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("seccomp filter: unsupported architecture %s", runtime.GOARCH)
	}
	raw, err := seccompFilter(a, net)
	if err != nil {
		return nil, err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
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
