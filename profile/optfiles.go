package profile

import (
	"slices"
	"strings"
	"sync"
)

// Downloaders read more of their command line from files: curl -K FILE
// (a config of options: output = ~/.bashrc, upload-file = ~/.ssh/id_…),
// wget --config FILE (wgetrc commands) and -i FILE (the URLs, whose
// names the downloads land under), aria2c --conf-path FILE and -i FILE
// (URIs, each with options such as dir= and out=). What such a file says
// is what the command does: it is reviewed as the arguments it stands
// for, added to the command's own. A file the line wrote is reviewed by
// what it wrote when that is known text; one guard cannot read may hold
// any option (B), one from the network or decoding is C.
//
// Compilers and java read more arguments from @FILE, and ssh, scp and
// sftp more settings from -F FILE: the same reader (optionFileText) and
// the same table, with what each file's text does and how a file the
// line wrote counts.

// optionFile is an option whose value names a file of arguments (or a
// prefix that makes an operand name one: gcc @FILE).
type optionFile struct {
	opts   []string
	prefix string
	// args are the arguments each entry of the file stands for: the
	// command is reviewed again with each entry added.
	args func(text string) [][]string
	// text, when set, names what reviews the file's text itself instead
	// (optionTexts: a name, not the function, which would make the
	// table's initialisation refer to itself).
	text string
	// options: the file may hold options (not only operands), so one
	// guard cannot read may make the command do anything it can.
	options bool
	// rule and may say what a file guard cannot read may hold ("": it
	// is not priced).
	rule, may string
	// runsWritten: a file the line wrote is code guard cannot vouch for
	// at this use (runnerFound), besides what its known text says.
	runsWritten bool
}

// optionFiles are the programs' options that name such files.
var optionFiles = sync.OnceValue(func() map[string][]optionFile {
	dl := func(opts []string, args func(string) [][]string, options bool) optionFile {
		return optionFile{opts: opts, args: args, options: options, rule: "net.options-file", may: "they may name any file it writes, sends or runs"}
	}
	response := []optionFile{{prefix: "@", text: "response", options: true, rule: "dev.compiler-code", may: "they may load or run code", runsWritten: true}}
	sshConfig := []optionFile{{opts: []string{"-F"}, text: "ssh-config", runsWritten: true}}
	t := map[string][]optionFile{
		"curl":   {dl([]string{"-K", "--config"}, curlConfigArgs, true)},
		"wget":   {dl([]string{"--config"}, wgetrcArgs, true), dl([]string{"-i", "--input-file"}, urlListArgs, false)},
		"aria2c": {dl([]string{"--conf-path"}, aria2ConfArgs, true), dl([]string{"-i", "--input-file"}, aria2InputArgs, true)},
		"javac":  response, "java": response,
		"ssh": sshConfig, "scp": sshConfig, "sftp": sshConfig,
	}
	for _, cc := range compilerDrivers {
		t[cc] = response
	}
	return t
})

// extendOptionFiles hands the programs of optionFiles to hOptionFiles,
// after their own handlers, and makes their options take a value.
func extendOptionFiles(t map[string]*spec) {
	for name, ofs := range optionFiles() {
		s := t[name]
		if s == nil {
			continue
		}
		for _, of := range ofs {
			if len(of.opts) > 0 {
				s.val += " " + strings.Join(of.opts, " ")
			}
		}
		s.fn = chain(s.fn, hOptionFiles)
	}
	if s := t["aria2c"]; s != nil {
		// aria2c runs these programs (with the download's GID, file
		// count and path) when a download starts, ends or fails.
		hooks := []string{"--on-download-complete", "--on-download-start", "--on-download-error", "--on-download-pause", "--on-download-stop", "--on-bt-download-complete"}
		s.val += " " + strings.Join(hooks, " ")
		s.fn = chain(s.fn, hProgramOption(hooks...))
	}
}

// files are the fields that name such files on c's command line: the
// options' values, or the operands with the prefix (without it).
func (of optionFile) files(c *call) []field {
	if of.prefix == "" {
		return c.a.values(of.opts...)
	}
	var out []field
	for _, f := range c.fs {
		if strings.HasPrefix(f.val, of.prefix) && len(f.val) > len(of.prefix) {
			g := f
			g.val = f.val[len(of.prefix):]
			out = append(out, g)
		}
	}
	return out
}

