package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/profile"
)

// toolStrings are the commands and paths found in a tool's input.
type toolStrings struct {
	commands []string
	paths    []toolPath
	metadata []string // URLs of a cloud metadata service (credentials)
	// dirs are the values of keys that name a directory (cwd, workdir,
	// dir_path), anywhere in the input: a tool may run its commands there.
	dirs []string
	// pathDirs are the other values written as paths: when one names a
	// directory, a tool with a command may run it there (toolDirs).
	pathDirs []string
	// altShell runs a command in the shell a value of the object being
	// walked (or of one around it) names, under any key (valueShellArgv).
	altShell []string
	// terminal: the tool's name says it types into a shell.
	terminal bool
	// shellArgv runs a command of the tool's shell when it is not bash
	// (toolShellArgv): nil for shell text.
	shellArgv []string
	// toolTag is what the tool's name says of code members in objects
	// that carry no tag of their own (toolCodeTag).
	toolTag codeTag
	// shellProg is the shell the tool's name says it runs
	// (toolShellProgram): an argument list alone is its argv.
	shellProg string
	// foreign is code in languages guard has no command line for.
	foreign []foreignCode
	// content is every other string that is written like a command line
	// or code (shellLike), whatever its key: a tool guard does not know
	// may run it, so what it would do if run is judged (contentParts).
	content []contentText
	n       int
	classes map[string]keyClass // per key: input repeats its keys
}

// foreignCode is code a tool runs in a language guard does not review.
type foreignCode struct{ lang, code string }

// what says the language in words, for a reason.
func (c foreignCode) what() string {
	if c.lang == unnamedLanguage {
		return "code in a language it does not name"
	}
	return c.lang + " code"
}

// keyClass is what a key's name says its value is.
type keyClass struct{ command, path, dir bool }

func (f *toolStrings) class(key string) keyClass {
	c, ok := f.classes[key]
	if !ok {
		if f.classes == nil {
			f.classes = map[string]keyClass{}
		}
		c = keyClass{command: isCommandKey(key), path: keyNamesPath(key), dir: keyNamesDir(key)}
		f.classes[key] = c
	}
	return c
}

// Key words: a tool's input is classified by the words of its keys
// (shell_command, commandLine, execCmd all hold a command), not by a list
// of exact names, which any new tool can step around.
var (
	// commandWords, in a key, say its value is shell text (or, for an
	// array, an argv).
	commandWords     = []string{"command", "cmd", "cmdline", "commandline", "script", "shell", "bash", "sh", "zsh", "exec", "argv", "run", "execute", "entrypoint"}
	longCommandWords = []string{"command", "script", "shell", "bash"}
	// textWords, in a key, say its value describes or names something
	// (command_description, shell_name): it is not itself code.
	textWords = []string{"description", "desc", "name", "title", "help", "summary", "label", "comment", "message", "prompt", "id", "type", "kind", "timeout", "language", "lang", "format", "mode", "status", "output", "result", "error"}
	// programWords and argsWords: a program named under one and its
	// arguments under the other, in one object, are one command line
	// ({"program": "bash", "args": ["-c", "…"]}).
	programWords = []string{"program", "executable", "binary", "exe", "bin", "command", "cmd", "tool", "runner", "interpreter"}
	argsWords    = []string{"arg", "argument", "argv", "param", "parameter"}
	// pathKeyWords, in a key, say its value names a file.
	pathKeyWords = []string{"path", "file", "filename", "filepath", "dir", "directory", "directories", "folder", "source", "src", "destination", "dest", "dst", "target", "uri", "url", "location", "cwd", "workdir", "root"}
)

// inputWords, in a key, say its value is text or code a tool feeds to
// something: in a terminal tool (terminalWords in its name) or an object
// tagged as shell (shellTagged), that text is shell.
var inputWords = []string{"input", "keys", "key", "keystroke", "text", "stdin", "line", "chars", "data", "code", "source", "snippet", "body", "content", "cell"}

