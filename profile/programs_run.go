package profile

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Session 7, programs (second part): programs that run the files they
// find or the keys pressed (fd -x/-X, rg --pre, fzf --bind), namespace and
// server launchers (ip netns exec, ttyd), python's standard modules run
// with -m, data tools whose language runs commands or reads files (mlr,
// yq load), document tools' filters, trash and process managers, and git
// commands that check files out into a work tree outside the workspace.

// programsRunTable: programs new to the tables (merged into programsTable).
func programsRunTable() map[string]*spec {
	serve := func(val string) *spec {
		return &spec{val: val, posix: true, fn: wrap(0), rows: []row{{"net.serve", CapSend, "", "", "serves a program to the network: whoever connects runs it"}}}
	}
	return programsRunEntries(serve)
}

// fdVal are fd's options that take a value.
const fdVal = "-e --extension -t --type -E --exclude -d --max-depth --min-depth --exact-depth -S --size --changed-within --changed-before --newer --older -o --owner -j --threads --base-directory --search-path --max-results --color -c --format --and --ignore-file --path-separator --batch-size"

func programsRunEntries(serve func(string) *spec) map[string]*spec {
	return map[string]*spec{
		// Command languages with a shell escape, read from their input,
		// options and files (stdinlang.go).
		"dc":        {val: "-e -f --expression --file"},
		"lftp":      {val: "-c -e -f -u -p --user --password", rows: []row{{"net.socket", CapSend, "", "", "opens a file-transfer connection (lftp)"}}},
		"smbclient": {val: "-c --command -U --user -W --workgroup -I --ip-address -p --port -s --configfile -A --authentication-file -m --max-protocol -n --netbiosname -t --timeout -T --tar -D --directory -O --socket-options -R --name-resolve -M --message -L --list", rows: []row{{"net.socket", CapSend, "", "", "opens a connection to a Windows file share (smbclient)"}}},
		"fd":        {val: fdVal, fn: hFdExec, rows: []row{{"fs.read", CapRead, "", "ops1", "searches"}}},
		"fdfind":    {val: fdVal, fn: hFdExec, rows: []row{{"fs.read", CapRead, "", "ops1", "searches"}}},
		"fzf":       {val: "--preview --bind --query -q --filter -f --delimiter -d --nth -n --with-nth --height --layout --prompt --header --preview-window --expect --tiebreak --color --history --walker --walker-root --walker-skip --with-shell --listen --listen-unsafe", fn: hFzf},
		"mlr":       {fn: hMiller},
		"ttyd":      serve("-p --port -i --interface -c --credential -u --uid -g --gid -s --signal -I --index -b --base-path -P --ping-interval -t --client-option -T --terminal-type -m --max-clients -O --check-origin -w --cwd"),
		"gotty":     serve("-p --port -a --address -c --credential -w --permit-write --title-format --ws-origin --term"),
		"websocketd": {val: "--port --address --staticdir --cgidir --dir --maxforks --header --loglevel", posix: true, fn: wrap(0), rows: []row{
			{"net.serve", CapSend, "", "", "serves a program to the network: whoever connects runs it"}}},
		// trash-cli moves files to the trash: gone from where they were.
		"trash-put": {rows: []row{{"fs.delete", CapDelete, "", "ops", "moves to the trash"}}},
		"rbw":       {rows: []row{{"secrets.pass", CapSecrets, "!op0~^(help|config|list|ls|--help|-h|--version|-V|stop-agent)$ ops", "", "reads or changes passwords in your Bitwarden vault"}}},
		"trash":     {rows: []row{{"fs.delete", CapDelete, "", "ops", "moves to the trash"}}},
		"pm2": {rows: []row{
			{"persist.service", CapPersistence, "op0~^(startup|unstartup)$", "", "installs (or removes) a boot service that starts pm2's processes at every boot"},
			{"proc.daemon", CapProcess, "!op0~^(list|ls|l|status|jlist|prettylist|logs|log|show|info|describe|desc|monit|env|ping|--version|-v|-V|--help|-h|help)$ ops", "", "starts, stops or changes processes that pm2 keeps running in the background"},
		}},
		// python3 -m MODULE: the standard modules with a command line.
		"zipfile":    {fn: hExtractInto("-e|--extract", 1), rows: []row{{"fs.output", CapWrite, "-c|--create", "op0", "writes"}, {"fs.read", CapRead, "-c|--create", "ops1", "reads"}}},
		"tarfile":    {fn: hExtractInto("-e|--extract", 1), rows: []row{{"fs.output", CapWrite, "-c|--create", "op0", "writes"}, {"fs.read", CapRead, "-c|--create", "ops1", "reads"}}},
		"venv":       {val: "--prompt", fn: hVenv(""), rows: []row{{"fs.mkdir", CapWrite, "", "ops", "creates a virtual environment in"}}},
		"virtualenv": {val: "-p --python --prompt --activators --seeder --creator --app-data --extra-search-dir --pip --setuptools --wheel", fn: chain(hVenv(""), hArgCommands), rows: []row{{"fs.mkdir", CapWrite, "", "ops", "creates a virtual environment in"}}},
		"compileall": {val: "-d -s -p -x -i -r -j -o -e --invalidation-mode", rows: []row{{"fs.write", CapWrite, "", "ops", "writes compiled files under"}}},
		"cProfile":   {val: "-o -s -m", fn: hPyProfile, rows: []row{{"fs.output", CapWrite, "", "-o", "writes"}}},
		"json.tool":  {val: "--indent", rows: []row{{"fs.output", CapWrite, "", "op1", "writes"}}},
		"zipapp":     {val: "-o --output -p --python -m --main", rows: []row{{"fs.output", CapWrite, "", "-o|--output", "writes"}}},
		"ensurepip":  whole("pkg.install-user", CapDynamic, "installs pip into python's own environment, outside the workspace (--user: your home's site-packages)"),
		"webbrowser": whole("desktop.open", CapDesktop, "opens a web page in the browser, outside guard's sandbox"),
		"ftplib":     whole("net.fetch", CapFetch, "connects to an FTP server"),
		"pydoc":      {val: "-p -n -k -w", rows: []row{{"net.serve", CapSend, "-b|-p", "", "serves documentation on a local port (and opens a browser with -b)"}}},
		"sdiff":      {val: "-o --output -w --width -I --ignore-matching-lines --diff-program --tabsize", fn: hProgramOption("--diff-program"), rows: []row{{"fs.read", CapRead, "", "ops", "reads"}, {"fs.output", CapWrite, "", "-o|--output", "writes"}}},
		"hg":         later(hgSpec),
		// Terminals' remote control: kitty @, wezterm cli and zellij run
		// and action start commands or type into a terminal that is
		// already running, outside guard's sandbox (as tmux send-keys
		// and new-window do). gnome-terminal asks its server, which
		// runs the command outside the sandbox too.
		"kitty":          kittySpec(),
		"kitten":         kittySpec(),
		"wezterm":        {val: "--config-file --config -n --skip-config --cwd --class --workspace --position --domain", fn: hAfterDashes, rows: []row{{"inject.terminal", CapInject, "op0~^cli$ !op1~^(list|list-clients|get-pane-direction|--help|-h|help)$", "", "controls a running WezTerm (types text or starts commands in it), outside guard's sandbox"}}},
		"zellij":         {val: "-s --session -l --layout -c --config --config-dir -d --data-dir --max-panes", rows: []row{{"inject.terminal", CapInject, "op0~^(run|r|action|ac|edit|e|pipe|plugin)$", "", "starts commands or types into a running zellij session, outside guard's sandbox"}, {"proc.signal", CapProcess, "op0~^(kill-session|k|kill-all-sessions|ka|delete-session|d|delete-all-sessions|da)$", "", "ends zellij sessions"}}},
		"gnome-terminal": {val: "--window-with-profile --tab-with-profile --profile --title -t --working-directory --geometry --zoom --class --name --role", fn: hAfterDashes, rows: []row{{"inject.terminal", CapInject, "", "", "opens a terminal through the desktop's terminal server, which runs it outside guard's sandbox"}}},
		"copyq": {rows: []row{
			{"desktop.clipboard", CapDesktop, "ops !op0~^(help|version|--help|--version|-h|-v)$", "", "reads or changes the clipboard history (CopyQ)"},
			{"inject.desktop-server", CapInject, "op0~^(eval|-e|action|exec|source|script|execute)$", "", "runs a script or command in the CopyQ server, outside guard's sandbox"}}},
		"gtk-launch": whole("desktop.open", CapDesktop, "starts an application through the desktop, outside guard's sandbox"),
		// Compressors and converters: the file they write.
		"zstd":      {val: "-o -D --patch-from -T --threads", rows: []row{{"fs.output", CapWrite, "", "-o", "writes"}}, filter: true, fn: decoder("-d", "--decompress", "--uncompress")},
		"brotli":    {val: "-o --output -q --quality -w --lgwin -S --suffix", rows: []row{{"fs.output", CapWrite, "", "-o|--output", "writes"}}, filter: true, fn: decoder("-d", "--decompress")},
		"lz4":       {rows: []row{{"fs.output", CapWrite, "!-m !--multiple", "op1", "writes"}}, filter: true, fn: decoder("-d", "--decompress", "--uncompress")},
		"qpdf":      {rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.output", CapWrite, "", "op1", "writes"}}},
		"pdftotext": {val: "-f -l -r -x -y -W -H -enc -eol -opw -upw", rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.output", CapWrite, "", "op1", "writes"}}},
		// Extractors: every name in the archive lands in the directory.
		"dpkg-deb":   {fn: hExtractInto("-x|--extract|-X|--vextract|-R|--raw-extract|-e|--control", 1)},
		"unar":       {val: "-o -output-directory -e -encoding -p -password", fn: hExtractInto("", -1, "-o", "-output-directory")},
		"cabextract": {val: "-d --directory -F --filter -e --encoding", fn: hExtractInto("", -1, "-d", "--directory")},
		"unsquashfs": {val: "-d -dest -e -ef -p -processors", fn: hExtractInto("", -1, "-d", "-dest")},
		// yt-dlp downloads (B), writes -o and under -P, runs --exec, and
		// reads your browser's cookies or ~/.netrc when told to.
		"yt-dlp":     ytdlp(),
		"youtube-dl": ytdlp(),
		"latexmk":    {val: "-e -r -pdflatex -latex -lualatex -xelatex -bibtex -biber -makeindex -dvipdf -dvips -ps2pdf -jobname -outdir -auxdir -output-directory -aux-directory", fn: hLatexmk, rows: []row{{"dev.build", CapExec, "", "", "builds the project's LaTeX documents"}, {"fs.output", CapWrite, "", "into:-outdir|-auxdir|-output-directory|-aux-directory", "writes its documents into"}}},
	}
}

// runRows are rows added to programs that already have an entry.
var runRows = sync.OnceValue(func() map[string][]row {
	return map[string][]row{
		"tar": {{"fs.output", CapWrite, "", "--index-file|-g|--listed-incremental|--volno-file", "writes"}},
		// Log files of pagers, multiplexers and clients.
		"less":   {{"fs.output", CapWrite, "", "-o|-O|--log-file|--LOG-FILE", "writes its log to"}},
		"screen": {{"fs.output", CapWrite, "", "-Logfile", "writes its log to"}},
		"ssh":    {{"fs.output", CapWrite, "", "-E", "writes its log to"}},
		"info":   {{"fs.output", CapWrite, "", "-o|--output", "writes"}},
		"rsync": {{"fs.output", CapWrite, "", "--log-file|--write-batch|--only-write-batch", "writes"},
			{"fs.output", CapWrite, "", "-T|--temp-dir", "keeps its temporary copies in"},
			{"fs.output", CapWrite, "", "into:--partial-dir", "keeps partly sent files, under their names, in"}},
		"gio": {
			{"fs.delete", CapDelete, "op0~^(remove|rm|trash)$", "ops1", "deletes"},
			{"fs.write", CapWrite, "op0~^(copy|move|save|mkdir|rename)$", "last", "writes"},
		},
		// gsettings set …custom-keybinding… command 'CMD' and dconf write
		// …/command: a command the desktop runs on a key press.
		"gsettings": {{"desktop.default-app", CapPersistence, "op0~^set$ op~^(command|exec)$", "", "sets a command the desktop runs later (a keyboard shortcut, the default terminal)"}},
		// Secrets and temporary credentials that cloud and infrastructure
		// CLIs print, beyond the ones tokenRows lists.
		"aws": {{"cloud.secrets", CapSecrets, "any~^(get-parameters|get-parameters-by-path|batch-get-secret-value|decrypt|generate-data-key|get-instance-access-details|admin-initiate-auth|initiate-auth|get-credentials-for-identity|get-open-id-token|get-federation-token|assume-role-with-web-identity|assume-role-with-saml|get-role-credentials)$", "", "prints AWS secrets, keys or temporary credentials"}},
		"az": {{"cloud.secrets", CapSecrets, "any~^(keys|credential|credentials)$ any~^(list|show|renew)$", "", "prints Azure access keys or registry credentials"},
			{"cloud.secrets", CapSecrets, "any~^(show-connection-string|list-keys|list-connection-strings|list-publishing-credentials|list-publishing-profiles)$", "", "prints Azure access keys or connection strings"}},
		"gcloud": {{"cloud.secrets", CapSecrets, "op0~^kms$ any~^decrypt$", "", "decrypts data with a Google Cloud KMS key"}},
		"pulumi": {{"secrets.token-print", CapSecrets, "--show-secrets", "", "prints the stack's secrets in clear"}},
		"doctl":  {{"secrets.token-print", CapSecrets, "op0~^auth$ any~^token$", "", "prints your DigitalOcean token"}},
		"glab":   {{"gh.token", CapSecrets, "op0~^auth$ op1~^token$", "", "prints your GitLab token"}},
		"dconf":  {{"desktop.default-app", CapPersistence, "op0~^write$ op~/(command|exec)$", "", "sets a command the desktop runs later (a keyboard shortcut, the default terminal)"}},
	}
})

// extendRun is extendPrograms' second half.
func extendRun(t map[string]*spec) {
	addRows(t, runRows())
	extendDownloads(t)
	if s := t["ip"]; s != nil {
		s.fn = chain(s.fn, hIPExec)
	}
	if s := t["rg"]; s != nil {
		s.val += " --pre --pre-glob"
		s.fn = chain(s.fn, hRgPre)
	}
	if s := t["nano"]; s != nil {
		s.val += " -s --speller -o --operatingdir -Y --syntax -T --tabsize -r --fill"
		s.fn = chain(s.fn, func(b *builder, c *call) stream {
			for _, f := range c.a.values("-s", "--speller") {
				b.commandText(f, c, "nano --speller")
			}
			return stream{}
		})
	}
	if s := t["pandoc"]; s != nil {
		s.val += " -F --filter -L --lua-filter"
		s.fn = chain(chain(s.fn, hProgramOption("--filter", "-F")), func(b *builder, c *call) stream {
			for _, f := range c.a.values("--lua-filter", "-L") {
				b.exec([]field{staticField("lua", c.sp), f}, c.st.clone(), stream{}, "pandoc --lua-filter", c.sp)
			}
			return stream{}
		})
	}
	if s := t["curl"]; s != nil {
		s.val += " --variable"
		s.fn = chain(s.fn, hCurlVariable)
	}
	if s := t["java"]; s != nil {
		s.fn = chain(s.fn, hJavaAgents)
	}
	if s := t["yq"]; s != nil {
		s.fn = chain(s.fn, hYqLoad)
	}
}

// addRows appends rows to the entries of t they name, and adds the
// options they select to the entries' options with a value.
func addRows(t map[string]*spec, m map[string][]row) {
	for k, rs := range m {
		s := t[k]
		if s == nil {
			continue
		}
		// A lazy entry adds these rows and options to what it builds.
		s.rows = append(s.rows, rs...)
		for _, r := range rs {
			if on := strings.TrimPrefix(r.on, "into:"); strings.HasPrefix(on, "-") {
				s.val += " " + strings.ReplaceAll(on, "|", " ")
			}
		}
	}
}

// representative is a file inside dir, standing for the files a program
// finds there and hands to a command: what it could name, it names.
func representative(dir field) field {
	g := dir
	g.val = strings.TrimSuffix(dir.val, "/") + "/x"
	return g
}

// hFdExec: fd -x CMD… \; runs CMD for every file found, fd -X CMD… for
// all of them at once; {} and its variants stand for the files, and
// without one fd appends them. The files lie under the search paths
// (operands after the pattern, --search-path, else the current
// directory): CMD is reviewed with a file there.
func hFdExec(b *builder, c *call) stream {
	var cmds [][]field
	var rest []field
	for i := 0; i < len(c.fs); i++ {
		f := c.fs[i]
		if f.known && (f.val == "-x" || f.val == "--exec" || f.val == "-X" || f.val == "--exec-batch") {
			j := i + 1
			for j < len(c.fs) && !(c.fs[j].known && c.fs[j].val == ";") {
				j++
			}
			cmds = append(cmds, c.fs[i+1:j])
			i = j
			continue
		}
		rest = append(rest, f)
	}
	if len(cmds) == 0 {
		return stream{}
	}
	a := parseArgs(rest, fdVal, false)
	dirs := a.values("--search-path", "--base-directory")
	if len(a.ops) > 1 {
		dirs = append(dirs, a.ops[1:]...)
	}
	if len(dirs) == 0 {
		dirs = []field{staticField(".", c.sp)}
	}
	for _, cmd := range cmds {
		if len(cmd) == 0 {
			continue
		}
		for _, d := range dirs {
			b.exec(withFile(cmd, representative(d)), c.st.clone(), stream{}, c.prog+" -x", c.sp)
		}
	}
	return stream{}
}

// withFile puts file where cmd has a placeholder ({}, {/}, {//}, {.},
// {/.}), or after it when it has none.
func withFile(cmd []field, file field) []field {
	out := make([]field, 0, len(cmd)+1)
	placed := false
	for _, w := range cmd {
		if w.known && strings.Contains(w.val, "{") && strings.Contains(w.val, "}") {
			g := w
			for _, ph := range []string{"{//}", "{/.}", "{/}", "{.}", "{}"} {
				g.val = strings.ReplaceAll(g.val, ph, file.val)
			}
			placed = placed || g.val != w.val
			out = append(out, g)
			continue
		}
		out = append(out, w)
	}
	if !placed {
		out = append(out, file)
	}
	return out
}

// hRgPre: rg --pre COMMAND runs COMMAND with each file it searches as the
// only argument (the files under the operands after the pattern, or the
// current directory).
func hRgPre(b *builder, c *call) stream {
	pres := c.a.values("--pre")
	if len(pres) == 0 {
		return stream{}
	}
	pre := pres[len(pres)-1]
	if !pre.known {
		return b.dynamicCode(pre, c, "rg --pre")
	}
	if pre.val == "" {
		return stream{} // --pre '' turns it off
	}
	dirs := []field{staticField(".", c.sp)}
	if len(c.a.ops) > 1 && !c.a.has("-e", "--regexp", "-f", "--file") {
		dirs = c.a.ops[1:]
	} else if len(c.a.ops) > 0 && c.a.has("-e", "--regexp", "-f", "--file") {
		dirs = c.a.ops
	}
	for _, d := range dirs {
		b.exec([]field{pre, representative(d)}, c.st.clone(), stream{}, "rg --pre", c.sp)
	}
	return stream{}
}

// fzfAction finds the actions of an fzf --bind that run a command:
// execute, execute-silent, become, reload, reload-sync, preview,
// change-preview, transform* and their bracket or delimiter forms.
var fzfAction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[,+:])(execute-silent|execute|become|reload-sync|reload|change-preview|preview|transform[a-z-]*|bg-transform[a-z-]*)([(\[{<~!@#$%^&*;/|:])`)
})

// hFzf: fzf runs --preview and the command actions of --bind through the
// shell (FZF with --with-shell).
func hFzf(b *builder, c *call) stream {
	for _, f := range c.a.values("--preview") {
		b.commandText(f, c, "fzf --preview")
	}
	for _, f := range c.a.values("--bind") {
		if !f.known {
			b.dynamicCode(f, c, "fzf --bind")
			continue
		}
		s := f.val
		for _, m := range fzfAction().FindAllStringSubmatchIndex(s, -1) {
			open := s[m[4]]
			body := s[m[1]:]
			if open == ':' {
				// execute:CMD runs to the end of the binding.
			} else {
				closer := map[byte]byte{'(': ')', '[': ']', '{': '}', '<': '>'}[open]
				if closer == 0 {
					closer = open
				}
				if i := strings.IndexByte(body, closer); i >= 0 {
					body = body[:i]
				}
			}
			g := f
			g.val = body
			b.commandText(g, c, "fzf --bind "+s[m[2]:m[3]])
		}
	}
	return stream{}
}

// millerCalls are the functions of Miller's DSL that run commands, and
// its redirected output statements, which write the file they name.
var (
	millerSystem   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(system|exec)\s*\(\s*("((?:[^"\\]|\\.)*)")?`) })
	millerRedirect = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(tee|emit1|emitp|emitf|emit|print|printn|eprint|eprintn|dump|edump)\s*(>>|>|\|)\s*("((?:[^"\\]|\\.)*)")?`)
	})
)

