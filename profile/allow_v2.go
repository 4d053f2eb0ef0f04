package profile

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/parse"
)

// Allow-listed tools (LEVELS.md principle 8): for each tool here the
// read-only subcommands and verbs are listed; anything else gets the
// tool's state-changing level, never A. TestUnknownSubcommandNeverA
// checks every tool with subcommands.

// unknownSub is the default for a tool's subcommands guard does not list.
func unknownSub(tool string) *spec {
	return whole("tool.unknown-subcommand", CapDynamic, "runs a "+tool+" subcommand guard does not know, so it cannot say what it changes")
}

// systemctlReadOnly are systemctl's verbs that only read.
var systemctlReadOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"status": true, "show": true, "cat": true, "help": true, "get-default": true, "show-environment": true,
		"list-units": true, "list-unit-files": true, "list-sockets": true, "list-timers": true, "list-jobs": true,
		"list-dependencies": true, "list-machines": true, "list-paths": true, "list-automounts": true,
		"is-active": true, "is-enabled": true, "is-failed": true, "is-system-running": true,
	}
})

// systemctlUserRuntime are --user verbs that change running user services
// but nothing that survives a logout.
var systemctlUserRuntime = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"start": true, "stop": true, "restart": true, "reload": true, "try-restart": true, "reload-or-restart": true,
		"kill": true, "reset-failed": true, "daemon-reload": true, "freeze": true, "thaw": true, "clean": true,
	}
})

// hSystemctl: read-only verbs are A; --user start/stop are B; --user
// enable and other lasting changes are persistence (C); every other verb
// changes the system (C).
func hSystemctl(b *builder, c *call) stream {
	verb := ""
	if len(c.a.ops) > 0 {
		if !c.a.ops[0].known {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-subcommand", Program: c.prog, Target: c.a.ops[0].display(), Msg: "runs systemctl with a verb that is not static"}, c.sp)
			return stream{}
		}
		verb = c.a.ops[0].val
	}
	if verb == "" || systemctlReadOnly()[verb] || strings.HasPrefix(verb, "list-") || strings.HasPrefix(verb, "is-") {
		return stream{kind: streamText}
	}
	user := c.a.has("--user")
	switch {
	case user && systemctlUserRuntime()[verb]:
		b.add(Effect{Cap: CapProcess, Rule: "sys.user-service", Program: c.prog, Target: verb, Msg: fmt.Sprintf("changes your running user services (%s)", verb)}, c.sp)
	case user:
		b.add(Effect{Cap: CapPersistence, Rule: "sys.user-service", Program: c.prog, Target: verb, Msg: fmt.Sprintf("changes your user services (%s): they run again at login, without asking", verb)}, c.sp)
	default:
		b.add(Effect{Cap: CapSystem, Rule: "sys.service", Program: c.prog, Target: verb, Msg: fmt.Sprintf("changes system services or the machine's state (systemctl %s)", verb)}, c.sp)
	}
	return stream{}
}

// initVerbsReadOnly are the init-script verbs that only read.
var initVerbsReadOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"status": true, "--status-all": true, "--help": true, "help": true, "usage": true}
})

// hService: service NAME VERB, invoke-rc.d NAME VERB, /etc/init.d/NAME
// VERB: status is A, every other verb changes system services.
func hService(b *builder, c *call) stream {
	verb := ""
	switch {
	case c.prog == "service" && c.a.has("--status-all"):
		return stream{kind: streamText}
	case len(c.a.ops) >= 2:
		verb = c.a.ops[1].display()
	case len(c.a.ops) == 1 && strings.Contains(c.prog, "/"):
		verb = c.a.ops[0].display()
	}
	if initVerbsReadOnly()[verb] {
		return stream{kind: streamText}
	}
	b.add(Effect{Cap: CapSystem, Rule: "sys.service", Program: c.prog, Target: verb, Msg: "changes system services (" + strings.TrimSpace(c.prog+" "+verb) + ")"}, c.sp)
	return stream{}
}

// pathProgram is called for a program run by path: a script in an init
// directory is a service control, and a project's build wrapper
// (./gradlew, ./mvnw) has the rows of the tool it wraps.
func (b *builder) initScript(prog, abs string, argv []field, st *state, sp span) {
	c := &call{prog: abs, fs: argv[1:], st: st, sp: sp}
	switch base := path.Base(abs); {
	case strings.HasPrefix(abs, "/etc/init.d/") || strings.HasPrefix(abs, "/etc/rc.d/"):
		c.a = parseArgs(c.fs, "", false)
		hService(b, c)
	case base == "gradlew" || base == "mvnw":
		s := lookupSpec(base)
		c.a = parseArgs(c.fs, s.val, s.posix)
		c.prog = base
		b.rows(s, c)
	}
}

