package hostexec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustedPATH(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	sys := filepath.Join(root, "usr/bin")
	for _, d := range []string{ws + "/.venv/bin", home + "/.cache/bin", home + "/bin", home + "/go/pkg/mod/bin", sys} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A PATH entry that is a symlink into the workspace is the workspace.
	if err := os.Symlink(ws+"/.venv/bin", home+"/venv-bin"); err != nil {
		t.Fatal(err)
	}
	// The trees as the sandbox names them, root itself excluded: the
	// test's temp dir must not make every entry untrusted.
	trees := []string{ws, home + "/.cache", home + "/go/pkg/mod"}
	cases := []struct {
		dir  string
		want bool
	}{
		{sys, true},
		{home + "/bin", true},
		{ws + "/.venv/bin", false},
		{ws, false},
		{home + "/.cache/bin", false},
		{home + "/go/pkg/mod/bin", false},
		{home + "/venv-bin", false},
		{home + "/../home/.cache/bin", false},
		{home + "/missing", false},
		{".", false},
		{"", false},
		{"bin", false},
	}
	for _, c := range cases {
		if got := Trusted(c.dir, trees); got != c.want {
			t.Errorf("Trusted(%q) = %v, want %v", c.dir, got, c.want)
		}
	}
	list := strings.Join([]string{ws + "/.venv/bin", "", sys, home + "/.cache/bin", ".", home + "/bin"}, ":")
	if got, want := PATH(list, trees), sys+":"+home+"/bin"; got != want {
		t.Errorf("PATH = %q, want %q", got, want)
	}
}

func TestLook(t *testing.T) {
	root := t.TempDir()
	planted := filepath.Join(root, "ws/.venv/bin")
	real := filepath.Join(root, "usr/bin")
	for _, d := range []string{planted, real} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "git"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(real, "noexec"), nil, 0o644)
	os.Mkdir(filepath.Join(real, "adir"), 0o755)
	list := PATH(planted+":"+real, []string{filepath.Join(root, "ws")})
	got, err := Look("git", list)
	if err != nil || got != filepath.Join(real, "git") {
		t.Errorf("Look(git) = %q, %v; want %s", got, err, filepath.Join(real, "git"))
	}
	for _, name := range []string{"noexec", "adir", "missing"} {
		if p, err := Look(name, list); !errors.Is(err, ErrNotFound) {
			t.Errorf("Look(%s) = %q, %v; want ErrNotFound", name, p, err)
		}
	}
	if _, err := Look("./git", list); err == nil {
		t.Error("Look(./git) found a path")
	}
}

func TestCommandTrees(t *testing.T) {
	t.Setenv("TMPDIR", "/var/tmp/mine")
	got := CommandTrees("/home/u", "/home/u/src/p")
	for _, want := range []string{"/tmp", "/var/tmp", "/dev/shm", "/var/tmp/mine", "/home/u/.cache", "/home/u/go/pkg/mod", "/home/u/.npm", "/home/u/.cargo/registry", "/home/u/.cargo/git", "/home/u/src/p"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("CommandTrees lacks %s: %v", want, got)
		}
	}
	if got := CommandTrees("", ""); len(got) != 4 {
		t.Errorf("CommandTrees without home and workspace = %v", got)
	}
}

func TestEnv(t *testing.T) {
	got := Env([]string{"A=1", "PATH=/x:/ws/bin", "B=2"}, "/usr/bin")
	if strings.Join(got, " ") != "A=1 B=2 PATH=/usr/bin" {
		t.Errorf("Env = %v", got)
	}
}