// hMiller: mlr put/filter expressions (and -f/-s files) are a language
// whose system() and exec() run commands, and whose tee/emit/print/dump
// statements write to a file or pipe to a command.
func hMiller(b *builder, c *call) stream {
	for _, f := range c.fs {
		if !f.known {
			continue
		}
		for _, m := range millerSystem().FindAllStringSubmatchIndex(f.val, -1) {
			if m[6] >= 0 {
				g := f
				g.val = f.val[m[6]:m[7]]
				b.commandText(g, c, "mlr "+f.val[m[2]:m[3]]+"()")
				if f.val[m[2]:m[3]] == "exec" {
					b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: shorten(f.val), Msg: "runs a program with arguments from a Miller expression, which guard does not review"}, c.sp)
				}
				continue
			}
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: shorten(f.val), Msg: "runs a command built by a Miller expression, which guard cannot review"}, c.sp)
		}
		for _, m := range millerRedirect().FindAllStringSubmatchIndex(f.val, -1) {
			op := f.val[m[4]:m[5]]
			if m[8] < 0 {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: shorten(f.val), Msg: "writes to a file or command named by a Miller expression, which guard cannot review"}, c.sp)
				continue
			}
			g := f
			g.val = f.val[m[8]:m[9]]
			if op == "|" {
				b.commandText(g, c, "mlr "+f.val[m[2]:m[3]]+" |")
				continue
			}
			b.pathEffect(CapWrite, "fs.output", c.prog, g, c.st, c.sp, "writes")
		}
	}
	return stream{}
}