// hDbus: method calls that power off, reboot, suspend or start and stop
// units are system changes; calls that type text or run a command in a
// terminal or the desktop shell (Konsole's runCommand and sendText,
// Yakuake's, Guake's execute_command, GNOME Shell's Eval, Plasma's
// evaluateScript, KLauncher's exec) are terminal injection; other calls
// send messages to other programs.
func hDbus(b *builder, c *call) stream {
	for _, f := range c.a.all {
		// The desktop's secret stores answer over D-Bus: the Secret
		// Service's GetSecret(s), KWallet's read* methods.
		if f.known && re(`(^|\.)(GetSecrets?|readPassword\w*|readEntry\w*|readMap\w*|entriesList|passwordList)$`).MatchString(f.val) {
			b.add(Effect{Cap: CapSecrets, Rule: "secrets.keyring", Program: c.prog, Target: f.val, Msg: "reads passwords from the desktop's secret store over D-Bus (" + f.val + ")"}, c.sp)
			return stream{}
		}
		if f.known && re(`(^|\.)(runCommand|runCommandInTerminal|sendText|execute_command|Eval|evaluateScript|exec_blocking|kdeinit_exec\w*)$`).MatchString(f.val) {
			b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: c.prog, Target: f.val, Msg: "asks a terminal or the desktop over D-Bus to type text or run a command, outside guard's sandbox"}, c.sp)
			return stream{}
		}
	}
	for _, f := range c.a.all {
		if f.known && re(`(^|\.)StartTransientUnit$`).MatchString(f.val) {
			// systemd-run over the bus: a command of the caller's choosing
			// runs as a unit, outside this session and the sandbox.
			b.add(Effect{Cap: CapSystem, Rule: "sys.transient", Program: c.prog, Target: f.val, Msg: "asks systemd over D-Bus to run a command as a transient unit, outside this session and outside guard's sandbox"}, c.sp)
			return stream{}
		}
		if f.known && re(`\.(PowerOff|Reboot|Halt|Suspend|Hibernate|HybridSleep|KExec|StartUnit|StopUnit|RestartUnit|KillUnit|EnableUnitFiles|DisableUnitFiles|MaskUnitFiles|SetWallMessage|Terminate\w*|Kill\w*)$|^(PowerOff|Reboot|Suspend|Hibernate|StartUnit|StopUnit|RestartUnit|EnableUnitFiles)$`).MatchString(f.val) {
			b.add(Effect{Cap: CapSystem, Rule: "sys.power", Program: c.prog, Target: f.val, Msg: "asks the system over D-Bus to power off, reboot, suspend or change services"}, c.sp)
			return stream{}
		}
	}
	if m := systemdChange(c); m != "" {
		b.add(Effect{Cap: CapSystem, Rule: "sys.power", Program: c.prog, Target: m, Msg: "asks systemd over D-Bus to change units or itself (" + m + ")"}, c.sp)
		return stream{}
	}
	if c.a.has("--help", "-h") || len(c.a.ops) > 0 && c.a.ops[0].known && re(`^(list|status|introspect|tree|monitor|capture|--version|help)$`).MatchString(c.a.ops[0].val) {
		return stream{kind: streamText}
	}
	b.add(Effect{Cap: CapDynamic, Rule: "ipc.dbus", Program: c.prog, Msg: "sends a D-Bus message to another program, which acts outside guard's sandbox"}, c.sp)
	return stream{}
}

// systemdName is a row of systemdNames: a capitalised word (whole, or
// every word it starts when prefix) and what it is in a D-Bus call to
// systemd: an interface (rule ""), or a method and its rule.
type systemdName struct {
	name   string
	prefix bool
	rule   string
}

// systemdNames sorts the capitalised words of a D-Bus call to systemd's
// manager. Over the bus, systemd is systemctl and systemd-run: its reads
// are listed (principle 8, rule ipc.dbus: a message to another program)
// and every other method (ReloadOrRestartUnit, LinkUnitFiles,
// SetUnitProperties, Reexecute, a Properties Set…) changes units
// (sys.power). Interface names are not methods.
var systemdNames = sync.OnceValue(func() []systemdName {
	rows := []systemdName{
		{"Get", true, "ipc.dbus"}, {"List", true, "ipc.dbus"}, {"Lookup", true, "ipc.dbus"}, {"Dump", true, "ipc.dbus"},
		{"Introspect", false, "ipc.dbus"}, {"Ping", false, "ipc.dbus"}, {"Subscribe", false, "ipc.dbus"}, {"Unsubscribe", false, "ipc.dbus"},
	}
	for _, iface := range []string{"Manager", "Unit", "Service", "Socket", "Timer", "Scope", "Slice", "Job", "Mount", "Automount", "Swap", "Target", "Device", "Path", "Properties", "Introspectable", "Peer"} {
		rows = append(rows, systemdName{name: iface})
	}
	return rows
})

// systemdRule is the rule of a capitalised word of a call to systemd:
// "" for an interface, sys.power for a method that is not a read.
func systemdRule(word string) string {
	for _, r := range systemdNames() {
		if word == r.name || r.prefix && strings.HasPrefix(word, r.name) {
			return r.rule
		}
	}
	return "sys.power"
}

// systemdChange returns the method of a D-Bus call to systemd's manager
// that changes units (systemdNames), or "". A method is a word whose
// last dotted part is capitalised (busctl's separate METHOD, dbus-send's
// and gdbus's INTERFACE.METHOD).
func systemdChange(c *call) string {
	toSystemd := false
	for _, f := range c.a.all {
		if f.known && strings.Contains(f.val, "org.freedesktop.systemd1") {
			toSystemd = true
		}
	}
	if !toSystemd {
		return ""
	}
	for _, f := range c.a.all {
		if !f.known {
			continue
		}
		m := re(`^(?:--method=)?(?:[A-Za-z_]\w*\.)*((?-i:[A-Z])\w*)$`).FindStringSubmatch(f.val)
		if m != nil && systemdRule(m[1]) == "sys.power" {
			return m[1]
		}
	}
	return ""
}

