package confine

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// With the network grant a command may make TCP sockets (to connect),
// and Landlock (ABI 4 to 7) checks bind(2) but not listen(2): listen on
// a TCP socket never bound makes the kernel bind it to an ephemeral
// port itself, on every interface, with no bind hook, and the command
// then serves whoever reaches the machine (the workspace, to the LAN).
// A filter cannot tell a TCP socket's listen from a unix socket's (it
// sees a descriptor number), and servers on unix sockets are ordinary
// (git's credential-cache daemon, ssh's ControlMaster, test servers).
//
// So, in a run with the network grant, the command's listen(2) goes to
// the helper (SECCOMP_RET_USER_NOTIF): the helper takes the socket
// itself (pidfd_getfd), refuses it when it is an inet socket, and
// otherwise calls listen(2) on it itself and answers with the result.
// The helper acts on the very socket the command named, never lets the
// kernel redo the call (SECCOMP_USER_NOTIF_FLAG_CONTINUE would re-read
// the descriptor, which another thread may have swapped for a TCP
// socket in between). What differs for a unix socket: the peer
// credentials its clients read (SO_PEERCRED) name the helper's
// process, of the same user, not the server's. The supervisor runs on
// the helper's other threads, never on the confined one: its own
// listen(2) must not meet the filter it answers for, and Landlock and
// Yama let it take a descriptor of a process it is the ancestor of,
// outside every domain (TestNetListenUnbound).

// pidfdThread is PIDFD_THREAD (O_EXCL): a pidfd of a thread, not a
// thread group's leader (Linux 6.9).
const pidfdThread = unix.O_EXCL

// seccompNotif and seccompNotifResp are struct seccomp_notif and
// struct seccomp_notif_resp (linux/seccomp.h).
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// UDP is not confined by Landlock before ABI 10: with the network grant
// a command could bind(2) a UDP socket to a port of its choosing and
// serve it while it runs (a `nc -lu 5353`, a port your own service
// shares with SO_REUSEPORT), which the grant, connecting out, never
// meant. A filter cannot tell a UDP socket's bind from a unix socket's,
// and a check of the socket before letting the kernel redo the call
// races with another thread that swaps the descriptor. So every inet
// datagram socket is born bound: the command's socket(2) of one goes to
// the supervisor, which makes the socket itself, binds it to a port the
// kernel picked (by its number, so that a connect(AF_UNSPEC) does not
// unbind it), and hands it over (SECCOMP_IOCTL_NOTIF_ADDFD). The kernel
// refuses a second bind of a bound socket (EINVAL), whatever descriptor
// a racing thread swapped in; the command's bind(2) calls go to the
// supervisor too, which answers one of an inet datagram socket itself:
// to port 0 (a client's "any port", as Node's and QUIC's do) it is
// bound already, so done; to any other port, EACCES, as Landlock
// refuses a TCP bind. Every other bind is the kernel's to do
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a unix socket's path must be
// resolved in the command's view, under its Landlock domain, and a
// datagram socket swapped in meanwhile is bound already. What stays:
// a socket receives, on the ephemeral port it was given, what is sent
// to it (as any UDP client's does); one bound to a local address with
// port 0 keeps the wildcard address; IPV6_V6ONLY, which the kernel
// refuses on a bound socket and Go sets on every inet6 socket, is
// answered "done" without effect (TestNetUDPBind).