// yqLoad finds yq's load functions (load, load_str, load_xml, load_props,
// load_base64…), which read the file they name.
var yqLoad = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bload(?:_[a-z0-9]+)?\s*\(\s*("((?:[^"\\]|\\.)*)")?`)
})

func hYqLoad(b *builder, c *call) stream {
	for _, f := range c.fs {
		if !f.known {
			continue
		}
		for _, m := range yqLoad().FindAllStringSubmatchIndex(f.val, -1) {
			if m[4] < 0 {
				b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-target", Program: c.prog, Target: shorten(f.val), Msg: "reads a file named by a yq expression, which guard cannot resolve"}, c.sp)
				continue
			}
			g := f
			g.val = f.val[m[4]:m[5]]
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, "reads")
		}
	}
	return stream{}
}

// hIPExec: ip netns exec NAME CMD… and ip vrf exec NAME CMD… run CMD (in
// another network namespace or VRF); iproute2 takes any prefix of exec.
func hIPExec(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) < 3 || !ops[0].known || !ops[1].known {
		return stream{}
	}
	obj, verb := ops[0].val, ops[1].val
	isObj := (len(obj) >= 3 && strings.HasPrefix("netns", obj)) || obj == "vrf"
	if !isObj || verb == "" || !strings.HasPrefix("exec", verb) {
		return stream{}
	}
	idx := indexOf(c.fs, ops[1])
	if idx+2 >= len(c.fs) {
		return stream{}
	}
	return b.exec(c.fs[idx+2:], c.st, c.in, "ip "+obj+" exec", c.sp)
}

