package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Pathname unix sockets lead to code outside the sandbox: a Docker
// daemon (root on the machine), the user's systemd manager and session
// bus (systemd-run --user runs anything), a tmux or screen server
// (send-keys types into the user's shell), an SSH agent, X11, editors'
// servers. Landlock confines connecting to them only from ABI 9. Below
// that, the helper runs in a mount namespace of its own (and a user
// namespace, for a user who is not root: userns.go) and covers each
// socket outside the run's own trees with /dev/null before it confines
// itself: connect(2) on the path then reaches no socket. Landlock
// forbids the command every mount change, so the cover stays.

// knownSockets are daemons' sockets that /proc/net/unix may not list:
// it lists the sockets bound in this network namespace only, and a
// devcontainer gets the host's docker.sock bind-mounted in.
var knownSockets = []string{
	"/var/run/docker.sock", "/run/docker.sock",
	"/run/podman/podman.sock", "/run/containerd/containerd.sock",
	"/run/crio/crio.sock", "/run/dbus/system_bus_socket",
}

// knownRuntimeSockets are those under the user's runtime directory
// ($XDG_RUNTIME_DIR, /run/user/UID).
var knownRuntimeSockets = []string{
	"bus", "systemd/private", "docker.sock", "podman/podman.sock", "pipewire-0", "pulse/native", "wayland-0", "wayland-1",
}

// maxSockets bounds the sockets covered per run; more are a machine
// guard cannot reason about (each is a mount), and the run is refused.
const maxSockets = 4096

// procNetUnix is where the kernel lists the bound unix sockets (a
// variable for tests).
var procNetUnix = "/proc/net/unix"

