package sandbox

import (
	"reflect"
	"strings"
	"testing"
)

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
