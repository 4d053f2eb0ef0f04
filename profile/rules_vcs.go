package profile

import "strings"

// Version-control clients other than git and hg had no rows: svn commit,
// fossil push and bzr push were unknown programs rated A, though they
// send to a server (and svn delete URL deletes there), svn --diff-cmd
// runs a command line, and fossil's settings and darcs' preferences name
// commands every later use runs. As for the tools that have rows
// (principle 8): the read-only verbs are listed, the ones that only
// change the working copy are A, sending and fetching are B, verbs that
// throw work away are B, and any other verb is B (unknownSub).

// vcsClient is one client's verbs by what they do (space separated).
type vcsClient struct {
	read, local, fetch, send, discard, serve string
	// val are the options taking a value; cmds those whose value is a
	// command line the client runs (reviewed as such).
	val, cmds string
	// configOption is the option whose FILE:SECTION:OPTION=VALUE value
	// sets one setting (svn --config-option), configDir the one that
	// points the client at other settings; "" for a client without.
	configOption, configDir string
	// config are rows for the verbs that change the client's settings.
	config map[string][]row
}

func vcsClients() map[string]vcsClient {
	return map[string]vcsClient{
		"svn": {
			read:    "status st stat log info blame praise annotate ann cat diff di list ls help proplist plist pl propget pget pg mergeinfo",
			local:   "add cleanup resolve resolved upgrade changelist cl patch",
			fetch:   "checkout co update up export switch sw merge relocate",
			send:    "commit ci import delete del remove rm mkdir copy cp move mv rename ren lock unlock propset pset ps propdel pdel pd propedit pedit pe",
			discard: "revert",
			val:     "-m --message -F --file -r --revision -c --change --username --password --password-from-stdin --config-dir --config-option --depth --set-depth --accept --cl --changelist --editor-cmd --diff-cmd --diff3-cmd -x --extensions --targets --encoding --with-revprop -l --limit",
			cmds:    "--editor-cmd --diff-cmd --diff3-cmd",
			// config:helpers:editor-cmd and config:tunnels:ssh are
			// commands svn runs.
			configOption: "--config-option", configDir: "--config-dir",
		},
		"fossil": {
			read:    "status changes extras finfo timeline info diff cat ls help version search whatis annotate blame praise descendants leaves",
			local:   "add addremove rm mv delete rename forget",
			fetch:   "pull clone open update up checkout co",
			send:    "commit ci push sync",
			discard: "revert undo amend purge scrub close",
			serve:   "ui server http",
			val:     "-m --comment -M --message-file -R --repository --user -U --branch --tag",
			config: map[string][]row{
				"settings": vcsSettings("ssh-command|editor|diff-command|gdiff-command|gmerge-command|pgp-command|web-browser|th1-hooks|tcl|tclsh|hooks"),
				"set":      vcsSettings("ssh-command|editor|diff-command|gdiff-command|gmerge-command|pgp-command|web-browser|th1-hooks|tcl|tclsh|hooks"),
				"unset":    {{"vcs.config", CapDynamic, "ops", "", "changes fossil's settings"}},
				"hook":     {{"vcs.hook", CapPersistence, "op0~^(add|edit)$", "", "adds a command fossil runs on every later commit or sync, outside any review"}},
			},
		},
		"bzr": bzrClient(), "brz": bzrClient(),
		"darcs": {
			read:    "whatsnew log diff show annotate changes help",
			local:   "add record move mv remove rm initialize init",
			fetch:   "pull clone get",
			send:    "push send",
			discard: "revert unrecord obliterate amend-record amend unpull rollback",
			val:     "-m --name --repodir --repo",
			config: map[string][]row{
				"setpref": vcsSettings("test|predist|boringfile|binariesfile"),
			},
		},
		"pijul": {
			read:    "log diff change credit help ls",
			local:   "add record mv rm init",
			fetch:   "pull clone",
			send:    "push",
			discard: "reset unrecord",
			val:     "-m --message --repository --channel",
		},
		"cvs": {
			read:    "status log diff annotate rlog rdiff help",
			fetch:   "checkout co get update up export",
			send:    "commit ci import add remove rm tag rtag admin edit unedit watch",
			val:     "-d -m -F -r -D -e",
			cmds:    "-e",
			discard: "release",
		},
	}
}

