package sandbox

import (
	"runtime"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Support is what the running kernel can enforce, for `guard doctor`
// and for deciding what a run must warn about.
type Support struct {
	// ABI is the Landlock ABI version (0: no Landlock).
	ABI int
	// Arch is the Go architecture name.
	Arch string
	// Seccomp reports whether guard can install its seccomp filter: the
	// kernel has seccomp filters and guard knows this architecture.
	Seccomp bool
	// Features lists each mechanism guard relies on.
	Features []Feature
	// Limits are gaps that no supported kernel feature closes on this
	// machine; they hold for every run.
	Limits []string
}

// Feature is one enforcement mechanism.
type Feature struct {
	// Name is short and stable: "filesystem", "tcp", "seccomp", ….
	Name string
	// Needs says what provides it ("Landlock ABI 4", "seccomp").
	Needs string
	// OK reports whether this machine provides it.
	OK bool
	// Gap says what is not enforced without it.
	Gap string
	// Required features make a run fail under Spec.Require when
	// missing. Features that are not required are reported as limits.
	Required bool

	abi     int  // minimum Landlock ABI, 0 for seccomp
	netOnly bool // matters only when the network is off
}

// features lists the mechanisms in the order doctor shows them.
var features = []Feature{
	{Name: "filesystem", Needs: "Landlock ABI 1", abi: 1, Required: true,
		Gap: "files are not confined: the command can read and write everything you can"},
	{Name: "refer", Needs: "Landlock ABI 2", abi: 2, Required: true,
		Gap: "moving or linking files between directories fails inside the sandbox"},
	{Name: "truncate", Needs: "Landlock ABI 3", abi: 3, Required: true,
		Gap: "files outside the writable paths can be truncated"},
	{Name: "tcp", Needs: "Landlock ABI 4", abi: 4, Required: true, netOnly: true,
		Gap: "TCP connections and listening sockets are not refused"},
	{Name: "ioctl-dev", Needs: "Landlock ABI 5", abi: 5, Required: true,
		Gap: "ioctl on device files is not confined"},
	{Name: "scopes", Needs: "Landlock ABI 6", abi: 6, Required: true,
		Gap: "signals and abstract unix socket connections to processes outside the sandbox are not refused"},
	{Name: "unix-sockets", Needs: "Landlock ABI 9", abi: 9,
		Gap: "Landlock does not confine connecting to pathname unix sockets (docker.sock, ssh-agent, the session bus, tmux, screen, X11): the sandbox helper covers those outside the run in a mount namespace of its own where user namespaces are allowed (see mount namespace), except for daemon clients (docker, tmux, systemctl, …); the directories where daemons started later bind theirs (the runtime directory, tmux's and screen's) are covered whole; sockets bound after the run started elsewhere, and those of another network namespace that guard does not know of, stay reachable. SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, TMUX, STY, DISPLAY, WAYLAND_DISPLAY and XAUTHORITY are dropped from the environment unless kept"},
	{Name: "udp", Needs: "Landlock ABI 10", abi: 10, netOnly: true,
		Gap: "UDP is refused by the seccomp filter only: with the network grant a command can bind a UDP port and receive from the network while it runs"},
	// Not netOnly: the filter also keeps the command from the helper's
	// watching thread, which a run with the network grant needs as
	// much as one without (TestNoSeccompIsDegraded).
	{Name: "seccomp", Needs: "seccomp filter for " + runtime.GOARCH, Required: true,
		Gap: "the command can kill or stop the sandbox helper's watching thread by its thread id (tkill, tgkill), which signal scoping lets through, so what it started may outlive the run; prlimit on guard, TIOCSTI terminal injection, the kernel keyrings and files made set-user-ID are not refused; netlink sockets of every family (NETLINK_USERSOCK messages other processes of yours) are allowed; without the network grant, UDP, raw, SCTP and MPTCP sockets, TCP Fast Open and io_uring are not refused (DNS and UDP still work); and with it, listen(2) on a TCP socket never bound serves an ephemeral port to every interface"},
}

// Probe asks the kernel what it supports. It has no side effect.
func Probe() Support {
	_, archOK := seccompArches[runtime.GOARCH]
	return supportFor(landlockABI(), archOK && seccompAvailable())
}

// supportFor describes a machine with the given Landlock ABI and
// seccomp availability.
func supportFor(abi int, seccomp bool) Support {
	s := Support{ABI: abi, Arch: runtime.GOARCH, Seccomp: seccomp}
	for _, f := range features {
		if f.abi > 0 {
			f.OK = s.ABI >= f.abi
		} else {
			f.OK = s.Seccomp
		}
		s.Features = append(s.Features, f)
		if !f.OK && !f.Required {
			s.Limits = append(s.Limits, f.Gap)
		}
	}
	s.Limits = append(s.Limits,
		"the command lines of other processes (/proc/PID/cmdline) can be read: never put a secret in a command's arguments",
		"names inside a hidden directory can still be listed (contents cannot be read)",
		"hard links and bind mounts of a hidden file elsewhere are not hidden",
		"with the network grant, a command can bind an abstract unix socket name (one a daemon of yours binds later) and answer that daemon's clients outside the sandbox while it runs (without the grant it has a network namespace of its own, where user namespaces are allowed)",
		"protected paths are checked and restored after the run, not refused during it",
	)
	return s
}

// Full reports whether every required feature is enforced.
func (s Support) Full() bool {
	return len(s.Gaps(false)) == 0
}

// Gaps lists what a run with the given network grant would not enforce
// because a required feature is missing.
func (s Support) Gaps(net bool) []string {
	var gaps []string
	for _, f := range s.Features {
		if f.OK || !f.Required || (net && f.netOnly) {
			continue
		}
		if f.abi > 1 && s.ABI == 0 {
			continue // "files are not confined" already says it all
		}
		gaps = append(gaps, f.Name+": "+f.Gap)
	}
	return gaps
}

// landlockABI is the usable Landlock ABI version, 0 without Landlock.
// Like go-landlock, it counts a kernel whose signal scoping has a known
// bug (erratum 2 not fixed) as ABI 5.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		errata, err := ll.LandlockGetErrata()
		if err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}

// seccompAvailable reports whether the kernel has seccomp (mode query
// succeeds; EINVAL means seccomp is not built in).
func seccompAvailable() bool {
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}
