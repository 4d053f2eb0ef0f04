package profile

// System, privilege, process, terminal-injection and build-tool rows.

// vscode: VS Code and its forks. Installing an extension (through the
// running editor's socket, outside guard's sandbox) is code the editor
// runs from then on; another extensions directory is code too.
func vscode() *spec {
	return &spec{val: "--install-extension --uninstall-extension --extensions-dir --user-data-dir --profile", rows: []row{
		{"exec.program", CapExec, "", "", "opens an editor"},
		{"editor.extension", CapPersistence, "--install-extension|--uninstall-extension|--extensions-dir", "", "installs or removes editor extensions, code the editor runs outside guard's sandbox"},
	}}
}

// posargs: tox and nox hand what follows -- to the project's commands
// ({posargs}), which may run it: a command line there is reviewed as one,
// as a program guard does not know would have it.
func posargs(s *spec) *spec {
	s.fn = func(b *builder, c *call) stream {
		for i, f := range c.fs {
			if f.known && f.val == "--" {
				b.argumentCommands(c.prog, c.fs[i+1:], c.st, c.in, c.sp)
				break
			}
		}
		return stream{}
	}
	return s
}

func systemTable() map[string]*spec {
	sys := func(id, msg string) *spec { return whole(id, CapSystem, msg) }
	inject := func(msg string) *spec { return whole("inject.terminal", CapInject, msg) }
	return map[string]*spec{
		"kill":     {val: "-s -n", rows: []row{{"proc.kill", CapProcess, "", "", "sends a signal to other processes"}}, fn: hKill},
		"pkill":    {val: "-u -U -g -G -P -s -t", rows: []row{{"proc.kill", CapProcess, "", "", "kills processes by name"}}},
		"killall":  sys("proc.killall", "kills every process with that name, for every session"),
		"killall5": sys("proc.killall", "kills every process on the machine"),
		"shutdown": sys("sys.power", "shuts the machine down"), "reboot": sys("sys.power", "reboots the machine"),
		"halt": sys("sys.power", "halts the machine"), "poweroff": sys("sys.power", "powers the machine off"),
		"init": sys("sys.power", "changes the machine's run level"), "telinit": sys("sys.power", "changes the machine's run level"),
		"launchctl":   sys("sys.service", "changes system services"),
		"update-rc.d": sys("sys.service", "changes which services start at boot"),
		"chkconfig":   sys("sys.service", "changes which services start at boot"),
		"mount":       {rows: []row{{"sys.mount", CapSystem, "ops", "", "mounts a file system"}}},
		"umount":      sys("sys.mount", "unmounts a file system"),
		// FUSE mounts by the user (fusermount is setuid), and loading code
		// into the kernel.
		"fusermount": sys("sys.mount", "mounts or unmounts a file system"), "fusermount3": sys("sys.mount", "mounts or unmounts a file system"),
		"bindfs": sys("sys.mount", "mounts a file system"), "sshfs": sys("sys.mount", "mounts a remote file system"), "squashfuse": sys("sys.mount", "mounts a file system"),
		"kexec": sys("sys.kernel", "loads a new kernel"), "bpftool": sys("sys.kernel", "loads or inspects BPF programs in the kernel"),
		"fdisk":  {rows: []row{{"sys.disk", CapSystem, "!-l", "", "edits a disk's partition table"}}},
		"sfdisk": sys("sys.disk", "edits a disk's partition table"), "gdisk": sys("sys.disk", "edits a disk's partition table"), "sgdisk": sys("sys.disk", "edits a disk's partition table"),
		"parted": sys("sys.disk", "edits a disk's partitions"), "wipefs": sys("sys.disk", "erases file system signatures from a disk"),
		"mkswap": sys("sys.disk", "formats a swap area"), "swapon": sys("sys.disk", "enables swap"), "swapoff": sys("sys.disk", "disables swap"),
		"losetup": sys("sys.disk", "sets up loop devices"), "cryptsetup": sys("sys.disk", "changes encrypted volumes"),
		"mkfs":      sys("sys.disk", "formats a file system, destroying the data on it"),
		"iptables":  {rows: []row{{"sys.firewall", CapSystem, "!-L !--list !-S", "", "changes the firewall"}}},
		"ip6tables": {rows: []row{{"sys.firewall", CapSystem, "!-L !--list !-S", "", "changes the firewall"}}},
		"nft":       sys("sys.firewall", "changes the firewall"), "ufw": {rows: []row{{"sys.firewall", CapSystem, "!op0~^status$", "", "changes the firewall"}}},
		"sysctl":   {rows: []row{{"sys.kernel", CapSystem, "-w|--write|-p|--load|--system", "", "changes kernel parameters"}, {"sys.kernel", CapSystem, "op~=", "", "changes kernel parameters"}}},
		"modprobe": {rows: []row{{"sys.kernel", CapSystem, "!--show-depends !-n", "", "loads or unloads kernel modules"}}},
		"insmod":   sys("sys.kernel", "loads a kernel module"), "rmmod": sys("sys.kernel", "unloads a kernel module"),
		"ip":          {rows: []row{{"sys.network", CapSystem, "any~^(add|del|delete|set|flush|change|replace|up|down)$", "", "changes network interfaces or routes"}}},
		"ifconfig":    {rows: []row{{"sys.network", CapSystem, "op1", "", "changes network interfaces"}}},
		"route":       {rows: []row{{"sys.network", CapSystem, "any~^(add|del)$", "", "changes network routes"}}},
		"hostnamectl": {rows: []row{{"sys.config", CapSystem, "op0~^set-", "", "changes system settings"}}},
		"timedatectl": {rows: []row{{"sys.config", CapSystem, "op0~^set-", "", "changes system settings"}}},
		// hwclock reads the hardware clock; these options set it or the
		// system clock from it.
		"hwclock":    {val: "--date -f --rtc --epoch --adjfile", rows: []row{{"sys.clock", CapSystem, "--set|-w|--systohc|-s|--hctosys|-a|--adjust|--systz|--setepoch", "", "sets the system or hardware clock"}}},
		"chattr":     sys("sys.config", "changes file attributes (immutable, append-only)"),
		"chroot":     whole("priv.chroot", CapPrivilege, "changes the root directory (needs root)"),
		"setcap":     whole("priv.setcap", CapPrivilege, "grants kernel capabilities to a program"),
		"setenforce": sys("sys.config", "changes SELinux enforcement"),
		"ldconfig":   sys("sys.config", "changes the dynamic linker's cache"),
		"visudo":     whole("priv.sudoers", CapPrivilege, "edits sudo's rules"),
		"useradd":    whole("priv.users", CapPrivilege, "adds a user account"), "userdel": whole("priv.users", CapPrivilege, "deletes a user account"),
		"usermod": whole("priv.users", CapPrivilege, "changes a user account"), "groupadd": whole("priv.users", CapPrivilege, "adds a group"),
		"passwd": whole("priv.users", CapPrivilege, "changes a password"), "chpasswd": whole("priv.users", CapPrivilege, "changes passwords"),
		"newgrp":  whole("priv.users", CapPrivilege, "switches group"),
		"crontab": {val: "-u", rows: []row{{"persist.crontab", CapPersistence, "!-l", "", "changes your crontab: commands that run on a schedule, later, without you"}}},
		"at":      whole("persist.at", CapPersistence, "schedules a command to run later"),
		"batch":   whole("persist.at", CapPersistence, "schedules a command to run later"),
		"apt":     aptSpec(), "apt-get": aptSpec(), "aptitude": aptSpec(),
		"dpkg": {rows: []row{{"sys.packages", CapSystem, "-i|--install|-r|--remove|-P|--purge|--configure|--unpack", "", "installs or removes system packages"}}},
		"yum":  aptSpec(), "dnf": aptSpec(), "zypper": aptSpec(), "pacman": {rows: []row{{"sys.packages", CapSystem, "-S|-R|-U|--sync|--remove|--upgrade", "", "installs or removes system packages"}}},
		"apk": aptSpec(), "snap": aptSpec(), "flatpak": flatpakSpec(), "rpm": {rows: []row{{"sys.packages", CapSystem, "-i|-U|-e|--install|--upgrade|--erase", "", "installs or removes system packages"}}},

		"tmux": subs(whole("tmux.control", CapProcess, "changes tmux sessions, windows or panes, where other programs run"), map[string]*spec{
			// Read-only and view-only commands (principle 8: anything else
			// changes sessions).
			"ls": plain(), "list-sessions": plain(), "list-windows": plain(), "lsw": plain(), "list-panes": plain(), "lsp": plain(),
			"list-clients": plain(), "list-buffers": plain(), "list-keys": plain(), "list-commands": plain(), "has-session": plain(), "has": plain(),
			"display-message": plain(), "display": plain(), "show-options": plain(), "show": plain(), "show-environment": plain(), "showenv": plain(),
			"show-buffer": plain(), "capture-pane": plain(), "capturep": plain(), "info": plain(), "server-info": plain(), "-V": plain(),
			"attach": plain(), "attach-session": plain(), "a": plain(), "detach": plain(), "detach-client": plain(),
			"select-window": plain(), "select-pane": plain(), "selectw": plain(), "selectp": plain(), "refresh-client": plain(),
			// save-buffer writes the paste buffer to a file.
			"save-buffer": {rows: []row{{"fs.output", CapWrite, "", "last", "writes the paste buffer to"}}}, "saveb": {rows: []row{{"fs.output", CapWrite, "", "last", "writes the paste buffer to"}}},
			"kill-server":  whole("tmux.kill-server", CapSystem, "kills the tmux server: every session and every program running in it"),
			"kill-session": whole("proc.kill", CapProcess, "kills a tmux session and the programs in it"),
			"send-keys":    inject("types keys into another terminal (tmux send-keys), which runs whatever they spell"),
			"send":         inject("types keys into another terminal (tmux send-keys), which runs whatever they spell"),
			"paste-buffer": inject("pastes text into another terminal"), "pasteb": inject("pastes text into another terminal"),
			"run-shell": whole("inject.tmux-run", CapDynamic, "runs a command through tmux"), "run": whole("inject.tmux-run", CapDynamic, "runs a command through tmux"),
		}),
		"screen": {rows: []row{
			{"inject.terminal", CapInject, "any~^(stuff|eval|exec|paste|process)$", "", "types text into another terminal session (screen -X stuff)"},
			// Commands of a running session that write or read files, or run
			// what they name, outside guard's sandbox.
			{"inject.terminal", CapInject, "-X|-Q any~^(hardcopy|hardcopydir|writebuf|bufferfile|readbuf|readreg|logfile|log|deflog|source|screen|shell|defshell|bind|bindkey|register|chdir|dumptermcap|zombie)$", "", "makes a running screen session write or read files or run programs, outside guard's sandbox"},
		}},
		"xdotool": inject("types or clicks into other windows (xdotool)"),
		"ydotool": inject("types or clicks into other windows (ydotool)"),
		"wtype":   inject("types into other windows (wtype)"),
		"xte":     inject("types into other windows (xte)"),
		"write":   inject("writes to another user's terminal"),
		"wall":    inject("writes to every terminal"),

		"gpg": {rows: []row{
			{"secrets.gpg-export", CapSecrets, "--export-secret-keys|--export-secret-subkeys|--export-ssh-key", "", "exports your private keys"},
			{"secrets.gpg-use", CapSecrets, "-d|--decrypt|-s|--sign|--clearsign|--detach-sign|--import|--delete-secret-keys|--gen-key|--full-generate-key", "", "uses or changes your private keys"},
		}},
		"ssh-add":     whole("secrets.ssh-agent", CapSecrets, "loads or lists private keys in your SSH agent"),
		"security":    {rows: []row{{"secrets.keychain", CapSecrets, "any~^(find-|dump-keychain|export)", "", "reads passwords from the keychain"}}},
		"secret-tool": {rows: []row{{"secrets.keyring", CapSecrets, "op0~^(lookup|search|store|clear)$", "", "reads or changes passwords in the keyring"}}},
		// The kernel's keyrings hold session keys and tokens: reading a
		// key's payload is a secret read; listing and describing are
		// not; any other verb changes them.
		"keyctl": {rows: []row{
			{"secrets.keyring", CapSecrets, "op0~^(print|pipe|read)$", "", "prints a key's secret payload from the kernel's keyrings"},
			{"secrets.keyring", CapDynamic, "!op0~^(print|pipe|read|show|list|rlist|describe|rdescribe|search|security|get_persistent|supports|--version|-V|--help)$ ops", "", "changes the kernel's keyrings (adds, links, revokes or sets keys)"},
		}},
		"pass":  {rows: []row{{"secrets.pass", CapSecrets, "ops", "", "reads or changes passwords in your password store"}}},
		"vault": {rows: []row{{"secrets.vault", CapSecrets, "op0~^(read|kv|token|login|write|print)$", "", "reads or writes secrets in Vault"}}},
		"op":    {rows: []row{{"secrets.op", CapSecrets, "ops", "", "reads secrets from 1Password"}}},
	}
}

