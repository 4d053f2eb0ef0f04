package confine

import (
	"errors"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field
// (ABI 6). A kernel that knows less accepts it as long as the fields it
// does not know are zero, which guard sees to (it sizes the plan to the
// kernel's ABI).
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr: packed, 12
// bytes, at the same offsets as Go's padded layout.
type pathBeneathAttr struct {
	allowed uint64
	parent  int32
}

// restrict applies the plan's Landlock ruleset to the calling thread
// only, which must be locked: no_new_privs, then the ruleset. Nothing
// is downgraded: guard sized the ruleset to this kernel, and whatever
// the kernel refuses fails the run. A rule on a missing path is skipped.
func restrict(p *Plan) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("set no_new_privs: " + err.Error())
	}
	attr := rulesetAttr{handledFS: p.HandledFS, handledNet: p.HandledNet, scoped: p.Scoped}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errors.New("create ruleset: " + errno.Error())
	}
	defer unix.Close(int(fd))
	for _, r := range p.Rules {
		access := r.Access & p.HandledFS
		if access == 0 {
			continue
		}
		parent, err := openReal(r.Path)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) {
			// Gone, or swapped for a symlink since guard planned the
			// run (guard grants real paths only): a command of another
			// run that may write the directory could point it at a
			// secret. No rule: less access, never the link's target.
			continue
		}
		if err != nil {
			return errors.New("open " + r.Path + ": " + err.Error())
		}
		pb := pathBeneathAttr{allowed: access, parent: int32(parent)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH,
			uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		unix.Close(parent)
		if errno != 0 {
			return errors.New("add rule for " + r.Path + ": " + errno.Error())
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return errors.New("restrict: " + errno.Error())
	}
	return nil
}

// openReal opens path (O_PATH) only if no component of it is a symbolic
// link: guard plans every rule and writable tree on resolved paths, so a
// symlink found now was put there since, and leads elsewhere.
func openReal(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if errors.Is(err, unix.ENOSYS) {
		// Before Linux 5.6 (and so without Landlock): the last
		// component at least.
		fd, err = unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	return fd, err
}

// installSeccomp sets no_new_privs and installs the filter on the
// calling thread, which must be locked and start the command.
func installSeccomp(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("set no_new_privs: " + err.Error())
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return errors.New("install seccomp filter: " + errno.Error())
	}
	return nil
}

// keptCapabilities are the capabilities a command run as root keeps
// (a container runtime's usual set, less mknod, raw sockets, setfcap
// and fsetid: a file capability set on a program it writes, or with
// CAP_FSETID the set-group-ID bit on one it gave any group (chgrp disk),
// would outlast the run, TestAttackSetIDPlant and
// TestAttackSetGIDOtherGroupAsRoot). The
// others are dropped from the bounding set, so the exec cannot grant
// them: with CAP_SYS_PTRACE, for one, root could read the environment
// of processes outside the sandbox, which Landlock otherwise refuses.
const keptCapabilities = 1<<unix.CAP_CHOWN | 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_FOWNER |
	1<<unix.CAP_KILL | 1<<unix.CAP_SETGID | 1<<unix.CAP_SETUID |
	1<<unix.CAP_SETPCAP | 1<<unix.CAP_NET_BIND_SERVICE | 1<<unix.CAP_SYS_CHROOT |
	1<<unix.CAP_AUDIT_WRITE

// dropCapabilities empties the calling thread's bounding set but for
// keptCapabilities, then removes the others from its permitted,
// effective and inheritable sets (and so from its ambient set): for
// root the exec keeps the inheritable and ambient sets whatever the
// bounding set says, and no_new_privs keeps the command from gaining
// any capability the thread no longer has. Without CAP_SETPCAP (guard
// run as a user) the bounding set cannot be changed; the other sets
// can always be lowered.
func dropCapabilities() error {
	// Set with Landlock or seccomp already; here for a kernel with
	// neither.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("set no_new_privs: " + err.Error())
	}
	for c := uintptr(0); c < 64; c++ {
		if keptCapabilities&(1<<c) != 0 {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) {
			break // no CAP_SETPCAP, or past the kernel's last capability
		}
		if err != nil {
			return errors.New("drop capability " + strconv.Itoa(int(c)) + ": " + err.Error())
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var sets [2]unix.CapUserData // capabilities 0-31, 32-63
	if err := unix.Capget(&hdr, &sets[0]); err != nil {
		return errors.New("read capabilities: " + err.Error())
	}
	keep := uint64(keptCapabilities)
	if unix.Getuid() != 0 {
		// A user who is not root keeps none: what the helper holds in
		// its own user namespace (CAP_SYS_ADMIN, CAP_DAC_OVERRIDE for
		// the mounts) is not the command's.
		keep = 0
	}
	for i := range sets {
		kept := uint32(keep >> (32 * i))
		sets[i].Effective &= kept
		sets[i].Permitted &= kept
		sets[i].Inheritable &= kept
	}
	if err := unix.Capset(&hdr, &sets[0]); err != nil {
		return errors.New("drop capabilities: " + err.Error())
	}
	return nil
}
