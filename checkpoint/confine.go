package checkpoint

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guard's own git runs outside the sandbox, after the command, in a
// repository the command could write. realStore refuses a store whose
// directories a command swapped for symlinks, but another command still
// running (agents run several at once) could swap one between that check
// and git's write, and git would then create guard's refs or packs
// wherever the link points. So every git guard runs is started from a
// thread of guard's confined by Landlock to writing beneath the
// repository's git directories and guard's own index directory (and
// /dev/null): a write through a link that leads elsewhere is
// refused by the kernel, whenever the link was made. Reading and running
// programs stay as they are (git reads the work tree, runs the user's
// filters). The thread is never used again: the goroutine that confined
// it exits locked to it, and Go ends the thread.

// gitWriteRights are the rights guard's git is confined in: every right
// that writes, by ABI (version 1, 2: REFER, 3: TRUNCATE).
func gitWriteRights(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return r
}

// landlockABI is the kernel's Landlock ABI version: 0 when the kernel
// has none (ENOSYS, EOPNOTSUPP: built without it, or disabled at boot),
// -1 when it refused to say (a seccomp filter, an LSM): then guard's git
// does not run unconfined, startConfined refuses.
var landlockABI = sync.OnceValue(func() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(v)
	case unix.ENOSYS, unix.EOPNOTSUPP:
		return 0
	}
	return -1
})

// startConfined starts cmd (r's git) from a thread confined to writing
// beneath dirs. Without Landlock it starts cmd as it is; a confinement
// that fails is an error, and git does not run.
func startConfined(cmd *exec.Cmd, dirs []string) error {
	return runConfined(dirs, cmd.Start)
}

// runConfined runs f on a thread of its own confined to writing beneath
// dirs (guard's own writes to the store: packwrite.go; and the start of
// its git, whose domain is the thread's). Without Landlock f runs as it
// is; a confinement that fails is an error, and f does not run.
func runConfined(dirs []string, f func() error) error {
	abi := landlockABI()
	switch abi {
	case 0:
		return f()
	case -1:
		return errors.New("confine guard's git: the kernel refused to report its Landlock version")
	}
	done := make(chan error, 1)
	go func() {
		// Locked for good: the thread's domain is the child's, and the
		// thread ends with this goroutine.
		runtime.LockOSThread()
		if err := confineThread(gitWriteRights(abi), dirs); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

// confineThread confines the calling (locked) thread to the rights
// beneath dirs (a dir that does not exist gets no rule).
func confineThread(rights uint64, dirs []string) error {
	attr := struct{ handledFS uint64 }{rights}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errors.New("confine guard's git: create ruleset: " + errno.Error())
	}
	defer unix.Close(int(fd))
	for _, d := range dirs {
		parent, err := unix.Open(d, unix.O_PATH|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return errors.New("confine guard's git: open " + d + ": " + err.Error())
		}
		st := &unix.Stat_t{}
		allowed := rights
		if unix.Fstat(parent, st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			// A file (/dev/null): only what a file takes.
			allowed &= unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
		}
		pb := struct {
			allowed uint64
			parent  int32
		}{allowed, int32(parent)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		unix.Close(parent)
		if errno != 0 {
			return errors.New("confine guard's git: add rule for " + d + ": " + errno.Error())
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("confine guard's git: no_new_privs: " + err.Error())
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return errors.New("confine guard's git: restrict: " + errno.Error())
	}
	return nil
}

// writable are the directories r's git may write beneath: the git
// directory, the common one (a linked worktree's), guard's index
// directory and /dev/null.
func (r *repo) writable(index string) []string {
	dirs := []string{r.gitDir, r.commonDir(), os.DevNull}
	if index != "" {
		dirs = append(dirs, filepath.Dir(index))
	}
	return dirs
}