// hSSHKeygen: -l/-B/-L/-F only read; -R edits known_hosts; otherwise it
// writes a key: the -f file, or ~/.ssh by default.
func hSSHKeygen(b *builder, c *call) stream {
	files := c.a.values("-f")
	switch {
	case c.a.has("-l", "-B", "-L", "-Q", "-F"):
		for _, f := range files {
			b.pathEffect(CapRead, "fs.read", c.prog, f, c.st, c.sp, "reads")
		}
	case c.a.has("-R"):
		b.add(Effect{Cap: CapSecrets, Rule: "secrets.ssh-keygen", Program: c.prog, Msg: "removes a host from ~/.ssh/known_hosts"}, c.sp)
	case c.a.has("-p", "-y", "-e", "-i", "-Y", "-s"):
		// Rows cover reading or changing a private key.
	case len(files) > 0:
		for _, f := range files {
			b.pathEffect(CapWrite, "secrets.ssh-keygen", c.prog, f, c.st, c.sp, "writes a key pair to")
		}
	default:
		b.add(Effect{Cap: CapSecrets, Rule: "secrets.ssh-keygen", Program: c.prog, Msg: "writes a new key pair into ~/.ssh"}, c.sp)
	}
	return stream{}
}

// perlMayMove reports whether a perl rename expression (s/…/…/, y/…/…/)
// may put a / or .. into a name, moving the file to another directory:
// a slash beyond the three delimiters of s/A/B/, or any in an expression
// with another delimiter.
func perlMayMove(expr string) bool {
	i := 1
	if strings.HasPrefix(expr, "tr") {
		i = 2
	}
	if len(expr) <= i {
		return true
	}
	d := expr[i]
	slashes := strings.Count(expr, "/")
	return strings.Contains(expr, "..") || d == '/' && slashes > 3 || d != '/' && slashes > 0
}

// hRename: rename EXPR FILES (perl rename) or rename FROM TO FILES
// (util-linux) moves its operands; a perl expression other than a plain
// substitution is code.
func hRename(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) == 0 {
		return stream{}
	}
	files := ops[1:]
	expr := ops[0]
	perl := expr.known && re(`^(s|y|tr)(\W)`).MatchString(expr.val)
	if !perl && len(ops) >= 2 {
		files = ops[2:] // util-linux: FROM TO FILE…
	}
	if !expr.known || expr.known && !perl && re(`[;(){}]|system|exec|\x60`).MatchString(expr.val) {
		b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(expr.display()), Msg: "runs a perl expression to rename files, which guard does not review"}, c.sp)
	} else if perl && re(`/[a-z]*e[a-z]*$`).MatchString(expr.val) {
		b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(expr.val), Msg: "runs a perl substitution with code (the e flag)"}, c.sp)
	}
	for _, f := range files {
		b.pathEffect(CapWrite, "fs.move", c.prog, f, c.st, c.sp, "renames")
		if !f.known {
			continue
		}
		// The new name: FROM replaced by TO (util-linux), or whatever a
		// perl expression makes of it — any name in the file's
		// directory (principle 10), anywhere when it can insert a /.
		switch {
		case !perl && len(ops) >= 2 && ops[0].known && ops[1].known:
			n := 1
			if c.a.has("-a", "--all") {
				n = -1
			}
			to := strings.Replace(f.val, ops[0].val, ops[1].val, n)
			if c.a.has("-l", "--last") {
				if i := strings.LastIndex(f.val, ops[0].val); i >= 0 {
					to = f.val[:i] + ops[1].val + f.val[i+len(ops[0].val):]
				}
			}
			b.pathEffect(CapWrite, "fs.move", c.prog, staticField(to, span{f.pos, f.end}), c.st, c.sp, "renames a file to")
		case !perl || perlMayMove(expr.val):
			b.add(Effect{Cap: CapWrite, Rule: "fs.move", Program: c.prog, Class: ClassUnknown, Target: "(a name the expression makes)", Msg: "renames files to names the expression makes, which may be anywhere"}, c.sp)
		default:
			b.writeAnyName(c, staticField(path.Dir(f.val), span{f.pos, f.end}), "fs.move", "may rename files to any name in")
		}
	}
	return stream{}
}

// hCpio: -p copies into a directory, -i extracts (with the archive's own
// paths, which may be absolute), -o writes an archive to stdout.
func hCpio(b *builder, c *call) stream {
	dir := staticField(".", c.sp)
	if ds := c.a.values("-D", "--directory"); len(ds) > 0 {
		dir = ds[0]
	}
	switch {
	case c.a.has("-p", "--pass-through"):
		for _, f := range c.a.ops {
			b.pathEffect(CapWrite, "fs.write", c.prog, f, c.st, c.sp, "copies files into")
			// Under the names its input lists, which the line does not
			// show (.bashrc among them).
			b.writeAnyName(c, f, "fs.write", "may copy any name into")
		}
	case c.a.has("-i", "--extract"):
		b.pathEffect(CapWrite, "fs.extract", c.prog, dir, c.st, c.sp, "extracts files into")
		b.extractAny(c, dir)
		if !c.a.has("--no-absolute-filenames") {
			b.extractAnywhere(c)
		}
	}
	return stream{}
}

