// Package sandbox runs an approved command confined by Landlock and a
// seccomp filter. It is the only importer of go-landlock. Linux only.
//
// # What it decides
//
// Given a Spec (plain data derived from review.Sandbox plus the run's
// context), Run computes the grants, runs the command and reports its
// status, the grants in force, what the kernel could not enforce, and
// any change to a protected path.
//
//   - Read and execute: everything except the Hide paths and /dev.
//   - Write (Spec.Write): the workspace, a private temp dir exported as
//     TMPDIR (removed after the run), /tmp, /dev/shm (a tmpfs of its
//     own where the helper has a mount namespace) and the build
//     cache ~/.cache, and with Net the download caches (~/go/pkg/mod,
//     ~/.npm, ~/.cargo/registry, ~/.cargo/git), when they exist; moving
//     and linking files between
//     writable trees is allowed (Landlock "refer"). Plus
//     Spec.ExtraWrite; a path that does not exist yet is granted
//     through its parent directory. Device nodes can never be created.
//     Without Write nothing is writable but the devices below.
//   - Devices: /dev/null, /dev/zero, /dev/full read-write, /dev/urandom
//     and /dev/random read-only, /dev/tty and the terminals of the
//     command's stdio read-write with ioctl. /dev can be listed. Nothing
//     else under /dev is granted (no disks, no /dev/ptmx).
//   - Network: without Spec.Net, TCP connect and bind are refused by
//     Landlock; with it, TCP connect and UDP are allowed. TCP bind
//     is refused either way, and with Net the helper answers the
//     command's listen(2) itself (confine: listen.go): refused on an
//     inet socket (a TCP socket never bound would take an ephemeral
//     port Landlock does not see). The seccomp filter refuses,
//     with EPERM: io_uring_setup and MPTCP sockets always (Landlock's
//     TCP rules do not see MPTCP; programs fall back to TCP); without
//     Net every AF_INET/AF_INET6 socket (TCP Fast Open connects without
//     connect(2)), with Net any but TCP and UDP/ICMP datagram sockets;
//     all families but unix and netlink (packet, vsock, …), netlink
//     families but route, sock_diag and generic (usersock, …); x32
//     syscalls. A syscall from a foreign architecture kills the process.
//   - Guard itself: the seccomp filter refuses prlimit64, setpriority,
//     ioprio_set and the sched_set* calls aimed at another process,
//     TIOCSTI and TIOCLINUX, and keyctl/add_key/request_key.
//   - IPC: Landlock scopes refuse signals and abstract unix socket
//     connections to processes outside the sandbox.
//   - Capabilities: run as root, the command keeps only a container
//     runtime's usual capabilities (no CAP_SYS_PTRACE, CAP_SYS_ADMIN,
//     CAP_SYS_MODULE, CAP_MKNOD, CAP_NET_RAW, …); no_new_privs stops
//     setuid and file capabilities.
//   - Environment: passed through less the rows of envRules (secret
//     names unless the value is a plain path; variables naming sockets
//     outside the sandbox: SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, TMUX,
//     STY, DISPLAY, WAYLAND_DISPLAY, XAUTHORITY) and values shaped like
//     known tokens, unless listed in Spec.KeepEnv; Result.DroppedEnv
//     names them.
//
// # How it runs the command
//
// Landlock restricts the calling thread irrevocably, so Run starts a
// helper: guard-sandbox-exec next to guard's executable, or else guard
// itself (/proc/self/exe). Its code is package confine, kept small for
// a fast start; ChildMain, called first thing in main, recognises the
// helper by an environment variable. Run starts it first and computes
// the plan (working directory, argv, environment, rules, seccomp
// program) meanwhile; guard's run path starts it earlier still (Start,
// before the review), computes the plan of the likely sandbox alongside
// the review (Helper.Speculate: used only for that very spec, else
// dropped whole) and the run's plan alongside the decision record
// (Helper.Prepare), closing it unused, killed and reaped, for any verdict
// but A. The plan goes on a pipe (fd 3): a JSON header {"format":N},
// which helpers of other builds read as a format they do not know (Run
// then re-executes guard), and a length-prefixed binary body; Prepare
// sends it as soon as it is computed, so the helper confines itself
// while guard syncs its record. The command starts only on the byte Go,
// which Run sends; until then the helper has neither the terminal nor
// guard's signals.
// The helper moves to the plan's directory, finds the command on PATH,
// and on one locked thread sets no_new_privs, restricts itself with raw
// Landlock system calls, drops capabilities (bounding, permitted,
// inheritable and ambient sets) and installs the seccomp filter (all
// per thread; no psx, no TSYNC), marks every inherited descriptor but
// 0-2 close-on-exec, and forks the command from that thread, which
// inherits all of it. On fd 4 the helper writes one line: a failure
// before the command ran (not found is 127, not executable 126, a
// setup failure 125), or, once the command has exited and it has
// killed and reaped every descendant left, the report of the command's
// status, after which it closes its stdio and exits with that status
// (or dies of its signal). With the report Run returns without waiting
// for the helper's exit when the caller reaps it later (Helper.Close);
// a helper that ends without a line is judged by its own exit status,
// and a line that is not a status fails the run. When guard dies (the
// plan pipe reads EOF) the helper kills the command and every
// descendant.
//
// The parent guard stays unrestricted. The command runs in the helper's
// process group, which is put in the terminal's foreground, just before
// the plan is sent, when guard owns the terminal (so ^C and ^Z reach the
// command directly; a stopped command stops the helper and guard too,
// and fg resumes all). Guard relays SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGWINCH, SIGUSR1, SIGUSR2, SIGTSTP and SIGCONT to the group once the
// plan is sent (before, they end guard, and with its lifeline the
// helper), and passes the exit status through (signal N gives 128+N).
// Guard is the child subreaper too (PR_SET_CHILD_SUBREAPER): once the
// helper exits, it kills its group and then every child it did not have
// before the run, repeating until none is left; without a report this
// comes before the protected paths are checked, with one (nothing of
// the command left) it may come after, but always before guard returns.
//
// # Hiding
//
// A Landlock grant cannot be subtracted. To hide a path, no directory
// containing it is granted as a whole: each such ancestor gets only the
// right to list it, and each of its entries is granted one by one
// (recursively along the path to the hidden one). Symbolic links are
// never granted (the kernel checks their targets), and a hidden path is
// hidden under its real name too. The same enumeration applies to write
// grants that contain a hidden path; the top of such a grant keeps the
// right to remove entries (so an approved rm -rf ~/old-data works),
// which reaches the hidden paths beneath it for removal only. Spec.Reveal
// grants read access to paths inside hidden ones.
//
// What stays possible: listing names inside a hidden directory, and
// stat(2) of anything (Landlock does not govern metadata reads).
// Contents cannot be read, written or executed. Not hidden: hard links
// or bind mounts of a hidden file elsewhere; entries created after the
// run started directly inside an ancestor of a hidden path (those are
// not readable either, since only the entries that existed were
// granted).
//
// # Protected paths
//
// Protect paths (shell rc files, .git/hooks, .git/config) may lie inside
// a writable tree, where Landlock cannot carve them out without making
// the tree's top unwritable. They are checked instead, when a writable
// grant reaches them: Run snapshots them before the run (type, mode,
// owner, inode, link count, change time, and content up to a bound;
// for a directory every entry beneath it), compares once everything the
// command started is gone, restores the original state from the
// unrestricted parent (deleting new entries, rewriting changed ones
// through a sibling file and rename) and reports every change as a
// Violation. The caller must fail the run loudly. A change is undone,
// not prevented: while the command runs it may use what it wrote.
// Restoring never writes through a parent directory that was swapped
// for a symlink; what cannot be read after the run is restored from the
// snapshot; no file larger than the bound is ever read. A protected
// .git/hooks plus .git/config stand for all of git's code surfaces
// (see gitSurfaces).
//
// # Degradation
//
// Probe reports the Landlock ABI and each mechanism guard relies on.
// On a kernel that lacks a required one, Run still runs with what
// exists and lists the gaps in Result.Degraded, which the caller must
// print as warnings; with Spec.Require it fails with ErrNotEnforced
// before anything runs. It never reports a sandbox that is not there.
// Some gaps no kernel feature closes on ABI 7; Support.Limits lists
// them for guard doctor. Pathname unix sockets need ABI 9: below it the
// helper covers them in a mount namespace of its own (sockets.go).
//
// Not confined by Landlock at all: chmod, chown, utimes and extended
// attributes, and connecting to pathname unix sockets (before ABI 9).
// Where user namespaces are allowed, the helper runs in a mount
// namespace of its own, read-only but for the writable trees, with the
// daemons' sockets covered (confine/cover.go, sockets.go); reads of /proc
// files that are not per-process stay allowed.
package sandbox
