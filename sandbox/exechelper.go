package sandbox

import (
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// The helper that confines itself and execs the command is, by
// preference, guard-sandbox-exec: a small binary (cmd/guard-sandbox-exec)
// installed next to guard, which does nothing but ChildMain. Starting it
// costs about half of re-executing guard's own 16 MB binary. Without it
// guard re-executes itself, as before. Either way the helper shares
// nothing with guard (no memory, no descriptors but the plan and status
// pipes, no Landlock domain): guard stays outside the command's domain.

// ExecHelperName is the file name of the helper binary, looked up in
// the directory of guard's own executable.
const ExecHelperName = "guard-sandbox-exec"

// selfExe re-executes guard itself as the helper.
const selfExe = "/proc/self/exe"

// execHelper finds the helper once per process.
var execHelper = sync.OnceValue(findExecHelper)

func helperPath() string { return execHelper() }

// findExecHelper returns guard-sandbox-exec next to guard's executable
// when it is a regular, executable file owned by guard's user or root
// and writable by no one else; otherwise guard itself.
func findExecHelper() string {
	self, err := os.Executable()
	if err != nil {
		return selfExe
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	cand := filepath.Join(filepath.Dir(self), ExecHelperName)
	var st unix.Stat_t
	if unix.Stat(cand, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 || st.Mode&0o022 != 0 {
		return selfExe
	}
	if st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return selfExe
	}
	return cand
}