// hPax: pax -r extracts the member names as the archive (or a -s
// substitution) gives them, absolute and ../ ones too, as cpio -i does;
// pax -rw copies its operands into the last one; pax -w -f FILE writes
// the archive there.
func hPax(b *builder, c *call) stream {
	read, write := c.a.has("-r"), c.a.has("-w")
	switch {
	case read && write && len(c.a.ops) > 1:
		b.pathEffect(CapWrite, "fs.write", c.prog, c.a.ops[len(c.a.ops)-1], c.st, c.sp, "copies files into")
	case read:
		b.extractAny(c, staticField(".", c.sp))
		b.extractAnywhere(c)
	case write:
		for _, f := range c.a.values("-f") {
			b.pathEffect(CapWrite, "fs.output", c.prog, f, c.st, c.sp, "writes the archive to")
		}
	}
	return stream{}
}

// hDockerMounts: a bind mount of the home directory, a parent of it, a
// secret or a system path gives the container the host.
// hMvnExec: the exec plugin's exec goal runs -Dexec.executable with
// -Dexec.args: that command line is reviewed.
func hMvnExec(b *builder, c *call) stream {
	var exe, args *field
	for i := range c.fs {
		f := &c.fs[i]
		if !f.known {
			if strings.HasPrefix(f.raw, "-Dexec.") {
				return b.dynamicCode(*f, c, "mvn exec")
			}
			continue
		}
		switch {
		case strings.HasPrefix(f.val, "-Dexec.executable="):
			exe = f
		case strings.HasPrefix(f.val, "-Dexec.args="):
			args = f
		}
	}
	if exe == nil {
		return stream{}
	}
	quoted, err := parse.Quote([]string{strings.TrimPrefix(exe.val, "-Dexec.executable=")})
	if err != nil {
		return stream{}
	}
	line := quoted
	if args != nil {
		line += " " + strings.TrimPrefix(args.val, "-Dexec.args=")
	}
	return b.text(line, c.st.clone(), stream{}, "mvn exec", span{exe.pos, exe.end})
}

func hDockerMounts(b *builder, c *call) stream {
	var hosts []field
	for _, v := range c.a.values("-v", "--volume") {
		if !v.known {
			continue
		}
		host, _, ok := strings.Cut(v.val, ":")
		if ok && (strings.HasPrefix(host, "/") || strings.HasPrefix(host, ".") || strings.HasPrefix(host, "~")) {
			f := v
			f.val = host
			hosts = append(hosts, f)
		}
	}
	for _, m := range c.a.values("--mount") {
		if !m.known {
			continue
		}
		for _, kv := range strings.Split(m.val, ",") {
			k, val, _ := strings.Cut(kv, "=")
			if k == "source" || k == "src" {
				f := m
				f.val = val
				hosts = append(hosts, f)
			}
		}
	}
	for _, h := range hosts {
		t, class := b.classify(h, c.st)
		switch class {
		case ClassWorkspace, ClassWSRoot, ClassTemp, ClassNull, ClassOutside:
			if class == ClassOutside && h.known && b.ctx.Home != "" && paths.Within(b.ctx.Home, t) {
				break // a parent of home
			}
			continue
		}
		b.add(Effect{Cap: CapPrivilege, Rule: "docker.mount-host", Program: c.prog, Target: t, Class: class, Msg: "mounts " + describeTarget(t, class) + " into a container, which can then read and change it outside guard's sandbox"}, c.sp)
	}
	return stream{}
}

