// Package hostexec finds the programs guard itself runs outside the
// sandbox: git, for the checkpoints before and after a command and for
// guard undo. guard runs them unconfined, so a program found through a
// directory a sandboxed command could write (an activated .venv/bin or
// node_modules/.bin in the workspace, a directory in /tmp or ~/.cache)
// would be the command's code, run outside the sandbox after the
// command or before the next one. Such directories are left out of the
// lookup and out of the PATH the program gets (git finds its filters,
// git-lfs for one, through it).
package hostexec

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/internal/paths"
)

// homeTrees are the trees under the home directory that a sandboxed
// command may write: the build cache (always, for a command that writes)
// and the download caches (with the network). sandbox/plan.go grants
// them (TestCommandTreesCoverGrants ties the two).
var homeTrees = []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git"}

// tempTrees are the shared temporary directories (TMPDIR is added).
var tempTrees = []string{"/tmp", "/var/tmp", "/dev/shm"}

// CommandTrees are the trees a sandboxed command run in workspace may
// write without an approval of its own: the workspace, the temporary
// directories and the caches under home. Empty home or workspace add
// nothing. Paths are as given, cleaned; Trusted also compares them with
// symlinks resolved.
func CommandTrees(home, workspace string) []string {
	out := append([]string(nil), tempTrees...)
	if t := os.Getenv("TMPDIR"); filepath.IsAbs(t) {
		out = append(out, filepath.Clean(t))
	}
	if home != "" && filepath.IsAbs(home) {
		for _, h := range homeTrees {
			out = append(out, filepath.Join(home, h))
		}
	}
	if workspace != "" && filepath.IsAbs(workspace) {
		out = append(out, filepath.Clean(workspace))
	}
	return out
}

// Trusted reports whether the directory dir (a PATH entry) holds
// programs guard may run outside the sandbox: it is absolute, exists,
// and neither it nor where its symlinks lead is inside trees.
func Trusted(dir string, trees []string) bool {
	if !filepath.IsAbs(dir) {
		return false // "", "." and relative entries: the working directory
	}
	dir = filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false // nothing there now; a command could make it
	}
	for _, t := range trees {
		rt := t
		if r, err := filepath.EvalSymlinks(t); err == nil {
			rt = r
		}
		if paths.Within(dir, t) || paths.Within(real, t) || paths.Within(dir, rt) || paths.Within(real, rt) {
			return false
		}
	}
	return true
}

// PATH is the list (a PATH value) without the directories that are not
// Trusted.
func PATH(list string, trees []string) string {
	var keep []string
	for _, d := range filepath.SplitList(list) {
		if Trusted(d, trees) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// ErrNotFound: no trusted PATH directory holds the program.
var ErrNotFound = errors.New("not found in a PATH directory that sandboxed commands cannot write")

// Look finds the executable name in list (a PATH value already made by
// PATH), never through the working directory.
func Look(name, list string) (string, error) {
	if strings.Contains(name, "/") {
		return "", errors.New("hostexec: " + name + ": a program name, not a path")
	}
	for _, d := range filepath.SplitList(list) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: ErrNotFound}
}

// Env is env with PATH replaced by the trusted one (and set when env has
// none).
func Env(env []string, path string) []string { return With(env, "PATH", path) }

// With is env with name set to value, in place of any earlier setting.
func With(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
