package sandbox_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackNetlink: netlink is allowed (programs query the kernel
// through it), and Landlock has no rule for it, so a sandboxed command
// could open a NETLINK_USERSOCK socket — a family whose only use is
// messages between user processes — and unicast to a process of the
// user's outside the run that listens on one (the helper shares its
// network namespace; netlink checks no sender). The test process is
// that listener; the command's message must not reach it, with or
// without the network grant. The uevent family (a udev-style listener)
// is refused by the filter too; there the kernel already refused a
// user's send, so that case passes on the base as well. The control: a
// route dump (what getaddrinfo and `ip addr` do) still works. The
// usersock cases fail on 6ee89b7 (the message arrives, the command
// exits 0).
func TestAttackNetlink(t *testing.T) {
	f := newFixture(t)
	withNet := f.spec()
	withNet.Net = true
	for _, c := range []struct {
		name  string
		proto int
	}{{"usersock", unix.NETLINK_USERSOCK}, {"uevent", unix.NETLINK_KOBJECT_UEVENT}} {
		for _, net := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s net=%v", c.name, net), func(t *testing.T) {
				fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, c.proto)
				if err != nil {
					t.Skipf("no %s netlink socket here: %v", c.name, err)
				}
				defer unix.Close(fd)
				if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
					t.Fatal(err)
				}
				sa, err := unix.Getsockname(fd)
				if err != nil {
					t.Fatal(err)
				}
				spec := f.spec()
				if net {
					spec = withNet
				}
				o := f.py(t, spec, "netlink-send", fmt.Sprintf("%d %d", c.proto, sa.(*unix.SockaddrNetlink).Pid))
				buf := make([]byte, 4096)
				n, _, err := unix.Recvfrom(fd, buf, 0)
				if err == nil {
					t.Errorf("a process outside the run received %q on its %s netlink socket: %v", buf[:n], c.name, o)
				} else if !errors.Is(err, unix.EAGAIN) {
					t.Fatalf("recvfrom: %v", err)
				}
				mustFail(t, o)
				if got := strings.TrimSpace(o.stdout); got != "EPERM" {
					t.Errorf("the command's socket(2) = %q, want EPERM (the filter's refusal)", got)
				}
			})
		}
	}
	t.Run("route dump still works", func(t *testing.T) {
		mustSucceed(t, f.py(t, f.spec(), "netlink-route"))
		mustSucceed(t, f.py(t, withNet, "netlink-route"))
	})
}
