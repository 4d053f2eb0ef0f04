package profile

// Launchers (principle 7): programs that run the program named by their
// arguments, and the command-running options of known tools. This block
// is merged into the command table after the others, so its entries
// replace older, plainer ones (strace, gdb, vim… were "runs a program").

import (
	"maps"
	"slices"
)

func launchTable() map[string]*spec {
	t := map[string]*spec{
		// Shell builtins that run code they are given: compgen -C CMD and
		// -F FUNC run now (complete registers them for completion), their
		// -W word list is expanded (substitutions run); bind -x binds a
		// key to a command; fc re-runs commands from the history.
		"compgen":  {val: "-A -G -W -F -C -X -P -S -o", fn: hCompletion},
		"complete": {val: "-A -G -W -F -C -X -P -S -o", fn: hCompletion},
		"bind":     {val: "-m -q -u -r -f -x", fn: hBind, rows: []row{{"fs.read", CapRead, "", "-f", "reads key bindings from"}}},
		"fc": {val: "-e", fn: hFc, rows: []row{
			{"exec.dynamic-code", CapDynamic, "!-l", "", "re-runs commands from the shell's history, which guard cannot see"},
			{"exec.dynamic-code", CapDynamic, "-e", "", "runs an editor on commands from the history, then runs what it leaves"},
		}},
		// m4 runs the shell commands its input asks for (syscmd, esyscmd).
		"m4": {val: "-D -U -I -d -o -l -F -R -G --define --undefine --include --debug --error-output --arglength --freeze-state --reload-state", fn: hM4, rows: []row{{"fs.write", CapWrite, "", "-o|--error-output|-F|--freeze-state", "writes"}}},

		// The dynamic loader runs the program it is given (ld.so PROG ARGS,
		// /lib64/ld-linux-x86-64.so.2 /bin/rm …); its options load code.
		"ld.so": {val: "--library-path --preload --audit --argv0 --glibc-hwcaps-prepend --glibc-hwcaps-mask", posix: true, fn: wrap(0), rows: []row{
			{"env.ld-preload", CapPersistence, "--preload|--audit", "", "loads a library into the program (ld.so --preload/--audit)"},
			{"env.ld-library-path", CapEnvHijack, "--library-path", "", "changes the libraries the program loads"},
		}},

		// Multicall binaries: the first operand is the program.
		"busybox": {posix: true, fn: hMulticall},
		"toybox":  {posix: true, fn: hMulticall},
		// GNU coreutils built as one binary (--coreutils-prog=NAME) and
		// uutils' coreutils (coreutils NAME ARGS).
		"coreutils": {posix: true, fn: hCoreutils},
		// run-parts runs every executable in a directory, which this line
		// does not show; --test and --list only name them.
		"run-parts": {val: "-u --umask -a --arg --regex", rows: []row{{"exec.dir-scripts", CapDynamic, "!--test !--list", "", "runs every program in a directory, which guard does not review"}}},

		// Tracers, profilers, benchmark and retry tools.
		"strace": {val: "-e -o -p -s -u -E -P -a -b -I -X -O -S -U --output --attach --user --env --string-limit --trace --signal", posix: true, fn: outputPipe(wrap(0), "-o", "--output"), rows: []row{
			{"fs.write", CapWrite, "", "-o|--output", "writes"},
			{"proc.trace", CapProcess, "-p|--attach", "", "attaches to a running process (it can read its memory and data)"},
		}},
		"ltrace": {val: "-e -o -p -s -u -n -a -A -D -F -l -L -x -w --output --library", posix: true, fn: wrap(0), rows: []row{
			{"fs.write", CapWrite, "", "-o|--output", "writes"},
			{"proc.trace", CapProcess, "-p", "", "attaches to a running process (it can read its memory and data)"},
		}},
		// Session 10: tools that read or change another running process's
		// memory (a core dump, stacks, profiles, injected code), as gdb -p
		// does: its data, tokens and keys included.
		"gcore":       {val: "-o -a", rows: []row{{"proc.trace", CapProcess, "ops", "", "dumps a running process's memory (its data, tokens and keys) to a file"}}},
		"gstack":      {rows: []row{{"proc.trace", CapProcess, "ops", "", "reads a running process's stacks through the debugger interface"}}},
		"pstack":      {rows: []row{{"proc.trace", CapProcess, "ops", "", "reads a running process's stacks through the debugger interface"}}},
		"eu-stack":    {val: "-p --pid -n", rows: []row{{"proc.trace", CapProcess, "-p|--pid", "", "reads a running process's stacks through the debugger interface"}}},
		"py-spy":      {val: "-p --pid -o --output -r --rate -d --duration -f --format", fn: hAfterDashes, rows: []row{{"proc.trace", CapProcess, "-p|--pid", "", "attaches to a running process (it can read its memory and data)"}, {"fs.write", CapWrite, "", "-o|--output", "writes"}}},
		"rbspy":       {val: "-p --pid -f --file -r --rate -d --duration --format", fn: hAfterDashes, rows: []row{{"proc.trace", CapProcess, "-p|--pid", "", "attaches to a running process (it can read its memory and data)"}, {"fs.write", CapWrite, "", "-f|--file", "writes"}}},
		"pyrasite":    {rows: []row{{"proc.trace", CapProcess, "ops", "", "injects Python code into a running process, where it runs with that process's rights"}}},
		"memray":      {rows: []row{{"proc.trace", CapProcess, "op0~^attach$", "", "injects a profiler into a running process"}}},
		"jcmd":        {rows: []row{{"proc.trace", CapProcess, "ops", "", "sends a diagnostic command to a running Java process (it can dump its heap, with its data and secrets)"}}},
		"jmap":        {rows: []row{{"proc.trace", CapProcess, "ops", "", "reads a running Java process's heap (its data and secrets)"}}},
		"jstack":      {rows: []row{{"proc.trace", CapProcess, "ops", "", "reads a running Java process's stacks"}}},
		"dotnet-dump": {val: "-p --process-id -o --output", rows: []row{{"proc.trace", CapProcess, "-p|--process-id", "", "dumps a running .NET process's memory (its data and secrets)"}, {"fs.write", CapWrite, "", "-o|--output", "writes"}}},
		"valgrind":    {posix: true, fn: wrap(0)},
		"perf":        {posix: true, fn: hPerf},
		"hyperfine":   {val: "-w -r -m -M -p -c -s -C -S -n -L -P -D -u -N --warmup --runs --min-runs --max-runs --prepare --cleanup --setup --conclude --shell --command-name --parameter-scan --parameter-step-size --parameter-list --export-json --export-csv --export-markdown --export-asciidoc --export-orgmode --time-unit --style --output --input --sort", fn: hHyperfine},
		"gdb":         {val: "-ex -eval-command --eval-command -iex -init-eval-command --init-eval-command -x -command --command -ix -init-command --init-command -p -pid --pid -c -core --core -cd --cd -d -directory --directory -s -symbols --symbols -e -exec --exec -se -tty --tty -D --data-directory", fn: hDebugger(debuggerArgs{progMarks: []string{"--args"}, pidOp: true})},
		"lldb":        {val: "-o --one-line -O --one-line-before-file -k --source-on-crash -s --source -S --source-before-file -p --attach-pid -n --attach-name -c --core -a --arch", fn: hDebugger(debuggerArgs{progMarks: []string{"--args", "--"}})},

		// Namespace, container and privilege launchers.
		"unshare":  {val: "-S -G -R -w --setuid --setgid --root --wd --map-user --map-group --map-users --map-groups --propagation --setgroups", posix: true, fn: launch(0)},
		"nsenter":  {val: "-t -S -G -r -w --target --setuid --setgid --root --wd", posix: true, fn: launch(0), rows: []row{{"priv.nsenter", CapPrivilege, "", "", "enters another process's namespaces (needs root)"}}},
		"firejail": {posix: true, fn: launch(0)},
		"bwrap":    {fn: hBwrap},
		"chroot":   {val: "--userspec --groups", posix: true, fn: launch(1), rows: []row{{"priv.chroot", CapPrivilege, "", "", "changes the root directory (needs root)"}}},
		"setpriv":  {val: "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule", posix: true, fn: launch(0), rows: []row{{"priv.setpriv", CapPrivilege, "--reuid|--regid|--ruid|--euid|--rgid|--egid|--groups|--init-groups|--clear-groups|--keep-groups", "", "changes user or group ids (needs root)"}}},
		"capsh":    {fn: hCapsh},
		"sg":       {posix: true, fn: hSg, rows: []row{{"priv.users", CapPrivilege, "", "", "runs a command as another group (sg)"}}},
		"script":   {val: "-c --command -E --echo -I --log-in -O --log-out -B --log-io -T --log-timing -t --timing -m --logging-format -o --output-limit", fn: hScript},
		"entr":     {posix: true, fn: hEntr},
		"ssh-agent": {val: "-a -E -P -t -O", posix: true, fn: func(b *builder, c *call) stream {
			if len(c.a.rest) == 0 {
				return stream{kind: streamText}
			}
			return wrap(0)(b, c)
		}},
		"dbus-run-session": {val: "--config-file --dbus-daemon", posix: true, fn: wrap(0)},
		"catchsegv":        {posix: true, fn: wrap(0)},
		"faketime":         {val: "-f -m -p", posix: true, fn: wrap(1)},
		"prlimit":          {val: "-p --pid", posix: true, fn: wrap(0)},
		"runuser": {val: "-u -g -G -s -w -c --user --group --supp-group --shell --command --whitelist-environment", posix: true, rows: []row{{"priv.su", CapPrivilege, "", "", "runs a command as another user"}}, fn: func(b *builder, c *call) stream {
			if c.a.has("-c", "--command") {
				return hSu(b, c)
			}
			if c.a.has("-u", "--user") && len(c.a.rest) > 0 {
				return wrap(0)(b, c)
			}
			return stream{}
		}},

		// Programs known to treat their arguments as data (patterns,
		// names, messages): nothing in them runs.
		"pgrep": plain(), "pidof": plain(), "notify-send": plain(), "logger": plain(), "figlet": plain(),
		"cowsay": plain(), "banner": plain(), "toilet": plain(), "espeak": plain(), "say": plain(),
		"apropos": plain(), "whatis": plain(), "info": plain(), "tldr": plain(), "apt-cache": plain(),
		"dpkg-query": plain(), "getent": plain(), "cheat": plain(), "compopt": plain(),
		// Binary and file inspectors: a program path is what they look at.
		"ldd": plain(), "objdump": plain(), "readelf": plain(), "nm": plain(), "size": plain(), "c++filt": plain(),
		"addr2line": plain(), "namei": plain(), "getcap": plain(), "lsattr": plain(),

		// The shell's own hooks (principle 10).
		"trap":    {fn: hTrap},
		"hash":    {val: "-p", fn: hHash},
		"command": {posix: true, fn: hCommand},
		"mktemp":  {val: "-p --tmpdir --suffix", fn: hMktemp},

		// Editors with command options.
		"vim":         {val: "-c --cmd -S -u -U -i -T -w -W -t -q -r -L -l --listen --remote --remote-send --remote-expr --remote-silent --remote-tab --servername --startuptime", fn: hVim},
		"emacs":       {val: "--eval -eval -l --load -f --funcall -L --directory --script -x -u --user --chdir --file --insert --find-file --visit -t --terminal -d --display", fn: hEmacs},
		"emacsclient": {val: "-e --eval -a --alternate-editor -s --socket-name -f --server-file -d --display", fn: hEmacs},
	}
	for _, n := range []string{"nvim", "vi", "view", "vimdiff", "gvim", "rvim"} {
		t[n] = t["vim"]
	}
	for _, n := range shellNames() {
		t[n] = &spec{val: shellVal, posix: true, fn: hShell}
	}
	t["fish"] = &spec{val: "-c -C --command --init-command", fn: hFish}
	// Shells of other languages: their inline code is code guard does
	// not review (interp.inline-code), as python -c is (hOtherLangShell).
	// cmd.exe and powershell.exe run on Windows from WSL.
	for n, code := range map[string]string{
		"nu": "-c --commands", "xonsh": "-c", "elvish": "-c", "ion": "-c", "rc": "-c", "es": "-c", "murex": "-c", "ysh": "-c",
		"powershell.exe": "-c -Command -command -EncodedCommand -ec -e", "pwsh.exe": "-c -Command -command -EncodedCommand -ec -e",
	} {
		t[n] = &spec{val: code, fn: hOtherLangShell(code)}
	}
	t["cmd.exe"] = &spec{fn: hCmdExe}
	return t
}