// hPyProfile: python -m cProfile [-o FILE] SCRIPT ARGS runs SCRIPT as
// python would.
func hPyProfile(b *builder, c *call) stream {
	if len(c.a.ops) == 0 || !c.a.ops[0].known {
		return stream{}
	}
	idx := indexOf(c.fs, c.a.ops[0])
	if mods := c.a.values("-m"); len(mods) > 0 {
		return b.exec(append([]field{staticField("python3", c.sp), staticField("-m", c.sp), mods[0]}, c.fs[idx:]...), c.st, c.in, "cProfile", c.sp)
	}
	return b.exec(append([]field{staticField("python3", c.sp)}, c.fs[idx:]...), c.st, c.in, "cProfile", c.sp)
}

// gitWritesWorkTree reports whether git SUB with these arguments writes
// files of the work tree (checks them out, merges into them, deletes
// them), not only the index or refs. A word guard cannot see counts as
// an operand, and as none of the options that make a row not write.
func gitWritesWorkTree(sub string, a args) bool {
	op0 := ""
	if len(a.ops) > 0 && a.ops[0].known {
		op0 = a.ops[0].val
	}
	switch sub {
	case "merge", "pull", "cherry-pick", "revert", "rebase", "am", "checkout-index", "sparse-checkout", "mv":
		return true
	case "checkout", "switch":
		// A new branch where HEAD is changes no file.
		return len(a.ops) > 1 || !a.has("-b", "-B", "-c", "-C", "--orphan") || a.has("-f", "--force")
	case "apply":
		return !a.has("--check", "--stat", "--numstat", "--summary", "--cached")
	case "restore":
		return !a.has("--staged", "-S") || a.has("--worktree", "-W")
	case "reset":
		return a.has("--hard", "--merge", "--keep")
	case "read-tree":
		return a.has("-u", "--reset")
	case "rm":
		return !a.has("--cached")
	case "stash":
		switch op0 {
		case "list", "show", "create", "store", "drop", "clear":
			return false
		}
		return true
	case "bisect":
		return op0 != "log" && op0 != "visualize" && op0 != "view" && op0 != "terms"
	}
	return false
}