// allowTable: tools whose read-only verbs are listed and everything else
// costs the tool's state-changing level.
func allowTable() map[string]*spec {
	sys := func(id, msg string) *spec { return whole(id, CapSystem, msg) }
	publish := func(msg string) *spec { return whole("remote.destroy", CapPublish, msg) }
	send := func(msg string) *spec { return whole("remote.write", CapSend, msg) }
	t := map[string]*spec{
		"systemctl":   {fn: hSystemctl},
		"service":     {fn: hService},
		"invoke-rc.d": {fn: hService},
		"journalctl": {val: "-u -n -p -b -t -o -S -U --unit --lines --priority --boot --since --until --output --identifier --vacuum-size --vacuum-time --vacuum-files", rows: []row{
			{"sys.logs", CapSystem, "--vacuum-size|--vacuum-time|--vacuum-files|--rotate|--flush|--sync|--relinquish-var|--smart-relinquish-var|--setup-keys", "", "deletes or rotates the system's logs"},
		}},
		"dbus-send": {fn: hDbus}, "gdbus": {fn: hDbus}, "busctl": {fn: hDbus}, "qdbus": {fn: hDbus},
		// Devices and system settings: read-only forms are listed.
		"blkdiscard": sys("sys.disk", "discards every block of a device, erasing it"),
		"hdparm":     {rows: []row{{"sys.disk", CapSystem, "!-I !-i !-g !-t !-T !-C !--Istdout", "", "changes a disk's settings"}, {"sys.disk", CapSystem, "--security-erase|--security-erase-enhanced|--trim-sector-ranges|--write-sector|--make-bad-sector|--fwdownload", "", "erases or rewrites a disk"}}},
		"badblocks":  sys("sys.disk", "scans a raw disk (and with -w or -n rewrites it)"),
		"e2fsck":     sys("sys.disk", "checks and repairs a file system on a raw device"),
		"fsck":       sys("sys.disk", "checks and repairs a file system on a raw device"),
		"xfs_repair": sys("sys.disk", "repairs a file system on a raw device"),
		"tune2fs":    {rows: []row{{"sys.disk", CapSystem, "!-l", "", "changes a file system's settings"}}},
		"resize2fs":  sys("sys.disk", "resizes a file system"),
		"nmcli": {rows: []row{
			{"sys.network", CapSystem, "!noops !op~^(status|show|list|monitor|help|-h|--help|-v|--version|general|permissions|logging|hostname)$", "", "changes network connections"},
			{"sys.network", CapSystem, "op~^(up|down|add|delete|del|modify|mod|connect|disconnect|reapply|set|on|off|import|edit|clone|reload|rescan|hotspot)$", "", "changes network connections"},
		}},
		"tc":                  {rows: []row{{"sys.network", CapSystem, "op~^(add|del|delete|change|replace|link|flush)$", "", "changes traffic control (queues, shaping, filters)"}}},
		"update-alternatives": {rows: []row{{"sys.config", CapSystem, "!--display !--query !--list !--get-selections !--help !--version", "", "changes which program a system command runs"}}},
		"ethtool":             {rows: []row{{"sys.network", CapSystem, "-s|-K|-G|-A|-C|-E|-f|--change|--features|--offload|--set-ring|--flash|--reset", "", "changes a network device"}}},
		"rfkill":              {rows: []row{{"sys.network", CapSystem, "op0~^(block|unblock|toggle)$", "", "switches radios on or off"}}},
		"resolvectl":          {rows: []row{{"sys.network", CapSystem, "op0~^(dns|domain|default-route|llmnr|mdns|dnssec|dnsovertls|nta|revert|flush-caches|reset-statistics|reset-server-features)$", "", "changes name resolution"}}},
		"localectl":           {rows: []row{{"sys.config", CapSystem, "op0~^set-", "", "changes system settings"}}},
		"powerprofilesctl":    {rows: []row{{"sys.config", CapSystem, "op0~^(set|launch)$", "", "changes the power profile"}}},
		"ssh-keygen":          {val: "-f -t -b -C -N -P -R -F -I -n -O -V -z -Y -s -E -m -a -Z", fn: hSSHKeygen, rows: []row{{"secrets.ssh-keygen", CapSecrets, "-p|-y|-e|-i|-Y|-s", "", "reads or changes a private key"}}},
		"ssh-copy-id":         {val: "-i -p -o -F -t", rows: []row{{"persist.ssh-key", CapPersistence, "", "", "installs your public key in another machine's authorized_keys, so you (or anyone with the key) can log in later"}}},
		"rename":              {val: "-e -E", fn: hRename},
		"prename":             {val: "-e -E", fn: hRename},
		"perl-rename":         {val: "-e -E", fn: hRename},
		"cpio":                {val: "-D -F -H -O -I -E -R --directory --file --format --owner", fn: hCpio},
		"pax":                 {val: "-f -s -o -x -b -p -U -G -T -B", fn: hPax},
		// Object storage, PaaS, infrastructure as code and database tools:
		// destroying remote state is C; reading is listed.
		"gsutil": {rows: []row{{"remote.read", CapFetch, "", "", "talks to Google Cloud Storage"},
			{"remote.write", CapSend, "op0~^(cp|mv|rsync|setmeta|acl|iam|defacl|notification|mb|compose)$", "", "changes objects in Google Cloud Storage"},
			{"remote.destroy", CapPublish, "op0~^(rm|rb)$", "", "deletes objects or buckets in Google Cloud Storage, which cannot be undone"},
			{"remote.destroy", CapPublish, "op0~^rsync$ -d", "", "deletes objects missing from the source"}}},
		"s3cmd": {rows: []row{{"remote.read", CapFetch, "", "", "talks to S3"},
			{"remote.write", CapSend, "op0~^(put|sync|cp|mv|mb|setacl|setpolicy|modify)$", "", "changes S3 objects"},
			{"remote.destroy", CapPublish, "op0~^(del|rm|rb|delpolicy|expire)$", "", "deletes S3 objects or buckets, which cannot be undone"},
			{"remote.destroy", CapPublish, "--delete-removed", "", "deletes S3 objects missing from the source"}}},
		"rclone": {rows: []row{{"remote.read", CapFetch, "", "", "talks to cloud storage"},
			{"remote.write", CapSend, "op0~^(copy|copyto|move|moveto|mkdir|copyurl|rcat|touch|settier|bisync)$", "", "changes files in cloud storage"},
			{"remote.destroy", CapPublish, "op0~^(delete|deletefile|purge|rmdir|rmdirs|sync|cleanup|dedupe)$", "", "deletes files in cloud storage (sync deletes what the source lacks), which cannot be undone"},
			{"pkg.config-code", CapPersistence, "op0~^config$", "", "changes rclone's remotes and their credentials"}}},
		"mc": {rows: []row{{"remote.read", CapFetch, "", "", "talks to object storage"},
			{"remote.write", CapSend, "op0~^(cp|mv|mirror|mb|put|tag|retention|legalhold|anonymous|policy)$", "", "changes object storage"},
			{"remote.destroy", CapPublish, "op0~^(rm|rb|admin)$", "", "deletes objects or buckets, which cannot be undone"},
			{"remote.destroy", CapPublish, "--remove", "", "deletes objects missing from the source"}}},
		"heroku": {rows: []row{{"remote.read", CapFetch, "", "", "talks to Heroku"},
			{"remote.write", CapSend, "op0~^(create|config:set|config:unset|ps:|scale|restart|releases:rollback|run|maintenance:|addons:create|domains:add|pipelines:promote|git:remote|container:push|container:release)", "", "changes a Heroku app"},
			{"remote.destroy", CapPublish, "op0~^(apps:destroy|destroy|pg:reset|pg:reset|addons:destroy|addons:remove|domains:remove|pg:backups:delete|apps:delete)", "", "destroys a Heroku app or its data, which cannot be undone"},
			{"secrets.token-print", CapSecrets, "op0~^(auth:token|authorizations:create)$", "", "prints a Heroku token"}}},
		"fly": flySpec(), "flyctl": flySpec(),
		"vercel":  {rows: []row{{"remote.write", CapSend, "", "", "deploys or changes a Vercel project"}, {"remote.destroy", CapPublish, "op0~^(rm|remove|env)$", "", "removes deployments or changes their settings"}, {"remote.destroy", CapPublish, "--prod", "", "deploys to production, visible to everyone"}, {"remote.read", CapFetch, "op0~^(ls|list|inspect|logs|whoami|--version)$", "", "talks to Vercel"}}},
		"netlify": {rows: []row{{"remote.write", CapSend, "", "", "deploys or changes a Netlify site"}, {"remote.destroy", CapPublish, "op0~^sites:delete$", "", "deletes a site"}, {"remote.destroy", CapPublish, "--prod", "", "deploys to production, visible to everyone"}}},
		"railway": {rows: []row{{"remote.write", CapSend, "", "", "deploys or changes a Railway project"}, {"remote.destroy", CapPublish, "op0~^(down|delete)$", "", "removes a deployment or project"}}},
		"firebase": {rows: []row{{"remote.write", CapSend, "", "", "deploys or changes a Firebase project"},
			{"remote.destroy", CapPublish, "op0~^(projects:delete|hosting:disable|firestore:delete|database:remove|database:set|functions:delete|apps:delete|auth:import|deploy)$", "", "deletes or overwrites Firebase data or deploys to production"},
			{"secrets.token-print", CapSecrets, "op0~^login:ci$", "", "prints a Firebase token"}}},
		"doctl": cloudCLI("DigitalOcean"), "linode-cli": cloudCLI("Linode"), "hcloud": cloudCLI("Hetzner Cloud"), "scw": cloudCLI("Scaleway"), "ibmcloud": cloudCLI("IBM Cloud"), "oci": cloudCLI("Oracle Cloud"),
		"wrangler": {rows: []row{{"remote.write", CapSend, "", "", "deploys or changes a Cloudflare project"}, {"remote.destroy", CapPublish, "any~^(delete|rollback|purge)$", "", "deletes Cloudflare workers, data or storage"}, {"remote.read", CapFetch, "op0~^(whoami|tail|dev|--version)$", "", "talks to Cloudflare"}}},
		"supabase": {rows: []row{{"remote.write", CapSend, "", "", "changes a Supabase project"}, {"remote.destroy", CapPublish, "any~^(reset|delete|remove)$|^push$", "", "resets, deletes or overwrites a Supabase database"}}},
		"neonctl":  {rows: []row{{"remote.write", CapSend, "", "", "changes a Neon project"}, {"remote.destroy", CapPublish, "any~^(delete|reset|restore)$", "", "deletes or resets a Neon database"}}},
		"pscale":   {rows: []row{{"remote.write", CapSend, "", "", "changes a PlanetScale database"}, {"remote.destroy", CapPublish, "any~^(delete|deploy-request)$", "", "deletes a PlanetScale database or branch, or deploys a schema"}}},
		"pulumi": {rows: []row{{"remote.read", CapFetch, "", "", "reads infrastructure state"},
			{"remote.write", CapSend, "op0~^(up|update|refresh|import|config|stack)$", "", "changes real infrastructure"},
			{"remote.destroy", CapPublish, "op0~^(destroy|down)$", "", "destroys real infrastructure, which cannot be undone"},
			{"remote.destroy", CapPublish, "op0~^(up|update|destroy|refresh|import)$ -y|--yes|--skip-preview", "", "changes real infrastructure without asking"},
			{"remote.destroy", CapPublish, "op0~^stack$ op1~^rm$", "", "deletes a stack and its state"}}},
		"cdk": {rows: []row{{"remote.read", CapFetch, "", "", "reads cloud state"},
			{"remote.write", CapSend, "op0~^(deploy|bootstrap|import|watch)$", "", "changes real infrastructure"},
			{"remote.destroy", CapPublish, "op0~^destroy$", "", "destroys real infrastructure, which cannot be undone"},
			{"remote.destroy", CapPublish, "--require-approval=~^never$", "", "changes infrastructure without asking"}}},
		"serverless": slsSpec(), "sls": slsSpec(),
		"terragrunt": {rows: []row{{"tf.read", CapFetch, "", "", "reads infrastructure state"},
			{"tf.apply", CapSend, "any~^(apply|run-all|import|taint|state)$", "", "changes real infrastructure"},
			{"tf.destroy", CapPublish, "any~^destroy$|-auto-approve|--auto-approve|--terragrunt-non-interactive|--non-interactive", "", "destroys or changes infrastructure without asking"}}},
		"eksctl":           {rows: []row{{"remote.read", CapFetch, "", "", "talks to AWS EKS"}, {"remote.write", CapSend, "op0~^(create|upgrade|scale|set|enable|utils|drain)$", "", "changes an EKS cluster"}, {"remote.destroy", CapPublish, "op0~^delete$", "", "deletes an EKS cluster or its parts"}}},
		"argocd":           {rows: []row{{"remote.read", CapFetch, "", "", "talks to Argo CD"}, {"remote.write", CapSend, "any~^(sync|set|create|rollback|patch|terminate-op)$", "", "changes Argo CD applications"}, {"remote.destroy", CapPublish, "any~^delete$", "", "deletes Argo CD applications and their resources"}}},
		"ansible-playbook": send("runs a playbook on remote machines"),
		"ansible":          {val: "-m --module-name -a --args -i --inventory -c --connection -u --user -b --become -l --limit -e --extra-vars -f --forks", fn: hAnsible, rows: []row{{"remote.write", CapSend, "", "", "runs commands on remote machines"}}},
		// pre-commit: its hooks are the project's code (run in the
		// sandbox); try-repo clones and runs another repository's hooks;
		// install writes git hooks; autoupdate rewrites its config from
		// the network.
		"pre-commit": subs(unknownSub("pre-commit"), map[string]*spec{
			"run":      whole("pkg.run", CapExec, "runs the project's pre-commit hooks"),
			"try-repo": {fn: hRemoteRun, rows: []row{{"pkg.exec", CapFetch, "", "", "clones a repository and runs its hooks, which guard does not review"}}},
			"install":  whole("git.hooks", CapPersistence, "installs git hooks that run on every commit"), "install-hooks": whole("pkg.install", CapFetch, "downloads and installs the hooks' environments"),
			"uninstall":  whole("git.hooks", CapPersistence, "removes git hooks"),
			"autoupdate": whole("git.hooks", CapPersistence, "rewrites .pre-commit-config.yaml with hook versions from the network"),
			"clean":      plain(), "gc": plain(), "validate-config": plain(), "validate-manifest": plain(), "sample-config": plain(), "help": plain(),
		}),
		// Container and VM managers whose exec runs a command inside.
		"lxc":               subs(unknownSub("lxc"), map[string]*spec{"exec": whole("docker.exec", CapDynamic, "runs a command in a container, which is not reviewed"), "shell": whole("docker.exec", CapDynamic, "starts a shell in a container"), "list": plain(), "ls": plain(), "info": plain()}),
		"incus":             subs(unknownSub("incus"), map[string]*spec{"exec": whole("docker.exec", CapDynamic, "runs a command in a container, which is not reviewed"), "shell": whole("docker.exec", CapDynamic, "starts a shell in a container"), "list": plain(), "ls": plain(), "info": plain()}),
		"multipass":         subs(unknownSub("multipass"), map[string]*spec{"exec": whole("docker.exec", CapDynamic, "runs a command in a virtual machine, which is not reviewed"), "shell": whole("docker.exec", CapDynamic, "starts a shell in a virtual machine"), "list": plain(), "ls": plain(), "info": plain()}),
		"dropdb":            publish("deletes a PostgreSQL database, which cannot be undone"),
		"dropuser":          publish("deletes a PostgreSQL role"),
		"pg_restore":        {rows: []row{{"db.connect", CapSend, "", "", "restores into a PostgreSQL database"}, {"db.destroy", CapPublish, "-c|--clean|--if-exists", "", "drops database objects before restoring them"}}},
		"mysqladmin":        {rows: []row{{"db.connect", CapSend, "", "", "administers a MySQL server"}, {"db.destroy", CapPublish, "any~^(drop|shutdown|flush-.*|kill|purge)", "", "drops a database or shuts the server down"}}},
		"etcdctl":           {rows: []row{{"remote.read", CapFetch, "", "", "talks to etcd"}, {"remote.write", CapSend, "op0~^(put|txn|lease|lock|elect|member|user|role|auth|move-leader)$", "", "changes etcd"}, {"remote.destroy", CapPublish, "op0~^(del|defrag|compaction|snapshot)$", "", "deletes etcd keys or data"}}},
		"consul":            {rows: []row{{"remote.read", CapFetch, "", "", "talks to Consul"}, {"remote.destroy", CapPublish, "any~^delete$|^leave$|^force-leave$", "", "deletes Consul data or removes nodes"}}},
		"influx":            {rows: []row{{"remote.read", CapFetch, "", "", "talks to InfluxDB"}, {"remote.destroy", CapPublish, "any~^delete$", "", "deletes InfluxDB data"}}},
		"sqlcmd":            {val: "-Q -q -S -U -P -d -i", rows: []row{{"db.connect", CapSend, "", "", "connects to a SQL Server database"}}, fn: hSQL("-Q -q")},
		"clickhouse-client": {val: "-q --query -h --host -u --user --password", rows: []row{{"db.connect", CapSend, "", "", "connects to a ClickHouse server"}}, fn: hSQL("-q --query")},
		// Publishing from build tools.
		"mvn":  {fn: hMvnExec, rows: []row{{"dev.build", CapExec, "", "", "builds the project with Maven"}, {"pkg.publish", CapPublish, "any~^(deploy|release:perform|deploy:deploy-file|site-deploy)$", "", "publishes artifacts to a remote repository, permanently"}}},
		"vsce": {rows: []row{{"pkg.publish", CapPublish, "op0~^(publish|unpublish)$", "", "publishes an editor extension to the marketplace"}}},
		"ovsx": {rows: []row{{"pkg.publish", CapPublish, "op0~^publish$", "", "publishes an editor extension"}}},
		"flit": {rows: []row{{"pkg.publish", CapPublish, "op0~^publish$", "", "publishes a package to PyPI"}}},
		"hatch": subs(unknownSub("hatch"), map[string]*spec{
			// hatch run [ENV:]CMD ARGS: a script of the project, or the command.
			"run":     {posix: true, fn: wrap(0), rows: []row{{"pkg.run", CapExec, "", "", "runs project code"}}},
			"publish": whole("pkg.publish", CapPublish, "publishes a package to PyPI"),
			"test":    whole("pkg.run", CapExec, "runs the project's tests"), "fmt": whole("pkg.run", CapExec, "formats the project"),
			"build": plain(), "version": plain(), "status": plain(), "new": plain(), "clean": plain(), "dep": plain(), "project": plain(),
			"shell":  whole("exec.interactive", CapDynamic, "starts an interactive shell"),
			"python": whole("pkg.install-user", CapFetch, "downloads and installs Python versions"),
			"env":    subs(unknownSub("hatch env"), map[string]*spec{"show": plain(), "find": plain()}),
		}),
	}
	t["gradle"] = gradleSpec("builds the project with Gradle")
	t["gradlew"] = gradleSpec("builds the project with Gradle")
	t["mvnw"] = t["mvn"]
	t["openssl"] = later(opensslSpec)
	for k, v := range daemonVerbTable() {
		t[k] = v
	}
	for k, v := range toolManagerTable() {
		t[k] = v
	}
	return t
}

