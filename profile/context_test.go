package profile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
)

func TestClassify(t *testing.T) {
	ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
		Env: map[string]string{"TMPDIR": "/home/u/tmp"}, ConfigDir: "/home/u/.config/guard", StateDir: "/home/u/.local/state/guard"}
	tests := map[string]profile.Class{
		"/home/u/proj/main.go":                 profile.ClassWorkspace,
		"/home/u/proj/.env":                    profile.ClassSensitive,
		"/home/u/proj/.git/hooks/pre-push":     profile.ClassPersistence,
		"/home/u/proj/.git/config":             profile.ClassPersistence,
		"/home/u/tmp/x":                        profile.ClassTemp,
		"/tmp/x":                               profile.ClassTemp,
		"/home/u/notes.txt":                    profile.ClassOutside,
		"/home/u":                              profile.ClassHome,
		"/":                                    profile.ClassRoot,
		"/etc/hosts":                           profile.ClassSystem,
		"/etc/shadow":                          profile.ClassSecret,
		"/home/u/.ssh/id_ed25519":              profile.ClassSecret,
		"/home/u/.aws/credentials":             profile.ClassSecret,
		"/home/u/.bashrc":                      profile.ClassPersistence,
		"/home/u/.ssh/authorized_keys":         profile.ClassPersistence,
		"/home/u/.config/guard/pin":            profile.ClassGuard,
		"/home/u/.local/state/guard/audit.log": profile.ClassGuard,
		"/dev/null":                            profile.ClassNull,
		"/dev/pts/3":                           profile.ClassTTY,
		"/dev/sda":                             profile.ClassDevice,
		"relative":                             profile.ClassUnknown,
	}
	for p, want := range tests {
		if got := ctx.Classify(p); got != want {
			t.Errorf("Classify(%s) = %s, want %s", p, got, want)
		}
	}
	// Home or / as the workspace: everything is outside.
	for _, ws := range []string{"/", "/home/u"} {
		c := profile.Context{Cwd: ctx.Cwd, Workspace: ws, Home: ctx.Home, User: ctx.User}
		if got := c.Classify("/home/u/proj/main.go"); got != profile.ClassOutside {
			t.Errorf("workspace %s: got %s, want outside", ws, got)
		}
	}
}

func TestCdScoping(t *testing.T) {
	ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	tests := map[string]string{
		"(cd ..) && rm -rf build":    "/home/u/proj/build",
		"{ cd ..; } && rm -rf build": "/home/u/build",
		"cd .. | true; rm -rf build": "/home/u/proj/build",
		"pushd /srv && rm -rf build": "/srv/build",
		"cd && rm -rf build":         "/home/u/build",
	}
	for text, want := range tests {
		p := profile.Build(text, ctx)
		found := false
		for _, e := range p.Effects {
			if e.Cap == profile.CapDelete && e.Target == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no delete of %s in %+v", text, want, p.Effects)
		}
	}
}

// TestResolveDanglingSymlink: a workspace symlink whose target does not
// exist yet is the target's path (writing through it creates ~/.bashrc),
// through chains of links, relative or absolute.
func TestResolveDanglingSymlink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"rc":    filepath.Join(home, ".bashrc"),
		"rel":   "../.profile",
		"chain": "rc",
		"local": "not-yet",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := &profile.Context{Cwd: ws, Workspace: ws, Home: home, User: "u",
		EvalSymlinks: filepath.EvalSymlinks, Readlink: os.Readlink}
	for rel, want := range map[string]string{
		"rc":         filepath.Join(home, ".bashrc"),
		"rel":        filepath.Join(home, ".profile"),
		"chain":      filepath.Join(home, ".bashrc"),
		"local":      filepath.Join(ws, "not-yet"),
		"plain-file": filepath.Join(ws, "plain-file"),
	} {
		if got, ok := ctx.Resolve(ws, rel); !ok || got != want {
			t.Errorf("Resolve(%q) = %q, want %q", rel, got, want)
		}
	}
	// A link under names that do not exist yet, however deep (mkdir -p
	// writes them): the climb to the link is not bounded like link hops.
	deep := "h" + strings.Repeat("/a", 80)
	if err := os.Symlink(home, filepath.Join(ws, "h")); err != nil {
		t.Fatal(err)
	}
	if got, _ := ctx.Resolve(ws, deep); got != filepath.Join(home, strings.TrimPrefix(deep, "h")) {
		t.Errorf("Resolve(h/a/…/a) = %q, want it under %s", got, home)
	}
	p := profile.Build("echo x >> rc", ctx)
	if len(p.Effects) == 0 || p.Effects[0].Target != filepath.Join(home, ".bashrc") {
		t.Errorf("echo x >> rc: effects %+v, want a write of ~/.bashrc", p.Effects)
	}
}

// TestResolveDotDotAfterSymlink: .. after a symlink climbs from where the
// link leads, as the kernel does: with src/l -> OUT/x, src/l/../a.go is
// OUT/a.go, not the workspace's src/a.go. cd stays logical, as bash's is.
func TestResolveDotDotAfterSymlink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(root, "home", "proj"), filepath.Join(root, "out")
	for _, d := range []string{filepath.Join(ws, "src"), filepath.Join(out, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "x"), filepath.Join(ws, "src", "l")); err != nil {
		t.Fatal(err)
	}
	ctx := &profile.Context{Cwd: ws, Workspace: ws, Home: filepath.Join(root, "home"), User: "u",
		EvalSymlinks: filepath.EvalSymlinks, Readlink: os.Readlink}
	for rel, want := range map[string]string{
		"src/l/../a.go":   filepath.Join(out, "a.go"),
		"src/l/x/../../b": filepath.Join(out, "b"),
		"src/./l/../../c": root + "/c",
		"src/../src/a.go": filepath.Join(ws, "src", "a.go"),
		"src/a.go":        filepath.Join(ws, "src", "a.go"),
	} {
		if got, ok := ctx.Resolve(ws, rel); !ok || got != want {
			t.Errorf("Resolve(%q) = %q, want %q", rel, got, want)
		}
	}
	p := profile.Build("rm -f src/l/../a.go", ctx)
	if len(p.Effects) == 0 || p.Effects[0].Target != filepath.Join(out, "a.go") {
		t.Errorf("rm -f src/l/../a.go: effects %+v, want a delete of %s", p.Effects, filepath.Join(out, "a.go"))
	}
	if p := profile.Build("cd src/l/.. && rm -f a.go", ctx); len(p.Effects) == 0 || p.Effects[len(p.Effects)-1].Target != filepath.Join(ws, "src", "a.go") {
		t.Errorf("cd src/l/.. && rm -f a.go: effects %+v, want a delete of src/a.go (cd is logical)", p.Effects)
	}
}