func bzrClient() vcsClient {
	return vcsClient{
		read:    "status st log diff di cat info ls annotate blame praise help version missing whoami bundle-info",
		local:   "add mv rename rm remove ignore resolve shelve unshelve init",
		fetch:   "pull branch get clone checkout co update up merge",
		send:    "push send commit ci",
		discard: "revert uncommit clean-tree",
		serve:   "serve",
		val:     "-m --message -F --file -r --revision -d --directory",
	}
}

// vcsSettings: a settings verb that names a command-running setting
// (code) is C; any other change is B.
func vcsSettings(codeKeys string) []row {
	return []row{
		{"vcs.config-code", CapPersistence, "op0~^(" + codeKeys + ")$ op1~.", "", "sets a command the client runs on later uses, outside any review"},
		{"vcs.config", CapDynamic, "op1~.", "", "changes the client's settings"},
	}
}

// vcsTable builds the clients' specs.
func vcsTable() map[string]*spec {
	t := map[string]*spec{}
	for name, v := range vcsClients() {
		fn := chain(v.options, hHanded)
		verb := func(rows ...row) *spec {
			return &spec{val: v.val, fn: fn, rows: rows}
		}
		m := map[string]*spec{"*": unknownSub(name)}
		for _, w := range strings.Fields(v.read) {
			m[w] = verb()
		}
		for _, w := range strings.Fields(v.local) {
			m[w] = verb(row{"vcs.write", CapWrite, "", "", "changes the working copy"})
		}
		for _, w := range strings.Fields(v.fetch) {
			m[w] = verb(row{"vcs.fetch", CapFetch, "", "", "reaches the " + name + " server and changes the working copy"})
		}
		for _, w := range strings.Fields(v.send) {
			m[w] = verb(row{"vcs.send", CapSend, "", "", "sends changes to the " + name + " server, visible to others"})
		}
		for _, w := range strings.Fields(v.discard) {
			m[w] = verb(row{"vcs.discard", CapDiscard, "", "", "discards uncommitted work or rewrites local history"})
		}
		for _, w := range strings.Fields(v.serve) {
			m[w] = verb(row{"net.serve", CapSend, "", "", "serves the repository over the network"})
		}
		for w, rows := range v.config {
			m[w] = verb(rows...)
		}
		t[name] = subs(&spec{val: v.val, fn: fn}, m)
	}
	return t
}

// hHanded: the files a client is handed are priced as for a program
// guard cannot describe (a key it imports or commits is sent).
func hHanded(b *builder, c *call) stream {
	b.handedPaths(c.prog, c.fs, c.st, c.sp)
	return stream{}
}

// options reviews the client's options wherever they stand, before the
// verb or after it: the values of cmds are command lines it runs; a
// configOption (svn --config-option FILE:SECTION:OPTION=VALUE) that sets
// a helper or tunnel command (config:helpers:editor-cmd,
// config:tunnels:ssh) is one too, and configDir points it at other
// settings, which can name such commands.
func (v vcsClient) options(b *builder, c *call) stream {
	a := parseArgs(c.args, v.val, false)
	for _, f := range a.values(strings.Fields(v.cmds)...) {
		b.commandText(f, c, c.prog+" option")
	}
	if v.configOption == "" {
		return stream{}
	}
	for _, kv := range a.values(v.configOption) {
		if !kv.known {
			b.dynamicCode(kv, c, c.prog+" --config-option")
			continue
		}
		key, val, _ := strings.Cut(kv.val, "=")
		if re(`^config:(helpers|tunnels):`).MatchString(key) {
			g := kv
			g.val = val
			b.commandText(g, c, c.prog+" "+key)
		}
	}
	for _, d := range a.values(v.configDir) {
		b.add(Effect{Cap: CapDynamic, Rule: "env.config-dir", Program: c.prog, Target: d.display(), Msg: "points " + c.prog + " at other settings (which can name commands it runs)"}, c.sp)
	}
	return stream{}
}