// terminalWords, in a tool's name (mcp__tmux__send_keys), say it types
// into a shell. stdin: Codex's write_stdin (unified exec) writes its
// chars into a session exec_command started, which is most often a
// shell: what it types is reviewed as shell text too.
var terminalWords = []string{"terminal", "tmux", "screen", "pty", "tty", "shell", "bash", "zsh", "sh", "console", "pwsh", "powershell", "stdin"}

// shellNames are the values of a language key that say code is shell.
var shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "shell", "shellscript", "shell-script", "console", "posix"}

// isTerminalTool reports whether a tool's name says it types into a
// shell.
func isTerminalTool(name string) bool { return keyHas(name, terminalWords) }

// codeLanguages are the languages, other than shell, in which a tool may
// run code, and the command line that runs such code inline: a tool
// running it is reviewed as that command (python3 -c CODE: code guard
// does not review, at least B), never as shell text, which it is not
// (PowerShell's Remove-Item -Recurse ~ read as bash is an unknown
// program, A).
var codeLanguages = []struct {
	names []string
	argv  []string
}{
	{[]string{"powershell", "pwsh", "ps1"}, []string{"pwsh", "-Command"}},
	{[]string{"python", "python3", "python2", "py", "ipython"}, []string{"python3", "-c"}},
	{[]string{"javascript", "js", "node", "nodejs", "typescript", "ts"}, []string{"node", "-e"}},
	{[]string{"ruby", "rb"}, []string{"ruby", "-e"}},
	{[]string{"perl", "pl"}, []string{"perl", "-e"}},
	{[]string{"r", "rscript"}, []string{"Rscript", "-e"}},
}

// languageArgv is the command line that runs inline code of the language
// named lang, nil when it is none of codeLanguages.
func languageArgv(lang string) []string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	for _, l := range codeLanguages {
		if slices.Contains(l.names, lang) {
			return l.argv
		}
	}
	return nil
}

// toolShellArgv is the command line that runs a command of a tool whose
// name says its shell is not bash (Codex's PowerShell tool, which it
// sends for the shell tool when the user's shell is PowerShell); nil for
// any other tool.
func toolShellArgv(name string) []string {
	if keyContains(name, []string{"powershell", "pwsh"}) {
		return languageArgv("powershell")
	}
	return nil
}

// codeTag is what an object (or the tool's name) says the code in it is.
type codeTag struct {
	// shell: shell text, run by shellArgv's shell when argv is set.
	shell bool
	// argv runs code of a language guard knows inline (python3 -c).
	argv []string
	// foreign names a language guard has no command line for (lua,
	// julia, a kernel it never heard of): code guard does not review.
	foreign string
	// fromTool: the tag comes from the tool's name (mcp__python__exec,
	// mcp__x__eval), not from a member: only code members (codeWords)
	// hold its code, and command members stay shell.
	fromTool bool
}

// tagged reports whether the tag says anything.
func (t codeTag) tagged() bool { return t.shell || t.argv != nil || t.foreign != "" }

// unnamedLanguage is the foreign language of a tool whose name says it
// evaluates code and whose input does not say in what.
const unnamedLanguage = "?"

// languageKeyWords, in a key, say its value names the language of the
// code beside it.
var languageKeyWords = []string{"language", "lang", "interpreter", "kernel", "runtime"}

// dataLanguages are languages whose text nothing runs: a tag naming one
// (or a natural language's name, which no code member holds) says the
// members beside it are data.
var dataLanguages = []string{"json", "jsonc", "json5", "yaml", "yml", "toml", "xml", "html", "css", "scss", "markdown", "md", "text", "txt", "plaintext", "plain", "csv", "tsv", "ini", "diff", "patch", "log", "none", ""}

