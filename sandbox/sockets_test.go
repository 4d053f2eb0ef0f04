package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// SetSharedTmp points the shared temp dir's protection at d for a test
// (the real /tmp is shared with everything on the machine) and returns
// the undo.
func SetSharedTmp(d string) func() {
	old := sharedTmp
	sharedTmp = d
	return func() { sharedTmp = old }
}

func init() {
	// Runs make tmux's socket directory to cover it: in the tests, below
	// a directory that is not there (so none is made), never the
	// machine's /tmp/tmux-UID. Tests that need one set TMUX_TMPDIR.
	tmuxTmp = filepath.Join(os.TempDir(), "guard-test-no-tmux")
}

func TestParseNetUnix(t *testing.T) {
	in := `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 23456 /run/user/1000/bus
0000000000000000: 00000003 00000000 00000000 0001 03 23457 /run/user/1000/bus
0000000000000000: 00000002 00000000 00010000 0001 01 23458 @/tmp/.X11-unix/X0
0000000000000000: 00000002 00000000 00000000 0002 01 23459
0000000000000000: 00000002 00000000 00010000 0001 01 23460 /tmp/tmux-1000/default
0000000000000000: 00000002 00000000 00010000 0001 01 23461 relative.sock
0000000000000000: 00000002 00000000 00010000 0001 01 23462 /tmp/with space/s
`
	got := parseNetUnix(strings.NewReader(in))
	want := []string{"/run/user/1000/bus", "/tmp/tmux-1000/default", "/tmp/with space/s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCoveredSockets(t *testing.T) {
	socks := []string{"/run/docker.sock", "/home/u/ws/dev.sock", "/tmp/guard-run-1/s", "/tmp/tmux-1000/default",
		"/run/systemd/resolve/io.systemd.Resolve", "/tmp/ssh-x/agent.1", "/run/user/1000/bus"}
	base := Spec{Workspace: "/home/u/ws", Home: "/home/u"}
	env := []string{"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus,guid=x"}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want []string
	}{
		{"a run covers all but its own", func(*Spec) {},
			[]string{"/run/docker.sock", "/tmp/tmux-1000/default", "/run/systemd/resolve/io.systemd.Resolve", "/tmp/ssh-x/agent.1", "/run/user/1000/bus"}},
		{"the network grant keeps the resolver's", func(s *Spec) { s.Net = true },
			[]string{"/run/docker.sock", "/tmp/tmux-1000/default", "/tmp/ssh-x/agent.1", "/run/user/1000/bus"}},
		{"a variable kept explicitly keeps its socket", func(s *Spec) { s.KeepEnv = []string{"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"} },
			[]string{"/run/docker.sock", "/tmp/tmux-1000/default", "/run/systemd/resolve/io.systemd.Resolve"}},
		{"a daemon client covers none", func(s *Spec) { s.Daemons = true }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.edit(&s)
			got := coveredSockets(socks, s, "/tmp/guard-run-1", env)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSocketDirs(t *testing.T) {
	root := t.TempDir()
	uid := strconv.Itoa(os.Getuid())
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runtime, screen, home := mk("run/user"), mk("screendir"), mk("home")
	mk("home/.screen")
	os.Symlink(runtime, filepath.Join(root, "runlink"))
	tmux := filepath.Join(root, "tmux-"+uid)
	old := tmuxTmp
	tmuxTmp = filepath.Join(root, "tmp")
	t.Cleanup(func() { tmuxTmp = old })
	mk("tmp")
	emacs, zellij := filepath.Join(root, "tmp/emacs"+uid), filepath.Join(root, "tmp/zellij-"+uid)
	env := []string{"XDG_RUNTIME_DIR=" + runtime, "TMUX_TMPDIR=" + root, "SCREENDIR=" + screen, "USER=u"}
	base := Spec{Workspace: filepath.Join(root, "ws"), Home: home}
	// plant: what a command that could write /tmp while these were not
	// there leaves for the next run: links to a directory of its own
	// (the workspace, say), where a server that follows them binds.
	elsewhere := mk("ws/sockets")
	if err := os.WriteFile(filepath.Join(elsewhere, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	plant := func() {
		for _, d := range []string{tmux, emacs, zellij} {
			os.Remove(d)
			if err := os.Symlink(elsewhere, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		edit     func(*Spec, *[]string)
		writable []string
		want     []string
	}{
		{"the runtime dir, tmux's, Emacs's and zellij's (made) and screen's", func(*Spec, *[]string) {}, nil,
			[]string{runtime, tmux, emacs, zellij, screen, filepath.Join(home, ".screen")}},
		{"a daemon client covers none", func(s *Spec, _ *[]string) { s.Daemons = true }, nil, nil},
		{"not one that holds a writable grant", func(*Spec, *[]string) {}, []string{filepath.Join(runtime, "app")},
			[]string{tmux, emacs, zellij, screen, filepath.Join(home, ".screen")}},
		{"not one that holds a kept socket", func(s *Spec, e *[]string) {
			s.KeepEnv = []string{"SSH_AUTH_SOCK"}
			*e = append(*e, "SSH_AUTH_SOCK="+filepath.Join(runtime, "ssh-agent.socket"))
		}, nil, []string{tmux, emacs, zellij, screen, filepath.Join(home, ".screen")}},
		{"not the workspace's own", func(s *Spec, _ *[]string) { s.Workspace = root }, nil, nil},
		{"not through a symlink", func(_ *Spec, e *[]string) {
			*e = append([]string{"XDG_RUNTIME_DIR=" + filepath.Join(root, "runlink")}, (*e)[1:]...)
		}, nil, []string{tmux, emacs, zellij, screen, filepath.Join(home, ".screen")}},
		{"a symlink planted in place of a made one is replaced", func(*Spec, *[]string) { plant() }, nil,
			[]string{runtime, tmux, emacs, zellij, screen, filepath.Join(home, ".screen")}},
		{"also by a daemon client's run, which covers none", func(s *Spec, _ *[]string) { plant(); s.Daemons = true }, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(tmux)
			s := base
			e := append([]string(nil), env...)
			tc.edit(&s, &e)
			s.Env = e // the user's TMPDIR, if any, is the run's environment's
			got, _ := socketDirs(s, "", tc.writable, keptSockets(s, e))
			for _, d := range []string{tmux, emacs, zellij} {
				if st, err := os.Lstat(d); err != nil || !st.IsDir() {
					t.Errorf("%s: %v, %v; want a directory", d, st, err)
				}
			}
			if _, err := os.Stat(filepath.Join(elsewhere, "keep")); err != nil {
				t.Errorf("the link's target was touched: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
	if st, err := os.Lstat(tmux); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("tmux's directory: %v, %v; want a directory, mode 0700", st, err)
	}
}

// TestSocketDirsUserTmp: Emacs and zellij bind in the user's $TMPDIR when
// it is set; that is where their directories are made and covered.
func TestSocketDirsUserTmp(t *testing.T) {
	root := t.TempDir()
	uid := strconv.Itoa(os.Getuid())
	old := tmuxTmp
	tmuxTmp = filepath.Join(root, "tmp")
	t.Cleanup(func() { tmuxTmp = old })
	user := filepath.Join(root, "usertmp")
	for _, d := range []string{tmuxTmp, user, filepath.Join(root, "home"), filepath.Join(root, "ws")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"XDG_RUNTIME_DIR=" + filepath.Join(root, "none"), "TMPDIR=" + user}
	s := Spec{Workspace: filepath.Join(root, "ws"), Home: filepath.Join(root, "home"), Env: env}
	got, _ := socketDirs(s, "", nil, nil)
	want := []string{filepath.Join(tmuxTmp, "tmux-"+uid), filepath.Join(user, "emacs"+uid), filepath.Join(user, "zellij-"+uid)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestConcealDirs: the hidden directories are concealed, each once (not
// one inside another, nor one inside a daemon's directory), never one
// that holds a revealed path, a writable grant or the working directory,
// nor a hidden file, nor any for a run that reaches the daemons.
func TestConcealDirs(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, runtime := mk("home"), mk("run")
	old := tmuxTmp
	tmuxTmp = mk("tmp")
	t.Cleanup(func() { tmuxTmp = old })
	ssh, gnupg, kube, state := mk("home/.ssh"), mk("home/.gnupg"), mk("home/.kube"), mk("home/.local/state/guard")
	mk("home/.gnupg/private-keys-v1.d")
	mk("run/gnupg")
	if err := os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	hide := []string{ssh, gnupg, filepath.Join(gnupg, "private-keys-v1.d"), kube, state, filepath.Join(home, ".netrc"), filepath.Join(runtime, "gnupg"), filepath.Join(home, ".missing")}
	base := Spec{Workspace: mk("ws"), Home: home, Hide: hide, Env: []string{"XDG_RUNTIME_DIR=" + runtime}}
	for _, tc := range []struct {
		name     string
		edit     func(*Spec)
		writable []string
		want     []string
	}{
		{"every hidden directory once", func(*Spec) {}, nil, []string{ssh, gnupg, kube, state}},
		{"not one that holds a revealed path", func(s *Spec) { s.Reveal = []string{filepath.Join(kube, "config")} }, nil, []string{ssh, gnupg, state}},
		{"not one that holds a writable grant", func(*Spec) {}, []string{filepath.Join(ssh, "known_hosts")}, []string{gnupg, kube, state}},
		{"not the working directory's", func(s *Spec) { s.Dir = filepath.Join(gnupg, "private-keys-v1.d") }, nil, []string{ssh, kube, state}},
		{"none for a daemon client", func(s *Spec) { s.Daemons = true }, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.edit(&s)
			cover, conceal := socketDirs(s, "", tc.writable, nil)
			if !reflect.DeepEqual(conceal, tc.want) {
				t.Errorf("concealed %q\nwant %q", conceal, tc.want)
			}
			uid := strconv.Itoa(os.Getuid())
			daemons := []string{runtime, filepath.Join(tmuxTmp, "tmux-"+uid), filepath.Join(tmuxTmp, "emacs"+uid), filepath.Join(tmuxTmp, "zellij-"+uid)}
			if !s.Daemons && !reflect.DeepEqual(cover, daemons) {
				t.Errorf("covered %q, want the daemons' directories %q", cover, daemons)
			}
		})
	}
}