// pkgReadOnly are the verbs of the system package managers (apt, apt-get,
// aptitude, yum, dnf, zypper, apk, snap, flatpak) that only query
// (principle 8: any other verb is a state change, never A by default).
const pkgReadOnly = `^(list|search|se|show|showsrc|showpkg|info|if|policy|madison|depends|rdepends|pkgnames|dump|dumpavail|stats|unmet|dotty|xvcg|help|version|moo|` +
	`provides|whatprovides|what-provides|wp|repolist|repoquery|deplist|check-update|list-updates|lu|repos|lr|packages|pa|patches|products|` +
	`find|connections|services|changes|tasks|aliases|known|remotes|remote-ls|remote-info|ps|permission-show|dot|history)$`

func aptSpec() *spec {
	return &spec{rows: []row{
		{"sys.packages", CapSystem, "op0~^(install|remove|purge|upgrade|dist-upgrade|full-upgrade|autoremove|reinstall|erase|add|del|refresh|update|localinstall|groupinstall|build-dep)$", "", "installs, removes or updates system packages"},
		{"sys.packages", CapSystem, "ops !op0~" + pkgReadOnly, "", "runs a package manager verb that is not a known query: it may install, remove, download or change system packages"},
		// history lists past transactions; its undo, redo, rollback and
		// replay run them again or back.
		{"sys.packages", CapSystem, "op0~^history$ any~^(undo|redo|rollback|replay|store)$", "", "undoes or repeats package transactions"},
	}}
}