// addGitWorkTree: git's credential helpers and guard's checkpoint refs.
// (What a command writes into the work tree is gitTreeWrite's.) Refs
// under refs/guard are guard's own checkpoints.
func addGitWorkTree(t map[string]*spec) {
	// git's credential helpers run as git credential-NAME get|store|erase.
	for _, h := range []string{"credential-libsecret", "credential-osxkeychain", "credential-manager", "credential-manager-core", "credential-gnome-keyring", "credential-netrc", "credential-oauth", "credential-wincred", "credential-desktop"} {
		if t[h] == nil {
			t[h] = whole("secrets.git-credential", CapSecrets, "reads or changes stored git credentials")
		}
	}
	for _, sub := range []string{"update-ref", "symbolic-ref", "reflog", "tag", "branch", "notes", "replace", "pack-refs"} {
		if s := t[sub].ready(); s != nil {
			s.rows = append(s.rows, row{"guard.self", CapSelf, "op~^refs/guard(/|$)", "", "changes guard's checkpoint refs (guard's own state, what guard undo restores)"})
		}
	}
}

// hLatexmk: -e CODE and -r FILE are Perl latexmk runs; -pdflatex=CMD and
// the other program options are command lines it runs for each build.
func hLatexmk(b *builder, c *call) stream {
	for _, f := range c.a.values("-e") {
		if f.taint.tainted() {
			b.dynamicCode(f, c, "latexmk -e")
			continue
		}
		b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(f.display()), Msg: "runs inline Perl code given to latexmk, which guard does not review"}, c.sp)
	}
	for _, f := range c.a.values("-r") {
		b.add(Effect{Cap: CapDynamic, Rule: "interp.load-outside", Program: c.prog, Target: f.display(), Msg: "loads Perl settings from " + f.display() + ", code this line does not show"}, c.sp)
	}
	for _, f := range c.a.values("-pdflatex", "-latex", "-lualatex", "-xelatex", "-bibtex", "-biber", "-makeindex", "-dvipdf", "-dvips", "-ps2pdf") {
		b.commandText(f, c, "latexmk program")
	}
	return stream{}
}

// hCurlVariable: curl --variable NAME@FILE reads FILE into a variable that
// --expand-* options put in what curl sends.
func hCurlVariable(b *builder, c *call) stream {
	for _, f := range c.a.values("--variable") {
		if !f.known {
			continue
		}
		if _, file, ok := strings.Cut(f.val, "@"); ok && file != "-" && file != "" {
			g := f
			g.val = file
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, "reads (to send)")
		}
	}
	return stream{}
}

// hgSpec: Mercurial, allow-listed as git is (principle 8): the verbs that
// only read, the ones that change the working copy, the network verbs,
// and --config keys that run commands (hooks, aliases, ssh, editor,
// extensions), as git -c does.
func hgSpec() *spec {
	plainVerbs := "status st log diff cat annotate blame summary sum id identify heads branches tags files locate manifest paths root version help grep showconfig parents tip verify bookmarks add addremove commit ci copy cp forget mv rename remove rm resolve shelve unshelve branch bookmark tag init archive export bundle import update up checkout co merge graft amend"
	subsMap := map[string]*spec{}
	for _, v := range strings.Fields(plainVerbs) {
		subsMap[v] = plain()
	}
	for _, v := range []string{"update", "up", "checkout", "co"} {
		subsMap[v] = &spec{rows: []row{{"hg.discard", CapDiscard, "-C|--clean", "", "discards uncommitted changes"}}}
	}
	for _, v := range []string{"revert", "purge", "strip", "histedit", "rebase", "rollback", "uncommit", "prune"} {
		subsMap[v] = whole("hg.discard", CapDiscard, "discards uncommitted work or rewrites local history")
	}
	for _, v := range []string{"pull", "clone", "incoming", "in", "outgoing", "out", "fetch"} {
		subsMap[v] = whole("hg.fetch", CapFetch, "reaches a Mercurial server")
	}
	// hg clone SOURCE DEST writes the clone into DEST (a start-up directory
	// or home holds code that runs later).
	subsMap["clone"] = &spec{rows: []row{{"hg.fetch", CapFetch, "", "", "reaches a Mercurial server"}, {"git.clone-write", CapWrite, "", "ops1", "writes the clone into"}}}
	subsMap["push"] = whole("hg.push", CapSend, "pushes to a Mercurial server, visible to others")
	subsMap["serve"] = whole("net.serve", CapSend, "serves the repository over the network")
	subsMap["config"] = &spec{rows: []row{{"pkg.config-code", CapPersistence, "-e|--edit|-u|--user|-l|--local|-g|--global", "", "edits Mercurial's settings, where hooks and aliases run commands"}}}
	subsMap["*"] = unknownSub("hg")
	// --config comes before the verb: every verb reviews it.
	for _, v := range subsMap {
		v.fn = chain(v.fn, hHgConfig)
	}
	s := subs(&spec{val: hgVal, fn: hHgConfig}, subsMap)
	s.global = []row{{"git.config-code", CapPersistence, `--config=~^(hooks|alias|extensions|ui\.(ssh|editor|merge|remotecmd)|pager\.|merge-tools|extdiff|diff-tools|hostsecurity)`, "", "runs hg with a setting that makes it run other commands"}}
	return s
}