// codeFlags are the flags that load or run code, by the tool that reads
// them: the one table for flag variables (codeFlagVars) and response
// files (responseCode). A flag matches anywhere in the text, or, with a
// leading ^, only at the start of a word: cc's -B/tmp/x runs
// /tmp/x/cc1, as and ld, while the linker's -Wl,-Bsymbolic loads nothing.
var codeFlags = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		// cc runs the program -wrapper names around each tool, the one
		// -fuse-ld= or --ld-path= names by its path, the tools -B's
		// directory holds, and what a -specs file says.
		"cc":  {"-fplugin", "-load", "-wrapper", "-specs", "-fuse-ld=/", "-fuse-ld=.", "--ld-path", "^-B"},
		"cpp": {"-fplugin", "-load", "-wrapper", "-specs", "^-B"},
		"ld":  {"-plugin", "-wrapper", "-specs", "-fuse-ld=/", "-fuse-ld=.", "--ld-path", "^-B"},
		// rustc runs the linker -C linker= names (and -fuse-ld= one with a
		// path, as cc does), and loads a codegen backend.
		"rustc":   {"linker", "-fuse-ld=/", "-fuse-ld=.", "codegen-backend"},
		"rustdoc": {"linker", "-fuse-ld=/", "-fuse-ld=.", "codegen-backend", "runtool", "test-builder"},
		"jvm":     {"-javaagent", "-agentpath", "-agentlib"},
		"javac":   {"-processorpath", "--processor-path"},
	}
})

// responseCode are the options that, in a compiler's or the JVM's
// response file, load or run code (as they do on the command line).
var responseCode = sync.OnceValue(func() []string {
	t := codeFlags()
	return slices.Concat(t["cc"], t["ld"], t["jvm"], t["javac"])
})

// responseText: a response file guard reads is priced by the options in
// it that load or run code.
func responseText(b *builder, c *call, where, text string) {
	if hasCodeFlag(text, responseCode()) {
		b.add(Effect{Cap: CapDynamic, Rule: "dev.compiler-code", Program: c.prog, Target: where, Msg: "reads options from " + where + " that load or run code in the build (a plugin, a linker or wrapper program, an agent)"}, c.sp)
	}
}

// hasCodeFlag reports whether text holds one of flags (codeFlags).
func hasCodeFlag(text string, flags []string) bool {
	for _, x := range flags {
		if w, start := strings.CutPrefix(x, "^"); start {
			if slices.ContainsFunc(strings.Fields(text), func(f string) bool { return strings.HasPrefix(f, w) }) {
				return true
			}
		} else if strings.Contains(text, x) {
			return true
		}
	}
	return false
}

// sshConfigText: an ssh config file holds the keys -o takes, one a line;
// those that run a command here are reviewed as -o's are (sshOptions).
func sshConfigText(b *builder, c *call, f field, text string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		i := strings.IndexAny(line, "= \t")
		if i < 0 {
			continue
		}
		if k := line[:i]; sshLocalCommands[strings.ToLower(k)] {
			b.text(strings.TrimLeft(line[i:], "= \t"), c.st.clone(), stream{}, c.prog+" -F "+k, span{f.pos, f.end})
		}
	}
}

// hOptionFiles reviews the arguments a program reads from the files its
// options name, each entry as the command with those arguments added.
func hOptionFiles(b *builder, c *call) stream {
	for _, of := range optionFiles()[c.prog] {
		for _, f := range of.files(c) {
			if f.val == "" && f.known {
				continue // the option without its value
			}
			text, key, ok := b.optionFileText(c, f, of)
			if !ok || b.active[key] {
				continue
			}
			if of.text != "" {
				where := strings.TrimPrefix(key, "optfile:"+c.prog+":")
				switch of.text {
				case "response":
					responseText(b, c, where, text)
				case "ssh-config":
					sshConfigText(b, c, f, text)
				}
				continue // its own review: no recursion
			}
			b.active[key] = true
			for _, entry := range of.args(text) {
				argv := append([]field{staticField(c.prog, c.sp)}, c.fs...)
				for _, a := range entry {
					argv = append(argv, staticField(a, span{f.pos, f.end}))
				}
				b.exec(argv, c.st.clone(), c.in, c.prog+" "+of.opts[0]+" "+f.display(), c.sp)
			}
			delete(b.active, key)
		}
	}
	return stream{}
}