func flySpec() *spec {
	return &spec{rows: []row{{"remote.read", CapFetch, "", "", "talks to Fly.io"},
		{"remote.write", CapSend, "op0~^(deploy|launch|scale|secrets|machine|machines|volumes|ips|certs|config|restart|apps)$", "", "changes a Fly.io app"},
		{"remote.destroy", CapPublish, "any~^(destroy|delete|remove|rm)$", "", "destroys a Fly.io app, machine or volume, which cannot be undone"},
		{"secrets.token-print", CapSecrets, "any~^token$", "", "prints a Fly.io token"}}}
}

func slsSpec() *spec {
	return &spec{rows: []row{{"remote.write", CapSend, "op0~^(deploy|invoke|rollback)$", "", "deploys or runs a serverless service"}, {"remote.destroy", CapPublish, "op0~^remove$", "", "removes a deployed serverless service and its resources"}}}
}

func cloudCLI(name string) *spec {
	return &spec{rows: []row{{"cloud.read", CapFetch, "", "", "talks to " + name},
		{"cloud.write", CapSend, "any~^(create|update|resize|rebuild|attach|detach|power-on|power-off|reboot|restore|set|add)", "", "changes " + name + " resources"},
		{"cloud.delete", CapPublish, "any~^(delete|destroy|rm|remove|purge)$", "", "deletes " + name + " resources, which cannot be undone"}}}
}

