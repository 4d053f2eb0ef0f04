package profile

import (
	"regexp"
	"strings"
	"sync"
)

// Session 7, programs: options of known programs that run a program or a
// command line (gpg's viewers and helper programs, a compiler's -wrapper,
// just's shell, wget's askpass and wgetrc commands, make's .SHELLFLAGS and
// $(shell …) functions), files they write through options the tables did
// not list (curl's header, cookie and trace files, valgrind's log), and
// programs the tables did not know that print secrets or approve code to
// run later (sops, ansible-vault, systemd-creds, keepassxc-cli, direnv
// allow, mise trust).

// programsTable: programs new to the tables.
func programsTable() map[string]*spec {
	decrypt := func(cond, msg string) *spec {
		return &spec{rows: []row{{"secrets.decrypt", CapSecrets, cond, "", msg}}}
	}
	t := programsRunTable()
	for k, v := range map[string]*spec{
		// sops decrypts with your keys and prints (or hands to a command,
		// or opens in an editor) the secrets a file holds: decrypt, -d,
		// exec-env, exec-file, edit, and a file given alone (edit mode).
		"sops": {val: "--input-type --output-type --output --config --kms --pgp --age --gcp-kms --azure-kv --hc-vault-transit --encrypted-regex --unencrypted-regex --extract --set --filename-override", rows: []row{
			{"secrets.decrypt", CapSecrets, "-d|--decrypt|--extract", "", "decrypts and prints the secrets in a sops file"},
			{"secrets.decrypt", CapSecrets, "op0~^(decrypt|exec-env|exec-file|edit)$", "", "decrypts the secrets in a sops file (to print them, edit them or hand them to a command)"},
			{"secrets.decrypt", CapSecrets, "!-e !--encrypt !-r !--rotate !-d !--decrypt !-i !--in-place !op0~^(encrypt|rotate|decrypt|exec-env|exec-file|edit|publish|keyservice|groups|updatekeys|filestatus|set|unset|help|-h|--help|-v|--version)$ ops", "", "opens a sops file decrypted in an editor"},
		}},
		"ansible-vault": decrypt("op0~^(view|decrypt|edit)$", "decrypts an Ansible vault (to print it, edit it or write it out in clear)"),
		"systemd-creds": {rows: []row{
			{"secrets.decrypt", CapSecrets, "op0~^(decrypt|cat)$", "", "decrypts a systemd credential"},
			{"sys.config", CapSystem, "op0~^setup$", "", "creates the machine's credential key"},
		}},
		// keepassxc-cli: any verb that opens a vault reads or changes the
		// passwords in it; the listed ones only generate or count.
		"keepassxc-cli": {rows: []row{
			{"secrets.pass", CapSecrets, "!op0~^(generate|diceware|estimate|analyze|help|-h|--help|-v|--version)$ ops", "", "opens a password vault and reads or changes its passwords"},
		}},
		// direnv allow and mise trust approve a directory's .envrc or
		// mise.toml: from then on your own shell runs it on every cd into
		// the directory, outside guard's sandbox and without a review.
		"direnv": {fn: hRunsAfter("exec", 1, "the directory's .envrc"), rows: []row{
			{"persist.code-approval", CapPersistence, "op0~^(allow|permit|grant|edit)$", "", "approves a directory's .envrc, which your shell then runs on every cd into it, outside the sandbox"},
			{"tool.unknown-subcommand", CapDynamic, "!op0~^(allow|permit|grant|edit|deny|revoke|block|status|version|help|hook|stdlib|dump|export|fetchurl|prune|reload|show_dump|exec|--help|--version)$ ops", "", "runs a direnv subcommand guard does not know"},
		}},
		// Dotfile managers write your home's start-up files by design:
		// any verb that is not a listed query is persistence.
		"chezmoi": {rows: []row{{"persist.dotfiles", CapPersistence, "ops !op0~^(diff|status|managed|unmanaged|data|doctor|cat|cat-config|source-path|target-path|verify|ignored|help|completion|execute-template|dump|dump-config|license|--version|-h|--help)$", "", "writes files in your home directory, start-up files among them (chezmoi)"}}},
		"yadm":    {rows: []row{{"persist.dotfiles", CapPersistence, "ops !op0~^(status|diff|log|list|show|ls-files|version|help|introspect|--version|-h|--help)$", "", "changes files in your home directory, start-up files among them (yadm is git with your home as its work tree)"}}},
		"home-manager": {rows: []row{
			{"persist.dotfiles", CapPersistence, "ops !op0~^(generations|packages|news|option|help|build|instantiate|--version|-h|--help)$", "", "activates a configuration that writes your home's start-up files and services (home-manager)"},
			{"pkg.install", CapFetch, "op0~^(build|instantiate)$", "", "downloads and builds a home configuration"},
		}},
		"stow": {val: "-d --dir -t --target --ignore --defer --override", fn: hStow},
		"mise": {fn: hRunsAfter("exec x", -1, ""), rows: []row{
			{"pkg.install-user", CapFetch, "op0~^(use|u|install|i|upgrade|up|plugins|plugin|p|self-update|sync|prune|uninstall|rm|remove|link|global|local|unuse)$", "", "downloads or installs tools, or changes your tool versions, outside the workspace"},
			{"pkg.config-code", CapPersistence, "op0~^(use|u|global|local|link)$ any~path:", "", "sets a tool version that is a path: every shim of that tool then runs the programs found there"},
			{"persist.code-approval", CapPersistence, "op0~^trust$ !--untrust", "", "approves a directory's mise.toml (its env, hooks and tasks), which mise then runs on every cd into it, outside the sandbox"},
		}},
	} {
		t[k] = v
	}
	for k, v := range withArgCommands(backupTable()) {
		t[k] = v
	}
	for k, v := range withArgCommands(shellInitTable()) {
		t[k] = v
	}
	for k, v := range pkgManagerTable() {
		t[k] = v
	}
	for k, v := range buildInstallTable() {
		t[k] = v
	}
	for k, v := range vcsTable() {
		t[k] = v
	}
	for k, v := range syncTable() {
		t[k] = v
	}
	return t
}