// flatpakSpec: flatpak's verbs are a package manager's, except run,
// which starts an installed application in flatpak's own sandbox,
// outside guard's (B, as an application the desktop starts); --command
// runs that program there with the arguments after the application,
// reviewed as that command line, since an application may be granted
// the home directory.
func flatpakSpec() *spec {
	s := aptSpec()
	s.rows[1].cond += " !op0~^run$"
	s.rows = append(s.rows, row{"desktop.open", CapDesktop, "op0~^run$", "", "starts an installed application in flatpak's own sandbox, outside guard's"})
	s.val = "--command --branch --arch --runtime --runtime-version --commit --runtime-commit --filesystem --nofilesystem --share --unshare --socket --nosocket --device --nodevice --allow --disallow --env --unset-env --cwd --installation --persist --own-name --talk-name --no-talk-name --system-own-name --system-talk-name --system-no-talk-name --app-path --usr-path --parent-pid"
	s.fn = func(b *builder, c *call) stream {
		cmds := c.a.values("--command")
		if len(c.a.ops) < 2 || c.a.ops[0].val != "run" || len(cmds) == 0 {
			return stream{}
		}
		app := indexOf(c.fs, c.a.ops[1])
		return b.exec(append([]field{cmds[len(cmds)-1]}, c.fs[app+1:]...), c.st.clone(), c.in, "flatpak run --command", c.sp)
	}
	return s
}