// hgVal are hg's global options that take a value.
const hgVal = "--config -R --repository --cwd --encoding --color --pager -e --ssh --remotecmd"

// hHgConfig reviews what hg's --config hooks and aliases run (a ! alias
// and a hook that is not python: are shell command lines), and --ssh.
func hHgConfig(b *builder, c *call) stream {
	a := parseArgs(c.args, hgVal, false)
	for _, kv := range a.values("--config") {
		if !kv.known {
			b.dynamicCode(kv, c, "hg --config")
			continue
		}
		key, val, _ := strings.Cut(kv.val, "=")
		key = strings.ToLower(key)
		g := kv
		switch {
		case strings.HasPrefix(key, "hooks.") && !strings.HasPrefix(val, "python:"):
			g.val = val
		case strings.HasPrefix(key, "alias.") && strings.HasPrefix(val, "!"):
			g.val = val[1:]
		case key == "ui.ssh" || key == "ui.editor" || strings.HasPrefix(key, "pager."):
			g.val = val
		default:
			continue
		}
		b.commandText(g, c, "hg "+key)
	}
	for _, f := range a.values("-e", "--ssh") {
		b.commandText(f, c, "hg --ssh")
	}
	return stream{}
}

func ytdlp() *spec {
	return &spec{val: "-o --output -P --paths --exec --exec-before-download --cookies --cookies-from-browser --external-downloader --downloader --external-downloader-args --downloader-args -a --batch-file --config-location --config-locations -f --format --netrc-location",
		fn: chain(downloadDirs("-P", "--paths"), func(b *builder, c *call) stream {
			for _, f := range c.a.values("--exec", "--exec-before-download") {
				b.commandText(f, c, c.prog+" --exec")
			}
			hProgramOption("--external-downloader", "--downloader")(b, c)
			return stream{}
		}),
		rows: []row{
			{"net.fetch", CapFetch, "", "", "downloads from the network"},
			{"net.download", CapWrite, "", "-o|--output", "downloads into"},
			{"secrets.browser-cookies", CapSecrets, "--cookies-from-browser|-n|--netrc|--netrc-location", "", "reads your browser's cookies or your .netrc (logins)"},
		}}
}

// vimFileCmd is an ex command that names a file: the writers (w, w!, w >>,
// wq, x, saveas, update) and the readers (r, e, split, view, source…).
// "w !cmd" (a space, then !) pipes to a command instead: not matched.
// vimFileCmd splits an Ex command that names a file: its name (all its
// letters: wq! FILE is wq, not w with the file "q! FILE"), and the file
// after an optional ! and >>. ok is false for any other command, and for
// a ! command after blanks (w !cmd writes to a command, not a file).
func vimFileCmd(part string) (cmd, file string, ok bool) {
	n := 0
	for n < len(part) && part[n] >= 'a' && part[n] <= 'z' {
		n++
	}
	cmd, rest := part[:n], part[n:]
	switch cmd {
	case "w", "wr", "wri", "writ", "write", "wq", "x", "xi", "xit", "exi", "exit", "sav", "saveas", "up", "upd", "update",
		"r", "re", "rea", "read", "e", "ed", "edi", "edit", "sp", "split", "vs", "vsplit", "tabe", "tabedit", "sv", "sview",
		"vie", "view", "new", "vne", "vnew", "so", "sou", "source":
	default:
		return "", "", false
	}
	rest = strings.TrimPrefix(rest, "!")
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '>' {
		return "", "", false // another command, or a count
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ">>"))
	if rest == "" || rest[0] == '!' || strings.Contains(rest, "|") {
		return "", "", false
	}
	return cmd, rest, true
}