// hStow: stow links (or with -D unlinks) its packages' files into the
// target directory (-t, else the stow directory's parent): any name, so
// into a home that may be .bashrc (principle 10). -n only simulates.
func hStow(b *builder, c *call) stream {
	if c.a.has("-n", "--no", "--simulate") {
		return stream{}
	}
	target := field{}
	if ts := c.a.values("-t", "--target"); len(ts) > 0 {
		target = ts[len(ts)-1]
	} else {
		dir := staticField(".", c.sp)
		if ds := c.a.values("-d", "--dir"); len(ds) > 0 {
			dir = ds[len(ds)-1]
		}
		if dir.known {
			target = staticField(dir.val+"/..", span{dir.pos, dir.end})
		}
	}
	if !target.known {
		b.add(Effect{Cap: CapWrite, Rule: "persist.dotfiles", Program: c.prog, Class: ClassUnknown, Target: target.display(), Msg: "links files into a directory guard cannot resolve"}, c.sp)
		return stream{}
	}
	b.pathEffect(CapWrite, "persist.dotfiles", c.prog, target, c.st, c.sp, "links files into")
	b.writeAnyName(c, target, "persist.dotfiles", "may link any name into")
	return stream{}
}

// hRunsAfter: a verb in verbs (space-separated) runs the command that
// follows — skip operands after the verb (direnv exec DIR CMD), or, for
// skip < 0, the words after -- (mise exec TOOL@VER -- CMD); a command
// guard cannot find there is code it does not review. loads names code
// the tool runs first (a directory's .envrc).
func hRunsAfter(verbs string, skip int, loads string) handler {
	return func(b *builder, c *call) stream {
		if len(c.a.ops) == 0 || !c.a.ops[0].known || !strings.Contains(" "+verbs+" ", " "+c.a.ops[0].val+" ") {
			return stream{}
		}
		if loads != "" {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Msg: "runs " + loads + " first, which guard does not review"}, c.sp)
		}
		start := -1
		switch {
		case skip >= 0 && len(c.a.ops) > skip+1:
			start = indexOf(c.fs, c.a.ops[skip+1])
		case skip < 0:
			for i := indexOf(c.fs, c.a.ops[0]); i < len(c.fs); i++ {
				if c.fs[i].known && c.fs[i].val == "--" {
					start = i + 1
					break
				}
			}
		}
		if start < 0 || start >= len(c.fs) {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Msg: "runs a command guard cannot find on the line"}, c.sp)
			return stream{kind: streamUnknown}
		}
		return b.exec(c.fs[start:], c.st, c.in, c.prog+" "+c.a.ops[0].val, c.sp)
	}
}

