package confine

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestListenFilter runs the listen supervisor's filter, whose jumps are
// counted by hand, in a BPF machine: listen(2), bind(2) and the
// socket(2) of an inet datagram socket (with its flags, of either
// family) reach the supervisor; IPV6_V6ONLY is answered done; every
// other socket, option and call is left to the kernel. A jump one off
// would leave a datagram socket unbound (the bind then the kernel's) or
// hand the supervisor calls it does not answer.
func TestListenFilter(t *testing.T) {
	vm := filterVM(t, listenFilter())
	const notif, allow, done = unix.SECCOMP_RET_USER_NOTIF, unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO
	for _, c := range []struct {
		name string
		in   []byte
		want uint32
	}{
		{"listen", seccompData(unix.SYS_LISTEN, 3, 8), notif},
		{"bind", seccompData(unix.SYS_BIND, 3, 0, 16), notif},
		{"udp", seccompData(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM, 0), notif},
		{"udp cloexec nonblock", seccompData(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.IPPROTO_UDP), notif},
		{"udp6", seccompData(unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0), notif},
		{"ping", seccompData(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP), notif},
		{"udplite6", seccompData(unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_UDPLITE), notif},
		{"tcp", seccompData(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0), allow},
		{"tcp6", seccompData(unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP), allow},
		{"unix datagram", seccompData(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_DGRAM, 0), allow},
		{"netlink datagram", seccompData(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_ROUTE), allow},
		{"IPV6_V6ONLY", seccompData(unix.SYS_SETSOCKOPT, 3, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY), done},
		{"IPV6_RECVPKTINFO", seccompData(unix.SYS_SETSOCKOPT, 3, unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO), allow},
		{"SO_REUSEPORT", seccompData(unix.SYS_SETSOCKOPT, 3, unix.SOL_SOCKET, unix.SO_REUSEPORT), allow},
		{"IP_PKTINFO", seccompData(unix.SYS_SETSOCKOPT, 3, unix.IPPROTO_IP, unix.IP_PKTINFO), allow},
		{"connect", seccompData(unix.SYS_CONNECT, 3, 0, 16), allow},
		{"sendmsg", seccompData(unix.SYS_SENDMSG, 3, 0, 0), allow},
		{"socketpair", seccompData(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_DGRAM, 0), allow},
		{"read", seccompData(unix.SYS_READ, unix.AF_INET, unix.SOCK_DGRAM), allow},
	} {
		got, err := vm.Run(c.in)
		if err != nil || uint32(got) != c.want {
			t.Errorf("%s: got %#x, %v; want %#x", c.name, got, err, c.want)
		}
	}
}