var vimQuit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(q|qa|qall|quit|quita|quitall|wq|wqa|x|xa|xit|cq)!?$`)
})

// vimFiles prices the files an editor's ex commands (vim -c, +CMD, ex -c)
// write and read: :w! ~/.bashrc writes it, :r ~/.ssh/id_rsa reads it. It
// reports whether every command of v was a file command or a quit, so
// the caller does not take w! for a shell escape.
func (b *builder) vimFiles(v string, f field, c *call) bool {
	all := true
	for _, part := range strings.Split(v, "|") {
		part = strings.TrimLeft(strings.TrimSpace(part), ": ")
		if vimQuit().MatchString(part) {
			continue
		}
		cmd, file, ok := vimFileCmd(part)
		if !ok {
			all = false
			continue
		}
		g := f
		g.val = file
		// vim expands ~ and $HOME in file names itself.
		if rest, ok := strings.CutPrefix(g.val, "~/"); ok && b.ctx.Home != "" {
			g.val = strings.TrimSuffix(b.ctx.Home, "/") + "/" + rest
		} else if rest, ok := strings.CutPrefix(g.val, "$HOME/"); ok && b.ctx.Home != "" {
			g.val = strings.TrimSuffix(b.ctx.Home, "/") + "/" + rest
		}
		switch cmd {
		case "r", "re", "rea", "read", "e", "ed", "edi", "edit", "sp", "split", "vs", "vsplit", "tabe", "tabedit", "sv", "sview", "vie", "view", "new", "vne", "vnew":
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, "reads")
		case "so", "sou", "source":
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, "runs the editor script")
			b.add(Effect{Cap: CapDynamic, Rule: "editor.script", Program: c.prog, Target: g.val, Msg: fmt.Sprintf("runs a %s script, which guard does not review", c.prog)}, c.sp)
		default:
			b.pathEffect(CapWrite, "fs.write", c.prog, g, c.st, c.sp, "writes")
		}
	}
	return all
}

// jdwpExposed reports whether arg (-agentlib:jdwp=… or -Xrunjdwp:…)
// makes the JVM listen for a debugger on more than the loopback
// interface: server=y with an address whose host is not loopback. A
// bare port listens on loopback (Java 9 and later; v9-evasions.tsv keeps
// it A).
func jdwpExposed(arg string) bool {
	opts, ok := strings.CutPrefix(arg, "-agentlib:jdwp=")
	if !ok {
		if opts, ok = strings.CutPrefix(arg, "-Xrunjdwp:"); !ok {
			return false
		}
	}
	server, addr := false, ""
	for _, kv := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "server":
			server = v == "y"
		case "address":
			addr = v
		}
	}
	if !server {
		return false
	}
	host, _, hasHost := strings.Cut(strings.TrimPrefix(addr, "["), "]:")
	if !hasHost {
		if i := strings.LastIndexByte(addr, ':'); i >= 0 {
			host, hasHost = addr[:i], true
		}
	}
	if !hasHost {
		return false // a port alone
	}
	return !(host == "localhost" || host == "::1" || strings.HasPrefix(host, "127."))
}

// hJavaAgents: java -javaagent:JAR and -agentpath:LIB load code into the
// JVM before the program: from outside the workspace and the temp dirs
// that is code this line does not show (as JAVA_TOOL_OPTIONS is).
func hJavaAgents(b *builder, c *call) stream {
	for _, f := range c.fs {
		if !f.known {
			continue
		}
		if jdwpExposed(f.val) {
			// A debugger port on every interface: whoever connects runs
			// code in the JVM.
			b.add(Effect{Cap: CapSend, Rule: "net.serve", Program: c.prog, Target: f.val, Msg: "opens a debugger port on every network interface: whoever connects runs code in the program"}, c.sp)
			continue
		}
		v, ok := strings.CutPrefix(f.val, "-javaagent:")
		if !ok {
			v, ok = strings.CutPrefix(f.val, "-agentpath:")
		}
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "=")
		g := f
		g.val = v
		switch t, class := b.classify(g, c.st); class {
		case ClassWorkspace, ClassTemp, ClassSensitive:
		default:
			b.add(Effect{Cap: CapDynamic, Rule: "interp.load-outside", Program: c.prog, Target: t, Class: class, Msg: "loads code into the JVM from " + describeTarget(t, class) + ", which this line does not show"}, c.sp)
		}
	}
	return stream{}
}

// hJavacProcessors: javac runs the annotation processors it finds on
// -processorpath while it compiles: from outside the workspace and the
// temp dirs that is code this line does not show.
func hJavacProcessors(b *builder, c *call) stream {
	for _, f := range c.a.values("-processorpath", "--processor-path") {
		for _, e := range strings.Split(f.val, ":") {
			g := f
			g.val = e
			if !f.known {
				g.val = f.val
			}
			switch t, class := b.classify(g, c.st); class {
			case ClassWorkspace, ClassTemp, ClassSensitive:
			default:
				b.add(Effect{Cap: CapDynamic, Rule: "interp.load-outside", Program: c.prog, Target: t, Class: class, Msg: "runs annotation processors from " + describeTarget(t, class) + " while it compiles, which this line does not show"}, c.sp)
			}
			if !f.known {
				break
			}
		}
	}
	return stream{}
}

// kittySpec: kitty @ VERB (and kitten @ VERB) controls a running kitty;
// only ls and get-colors read. kitty CMD starts a new kitty running CMD.
func kittySpec() *spec {
	return &spec{val: "-c --config -o --override --class --name -T --title -d --directory --session --listen-on --start-as --instance-group --to --password --password-file --password-env", posix: true,
		fn: func(b *builder, c *call) stream {
			rest := c.a.rest
			if len(rest) == 0 {
				return stream{}
			}
			if !rest[0].known || rest[0].val != "@" {
				return wrap(0)(b, c)
			}
			// kitty @ [--to X] VERB …: the verb is the first word that is
			// not an option or an option's value.
			verb := ""
			for i := 1; i < len(rest); i++ {
				f := rest[i]
				if !f.known {
					break
				}
				if f.val == "--to" || f.val == "--password" || f.val == "--password-file" || f.val == "--password-env" {
					i++
					continue
				}
				if !strings.HasPrefix(f.val, "-") {
					verb = f.val
					break
				}
			}
			switch verb {
			case "ls", "get-colors", "help":
				return stream{}
			}
			b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: c.prog, Target: verb, Msg: "controls a running kitty (types text or starts commands in it), outside guard's sandbox"}, c.sp)
			return stream{}
		}}
}

// hAfterDashes reviews the command after a "--" (gnome-terminal -- CMD,
// wezterm start -- CMD).
func hAfterDashes(b *builder, c *call) stream {
	for i, f := range c.fs {
		if f.known && f.val == "--" && i+1 < len(c.fs) {
			return b.exec(c.fs[i+1:], c.st.clone(), c.in, c.prog+" --", c.sp)
		}
	}
	return stream{}
}

// onBuilt applies f to an entry once it is built: at once for an entry
// built with its table, on first use for a lazy one (gh, aws, kubectl).
func onBuilt(s *spec, f func(*spec)) {
	if s == nil {
		return
	}
	if s.lazy == nil {
		f(s)
		return
	}
	build := s.lazy.build
	s.lazy.build = func() *spec {
		b := build()
		f(b)
		return b
	}
}

// hRemoteDest: a copy whose sources include a remote path (host:path,
// s3://, gs://, remote:path, pod:path) and whose destination is local
// writes there what the network sent: a file, or any name in a directory
// (a directory copy, or a destination ending in /). skip operands are the
// tool's verbs, which must match verb.
func hRemoteDest(skip int, verb string, remote func(string) bool, dirCopy string) handler {
	return func(b *builder, c *call) stream {
		ops := c.a.ops
		if len(ops) < skip+2 || skip > 0 && !c.a.holds("op"+string(rune('0'+skip-1))+"~"+verb) {
			return stream{}
		}
		dest := ops[len(ops)-1]
		if !dest.known || remote(dest.val) {
			return stream{}
		}
		fromRemote := false
		for _, f := range ops[skip : len(ops)-1] {
			fromRemote = fromRemote || !f.known || remote(f.val)
		}
		dirVerb := dirCopy != "" && c.a.holds("op"+string(rune('0'+skip-1))+"~"+dirCopy)
		if !fromRemote {
			// A local directory copied by its contents (rclone copy
			// dotfiles ~) puts names the line does not show there.
			if dp, ok := b.ctx.Resolve(c.st.cwd, dest.val); ok && dirVerb {
				var srcs []field
				for _, f := range ops[skip : len(ops)-1] {
					f.val = strings.TrimSuffix(f.val, "/") + "/."
					srcs = append(srcs, f)
				}
				b.intoHeld(c, dp, srcs, false)
			}
			return stream{}
		}
		if strings.HasSuffix(dest.val, "/") || dirCopy != "" && c.a.holds("op"+string(rune('0'+skip-1))+"~"+dirCopy) {
			b.writeInto(c, dest)
			return stream{}
		}
		b.pathEffect(CapWrite, "net.download", c.prog, dest, c.st, c.sp, "downloads into")
		return stream{}
	}
}

// remoteHostPath is scp's and rsync's host:path.
var remoteHostPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^/]*[^/\\]:`) })