// programRows are rows added to programs that already have an entry: the
// options that name a file they write (as outputRows).
var programRows = sync.OnceValue(func() map[string][]row {
	return map[string][]row{
		"curl": {
			{"fs.output", CapWrite, "", "-D|--dump-header|-c|--cookie-jar|--trace|--trace-ascii|--stderr|--libcurl|--etag-save|--hsts|--alt-svc", "writes"},
			{"fs.read", CapRead, "", "--etag-compare", "reads"},
		},
		"valgrind": {
			{"fs.output", CapWrite, "", "--log-file|--xml-file|--callgrind-out-file|--massif-out-file|--cachegrind-out-file|--dhat-out-file", "writes its log to"},
		},
	}
})

// extendPrograms adds to the programs of t (final entries of one table)
// the rows of programRows and the handlers of the options that run
// programs. It runs from finalize.
func extendPrograms(t map[string]*spec) {
	addRows(t, programRows())
	extendRun(t)
	if s := t["gpg"]; s != nil {
		s.val += " " + strings.Join(gpgProgramOptions, " ") + " --photo-viewer --exec-path --list-options --homedir -r --recipient -u --local-user --default-key --keyserver --keyserver-options"
		s.fn = chain(s.fn, hGpgPrograms)
		s.rows = append(s.rows, row{"gpg.program", CapDynamic, "--exec-path", "", "runs gpg's helper programs (photo viewers, keyserver helpers) from a directory guard does not review"})
	}
	for _, cc := range compilerDrivers {
		if s := t[cc]; s != nil {
			s.fn = chain(s.fn, hCompilerPrograms)
		}
	}
	if s := t["just"]; s != nil {
		s.fn = chain(s.fn, hJustShell)
	}
	if s := t["wget"]; s != nil {
		s.val += " --use-askpass --execute"
		s.fn = chain(s.fn, hWgetPrograms)
	}
}

// chain runs prev (when set), then next; the stream is prev's unless it
// had none.
func chain(prev, next handler) handler {
	return func(b *builder, c *call) stream {
		var out stream
		if prev != nil {
			out = prev(b, c)
		}
		if o := next(b, c); out.kind == streamNone {
			out = o
		}
		return out
	}
}

// gpgProgramOptions name a program gpg (or the agent it starts) runs.
var gpgProgramOptions = []string{"--agent-program", "--dirmngr-program", "--keyboxd-program", "--pinentry-program", "--scdaemon-program"}

// hGpgPrograms: gpg --photo-viewer CMD runs CMD through the shell (with
// %i, %f … filled in) when a key's photo is shown; --agent-program and
// the other *-program options name a program gpg starts ("PGM|ARGS").
func hGpgPrograms(b *builder, c *call) stream {
	for _, f := range c.a.values("--photo-viewer") {
		if !f.known {
			b.dynamicCode(f, c, "gpg --photo-viewer")
			continue
		}
		b.text(f.val, c.st.clone(), stream{}, "gpg --photo-viewer", c.sp)
	}
	for _, f := range c.a.values(gpgProgramOptions...) {
		if !f.known {
			b.dynamicCode(f, c, "gpg's helper program")
			continue
		}
		pgm, _, _ := strings.Cut(f.val, "|")
		g := f
		g.val = pgm
		b.exec([]field{g}, c.st.clone(), stream{}, "gpg "+pgm, c.sp)
	}
	return stream{}
}

// compilerDrivers are the C and C++ compiler drivers: -wrapper, -fplugin=,
// -B and -specs= load or run code (hCompilerPrograms), @FILE reads more
// options (hResponseFile), and a word guard cannot see may be any of
// those options (optionCode).
var compilerDrivers = []string{"gcc", "g++", "cc", "c++", "clang", "clang++"}