// listenFilter hands listen(2), bind(2) and the socket(2) of an inet
// datagram socket to the supervisor; every other call is left to the
// filters before it (guard's has already killed any call of another
// architecture and refused x32's; the numbers are this build's, and
// the arguments' low halves are read at 16+8*i: guard's filter lists
// little-endian architectures only).
func listenFilter() []unix.SockFilter {
	const ld, jeq, ret = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_RET | unix.BPF_K
	// Labels: 15 to the supervisor, 16 allowed, 17 done (0) unasked.
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: 0},
		/* 1 */ {Code: jeq, K: unix.SYS_LISTEN, Jt: 13},
		/* 2 */ {Code: jeq, K: unix.SYS_BIND, Jt: 12},
		/* 3 */ {Code: jeq, K: unix.SYS_SETSOCKOPT, Jf: 4},
		/* 4 */ {Code: ld, K: 24}, // level
		/* 5 */ {Code: jeq, K: unix.IPPROTO_IPV6, Jf: 10},
		/* 6 */ {Code: ld, K: 32}, // option
		/* 7 */ {Code: jeq, K: unix.IPV6_V6ONLY, Jt: 9, Jf: 8},
		/* 8 */ {Code: jeq, K: unix.SYS_SOCKET, Jf: 7},
		/* 9 */ {Code: ld, K: 16}, // domain
		/* 10 */ {Code: jeq, K: unix.AF_INET, Jt: 1},
		/* 11 */ {Code: jeq, K: unix.AF_INET6, Jf: 4},
		/* 12 */ {Code: ld, K: 24}, // type, and its flags
		/* 13 */ {Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: sockTypeMask},
		/* 14 */ {Code: jeq, K: unix.SOCK_DGRAM, Jf: 1},
		/* 15 */ {Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
		/* 16 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		// IPV6_V6ONLY: the kernel refuses it on a bound socket (EINVAL),
		// and Go sets it on every inet6 socket it makes, to dial too:
		// the call succeeds without effect. An inet6 socket the command
		// makes stays as the system's default has it (dual-stack, where
		// net.ipv6.bindv6only is 0), which changes nothing for a client.
		/* 17 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO},
	}
}

// sockTypeMask is SOCK_TYPE_MASK: the socket's type without its flags.
const sockTypeMask = 0xf

// installListenFilter installs listenFilter on the calling thread (after
// guard's filter, with no_new_privs set) and returns the descriptor the
// notifications arrive on (close-on-exec).
func installListenFilter() (int, error) {
	filter := listenFilter()
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return -1, errors.New("install the listen supervisor's filter: " + errno.Error())
	}
	return int(fd), nil
}

// superviseListen answers the command's listen(2) calls arriving on
// notify until the descriptor fails (the helper is exiting).
func superviseListen(notify int) {
	for {
		var req seccompNotif
		if err := notifIoctl(notify, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // interrupted, or the caller died meanwhile
			}
			return
		}
		resp := seccompNotifResp{id: req.id}
		var err error
		switch req.nr {
		case unix.SYS_SOCKET:
			if err = answerSocket(notify, &req); err == nil {
				continue // answered with the socket itself
			}
		case unix.SYS_BIND:
			var cont bool
			if cont, err = answerBind(notify, &req); cont {
				resp.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
			}
		default:
			err = answerListen(notify, &req)
		}
		if err != nil {
			var errno unix.Errno
			if !errors.As(err, &errno) {
				errno = unix.EPERM
			}
			resp.error = -int32(errno)
		}
		// ENOENT: the caller is gone (killed) before the answer.
		notifIoctl(notify, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
	}
}

// answerListen does the listen(2) req asks for, on the caller's own
// socket, unless it is an inet socket (EACCES, as Landlock refuses a
// bind).
func answerListen(notify int, req *seccompNotif) error {
	sock, domain, err := takeSocket(notify, req)
	if err != nil {
		return err
	}
	defer unix.Close(sock)
	if domain == unix.AF_INET || domain == unix.AF_INET6 {
		return unix.EACCES
	}
	return unix.Listen(sock, int(int32(req.args[1])))
}

// takeSocket takes the socket the caller of req names in its first
// argument (pidfd_getfd), and says its domain.
func takeSocket(notify int, req *seccompNotif) (sock, domain int, err error) {
	pidfd, err := threadPidfd(int(req.pid))
	if err != nil {
		return -1, 0, unix.EPERM
	}
	defer unix.Close(pidfd)
	// The thread the pidfd names is still the caller (not a new one
	// that reused its id).
	if err := notifIoctl(notify, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&req.id)); err != nil {
		return -1, 0, unix.EPERM
	}
	sock, err = unix.PidfdGetfd(pidfd, int(int32(req.args[0])), 0)
	if err != nil {
		if errors.Is(err, unix.EBADF) {
			return -1, 0, unix.EBADF
		}
		return -1, 0, unix.EPERM
	}
	domain, err = unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		unix.Close(sock)
		return -1, 0, err // ENOTSOCK, as the call says it
	}
	return sock, domain, nil
}

// answerBind answers the bind(2) of an inet datagram socket (see
// above): to port 0 it is bound already (or, should it not be, the
// supervisor binds it to port 0 itself), to another port EACCES. Any
// other bind is the kernel's (cont), and so is one of a socket the
// helper cannot take (an undumpable program's, ssh-agent's, where the
// helper has no CAP_SYS_PTRACE over it): the kernel refuses to bind an
// inet datagram socket again, so nothing here rests on the check.
func answerBind(notify int, req *seccompNotif) (cont bool, err error) {
	sock, domain, err := takeSocket(notify, req)
	if err != nil {
		return true, nil
	}
	defer unix.Close(sock)
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || domain != unix.AF_INET && domain != unix.AF_INET6 || typ != unix.SOCK_DGRAM {
		return true, nil
	}
	// The port, big-endian at offset 2 of sockaddr_in and sockaddr_in6
	// alike. Read once, from the caller's memory: what the caller
	// changes there afterwards is never read again.
	if int(int32(req.args[2])) < 4 {
		return false, unix.EINVAL
	}
	var b [4]byte
	local := []unix.Iovec{{Base: &b[0]}}
	local[0].SetLen(len(b))
	if n, err := unix.ProcessVMReadv(int(req.pid), local, []unix.RemoteIovec{{Base: uintptr(req.args[1]), Len: len(b)}}, 0); err != nil || n < len(b) {
		return false, unix.EFAULT
	}
	if b[2] != 0 || b[3] != 0 {
		return false, unix.EACCES
	}
	if sa, err := unix.Getsockname(sock); err == nil && portOf(sa) != 0 {
		return false, nil
	}
	return false, unix.Bind(sock, wildcard(domain, 0))
}

// answerSocket makes the inet datagram socket req asks for, born bound
// (bornBound), and hands it to the caller as the call's result.
func answerSocket(notify int, req *seccompNotif) error {
	domain, typ, proto := int(int32(req.args[0])), int(int32(req.args[1])), int(int32(req.args[2]))
	s, err := bornBound(domain, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	addfd := seccompNotifAddfd{id: req.id, flags: unix.SECCOMP_ADDFD_FLAG_SEND, srcfd: uint32(s)}
	if typ&unix.SOCK_CLOEXEC != 0 {
		addfd.newfdFlags = unix.O_CLOEXEC
	}
	return notifIoctl(notify, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&addfd))
}

// seccompNotifAddfd is struct seccomp_notif_addfd (linux/seccomp.h).
type seccompNotifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

// bornBound makes a socket bound to the wildcard address and a port the
// kernel picked, by its number: a socket bound to port 0 is unbound
// again by a connect(AF_UNSPEC), and could then be bound anew. The port
// is taken from a probe socket bound to port 0 and closed; should
// another take it in between, another is tried.
func bornBound(domain, typ, proto int) (int, error) {
	for range 16 {
		probe, err := unix.Socket(domain, typ, proto)
		if err != nil {
			return -1, err
		}
		err = unix.Bind(probe, wildcard(domain, 0))
		var sa unix.Sockaddr
		if err == nil {
			sa, err = unix.Getsockname(probe)
		}
		unix.Close(probe)
		if err != nil {
			return -1, err
		}
		s, err := unix.Socket(domain, typ, proto)
		if err != nil {
			return -1, err
		}
		if err = unix.Bind(s, wildcard(domain, portOf(sa))); err == nil {
			return s, nil
		}
		unix.Close(s)
		if !errors.Is(err, unix.EADDRINUSE) {
			return -1, err
		}
	}
	return -1, unix.EADDRINUSE
}

// wildcard is the any-address of domain (inet or inet6) with port.
func wildcard(domain, port int) unix.Sockaddr {
	if domain == unix.AF_INET6 {
		return &unix.SockaddrInet6{Port: port}
	}
	return &unix.SockaddrInet4{Port: port}
}

// portOf is the port of an inet address, 0 for any other.
func portOf(sa unix.Sockaddr) int {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port
	case *unix.SockaddrInet6:
		return a.Port
	}
	return 0
}

// threadPidfd opens a pidfd of thread tid: PIDFD_THREAD where the
// kernel has it, else one of its thread group (whose descriptor table
// its threads share, but for a clone without CLONE_FILES: the helper
// then acts on the group's descriptor of that number, never on a TCP
// socket it did not check).
func threadPidfd(tid int) (int, error) {
	fd, err := unix.PidfdOpen(tid, pidfdThread)
	if err == nil || !errors.Is(err, unix.EINVAL) {
		return fd, err
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			tgid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1, err
			}
			return unix.PidfdOpen(tgid, 0)
		}
	}
	return -1, unix.ESRCH
}

func notifIoctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}