// codeWords, in a key, say its value is a program's code (code, snippet,
// cell, expression): what a language tag or an evaluating tool runs.
// Wider input words (text, content, data) are code only beside a tag of
// a language guard knows.
var codeWords = []string{"code", "snippet", "cell", "expression", "expr", "source", "src", "statement", "chunk", "program", "script", "lines"}

// evalWords, in a tool's name, say it runs the code it is given
// (mcp__python__exec, mcp__node_repl__evaluate, mcp__sandbox__run_code).
var evalWords = []string{"eval", "evaluate", "exec", "execute", "run", "runner", "repl", "interpreter", "interpret", "kernel", "playground"}

// codeTagged reports what the object m says its code is: shell
// ({"language": "bash", "code": "…"}), a language guard knows (argv),
// one it does not know (foreign), or nothing (no tag, or a data format).
func codeTagged(m map[string]any, keys []string) codeTag {
	var t codeTag
	for _, k := range keys {
		s, ok := m[k].(string)
		if !ok || !keyHas(k, languageKeyWords) {
			continue
		}
		lang := strings.ToLower(strings.TrimSpace(s))
		if slices.Contains(shellNames, lang) {
			return codeTag{shell: true}
		}
		if a := languageArgv(lang); a != nil {
			return codeTag{argv: a}
		}
		if t.foreign == "" && !slices.Contains(dataLanguages, lang) {
			t.foreign = printable(s, false)
		}
	}
	return t
}

// toolCodeTag is what a tool's name says about the code members of its
// input: a tool that evaluates code (evalWords) runs them in the language
// its name names, or in one it does not name. Anything else says nothing.
func toolCodeTag(name string) codeTag {
	if !keyHas(name, evalWords) {
		return codeTag{}
	}
	for _, w := range keyWords(name) {
		if slices.Contains(shellNames, w) {
			return codeTag{shell: true, fromTool: true}
		}
		if a := languageArgv(w); a != nil {
			return codeTag{argv: a, fromTool: true}
		}
	}
	return codeTag{foreign: unnamedLanguage, fromTool: true}
}

