package profile

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// Friction rows of LEVELS.md: help and version are A; read-only queries
// to a remote service by a known client are A with the network and that
// client's credential, read-only, for that command only; clipboard
// writes and opening files are B.

// helpShort are programs without subcommands whose lone short flag is
// help or version (python3 -V, node -v). Tools with subcommands accept
// -h, -V and -v alone too. Privilege and power tools are not here on
// purpose: sudo -v refreshes credentials, shutdown -h halts.
var helpShort = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"node": true, "python": true, "python3": true, "python2": true, "pypy3": true, "ruby": true, "perl": true, "php": true,
		"deno": true, "bun": true, "lua": true, "java": true, "rustc": true, "gcc": true, "g++": true, "clang": true, "cc": true,
		"ssh": true, "curl": true, "wget": true, "jq": true, "make": true, "rsync": true, "tmux": true, "bash": true, "zsh": true,
		"psql": true, "mysql": true, "sqlite3": true, "redis-cli": true, "terraform": true, "tofu": true,
	}
})

// helpOnly reports whether a call only asks for help or the version:
// --help or --version alone (on any known tool), a lone -h/-V/-v or
// "version" on a tool with subcommands or in helpShort, or "help …" on a
// tool with subcommands. It runs nothing.
func helpOnly(s *spec, c *call) bool {
	if len(c.fs) == 0 || !c.fs[0].known {
		return false
	}
	first := c.fs[0].val
	subsOrShort := len(s.subs) > 0 || helpShort()[c.prog] && c.sub == ""
	if first == "help" && len(s.subs) > 0 {
		for _, f := range c.fs {
			if !f.known {
				return false
			}
		}
		return true
	}
	if len(c.fs) != 1 {
		return false
	}
	switch first {
	case "--help", "--version":
		return true
	case "-h", "-V", "-v", "-version", "version":
		return subsOrShort
	}
	return false
}

// clientCreds are the credential locations (under home) each known
// client reads for a read-only query.
var clientCreds = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"gh": {".config/gh"}, "glab": {".config/glab-cli"}, "kubectl": {".kube"}, "oc": {".kube"}, "helm": {".kube"},
		"npm": {".npmrc"}, "pnpm": {".npmrc"}, "yarn": {".npmrc", ".yarnrc.yml"}, "git": {".git-credentials", ".config/git/credentials"},
	}
})

// hQuery: a read-only query by a known client. Its credential is
// readable, read-only, for this command; its output is network data.
func hQuery(b *builder, c *call) stream {
	if b.ctx.Home != "" && !b.ctx.Remote {
		for _, r := range clientCreds()[c.prog] {
			p := path.Join(b.ctx.Home, r)
			b.add(Effect{Cap: CapQuery, Rule: "net.query-credential", Program: c.prog, Target: p, Class: ClassSecret,
				Msg: "may read its credential " + p + " (read-only, for this command only)"}, c.sp)
		}
	}
	return stream{kind: streamNetwork}
}

// hQuerySending is hQuery for a query that can read files and send their
// contents: fields (gh's key=@file) and the values of fileOpts name a
// file ("-" is the command's input). What a file holds is not on the
// line, so the query is sending (B), and a secret or guard file is read
// to be sent (C).
func hQuerySending(fieldOpts, fileOpts []string) handler {
	return func(b *builder, c *call) stream {
		var files []field
		for _, v := range c.a.values(fieldOpts...) {
			if i := strings.Index(v.val, "=@"); v.known && i >= 0 {
				f := v
				f.val = v.val[i+2:]
				files = append(files, f)
			}
		}
		for _, f := range append(files, c.a.values(fileOpts...)...) {
			b.add(Effect{Cap: CapSend, Rule: "net.query-data", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("sends what %s holds to the network in its query", f.display())}, c.sp)
			if f.known && f.val != "-" && f.val != "" {
				b.pathEffect(CapRead, "net.send-file", c.prog, f, c.st, c.sp, "reads, to send,")
			}
		}
		return hQuery(b, c)
	}
}

// query is a read-only query spec for a known client.
func query(msg string) *spec {
	return &spec{fn: hQuery, out: streamNetwork, rows: []row{{"net.query", CapQuery, "", "", msg + " (read-only, with the network for this command only)"}}}
}

// desktopTable: clipboard writers and openers (B).
func desktopTable() map[string]*spec {
	clip := "replaces the clipboard, which you may paste into a terminal"
	open := func(msg string) *spec { return whole("desktop.open", CapDesktop, msg) }
	return map[string]*spec{
		"xsel":             {rows: []row{{"desktop.clipboard", CapDesktop, "!-o !--output !-c !--clear !-k !--keep", "", clip}}},
		"xclip":            {val: "-selection -sel -t -target -d -display -loops -l", rows: []row{{"desktop.clipboard", CapDesktop, "!-o !-out", "", clip}}},
		"wl-copy":          whole("desktop.clipboard", CapDesktop, clip),
		"pbcopy":           whole("desktop.clipboard", CapDesktop, clip),
		"clip.exe":         whole("desktop.clipboard", CapDesktop, clip),
		"xdg-open":         open("opens a file or URL with another program, outside guard's sandbox"),
		"open":             open("opens a file or URL with another program, outside guard's sandbox"),
		"gio":              {rows: []row{{"desktop.open", CapDesktop, "op0~^(open|launch)$", "", "opens a file or URL with another program, outside guard's sandbox"}}},
		"wslview":          open("opens a file or URL with another program, outside guard's sandbox"),
		"sensible-browser": open("opens a URL in the browser"), "x-www-browser": open("opens a URL in the browser"),
		"kde-open": open("opens a file or URL with another program"), "gnome-open": open("opens a file or URL with another program"),
		"notify-send": whole("desktop.notify", CapRead, "shows a desktop notification"),
		// Desktop settings go through the session bus to a service outside
		// guard's sandbox (a pathname socket Landlock cannot close below
		// ABI 9): changing them is B; which program opens links and files
		// is code that runs later, C.
		"gsettings": subs(whole("desktop.settings", CapDesktop, "changes desktop settings (the screen lock, the proxy, …) through the session bus, outside guard's sandbox"), map[string]*spec{
			"get": plain(), "list-schemas": plain(), "list-relocatable-schemas": plain(), "list-keys": plain(), "list-children": plain(),
			"list-recursively": plain(), "range": plain(), "describe": plain(), "writable": plain(), "monitor": plain(), "help": plain()}),
		"dconf": subs(whole("desktop.settings", CapDesktop, "changes desktop settings through the session bus, outside guard's sandbox"), map[string]*spec{
			"read": plain(), "list": plain(), "dump": plain(), "watch": plain(), "help": plain()}),
		"xdg-settings": subs(whole("desktop.default-app", CapPersistence, "changes which program opens web links or files, code that runs later"), map[string]*spec{"get": plain(), "check": plain(), "--help": plain()}),
		"xdg-mime":     subs(whole("desktop.default-app", CapPersistence, "changes which program opens a kind of file, code that runs later"), map[string]*spec{"query": plain(), "--help": plain()}),
	}
}
