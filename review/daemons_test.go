package review_test

import (
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