func devTable() map[string]*spec {
	exec := func(msg string) *spec { return whole("dev.build", CapExec, msg) }
	fetch := func(msg string) *spec { return whole("dev.fetch", CapFetch, msg) }
	t := map[string]*spec{
		"make": exec("runs the project's make targets"), "gmake": exec("runs the project's make targets"), "cmake": exec("configures or builds the project"),
		"ninja": exec("builds the project"), "meson": exec("configures or builds the project"), "bazel": exec("builds or tests the project"),
		"gcc": exec("compiles code"), "g++": exec("compiles code"), "cc": exec("compiles code"), "clang": exec("compiles code"), "clang++": exec("compiles code"), "c++": exec("compiles code"),
		"rustc": exec("compiles code"), "javac": exec("compiles code"), "java": exec("runs a Java program"), "tsc": exec("compiles TypeScript"),
		"pytest": exec("runs the project's tests"), "tox": posargs(exec("runs the project's tests")), "nox": posargs(exec("runs the project's tests")), "jest": exec("runs the project's tests"),
		"vitest": exec("runs the project's tests"), "mocha": exec("runs the project's tests"), "eslint": exec("lints code"), "ruff": exec("lints code"), "black": exec("formats code"),
		"mypy": exec("type-checks code"), "pylint": exec("lints code"), "flake8": exec("lints code"), "shellcheck": exec("lints shell scripts"), "staticcheck": exec("lints Go code"),
		"golangci-lint": exec("lints Go code"), "goimports": exec("formats Go code"), "isort": exec("formats imports"), "rustfmt": exec("formats Rust code"),
		"hyperfine": exec("benchmarks commands"), "valgrind": exec("runs a program under valgrind"), "gdb": exec("debugs a program"), "strace": exec("traces a program"), "ltrace": exec("traces a program"), "perf": exec("profiles a program"),
		"code": vscode(), "codium": vscode(), "code-insiders": vscode(), "cursor": vscode(), "windsurf": vscode(), "vim": exec("opens an editor"), "nvim": exec("opens an editor"), "nano": exec("opens an editor"), "emacs": exec("opens an editor"), "vi": exec("opens an editor"),
		"go": subs(exec("runs the Go tool"), map[string]*spec{
			"env":     {rows: []row{{"pkg.config-code", CapPersistence, "-w|-u", "", "changes the Go tool's settings (GOFLAGS, GOPROXY, GOTOOLCHAIN), which choose what later go commands download and run"}}},
			"get":     fetch("downloads Go modules"),
			"run":     {val: "-exec -toolexec -C -p -tags -ldflags -gcflags -mod -modfile -overlay", fn: hGoRun, rows: []row{{"dev.build", CapExec, "", "", "runs the Go tool"}}},
			"install": {val: "-C -p -tags -ldflags -gcflags -asmflags -buildmode -mod -modfile -overlay -pgo -pkgdir -toolexec", fn: chain(hGoExec, hGoInstall), rows: []row{{"dev.fetch", CapFetch, "", "", "downloads, builds and installs a Go program"}}},
			"mod": subs(exec("maintains go.mod"), map[string]*spec{"download": fetch("downloads Go modules"), "tidy": fetch("downloads Go modules and rewrites go.mod"), "vendor": fetch("downloads Go modules into vendor/"),
				"graph": plain(), "why": plain(), "verify": plain(), "edit": exec("edits go.mod"), "init": exec("creates go.mod"), "*": unknownSub("go mod")}),
			"clean": {rows: []row{{"dev.clean-cache", CapDelete, "-cache|-modcache|-testcache|-fuzzcache", "", "deletes Go's caches"}}},
			"build": {val: "-o -C -p -tags -ldflags -gcflags -asmflags -buildmode -mod -modfile -overlay -pgo -pkgdir -toolexec -exec", fn: hGoExec, rows: []row{{"dev.build", CapExec, "", "", "builds Go code"}, {"fs.output", CapWrite, "", "-o", "writes the binary to"}}},
			"test":  {val: "-o -C -p -tags -ldflags -gcflags -run -bench -count -timeout -coverprofile -cpuprofile -memprofile -outputdir -exec -toolexec", fn: hGoExec, rows: []row{{"dev.build", CapExec, "", "", "runs the project's tests"}, {"fs.output", CapWrite, "", "-o|-coverprofile|-cpuprofile|-memprofile|-outputdir", "writes"}}}, "vet": {val: "-C -tags -vettool -toolexec -exec", fn: hGoExec, rows: []row{{"exec.program", CapExec, "", "", "checks Go code"}}}, "fmt": exec("formats Go code"),
			"generate": exec("runs the project's go:generate commands"), "list": exec("lists Go packages"), "version": plain(), "doc": plain(), "help": plain(),
			"tool": exec("runs a Go tool"), "work": exec("maintains go.work"), "fix": exec("rewrites Go code"), "bug": whole("dev.browser", CapDesktop, "opens a bug report in the browser"),
			"telemetry": exec("changes Go telemetry settings"),
			"*":         unknownSub("go"),
		}),
		"cargo": subs(exec("runs cargo"), map[string]*spec{
			"install": fetch("downloads, builds and installs a crate"), "add": fetch("adds a dependency"), "update": fetch("updates dependencies"), "fetch": fetch("downloads dependencies"),
			"publish": whole("pkg.publish", CapPublish, "publishes a crate to crates.io, permanently"),
			"yank":    whole("pkg.publish", CapPublish, "yanks a published crate version, breaking its users"),
			"login":   whole("pkg.login", CapSecrets, "stores a crates.io token"),
			"owner":   whole("pkg.publish", CapPublish, "changes the owners of a published crate"),
			"clean":   {rows: []row{{"dev.clean", CapDelete, "", "", "deletes the build directory (target/)"}}},
			"logout":  whole("pkg.login", CapSecrets, "removes the crates.io token"),
			"build":   exec("builds the project"), "b": exec("builds the project"), "check": exec("checks the project"), "c": exec("checks the project"),
			"test": exec("runs the project's tests"), "t": exec("runs the project's tests"), "run": exec("runs the project"), "r": exec("runs the project"),
			"bench": exec("runs the project's benchmarks"), "doc": exec("builds documentation"), "fmt": exec("formats code"), "clippy": exec("lints code"),
			"fix": exec("rewrites code"), "tree": exec("lists dependencies"), "metadata": exec("prints project metadata"), "locate-project": plain(),
			"version": plain(), "help": plain(), "--version": plain(), "-V": plain(), "new": exec("creates a project"), "init": exec("creates a project"),
			"package": exec("packages the crate"), "verify-project": plain(), "pkgid": plain(), "report": plain(), "rustc": exec("compiles code"), "rustdoc": exec("builds documentation"),
			"search": fetch("queries crates.io"), "info": fetch("queries crates.io"), "vendor": fetch("downloads dependencies into vendor/"), "generate-lockfile": fetch("resolves dependencies from the network"),
			"remove": exec("removes a dependency"), "rm": exec("removes a dependency"), "uninstall": whole("pkg.uninstall", CapDelete, "removes an installed program"),
			"*": whole("tool.unknown-subcommand", CapDynamic, "runs a cargo subcommand guard does not know (cargo runs cargo-NAME plugins from PATH)"),
		}),
		"rustup":      fetch("downloads Rust toolchains"),
		"nvm":         fetch("downloads Node versions"),
		"http.server": whole("net.serve", CapSend, "serves files over the network"),
		"conda":       later(condaSpec),
		"mamba":       later(condaSpec),
		"micromamba":  later(condaSpec),
	}
	// cmake -E TOOL is a portable rm, cp, mv, mkdir, chdir DIR CMD, env
	// CMD, time CMD: profiled as what it stands for. cmake -P runs a
	// CMake script, which can run anything.
	t["cmake"].fn = hCmake
	// rustc -C linker=PROG runs PROG to link, -C/-Z codegen-backend=LIB
	// loads LIB into the compiler; javac runs the annotation processors
	// of -processorpath.
	t["rustc"].val = "-C --codegen -Z -L --extern -o --out-dir --crate-type --crate-name --edition --target --cfg --emit"
	t["rustc"].rows = append(t["rustc"].rows,
		row{"dev.compiler-code", CapDynamic, "-C|--codegen=~^(linker|codegen-backend)=", "", "runs the linker program or loads the codegen backend an option names"},
		row{"dev.compiler-code", CapDynamic, "-Z=~^codegen-backend=", "", "loads the codegen backend an option names into the compiler"},
		row{"fs.output", CapWrite, "", "-o", "writes"},
		row{"fs.output", CapWrite, "", "into:--out-dir", "writes what it compiles into"})
	t["javac"].val = "-processorpath --processor-path -processor -cp -classpath --class-path -d -s -sourcepath --module-path -p --release -source -target -encoding"
	t["javac"].fn = hJavacProcessors
	t["go"].subs["test"].val += " -overlay -modfile -mod"
	t["go"].subs["vet"].val += " -overlay -modfile -mod"
	for k, v := range nixTable() {
		t[k] = v
	}
	// make's options with a value: -f FILE and --eval TEXT are makefile
	// text it runs (hMakefileText reviews them).
	for _, m := range []string{"make", "gmake"} {
		t[m].val = "-f --file --makefile -C --directory -I --include-dir -o --old-file --assume-old -W --what-if --new-file --assume-new -E --eval"
		t[m].fn = hMakefileText
	}
	// The options that point a runner at build files elsewhere
	// (runnerOutside prices them), and the task runners that read a
	// justfile or Taskfile as code.
	t["cargo"].val = "--manifest-path --config -Z --target-dir --artifact-dir --out-dir -j --jobs --target -p --package --features -F --profile --bin --example --test --bench --color --lockfile-path"
	// cargo --config KEY=VALUE names a program cargo runs for some keys
	// (as RUSTC_WRAPPER does); --config FILE loads settings this line does
	// not show. Global rows: they hold whatever the subcommand.
	t["cargo"].global = []row{
		{"pkg.config-code", CapDynamic, `--config=~(build\.(rustc|rustc-wrapper|rustc-workspace-wrapper|rustdoc)|target\.[^=]*\.(runner|linker)|host\.linker|credential-provider|global-credential-providers|doc\.browser)\s*=`, "", "sets a cargo setting that names a program cargo runs"},
		{"pkg.config-code", CapDynamic, `--config=~^[^=]*$`, "", "loads cargo settings from a file this line does not show"},
		// --target-dir is where cargo writes what it builds.
		{"fs.output", CapWrite, "", "--target-dir", "builds into"},
		// --artifact-dir (once --out-dir) copies the programs it built
		// there, under names Cargo.toml chooses.
		{"fs.output", CapWrite, "", "into:--artifact-dir|--out-dir", "copies the programs it builds into"},
	}
	t["tox"].val = "-c --conf -e --root --workdir"
	t["just"] = &spec{val: "-f --justfile -d --working-directory --shell --shell-arg --set --dotenv-path --dotenv-filename --command", rows: []row{{"dev.build", CapExec, "", "", "runs the project's just recipes"}}}
	t["task"] = &spec{val: "-t --taskfile -d --dir -o --output", rows: []row{{"dev.build", CapExec, "", "", "runs the project's Taskfile tasks"}}}
	return t
}

func gitSpec() *spec {
	return &spec{val: "-C -c --git-dir --work-tree --namespace --exec-path --config-env --super-prefix", posix: true, fn: hGit}
}