// optionFileText is the text of the file f names: what the line wrote
// there, its input for -, or the file as it is. When guard cannot know
// it, the effect says so and ok is false. key names the file for the
// recursion guard (a config that includes itself).
func (b *builder) optionFileText(c *call, f field, of optionFile) (text, key string, ok bool) {
	what := "options"
	if !of.options {
		what = "the URLs"
	}
	unseen := func(s stream, where string) {
		switch {
		case of.rule == "":
		case s.tainted():
			b.add(Effect{Cap: CapNetCode, Rule: of.rule, Program: c.prog, Target: where, Msg: "reads " + what + " from " + where + ", data from the network or from decoding that nobody has reviewed"}, c.sp)
		case of.options:
			b.add(Effect{Cap: CapDynamic, Rule: of.rule, Program: c.prog, Target: where, Msg: "reads options from " + where + ", which guard cannot see (" + of.may + ")"}, c.sp)
		}
	}
	if !f.known || f.proc {
		if f.proc && f.taint.kind == streamText {
			return f.taint.text, "optfile:" + c.prog + ":" + f.taint.text, true
		}
		unseen(f.taint, f.display())
		return "", "", false
	}
	if isStdinPath(f.val) {
		if c.in.kind == streamText {
			return c.in.text, "optfile:" + c.prog + ":-", true
		}
		if c.in.kind != streamNone {
			unseen(c.in, "its input")
		}
		return "", "", false
	}
	p, resolved := b.ctx.Resolve(c.st.cwd, f.val)
	if !resolved || b.ctx.Remote {
		unseen(stream{}, f.display())
		return "", "", false
	}
	key = "optfile:" + c.prog + ":" + p
	if w, written := c.st.written(p); written {
		if of.runsWritten {
			b.runnerFound(c.prog, p, w, c)
		}
		if w.kind == streamText {
			return w.text, key, true
		}
		if !of.runsWritten {
			unseen(w, p+" (which this line wrote)")
		}
		return "", "", false
	}
	s := b.fileStream([]field{f}, c.st)
	if s.kind != streamText {
		unseen(stream{}, p)
		return "", "", false
	}
	return s.text, key, true
}

// curlConfigArgs: curl's config file, one option a line — "--name
// value", "-x value", or a long name without dashes separated from its
// value by whitespace, '=' or ':'; a value in double quotes may hold
// spaces and \-escapes; # starts a comment line.
func curlConfigArgs(text string) [][]string {
	var args []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.IndexAny(line, " \t=:")
		if strings.HasPrefix(line, "-") {
			i = strings.IndexAny(line, " \t")
		}
		name, rest := line, ""
		if i >= 0 {
			name, rest = line[:i], strings.TrimLeft(line[i:], " \t")
			if !strings.HasPrefix(line, "-") && rest != "" && (rest[0] == '=' || rest[0] == ':') {
				rest = strings.TrimLeft(rest[1:], " \t")
			}
		}
		if !strings.HasPrefix(name, "-") {
			name = "--" + name
		}
		args = append(args, name)
		if rest != "" {
			args = append(args, curlConfigValue(rest))
		}
	}
	return [][]string{args}
}

// curlConfigValue is a config value: quoted with curl's escapes, or the
// text up to the first blank.
func curlConfigValue(s string) string {
	if s[0] != '"' {
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			return s[:i]
		}
		return s
	}
	var out strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '"':
			return out.String()
		case s[i] == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 't':
				out.WriteByte('\t')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 'v':
				out.WriteByte('\v')
			default:
				out.WriteByte(s[i])
			}
		default:
			out.WriteByte(s[i])
		}
	}
	return out.String()
}

// perLine makes a file's arguments from each line that is neither blank
// nor a # comment, trimmed.
func perLine(args func(line string) []string) func(string) [][]string {
	return func(text string) [][]string {
		var out []string
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && line[0] != '#' {
				out = append(out, args(line)...)
			}
		}
		return [][]string{out}
	}
}

// wgetrcArgs: a wgetrc file's "command = value" lines are wget -e
// commands.
func wgetrcArgs(text string) [][]string {
	return perLine(func(l string) []string { return []string{"-e", l} })(text)
}

// urlListArgs: a list of URLs, one a line.
func urlListArgs(text string) [][]string {
	return perLine(func(l string) []string { return []string{l} })(text)
}

// aria2ConfArgs: aria2c's configuration file, "name=value" lines, are
// its --name=value options.
func aria2ConfArgs(text string) [][]string {
	return perLine(func(l string) []string { return []string{"--" + l} })(text)
}

// aria2InputArgs: aria2c's input file — a line of URIs (tab-separated
// mirrors of one download) starts an entry, and the indented
// "name=value" lines after it are that download's options.
func aria2InputArgs(text string) [][]string {
	var entries [][]string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(entries) > 0 {
				e := entries[len(entries)-1]
				entries[len(entries)-1] = append(e[:len(e)-1:len(e)-1], "--"+trimmed, e[len(e)-1])
			}
			continue
		}
		uri, _, _ := strings.Cut(trimmed, "\t")
		entries = append(entries, []string{uri})
	}
	return entries
}