func gradleSpec(msg string) *spec {
	return &spec{rows: []row{{"dev.build", CapExec, "", "", msg}, {"pkg.publish", CapPublish, "any~^(publish|publish\\w*ToMavenRepository|publishPlugins|uploadArchives)$", "", "publishes artifacts to a remote repository, permanently"}}}
}

// opensslLocal are openssl's subcommands that work on local files.
var opensslLocal = sync.OnceValue(func() []string {
	return []string{"enc", "dgst", "x509", "req", "genrsa", "genpkey", "gendsa", "rsa", "ec", "ecparam", "dsa", "dsaparam", "dhparam", "pkey", "pkeyutl",
		"pkeyparam", "pkcs12", "pkcs7", "pkcs8", "rand", "version", "list", "base64", "verify", "crl", "crl2pkcs7", "smime", "cms", "asn1parse", "speed", "prime",
		"passwd", "kdf", "mac", "errstr", "ciphers", "help", "md5", "sha1", "sha256", "sha384", "sha512", "rsautl", "sess_id", "spkac", "storeutl", "ts", "nseq", "info"}
})

func opensslSpec() *spec {
	local := func() *spec {
		return &spec{val: "-in -out -keyout -K -iv -pass -k -md -inkey -passin -passout -key -signkey -CA -CAkey", rows: []row{{"fs.read", CapRead, "", "-in|-inkey|-key|-signkey|-CA|-CAkey", "reads"}, {"fs.output", CapWrite, "", "-out|-keyout", "writes"}}, fn: decoder("-d", "-decrypt", "-decode")}
	}
	m := map[string]*spec{
		// TLS and DTLS clients receive data from the network.
		"s_client": {val: "-connect -host -port -servername -proxy -cert -key -CAfile -starttls", out: streamNetwork, rows: []row{{"net.socket", CapSend, "", "", "opens a TLS connection"}}},
		"s_time":   {val: "-connect", out: streamNetwork, rows: []row{{"net.socket", CapSend, "", "", "opens TLS connections"}}},
		"s_server": {val: "-accept -port -cert -key", rows: []row{{"net.serve", CapSend, "", "", "serves TLS connections to the network"}}},
		"ca":       {rows: []row{{"fs.output", CapWrite, "", "", "signs certificates and updates the CA's database"}}},
		"ocsp":     {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "queries an OCSP responder"}}},
		"*":        unknownSub("openssl"),
	}
	for _, n := range opensslLocal() {
		m[n] = local()
	}
	return subs(local(), m)
}
