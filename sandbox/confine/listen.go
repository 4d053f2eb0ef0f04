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

// listenFilter hands listen(2) to the supervisor; every other call is
// left to the filters before it (guard's has already killed any call of
// another architecture and refused x32's; the numbers are this build's).
func listenFilter() []unix.SockFilter {
	return []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_LISTEN, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
}

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
		if err := answerListen(notify, &req); err != nil {
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
	pidfd, err := threadPidfd(int(req.pid))
	if err != nil {
		return unix.EPERM
	}
	defer unix.Close(pidfd)
	// The thread the pidfd names is still the caller (not a new one
	// that reused its id).
	if err := notifIoctl(notify, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&req.id)); err != nil {
		return unix.EPERM
	}
	sock, err := unix.PidfdGetfd(pidfd, int(int32(req.args[0])), 0)
	if err != nil {
		if errors.Is(err, unix.EBADF) {
			return unix.EBADF
		}
		return unix.EPERM
	}
	defer unix.Close(sock)
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return err // ENOTSOCK, as listen(2) says it
	}
	if domain == unix.AF_INET || domain == unix.AF_INET6 {
		return unix.EACCES
	}
	return unix.Listen(sock, int(int32(req.args[1])))
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
