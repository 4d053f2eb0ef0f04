package profile_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
)

// TestResolveProcessPaths: paths that name "the process that opens them"
// resolve for the command, never for guard, and the same on every run:
// /proc/self/cwd is the line's directory, /proc/PID/root is /, and the
// standard descriptors stay as they are spelled (guard's own stderr may
// be a pipe in /proc, which would price an echo to /dev/stderr at C).
func TestResolveProcessPaths(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "home", "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := &profile.Context{Cwd: ws, Workspace: ws, Home: filepath.Join(root, "home"), User: "u",
		EvalSymlinks: filepath.EvalSymlinks, Readlink: os.Readlink}
	// /proc/PID/root is the kernel's link to a process's root directory
	// (any user's), spelled in parts here.
	procRoot := func(pid, rest string) string { return "/proc/" + pid + "/" + "root" + rest }
	for p, want := range map[string]string{
		"/proc/self/environ":            "/proc/self/environ",
		"/proc/thread-self/environ":     "/proc/thread-self/environ",
		"/proc/self/cwd/notes.txt":      filepath.Join(ws, "notes.txt"),
		"/proc/self/cwd/../.bashrc":     filepath.Join(root, "home", ".bashrc"),
		procRoot("1", "/etc/shadow"):    "/etc/shadow",
		procRoot("1", "/../etc/shadow"): "/etc/shadow",
		procRoot("1/task/1", "/etc/x"):  "/etc/x",
		procRoot("self", "/etc/passwd"): "/etc/passwd",
		"/dev/stderr":                   "/dev/stderr",
		"/dev/stdout":                   "/dev/stdout",
		"/dev/fd/2":                     "/dev/fd/2",
		"/proc/self/fd/1":               "/proc/self/fd/1",
		procRoot("1", ws+"/a.txt"):      filepath.Join(ws, "a.txt"),
	} {
		got, ok := ctx.Resolve(ws, p)
		if !ok || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, ok, want)
		}
		if strings.Contains(got, "/"+strconv.Itoa(os.Getpid())+"/") {
			t.Errorf("Resolve(%q) = %q names guard's own PID", p, got)
		}
	}
	if got, ok := ctx.Resolve("", "/proc/self/cwd/x"); ok {
		t.Errorf("Resolve with an unknown cwd of /proc/self/cwd/x = %q, want unresolved", got)
	}
	// The verdict's wording does not carry guard's PID either.
	p := profile.Build("cat /proc/self/environ", ctx)
	for _, e := range p.Effects {
		if strings.Contains(e.Msg, strconv.Itoa(os.Getpid())) || strings.Contains(e.Target, strconv.Itoa(os.Getpid())) {
			t.Errorf("effect %+v names guard's own PID", e)
		}
	}
}