// holdsCode reports whether key k of an object tagged t holds its code.
// A command key of an object tagged with a language holds that language's
// code too; under a tag from the tool's name only code members do.
func (f *toolStrings) holdsCode(k string, t codeTag) bool {
	switch {
	case !t.tagged() || keyHas(k, textWords):
		return false
	case t.fromTool:
		return keyHas(k, codeWords) && !f.class(k).command
	case t.foreign != "":
		return keyHas(k, codeWords) || f.class(k).command
	}
	return keyHas(k, inputWords) || t.argv != nil && f.class(k).command
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// dirKeyWords, in a key, say its value is a directory a tool may work
// in (cwd, workdir, dir_path, working_directory, project_root).
var dirKeyWords = []string{"cwd", "wd", "pwd", "workdir", "dir", "directory", "folder", "root", "workspace"}

// keyNamesDir reports whether a key's name says it holds a directory.
func keyNamesDir(key string) bool {
	return (keyHas(key, dirKeyWords) || keyContains(key, []string{"workdir", "cwd", "directory"})) && !keyHas(key, textWords)
}

// keyWords splits a key into lower-case words at separators and at
// camelCase boundaries: "shell_command", "commandLine" and "execCmd".
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(key)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(runes[i-1]) || i+1 < len(runes) && unicode.IsLower(runes[i+1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// keyHas reports whether one of key's words, or its singular, is in
// list ("targets" is a target).
func keyHas(key string, list []string) bool {
	for _, w := range keyWords(key) {
		if slices.Contains(list, w) || slices.Contains(list, strings.TrimSuffix(w, "s")) {
			return true
		}
	}
	return false
}

// keyContains reports whether key, lower-cased, contains one of list
// anywhere ("sourcefile", "subcommand").
func keyContains(key string, list []string) bool {
	key = strings.ToLower(key)
	for _, w := range list {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// isCommandKey: the key's value is a command (not a description of one).
// The long command words count anywhere in the key ("subcommand"), the
// short ones ("sh", "cmd") only as words ("push" holds no shell).
func isCommandKey(key string) bool {
	return (keyHas(key, commandWords) || keyContains(key, longCommandWords)) && !keyHas(key, textWords)
}

// keyNamesPath reports whether a key's name says it holds a path.
func keyNamesPath(key string) bool {
	return keyContains(key, pathKeyWords) && !keyHas(key, textWords)
}

// walk visits every value; key is the nearest object key above it.
func (f *toolStrings) walk(key string, v any, depth int) error {
	if depth > maxToolDepth {
		return fmt.Errorf("malformed hook input: tool_input is nested deeper than %d levels", maxToolDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		// In key order: the same input gives the same answer and the same
		// audit record, whatever order the map iterates in.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if alt := f.objectShell(v, keys); alt != nil {
			defer func(prev []string) { f.altShell = prev }(f.altShell)
			f.altShell = alt
		}
		done, err := f.programArgs(v, keys)
		if err != nil {
			return err
		}
		tag := codeTagged(v, keys)
		if !tag.tagged() {
			tag = f.toolTag
			if f.terminal {
				tag = codeTag{shell: true, argv: f.shellArgv}
			}
		}
		for _, k := range keys {
			if slices.Contains(done, k) {
				continue
			}
			if f.holdsCode(k, tag) {
				// What a terminal tool types, or the code of an object
				// tagged as shell, is shell text, string by string; code
				// tagged with another language runs as that language's
				// inline code; code in a language guard has no command
				// line for is code it does not review.
				if texts, ok := stringList(v[k]); ok || isString(v[k]) {
					if !ok {
						texts = []string{v[k].(string)}
					}
					if err := f.count(len(texts)); err != nil {
						return err
					}
					for _, s := range texts {
						if strings.TrimSpace(s) == "" {
							continue
						}
						if err := f.addTagged(tag, s); err != nil {
							return err
						}
					}
					continue
				}
			}
			if err := f.walk(k, v[k], depth+1); err != nil {
				return err
			}
		}
	case []any:
		if f.class(key).command {
			// An array of strings under a command key is an argv
			// (["bash", "-lc", "…"]): it runs as one command line.
			if argv, ok := stringList(v); ok && len(argv) > 0 {
				return f.addArgv(argv)
			}
		}
		for _, x := range v {
			if err := f.walk(key, x, depth+1); err != nil {
				return err
			}
		}
	case string:
		if err := f.count(1); err != nil {
			return err
		}
		if doc, ok := jsonText(v); ok {
			// A JSON document passed as a string (parameters an MCP
			// server decodes): its members are judged as the input's.
			return f.walk(key, doc, depth+1)
		}
		return f.add(key, v)
	}
	return nil
}

// otherShells are shells whose syntax is not bash's. A value naming one,
// under a key of any name ({"command": "Remove-Item -Recurse ~",
// "executor": "powershell"}), says the tool may run the object's commands
// with it: eed3eff read such a command as bash only (an unknown program,
// no opinion).
var otherShells = []string{"powershell", "pwsh", "fish", "nu", "nushell", "xonsh", "elvish", "zsh", "csh", "tcsh"}

// valueShellArgv is the command line that runs a command in the shell v
// names (powershell, /usr/bin/fish, pwsh.exe); nil when it names none of
// otherShells.
func valueShellArgv(v string) []string {
	name := strings.ToLower(strings.TrimSpace(v))
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, ".exe")
	switch {
	case !slices.Contains(otherShells, name):
		return nil
	case name == "powershell" || name == "pwsh":
		return languageArgv("powershell")
	}
	return []string{name, "-c"}
}

// objectShell is the shell a string member of m that is not a command
// names (valueShellArgv), nil for none.
func (f *toolStrings) objectShell(m map[string]any, keys []string) []string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && !f.class(k).command {
			if a := valueShellArgv(s); a != nil {
				return a
			}
		}
	}
	return nil
}

// jsonText is v decoded when it is a JSON object or array written as
// text.
func jsonText(v string) (any, bool) {
	t := strings.TrimSpace(v)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return nil, false
	}
	var doc any
	if json.Unmarshal([]byte(t), &doc) != nil {
		return nil, false
	}
	return doc, true
}

func (f *toolStrings) count(n int) error {
	if f.n += n; f.n > maxToolStrings {
		return fmt.Errorf("malformed hook input: tool_input holds more than %d strings", maxToolStrings)
	}
	return nil
}

// programArgs finds a program and its arguments in one object and adds
// them as one command line; it returns the keys it used.
func (f *toolStrings) programArgs(m map[string]any, keys []string) ([]string, error) {
	var prog, args string
	for _, k := range keys {
		if keyHas(k, textWords) {
			continue
		}
		if _, ok := m[k].(string); ok && prog == "" && keyHas(k, programWords) {
			prog = k
		}
		if _, ok := stringList(m[k]); ok && args == "" && keyHas(k, argsWords) && !isCommandKey(k) {
			args = k
		}
	}
	if args != "" && prog == "" && f.shellProg != "" {
		// The arguments of a tool whose name says the shell it runs
		// (mcp__bash__run {"args": ["-c", "…"]}) are that shell's.
		list, _ := stringList(m[args])
		return []string{args}, f.addArgv(append([]string{f.shellProg}, list...))
	}
	if prog == "" || args == "" {
		return nil, nil
	}
	list, _ := stringList(m[args])
	return []string{prog, args}, f.addArgv(append([]string{m[prog].(string)}, list...))
}

// toolShellProgram is the shell a tool's name says it runs
// (mcp__bash__run: bash), "" when it names none.
func toolShellProgram(name string) string {
	for _, w := range keyWords(name) {
		if slices.Contains([]string{"bash", "sh", "zsh", "dash", "ksh", "pwsh", "powershell"}, w) {
			return w
		}
	}
	return ""
}

// addArgv adds an argv as the command line that runs it. An argv that
// cannot be written as shell text (a NUL byte) is refused.
func (f *toolStrings) addArgv(argv []string) error {
	if err := f.count(len(argv)); err != nil {
		return err
	}
	line, err := parse.Quote(argv)
	if err != nil {
		return fmt.Errorf("malformed hook input: a command in tool_input cannot be reviewed: %v", err)
	}
	f.commands = append(f.commands, line)
	return nil
}

// stringList is v as a list of strings, when it is one.
func stringList(v any) ([]string, bool) {
	xs, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// add classifies one string value: shell text under a command key; a
// path when it is written as one (absolute, ~/, $HOME/, ./, ../, a file:
// URI in any spelling, a relative path with a slash, a dot-file name) or
// a path-named key holds a single line.
func (f *toolStrings) add(key, v string) error {
	if v == "" {
		return nil
	}
	if f.class(key).command {
		if err := f.addCode(f.shellArgv, v); err != nil {
			return err
		}
		if f.altShell != nil && !slices.Equal(f.altShell, f.shellArgv) {
			// The object names another shell under some key: the tool
			// may run the command there too; the worst reading counts.
			return f.addCode(f.altShell, v)
		}
		return nil
	}
	if shellLike(v) && !slices.ContainsFunc(f.content, func(c contentText) bool { return c.text == v }) {
		// Whatever the key says (and whatever else the string is), a
		// tool guard does not know may run it.
		f.content = append(f.content, contentText{key: key, text: v})
	}
	if f.class(key).dir && !strings.ContainsAny(v, "\n\r") && !slices.Contains(f.dirs, v) {
		f.dirs = append(f.dirs, v)
	}
	if p, ok := fileURIPath(v); ok {
		f.paths = append(f.paths, toolPath{p, accessWrite})
		return nil
	}
	if u := metadataURL(v); u != "" {
		f.metadata = append(f.metadata, u)
		return nil
	}
	if strings.ContainsAny(v, "\n\r") || strings.Contains(v, "://") {
		return nil
	}
	for _, home := range []string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(v, home); ok && (rest == "" || rest[0] == '/') {
			v = "~" + rest
		}
	}
	if !(looksLikePath(v) && !strings.ContainsAny(v, " \t")) && !f.class(key).path {
		return nil
	}
	if !f.class(key).dir && !slices.Contains(f.pathDirs, v) {
		f.pathDirs = append(f.pathDirs, v)
	}
	if pre := globPrefix(v); pre != "" {
		f.paths = append(f.paths, toolPath{pre, accessWrite})
	}
	return nil
}

// contentText is a string of a tool's input that no key or tag says is
// a command or code, and that is written like one.
type contentText struct{ key, text string }

// shellLike reports whether v is written like a command line or code
// rather than a name: it holds a blank or a character shell or code
// gives a meaning to. A bare name (main, python, open, docs/x.md) is
// what tool inputs are full of and is left to the path judgement.
func shellLike(v string) bool {
	return strings.ContainsAny(v, " \t\n\r;|&$`<>(){}*?[]!#'\"\\")
}

// addTagged adds code of an object tagged t: code in a language guard
// has no command line for is kept apart (foreign), the rest is a command.
func (f *toolStrings) addTagged(t codeTag, code string) error {
	if t.foreign != "" && !t.shell && t.argv == nil {
		f.foreign = append(f.foreign, foreignCode{lang: t.foreign, code: code})
		return nil
	}
	return f.addCode(t.argv, code)
}

// addCode adds code the tool runs: shell text as it is (argv nil), code
// of another language as the command line argv that runs it inline.
func (f *toolStrings) addCode(argv []string, code string) error {
	if argv == nil {
		f.commands = append(f.commands, code)
		return nil
	}
	line, err := parse.Quote(append(slices.Clip(argv), code))
	if err != nil {
		return fmt.Errorf("malformed hook input: a command in tool_input cannot be reviewed: %v", err)
	}
	f.commands = append(f.commands, line)
	return nil
}

// metadataURL is the first URL in v, alone or inside text (Gemini CLI's
// web_fetch takes its URLs in a prompt), that names a cloud metadata
// service; "" when there is none.
func metadataURL(v string) string {
	for rest := v; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return ""
		}
		start := strings.LastIndexFunc(rest[:i], urlStop) + 1
		end := i + 3 + strings.IndexFunc(rest[i+3:], urlStop)
		if end < i+3 {
			end = len(rest)
		}
		if u := rest[start:end]; profile.MetadataHost(u) {
			return u
		}
		rest = rest[i+3:]
	}
}

// urlStop ends a URL written in text.
func urlStop(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'<>()`", r)
}

// looksLikePath: v is written as a path, whatever key holds it.
func looksLikePath(v string) bool {
	switch {
	case v == "~" || v == "." || v == "..":
		return true
	case strings.Contains(v, "/"):
		return true
	case len(v) > 1 && v[0] == '.' && unicode.IsLetter(rune(v[1])):
		return true // .mcp.json, .envrc
	}
	return false
}

// fileURIPath is the local path of a file: URI, in any case and form
// (file:///p, file://host/p, file:/p, FILE:///p).
func fileURIPath(v string) (string, bool) {
	if len(v) < 6 || !strings.EqualFold(v[:5], "file:") {
		return "", false
	}
	p := v[5:]
	if rest, ok := strings.CutPrefix(p, "//"); ok {
		p = rest
		if i := strings.IndexByte(p, '/'); i > 0 {
			p = p[i:] // file://host/path
		}
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	return p, true
}
