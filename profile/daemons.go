package profile

import (
	"path"
	"sync"
)

// daemonClients are the programs whose work is talking to a local daemon
// through its pathname unix socket: a container engine, a terminal
// multiplexer, the user's systemd manager and session bus, a desktop's
// clipboard or notifications, an editor's server, an SSH or GPG agent, a
// database on this machine. A run of a line that runs one of them
// reaches the daemons' sockets (sandbox.Spec.Daemons); any other run has
// them covered, so a program the review rated A cannot ask a daemon to
// act for it outside the sandbox (docker.sock is root on the machine;
// tmux send-keys types into your shell; systemd-run --user runs
// anything). What each of them asks the daemon for is reviewed by its
// own rows (docker run, systemctl --user start, …).
var daemonClients = sync.OnceValue(func() map[string]string {
	return map[string]string{
		// Container engines and what drives them.
		"docker": "Docker", "docker-compose": "Docker", "podman": "Podman", "podman-compose": "Podman",
		"nerdctl": "containerd", "ctr": "containerd", "crictl": "the container runtime",
		"lxc": "LXD", "incus": "Incus", "multipass": "Multipass", "virsh": "libvirt", "vagrant": "its provider",
		"minikube": "Docker", "kind": "Docker", "k3d": "Docker", "act": "Docker", "tilt": "Docker",
		"skaffold": "Docker", "devcontainer": "Docker", "snap": "snapd", "flatpak": "the session bus",
		// Terminal multiplexers.
		"tmux": "the tmux server", "screen": "the screen server", "zellij": "the zellij server",
		// systemd, the session bus and the desktop.
		"systemctl": "systemd", "systemd-run": "systemd", "loginctl": "systemd-logind", "busctl": "the bus",
		"gdbus": "the bus", "dbus-send": "the bus", "dbus-monitor": "the bus", "gsettings": "the session bus",
		"dconf": "the session bus", "notify-send": "the session bus", "xdg-open": "the desktop", "gio": "the desktop",
		"xclip": "X11", "xsel": "X11", "xdotool": "X11", "wl-copy": "Wayland", "wl-paste": "Wayland",
		"pactl": "the sound server", "wpctl": "the sound server",
		// Editors' servers and agents.
		"emacsclient": "the Emacs server", "code": "VS Code", "cursor": "Cursor", "codium": "VSCodium",
		"ssh-add": "the SSH agent", "gpg-connect-agent": "the GPG agent",
		// Databases on this machine.
		"psql": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB", "redis-cli": "Redis",
		"mongo": "MongoDB", "mongosh": "MongoDB",
	}
})

// DaemonClient reports whether the program named name talks to a local
// daemon through its socket (see daemonClients).
func DaemonClient(name string) bool {
	_, ok := daemonClients()[path.Base(name)]
	return ok
}

// ReachesDaemons reports whether a command of p is a daemon client.
func (p *Profile) ReachesDaemons() bool {
	for _, c := range p.Commands {
		if DaemonClient(c.Name) {
			return true
		}
	}
	return false
}