// unixSockets returns the pathname unix sockets in reach: those the
// kernel lists, and the known daemons' sockets, each once (by its file)
// and only if it still is a socket.
func unixSockets(runtimeDir string) []string {
	var cands []string
	if f, err := os.Open(procNetUnix); err == nil {
		cands = parseNetUnix(io.LimitReader(f, 64<<20))
		f.Close()
	}
	cands = append(cands, knownSockets...)
	if runtimeDir == "" {
		runtimeDir = "/run/user/" + strconv.Itoa(os.Getuid())
	}
	if st, err := os.Stat(runtimeDir); err == nil && st.IsDir() {
		for _, n := range knownRuntimeSockets {
			cands = append(cands, filepath.Join(runtimeDir, n))
		}
	}
	var out []string
	seen := fileSet{}
	for _, p := range cands {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK || !seen.add(&st) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// fileSet is a set of files by identity (device and inode).
type fileSet map[[2]uint64]bool

// add adds st's file and says whether it was new.
func (s fileSet) add(st *unix.Stat_t) bool {
	k := [2]uint64{st.Dev, st.Ino}
	if s[k] {
		return false
	}
	s[k] = true
	return true
}

// parseNetUnix returns the absolute paths in /proc/net/unix: the eighth
// field, when there is one ("@name" is an abstract socket, which
// Landlock's scoping covers; a relative path names nothing guard can
// find).
func parseNetUnix(r io.Reader) []string {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue // the header
		}
		line := sc.Bytes()
		// Num RefCount Protocol Flags Type St Inode Path
		for i := 0; i < 7; i++ {
			line = bytes.TrimLeft(line, " ")
			j := bytes.IndexByte(line, ' ')
			if j < 0 {
				line = nil
				break
			}
			line = line[j:]
		}
		p := string(bytes.TrimLeft(line, " "))
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// coveredSockets returns the sockets of socks the run of s must not
// reach: all but those in the workspace and the private temp dir (the
// command's own), the resolver's when the run has the network, and
// those named by a variable the user kept explicitly (--keep-env
// SSH_AUTH_SOCK, DOCKER_HOST=unix://…). A run with Daemons covers none.
func coveredSockets(socks []string, s Spec, tmp string, env []string) []string {
	if s.Daemons || len(socks) == 0 {
		return nil
	}
	kept := keptSockets(s, env)
	var out []string
	for _, p := range socks {
		switch {
		case withinClean(p, s.Workspace), tmp != "" && withinClean(p, tmp):
			continue
		case s.Net && resolverSocket(p):
			continue
		case slices.Contains(kept, p):
			continue
		}
		out = append(out, p)
	}
	return out
}

// tmuxTmp is the temp dir of daemonDirs' rows that name a base when
// their variable is not set (a variable for tests).
var tmuxTmp = tmpDir

// daemonDirs are the directories where programs the user may start
// after a run began bind their sockets, one row each: dirVar names the
// directory itself (else dflt), baseVar the directory it is made in
// (else /tmp), with name below it; {uid}, {user} and {home} are filled
// in. made: guard makes the directory (0700, as the program does) when
// it is missing, so that a command cannot make it first for a later
// server to accept.
var daemonDirs = []struct {
	program       string
	dirVar, dflt  string
	baseVar, name string
	made          bool
}{
	{program: "the session bus, systemd, gpg-agent, ssh-agent, Wayland, PipeWire, editors' servers", dirVar: "XDG_RUNTIME_DIR", dflt: "/run/user/{uid}"},
	{program: "tmux (send-keys types into the user's shell)", baseVar: "TMUX_TMPDIR", name: "tmux-{uid}", made: true},
	{program: "Emacs's server without a runtime directory (emacsclient --eval)", baseVar: "TMPDIR", name: "emacs{uid}", made: true},
	{program: "zellij without a runtime directory (write-chars)", baseVar: "TMPDIR", name: "zellij-{uid}", made: true},
	{program: "screen", dirVar: "SCREENDIR", dflt: "/run/screen/S-{user}"},
	{program: "screen (Debian's path)", dflt: "/var/run/screen/S-{user}"},
	{program: "screen without a system directory", dflt: "{home}/.screen"},
}

// socketDirs returns the directories the helper covers with an empty
// read-only tmpfs: where the user's daemons bind their sockets
// (daemonDirs: cover), so that a socket that appears there after the run
// began (a tmux or screen server the user starts later, a gpg-agent
// started on demand) is out of the command's view as well as those the
// kernel lists now, and the hidden directories (hiddenDirs: conceal,
// covered so that a lookup there is refused). The rows marked made are
// made first when missing, in a daemon client's run too, and anything
// but a directory there is replaced (makeSocketDir). Only this user's
// own directories (not symlinks) are covered, none inside another, and
// none that holds the run's own trees (the workspace, the private temp
// dir, a writable grant, the working directory), a revealed path or a
// socket the user kept (--keep-env SSH_AUTH_SOCK), nor any for a run
// that reaches the daemons.
func socketDirs(s Spec, tmp string, writable, kept []string) (cover, conceal []string) {
	uid := os.Getuid()
	// The user's environment as they gave it: TMPDIR is not the run's
	// private one.
	userEnv := s.Env
	if userEnv == nil {
		userEnv = os.Environ()
	}
	// A name that is not known, or not a plain name, leaves its
	// placeholder, and the row is skipped.
	pairs := []string{"{uid}", strconv.Itoa(uid)}
	if u := envValue(userEnv, "USER"); u != "" && !strings.Contains(u, "/") {
		pairs = append(pairs, "{user}", u)
	}
	if s.Home != "" {
		pairs = append(pairs, "{home}", s.Home)
	}
	fill := strings.NewReplacer(pairs...)
	var cands []string
	for _, d := range daemonDirs {
		dir := ""
		switch {
		case d.dirVar != "" && envValue(userEnv, d.dirVar) != "":
			dir = envValue(userEnv, d.dirVar)
		case d.baseVar != "":
			base := envValue(userEnv, d.baseVar)
			if !filepath.IsAbs(base) {
				base = tmuxTmp
			}
			dir = filepath.Join(base, fill.Replace(d.name))
		default:
			dir = fill.Replace(d.dflt)
		}
		if strings.Contains(dir, "{") || !filepath.IsAbs(dir) {
			continue
		}
		if d.made {
			makeSocketDir(dir)
		}
		cands = append(cands, dir)
	}
	if s.Daemons {
		return nil, nil
	}
	daemons := len(cands)
	cands = append(cands, hiddenDirs(s)...)
	own := append(append(append([]string{s.Workspace, tmp, s.Dir}, writable...), kept...), s.Reveal...)
	var out []string
	concealed := map[string]bool{}
	seen := fileSet{}
next:
	for i, d := range cands {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		var st unix.Stat_t
		if unix.Lstat(d, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != uid {
			continue
		}
		if withinClean(d, s.Workspace) || tmp != "" && withinClean(d, tmp) {
			continue
		}
		for _, o := range own {
			if o != "" && withinClean(filepath.Clean(o), d) {
				continue next
			}
		}
		if seen.add(&st) {
			out = append(out, d)
			concealed[d] = i >= daemons
		}
	}
	for _, d := range out {
		// One inside another is covered with it.
		if slices.ContainsFunc(out, func(o string) bool { return o != d && withinClean(d, o) }) {
			continue
		}
		if concealed[d] {
			conceal = append(conceal, d)
		} else {
			cover = append(cover, d)
		}
	}
	return cover, conceal
}

// hiddenDirs are the run's hidden paths (secret locations, guard's own
// state), as socketDirs covers them: agents bind their sockets there, by
// design or when the user has no runtime directory — gpg-agent's
// S.gpg-agent.ssh in ~/.gnupg (GNUPGHOME), ssh-agent's ~/.ssh/agent/
// (OpenSSH 10.1), ssh's ControlMaster sockets (a command that reaches
// one runs commands on the server without a password), Docker Desktop's
// ~/.docker/desktop/docker.sock — and an agent started after the run
// began binds one that /proc/net/unix did not list when it was planned.
// Landlock does not confine connect(2) on them below ABI 9, and nothing
// in a hidden directory is the command's to read anyway: covered whole,
// it shows not even their names. socketDirs keeps only directories, and
// none that holds a path the run may read or write.
func hiddenDirs(s Spec) []string {
	out := make([]string, 0, len(s.Hide))
	for _, h := range s.Hide {
		if s.res != nil {
			h = s.res.canonical(h)
		} else {
			h = canonical(h)
		}
		out = append(out, h)
	}
	return out
}

// makeSocketDir makes d, a daemon's socket directory in the shared /tmp,
// as its program does (0700). What else stands at that name is a plant:
// a symlink (left by a command that could write /tmp while d was not
// there: a daemon client's run, or the first run after a reboot) would
// lead a later server that follows it (zellij does) to bind where the
// link points — a directory of the command's own, the workspace — which
// no cover reaches. None of these programs makes anything but a
// directory there, so anything else is removed first (the link itself,
// never what it points to).
func makeSocketDir(d string) {
	var st unix.Stat_t
	if unix.Lstat(d, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		os.Remove(d)
	}
	os.Mkdir(d, 0o700)
}

// keptSockets are the socket paths named by a variable the user kept
// explicitly (--keep-env SSH_AUTH_SOCK, DOCKER_HOST=unix://…).
func keptSockets(s Spec, env []string) []string {
	var kept []string
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(s.KeepEnv, name) {
			continue
		}
		// SSH_AUTH_SOCK=/p, DOCKER_HOST=unix:///p,
		// DBUS_SESSION_BUS_ADDRESS=unix:path=/p,guid=…
		v = strings.TrimPrefix(v, "unix://")
		if i := strings.Index(v, "unix:path="); i >= 0 {
			v = v[i+len("unix:path="):]
			v, _, _ = strings.Cut(v, ",")
		}
		if strings.HasPrefix(v, "/") {
			kept = append(kept, filepath.Clean(v))
		}
	}
	return kept
}

func resolverSocket(p string) bool {
	for _, r := range resolverSockets {
		if withinClean(p, r) {
			return true
		}
	}
	return false
}