// hCompilerPrograms: gcc -wrapper PROG,ARG,… runs every compiler pass
// as PROG ARG… PASS…; -fplugin=, -fpass-plugin=, -B DIR, -specs= and
// clang's -Xclang -load load code or programs into the compiler. A path
// outside the system's own directories is code guard does not review.
func hCompilerPrograms(b *builder, c *call) stream {
	fs := c.fs
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if !f.known {
			continue
		}
		next := func() (field, bool) {
			if i+1 < len(fs) {
				i++
				return fs[i], true
			}
			return field{}, false
		}
		var val field
		var ok bool
		switch s := f.val; {
		case s == "-wrapper":
			w, has := next()
			if !has {
				continue
			}
			if !w.known {
				b.dynamicCode(w, c, c.prog+" -wrapper")
				continue
			}
			var argv []field
			for _, p := range strings.Split(w.val, ",") {
				g := w
				g.val = p
				argv = append(argv, g)
			}
			argv = append(argv, staticField("cc1", c.sp))
			b.exec(argv, c.st.clone(), stream{}, c.prog+" -wrapper", c.sp)
			continue
		case s == "-B" || s == "-specs" || s == "--specs" || s == "-load" || s == "-load-pass-plugin" || s == "-fplugin" || s == "-fpass-plugin":
			val, ok = next()
			if ok && val.known && val.val == "-Xclang" {
				val, ok = next() // clang -Xclang -load -Xclang X.so
			}
		case strings.HasPrefix(s, "-B"):
			val, ok = f, true
			val.val = s[2:]
		case strings.HasPrefix(s, "-fplugin=") || strings.HasPrefix(s, "-fpass-plugin=") || strings.HasPrefix(s, "-specs=") || strings.HasPrefix(s, "--specs=") || strings.HasPrefix(s, "-load-pass-plugin="):
			val, ok = f, true
			_, val.val, _ = strings.Cut(s, "=")
		}
		if !ok {
			continue
		}
		if val.known && !strings.Contains(val.val, "/") {
			continue // a plugin or specs file from the compiler's own directory
		}
		if val.known {
			if p, rok := b.ctx.Resolve(c.st.cwd, val.val); rok && b.ctx.Classify(p) == ClassSystem {
				continue
			}
		}
		b.add(Effect{Cap: CapDynamic, Rule: "dev.compiler-code", Program: c.prog, Target: val.display(),
			Msg: "loads compiler plugins or programs from " + val.display() + ", which guard does not review"}, c.sp)
	}
	return stream{}
}

// hJustShell: just runs every recipe line as SHELL SHELL-ARG… LINE, so
// --shell and --shell-arg are a command line (reviewed with ':' for the
// line); --command CMD ARG… runs CMD.
func hJustShell(b *builder, c *call) stream {
	shells, args := c.a.values("--shell"), c.a.values("--shell-arg")
	if len(shells)+len(args) > 0 {
		argv := []field{staticField("sh", c.sp)}
		if len(shells) > 0 {
			argv = []field{shells[len(shells)-1]}
		}
		argv = append(argv, args...)
		if !argv[0].known {
			b.dynamicCode(argv[0], c, "just --shell")
		} else {
			b.exec(append(argv, staticField(":", c.sp)), c.st.clone(), stream{}, "just --shell", c.sp)
		}
	}
	// --command takes every argument after it.
	for i, f := range c.fs {
		if !f.known || (f.val != "--command" && !strings.HasPrefix(f.val, "--command=")) {
			continue
		}
		argv := append([]field(nil), c.fs[i+1:]...)
		if v, ok := strings.CutPrefix(f.val, "--command="); ok {
			g := f
			g.val = v
			argv = append([]field{g}, argv...)
		}
		if len(argv) > 0 {
			b.exec(argv, c.st.clone(), c.in, "just --command", c.sp)
		}
		break
	}
	return stream{}
}

// hWgetPrograms: wget --use-askpass PROG runs PROG for the password;
// -e/--execute COMMAND runs a wgetrc command, some of which name a file
// wget writes (output_document, logfile, save_cookies), a file it reads
// and sends (post_file, body_file) or a program it runs (use_askpass).
func hWgetPrograms(b *builder, c *call) stream {
	hProgramOption("--use-askpass")(b, c)
	for _, f := range c.a.values("-e", "--execute") {
		if !f.known {
			b.dynamicCode(f, c, "wget -e")
			continue
		}
		key, val, ok := strings.Cut(f.val, "=")
		if !ok {
			continue
		}
		key = strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(key)))
		g := f
		g.val = strings.TrimSpace(val)
		switch key {
		case "outputdocument", "logfile", "savecookies", "hstsfile":
			if g.val != "-" {
				b.pathEffect(CapWrite, "fs.output", c.prog, g, c.st, c.sp, "writes")
			}
		case "postfile", "bodyfile", "loadcookies", "input", "certificate", "privatekey":
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, "reads and sends")
		case "useaskpass":
			b.exec([]field{g}, c.st.clone(), stream{}, "wget use_askpass", c.sp)
		}
	}
	return stream{}
}