// extendLaunch adds command-running options to tools whose entries live
// in other tables (tar, rsync, zip, tmux, screen, git difftool): their own
// rows and handlers stay, and run first.
func extendLaunch(t map[string]*spec) {
	if s := t["tar"]; s != nil {
		s.val += " --to-command --use-compress-program -I --checkpoint-action -F --info-script --new-volume-script --rsh-command --rmt-command"
	}
	if s := t["rsync"]; s != nil {
		s.fn = hRsync(s.fn)
	}
	if s := t["rg"]; s != nil && s.fn == nil {
		// rg --pre PROGRAM runs PROGRAM on every file it searches.
		s.val += " --pre --pre-glob"
		s.fn = hProgramOption("--pre")
	}
	if s := t["zip"]; s != nil {
		s.val += " -TT --unzip-command"
		s.fn = hZip
	}
	if s := t["tmux"]; s != nil {
		s.val += " -S -L -f -c -T"
		// The subcommand table moves into the handler (tmux chains them
		// with \;); its default rows apply to a subcommand not listed.
		def := &spec{rows: s.rows}
		s.fn = hTmux(s.subs, def)
		s.handled = append(s.handled, def)
		for _, name := range slices.Sorted(maps.Keys(s.subs)) {
			s.handled = append(s.handled, s.subs[name])
		}
		s.subs, s.rows = nil, nil
	}
	if s := t["screen"]; s != nil {
		s.val += " -S -c -e -h -p -T -t -s -Logfile"
		s.posix = true
		s.fn = hScreen(s.fn)
	}
}

// extendGitLaunch: git difftool runs --extcmd/-x for each file.
func extendGitLaunch(t map[string]*spec) {
	if _, ok := t["difftool"]; !ok {
		t["difftool"] = &spec{val: "-x --extcmd -t --tool", fn: hDifftool}
	}
}