func isHostPath(v string) bool { return remoteHostPath().MatchString(v) }

func isPodPath(v string) bool {
	return strings.Contains(v, ":") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, "~")
}

// writeInto prices a download into directory d: the directory itself
// (a startup directory such as ~/.config/autostart is persistence), and
// any name in it.
func (b *builder) writeInto(c *call, d field) {
	b.pathEffect(CapWrite, "net.download", c.prog, d, c.st, c.sp, "downloads into")
	b.writeAnyName(c, d, "net.download", "may download any name into")
}

// downloadDirs: options that name the directory a download writes any
// name into (the server chooses the names).
func downloadDirs(opts ...string) handler {
	return func(b *builder, c *call) stream {
		for _, d := range c.a.values(opts...) {
			b.writeInto(c, d)
		}
		return stream{}
	}
}

// extendDownloads adds the local destinations of downloads and remote
// copies to the entries of t.
func extendDownloads(t map[string]*spec) {
	if s := t["scp"]; s != nil {
		s.fn = chain(s.fn, hRemoteDest(0, "", isHostPath, ""))
	}
	if s := t["gsutil"]; s != nil {
		s.fn = chain(s.fn, hRemoteDest(1, "^(cp|mv|rsync)$", func(v string) bool { return strings.HasPrefix(v, "gs://") }, "^rsync$"))
	}
	if s := t["s3cmd"]; s != nil {
		s.fn = chain(s.fn, hRemoteDest(1, "^(get|sync|cp|mv)$", func(v string) bool { return strings.HasPrefix(v, "s3://") }, "^sync$"))
	}
	if s := t["mc"]; s != nil {
		// mc names a remote path by its alias (play/bucket/x), a local one
		// from / or . (after the shell's ~).
		s.fn = chain(s.fn, hRemoteDest(1, "^(cp|mv|mirror|get)$", func(v string) bool { return !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".") }, "^mirror$"))
	}
	if s := t["gcloud"]; s != nil {
		s.fn = chain(s.fn, hRemoteDest(2, "^(cp|mv|rsync)$", func(v string) bool { return strings.HasPrefix(v, "gs://") }, "^rsync$"))
		s.fn = chain(s.fn, hRemoteDest(2, "^scp$", isHostPath, ""))
	}
	if s := t["rclone"]; s != nil {
		s.fn = chain(s.fn, hRemoteDest(1, "^(copy|copyto|move|moveto|sync|bisync)$", func(v string) bool { return isHostPath(v) && !strings.HasPrefix(v, "/") }, "^(copy|move|sync|bisync)$"))
	}
	onBuilt(t["aws"], func(s *spec) {
		s.fn = chain(s.fn, hRemoteDest(2, "^(cp|mv|sync)$", func(v string) bool { return strings.HasPrefix(v, "s3://") }, "^sync$"))
	})
	onBuilt(t["kubectl"], func(s *spec) {
		s.subs["cp"] = &spec{val: "-c --container --retries", fn: hRemoteDest(0, "", isPodPath, ""), rows: []row{{"k8s.write", CapSend, "", "", "copies files to or from a pod"}}}
	})
	onBuilt(t["gh"], func(s *spec) {
		if r := s.subs["release"]; r != nil {
			r.subs["download"] = &spec{val: "-O --output -D --dir -p --pattern -A --archive -R --repo", fn: downloadDirs("-D", "--dir"), rows: []row{
				{"gh.read", CapFetch, "", "", "reads from GitHub"}, {"net.download", CapWrite, "", "-O|--output", "downloads into"}}}
		}
		if r := s.subs["run"]; r != nil {
			r.subs["download"] = &spec{val: "-D --dir -n --name -p --pattern -R --repo", fn: downloadDirs("-D", "--dir"), rows: []row{{"gh.read", CapFetch, "", "", "reads from GitHub"}}}
		}
	})
	if s := t["curl"]; s != nil {
		s.fn = chain(s.fn, downloadDirs("--output-dir"))
	}
	if s := t["aria2c"]; s != nil {
		s.fn = chain(s.fn, func(b *builder, c *call) stream {
			dirs, outs := c.a.values("-d", "--dir"), c.a.values("-o", "--out")
			for _, d := range dirs {
				if len(outs) == 0 || !outs[0].known || !d.known {
					b.writeInto(c, d)
					continue
				}
				g := d
				g.val = strings.TrimSuffix(d.val, "/") + "/" + outs[0].val
				b.pathEffect(CapWrite, "net.download", c.prog, g, c.st, c.sp, "downloads into")
			}
			return stream{}
		})
	}
	if s := t["dpkg"]; s != nil {
		s.fn = chain(s.fn, hExtractInto("-x|--extract|-X|--vextract", 1))
	}
}