// makeFunc finds make's functions that run or touch things in makefile
// text: $(shell CMD), $(file >F,…), $(file <F) and $(guile …), with
// either bracket.
var makeFunc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$[({](shell|file|guile)[ \t]`) })

// makeVarRef is a simple make variable reference, $(NAME) or ${NAME}.
var makeVarRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]`) })

// makeFunctions reviews the functions of makefile text that make runs
// while it reads the text (not in a recipe): $(shell CMD) is CMD run by
// the shell, $(file >PATH,TEXT) writes PATH, $(file <PATH) reads it,
// $(guile …) is code guard does not review. Make's own variables
// become the shell's (${HOME}); what stays unknown is priced as such.
func (b *builder) makeFunctions(text string, c *call) {
	for _, m := range makeFunc().FindAllStringSubmatchIndex(text, -1) {
		open := text[m[0]+1]
		body, ok := bracketBody(text[m[1]:], open)
		if !ok {
			b.dynamicCode(field{raw: text[m[0]:], known: false}, c, c.prog+" "+text[m[2]:m[3]]+" function")
			continue
		}
		body = makeVarRef().ReplaceAllString(body, "$${$1}")
		body = strings.ReplaceAll(body, "$$", "$")
		switch text[m[2]:m[3]] {
		case "shell":
			b.text(body, c.st.clone(), stream{}, c.prog+" $(shell)", c.sp)
		case "guile":
			b.dynamicCode(field{raw: body}, c, c.prog+" $(guile)")
		case "file":
			op := strings.TrimLeft(body, " \t")
			name, _, _ := strings.Cut(strings.TrimLeft(op, "<>"), ",")
			name = strings.TrimSpace(name)
			if name == "" || strings.ContainsAny(name, "\"`\\") {
				b.dynamicCode(field{raw: body}, c, c.prog+" $(file)")
				continue
			}
			cmd := `cat "` + name + `"`
			if strings.HasPrefix(op, ">") {
				cmd = `: >> "` + name + `"`
			}
			b.text(cmd, c.st.clone(), stream{}, c.prog+" $(file)", c.sp)
		}
	}
}

// bracketBody returns s up to the bracket that closes open ('(' or '{'),
// counting nested ones of the same kind.
func bracketBody(s string, open byte) (string, bool) {
	closer := byte(')')
	if open == '{' {
		closer = '}'
	}
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return s[:i], true
			}
		}
	}
	return "", false
}

// makeShellFlags: make runs every recipe line as SHELL .SHELLFLAGS LINE,
// so a .SHELLFLAGS=… operand is reviewed with the shell as a command line
// (':' for the line), as SHELL=… is.
func (b *builder) makeShellFlags(c *call) {
	shell := "/bin/sh"
	var flags *field
	for i, f := range c.a.ops {
		name, _, ok := strings.Cut(f.display(), "=")
		if !ok {
			continue
		}
		switch name {
		case "SHELL":
			if f.known {
				_, shell, _ = strings.Cut(f.val, "=")
			}
		case ".SHELLFLAGS":
			flags = &c.a.ops[i]
		}
	}
	if flags == nil {
		return
	}
	if !flags.known {
		b.dynamicCode(*flags, c, c.prog+" .SHELLFLAGS=")
		return
	}
	_, val, _ := strings.Cut(flags.val, "=")
	b.text(shell+" "+val+" :", c.st.clone(), stream{}, c.prog+" .SHELLFLAGS", c.sp)
	// Text after a -c in the flags is a command line of its own, however
	// make splits the flags into words.
	words := strings.Fields(val)
	for i, w := range words {
		if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "c") && i+1 < len(words) {
			b.text(strings.Join(words[i+1:], " "), c.st.clone(), stream{}, c.prog+" .SHELLFLAGS", c.sp)
			break
		}
	}
}
