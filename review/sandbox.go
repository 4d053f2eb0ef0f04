package review

// Sandbox is the confinement a verdict asks the run path to enforce. It is
// derived from the same profile as the level, so what the review assumed is
// what the kernel enforces. It is plain data: the sandbox package turns it
// into Landlock and seccomp rules.
type Sandbox struct {
	// Write grants the workspace, a private temp dir, /tmp, /dev/shm and
	// the tool caches read-write. A command whose profile only reads gets
	// no writable path at all.
	Write bool `json:"write"`
	// ExtraWrite lists further absolute paths the command may write
	// (an approved write outside the workspace, or --allow-write).
	ExtraWrite []string `json:"extra_write,omitempty"`
	// Net allows TCP connect and DNS. Without it TCP is refused by
	// Landlock and UDP, raw, MPTCP and io_uring sockets by seccomp.
	Net bool `json:"net"`
	// Hide lists absolute paths that must not be readable: secret
	// locations and guard's own config and state.
	Hide []string `json:"hide"`
	// Reveal lists absolute paths that are readable (never writable) for
	// this run although they are secret or inside a hidden directory:
	// guard's own policy and settings (its read-only subcommands need
	// them), and the credential a known client reads for a read-only
	// query (gh pr list: ~/.config/gh; kubectl get: ~/.kube), for this
	// command only. A Hide entry above a revealed path (~/.docker for
	// ~/.docker/config.json) stays hidden except for the revealed path.
	Reveal []string `json:"reveal,omitempty"`
	// Daemons lets the command reach local daemons' pathname unix
	// sockets (docker.sock, tmux, the session bus): the line runs a
	// program whose work that is (profile.DaemonClient). Without it the
	// sandbox covers them.
	Daemons bool `json:"daemons,omitempty"`
	// Protect lists absolute paths that must not be changed even inside
	// a writable tree: shell rc files, .git/hooks, .git/config.
	Protect []string `json:"protect"`
}
