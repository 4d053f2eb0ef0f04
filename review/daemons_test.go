package review_test

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// TestDaemonGrant: only a line that runs a daemon client reaches the
// daemons' sockets (Sandbox.Daemons); every other run has them covered,
// whatever its level — a script, an interpreter or a program guard does
// not know reaching docker.sock or a tmux server is the escape.
func TestDaemonGrant(t *testing.T) {
	ctx := userCtx()
	for cmd, want := range map[string]bool{
		"docker ps":                             true,
		"/usr/bin/docker images":                true,
		"tmux ls":                               true,
		"systemctl --user status":               true,
		"sh -c 'podman ps'":                     true,
		"psql -h /var/run/postgresql":           true,
		"python3 tool.py":                       false,
		"./run.sh":                              false,
		"make test":                             false,
		"curl https://example.com":              false, // the network grant is for inet sockets only
		"socat - UNIX-CONNECT:/run/docker.sock": false,
	} {
		v := review.Assess(profile.Build(cmd, ctx), review.Input{Text: cmd, Context: ctx, Provenance: review.ProvAgent})
		if v.Sandbox.Daemons != want {
			t.Errorf("%s: daemons %v, want %v", cmd, v.Sandbox.Daemons, want)
		}
	}
}

// TestDaemonWiden: --daemons (Input.WidenDaemons) puts the sockets in
// reach of any command and makes it at least B, saying why.
func TestDaemonWiden(t *testing.T) {
	ctx := userCtx()
	for cmd, wantLevel := range map[string]review.Level{
		"python3 tool.py": review.B,
		"ls":              review.B,
		"rm -rf ~/x":      review.C, // floors only go up
	} {
		v := review.Assess(profile.Build(cmd, ctx), review.Input{Text: cmd, Context: ctx, Provenance: review.ProvAgent, WidenDaemons: true})
		if !v.Sandbox.Daemons {
			t.Errorf("%s --daemons: sockets still covered", cmd)
		}
		if v.Level != wantLevel {
			t.Errorf("%s --daemons: level %s, want %s", cmd, v.Level, wantLevel)
		}
		found := false
		for _, r := range v.Reasons {
			if r.Rule == "sandbox.widen" && strings.Contains(r.Message, "daemons' sockets") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s --daemons: no sandbox.widen reason naming the sockets: %+v", cmd, v.Reasons)
		}
	}
}
