package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
	"github.com/pelletier/go-toml/v2"
)

// Task runners and environment managers keep commands in their config
// files and run them on the developer's machine: mise runs its hooks on
// entering the directory and its tasks on 'mise run'; Poe the Poet, PDM,
// Hatch and taskipy run pyproject.toml's tasks; tox runs tox.ini's (or
// tox.toml's) commands; devbox runs devbox.json's init_hook on 'devbox
// shell'; Earthly runs an Earthfile's RUN lines, on the host after LOCALLY.

// isMiseConfig reports whether name is one of the files mise reads as its
// configuration: mise.toml, .mise.toml, mise.ENV.toml, mise.local.toml,
// mise/config.toml, .mise/config.toml, .config/mise.toml and
// .config/mise/config.toml (and conf.d files beside it).
func isMiseConfig(name string) bool {
	base := strings.ToLower(path.Base(name))
	dir := path.Dir(name)
	if !strings.HasSuffix(base, ".toml") {
		return false
	}
	stem := strings.TrimPrefix(strings.TrimSuffix(base, ".toml"), ".")
	if stem == "mise" || strings.HasPrefix(stem, "mise.") || stem == "rtx" || strings.HasPrefix(stem, "rtx.") {
		return true
	}
	d := path.Base(dir)
	return base == "config.toml" && (d == "mise" || d == ".mise") || d == "conf.d" && path.Base(path.Dir(dir)) == "mise"
}

// isToxConfig reports whether name is tox's INI or TOML configuration.
// setup.cfg holds tox's configuration too ([tox:tox], [testenv]); only its
// testenv sections are read.
func isToxConfig(lower string) bool {
	return lower == "tox.ini" || lower == "tox.toml" || lower == "setup.cfg"
}

// tomlTables reads src as TOML into a table; a file that does not parse is
// a *SyntaxError.
func (x *extractor) tomlTable() (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(x.src, &doc); err != nil {
		off := 0
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			off = x.lines.offset(line, col)
		}
		return nil, x.syntaxError(off, "toml does not parse: %v", err)
	}
	return doc, nil
}

// table is the table at the dotted path keys of doc, or nil.
func table(doc map[string]any, keys ...string) map[string]any {
	t := doc
	for _, k := range keys {
		next, ok := t[k].(map[string]any)
		if !ok {
			return nil
		}
		t = next
	}
	return t
}

// taskCommand is how one tool writes a task: a string is a command line
// (stringIsCommand), a list is a list of commands (listIsCommands), a
// table holds the command under one of keys (a string, a list of
// commands, or a list of words when wordsKey says so).
type taskCommand struct {
	keys           []string
	stringIsCmd    bool
	listIsCommands bool
	// wordKeys are keys whose list value is one command's words (PDM's
	// cmd = ["go", "test"]).
	wordKeys []string
	// nested are keys whose list value holds more tasks (Poe's sequence,
	// PDM's composite): tables in it are read as tasks.
	nested []string
}

// commands lists the command lines of one task value v.
func (tc taskCommand) commands(v any, depth int) []string {
	if depth > 8 {
		return nil
	}
	switch v := v.(type) {
	case string:
		if tc.stringIsCmd {
			return []string{v}
		}
	case []any:
		var out []string
		for _, e := range v {
			switch e := e.(type) {
			case string:
				if tc.listIsCommands {
					out = append(out, e)
				}
			case map[string]any:
				out = append(out, tc.commands(e, depth+1)...)
			}
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range tc.keys {
			switch c := v[k].(type) {
			case string:
				out = append(out, c)
			case []any:
				if slices.Contains(tc.wordKeys, k) {
					if q, ok := quoteWords(c); ok {
						out = append(out, q)
					}
					continue
				}
				for _, e := range c {
					if s, ok := e.(string); ok {
						out = append(out, s)
					}
				}
			}
		}
		for _, k := range tc.nested {
			if list, ok := v[k].([]any); ok {
				for _, e := range list {
					if m, ok := e.(map[string]any); ok {
						out = append(out, tc.commands(m, depth+1)...)
					}
				}
			}
		}
		return out
	}
	return nil
}

// quoteWords quotes a list of words as one command line. An element
// that is not a string (tox.toml's {replace = "posargs"}, a value the
// tool fills in when it runs) is a word the review cannot know: a
// placeholder, never a reason to drop the command.
func quoteWords(list []any) (string, bool) {
	words := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			words = append(words, placeholder(fmt.Sprint(e)))
			continue
		}
		q, err := parse.Quote([]string{s})
		if err != nil {
			return "", false
		}
		words = append(words, q)
	}
	if len(words) == 0 {
		return "", false
	}
	return strings.Join(words, " "), true
}

var (
	// miseTask: tasks.NAME = "cmd" | ["cmd", …] | {run = "cmd" | ["cmd", …]};
	// miseHook: hooks.enter = "cmd" | ["cmd", …] | {script = "cmd"}.
	miseTask = taskCommand{keys: []string{"run", "run_windows", "script"}, stringIsCmd: true, listIsCommands: true}
	// poeTask: a string is a cmd task; cmd and shell hold command lines;
	// the tables of a sequence, parallel or switch are tasks (their
	// strings name other tasks).
	poeTask = taskCommand{keys: []string{"cmd", "shell"}, stringIsCmd: true, nested: []string{"sequence", "parallel", "switch"}}
	// pdmScript: a string is a cmd; cmd is a line or words; composite
	// entries name scripts or are commands.
	pdmScript = taskCommand{keys: []string{"cmd", "shell", "composite"}, stringIsCmd: true, wordKeys: []string{"cmd"}}
	// hatchScript: a string or a list of commands.
	hatchScript = taskCommand{stringIsCmd: true, listIsCommands: true}
)

// mise reads a mise configuration's tasks and hooks.
func (x *extractor) mise() error {
	doc, err := x.tomlTable()
	if err != nil {
		return err
	}
	var cmds []string
	hooks := table(doc, "hooks")
	for _, k := range slices.Sorted(maps.Keys(hooks)) {
		cmds = append(cmds, miseTask.commands(hooks[k], 0)...)
	}
	tasks := table(doc, "tasks")
	for _, k := range slices.Sorted(maps.Keys(tasks)) {
		cmds = append(cmds, miseTask.commands(tasks[k], 0)...)
	}
	// [[watch_files]]: run when a watched file changes.
	cmds = append(cmds, miseTask.commands(doc["watch_files"], 0)...)
	// Templates anywhere ({{ exec(command="…") }} in an [env] value, a
	// tool's version) run their command when mise renders them, on
	// entering the directory.
	cmds = append(cmds, templateExecs(doc, 0)...)
	from := len(x.out)
	x.emitAll(Mise, cmds)
	for i := from; i < len(x.out); i++ {
		x.out[i].rewrite(miseTemplates(x.out[i].Text))
	}
	return nil
}

// miseTemplates are the edits that turn the Tera templates mise renders
// in a task's command before the shell runs it into what the reviewer
// can judge: {{config_root}} is the directory of the configuration,
// where the task runs (.: "{{config_root}}/x.sh" is the repository's
// ./x.sh, which is then read); any other {{…}} is a value guard cannot
// know (a shell parameter), not the brace expansion or parse error it
// reads as. A template left open is left as it is (it does not parse).
func miseTemplates(t string) []edit {
	var edits []edit
	for i := 0; ; {
		j := strings.Index(t[i:], "{{")
		if j < 0 {
			return edits
		}
		j += i
		k := strings.Index(t[j:], "}}")
		if k < 0 {
			return edits
		}
		k += j + 2
		inner := strings.TrimSpace(t[j+2 : k-2])
		with := placeholder("mise_" + inner)
		if inner == "config_root" {
			with = "."
		}
		edits = append(edits, edit{from: j, to: k, with: with})
		i = k
	}
}

// miseScripts are the scripts (from the root) a mise configuration runs
// by path: [env] _.source (sourced with bash on entering the directory; a
// path, a list of them, or tables with a path) and the file of a file
// task (tasks.NAME.file). Relative to the configuration's directory.
func miseScripts(name string, src []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(src, &doc) != nil {
		return nil
	}
	var paths []string
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case string:
			paths = append(paths, v)
		case []any:
			for _, e := range v {
				add(e)
			}
		case map[string]any:
			if p, ok := v["path"].(string); ok {
				paths = append(paths, p)
			}
		}
	}
	add(table(doc, "env", "_")["source"])
	tasks := table(doc, "tasks")
	for _, k := range slices.Sorted(maps.Keys(tasks)) {
		if t, ok := tasks[k].(map[string]any); ok {
			add(t["file"])
		}
	}
	return repoPaths(name, paths)
}

// cargoMakeScripts are the script files (from the root) cargo-make's
// tasks run under the shell: script = { file = "…" }.
func cargoMakeScripts(name string, src []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(src, &doc) != nil {
		return nil
	}
	var paths []string
	tasks := table(doc, "tasks")
	for _, k := range slices.Sorted(maps.Keys(tasks)) {
		t, _ := tasks[k].(map[string]any)
		runner, _ := t["script_runner"].(string)
		if f, ok := table(t, "script")["file"].(string); ok && slices.Contains(cargoMakeShells, runner) {
			paths = append(paths, f)
		}
	}
	return repoPaths(name, paths)
}

// repoPaths are paths written in the file name, relative to its
// directory, as patterns from the root that match only them; absolute
// paths, templates and paths out of the repository are left out.
func repoPaths(name string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" || path.IsAbs(p) || strings.Contains(p, "{{") || strings.HasPrefix(p, "~") {
			continue
		}
		if p = path.Join(path.Dir(name), p); p != ".." && !strings.HasPrefix(p, "../") {
			out = append(out, escapeGlob(p))
		}
	}
	return out
}

// templateExec finds the command of a Tera exec() call in a template:
// exec(command="…"), with any quote Tera takes.
var templateExec = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bexec\s*\(\s*command\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|` + "`([^`]*)`" + `)`)
})

// templateExecs lists the commands of the exec() calls in every string of
// v, at any depth.
func templateExecs(v any, depth int) []string {
	if depth > 32 {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case string:
		if !strings.Contains(v, "exec") {
			return nil
		}
		for _, m := range templateExec().FindAllStringSubmatch(v, -1) {
			c := m[1] + m[2] + m[3]
			if m[1] != "" {
				c = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(c)
			}
			out = append(out, c)
		}
	case []any:
		for _, e := range v {
			out = append(out, templateExecs(e, depth+1)...)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, templateExecs(v[k], depth+1)...)
		}
	}
	return out
}

// pyproject reads the tasks pyproject.toml keeps for Poe the Poet, PDM,
// Hatch, taskipy and tox; the rest of the file is not shell.
func (x *extractor) pyproject() error {
	doc, err := x.tomlTable()
	if err != nil {
		return err
	}
	var cmds []string
	each := func(t map[string]any, tc taskCommand) {
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if k == "_" { // PDM's settings for every script
				continue
			}
			cmds = append(cmds, tc.commands(t[k], 0)...)
		}
	}
	each(table(doc, "tool", "poe", "tasks"), poeTask)
	each(table(doc, "tool", "pdm", "scripts"), pdmScript)
	each(table(doc, "tool", "taskipy", "tasks"), poeTask)
	envs := table(doc, "tool", "hatch", "envs")
	for _, name := range slices.Sorted(maps.Keys(envs)) {
		env, _ := envs[name].(map[string]any)
		for _, k := range []string{"pre-install-commands", "post-install-commands"} {
			cmds = append(cmds, hatchScript.commands(env[k], 0)...)
		}
		each(table(env, "scripts"), hatchScript)
	}
	cmds = append(cmds, toxTOML(table(doc, "tool", "tox"))...)
	x.emitAll(Pyproject, cmds)
	if bs := table(doc, "build-system"); bs["backend-path"] != nil {
		// An in-tree build backend: pip install (and every PEP 517
		// frontend) imports the repository's own Python module to build.
		backend, _ := bs["build-backend"].(string)
		off := 0
		if i := bytes.Index(x.src, []byte("backend-path")); i >= 0 {
			off = x.lines.lineStart(x.lines.position(i).Line)
		}
		x.unreviewed(Pyproject, off, "build-backend "+backend+":", "pip install and every build frontend run this build backend from the repository (backend-path); guard does not review Python")
	}
	return nil
}

// toxKeys are the settings of a tox environment that run commands.
var toxKeys = []string{"commands", "commands_pre", "commands_post"}

// toxTOML lists the commands of tox's TOML configuration (tox.toml or
// pyproject's [tool.tox]): env_run_base and every env.NAME hold commands
// as lists of words.
func toxTOML(doc map[string]any) []string {
	if doc == nil {
		return nil
	}
	envs := []map[string]any{table(doc, "env_run_base"), table(doc, "env_pkg_base")}
	named := table(doc, "env")
	for _, k := range slices.Sorted(maps.Keys(named)) {
		m, _ := named[k].(map[string]any)
		envs = append(envs, m)
	}
	var out []string
	for _, env := range envs {
		for _, k := range toxKeys {
			list, _ := env[k].([]any)
			for _, c := range list {
				switch c := c.(type) {
				case []any:
					if q, ok := quoteWords(c); ok {
						out = append(out, q)
					}
				case string:
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// tox reads tox.ini's (or tox.toml's) commands, commands_pre and
// commands_post of every test environment. In the INI form each line of
// the value is a command (a trailing backslash continues it); tox's {…}
// substitutions are values guard cannot know; a leading '-' (ignore the
// exit status) is not part of the command.
func (x *extractor) tox() error {
	if strings.HasSuffix(strings.ToLower(x.name), ".toml") {
		doc, err := x.tomlTable()
		if err != nil {
			return err
		}
		x.emitAll(Tox, toxTOML(doc))
		return nil
	}
	n := len(x.lines.starts)
	inEnv, inCmd := false, false
	var b builder
	flush := func() {
		x.emit(Tox, x.dir, &b)
		b = builder{}
	}
	for ln := 1; ln <= n; ln++ {
		line := trimCR(x.lines.line(ln))
		start := x.lines.lineStart(ln)
		trimmed := bytes.TrimLeft(line, " \t")
		indented := len(trimmed) < len(line)
		switch {
		case len(trimmed) == 0 || trimmed[0] == '#' || trimmed[0] == ';':
			continue
		case !indented && trimmed[0] == '[':
			flush()
			name := strings.TrimSpace(strings.Trim(string(trimmed), "[]"))
			inEnv = name == "testenv" || strings.HasPrefix(name, "testenv:") || name == "tox:testenv" || strings.HasPrefix(name, "tox:testenv:")
			inCmd = false
			continue
		case !indented:
			flush()
			// configparser's delimiters: the first = or :.
			i := bytes.IndexAny(trimmed, "=:")
			ok := i > 0
			var key, value []byte
			if ok {
				key, value = trimmed[:i], trimmed[i+1:]
			}
			inCmd = ok && inEnv && slices.Contains(toxKeys, strings.ReplaceAll(strings.TrimSpace(string(key)), "-", "_"))
			if !inCmd {
				continue
			}
			from := start + len(line) - len(value)
			x.toxLine(&b, from, start+len(line), flush)
		case inCmd:
			x.toxLine(&b, start+len(line)-len(trimmed), start+len(line), flush)
		}
	}
	flush()
	return nil
}

// toxLine adds one line of a tox command value, src[from:to], to b: a
// line that does not end in a backslash ends the command.
func (x *extractor) toxLine(b *builder, from, to int, flush func()) {
	for from < to && (x.src[from] == ' ' || x.src[from] == '\t') {
		from++
	}
	if b.len() == 0 && from < to && x.src[from] == '-' && (from+1 == to || x.src[from+1] == ' ') {
		from++ // "- cmd": tox ignores its exit status
		for from < to && (x.src[from] == ' ' || x.src[from] == '\t') {
			from++
		}
	}
	cont := to > from && x.src[to-1] == '\\'
	if cont {
		to--
	}
	for i := from; i < to; {
		if x.src[i] != '{' {
			j := bytes.IndexByte(x.src[i:to], '{')
			if j < 0 {
				j = to - i
			}
			b.copy(x.src, i, i+j)
			i += j
			continue
		}
		end := bytes.IndexByte(x.src[i:to], '}')
		if end < 0 {
			b.copy(x.src, i, to)
			break
		}
		b.put(placeholder(string(x.src[i+1:i+end])), i)
		i += end + 1
	}
	if cont {
		b.put(" ", to)
		return
	}
	flush()
}

// jsonTasks says where a JSON config keeps its commands: one at each of
// single (a member path), one for each member of the objects at each.
// A command is a command line, a list of them, or an object whose
// command is one.
type jsonTasks struct {
	kind         Kind
	single, each [][]string
}

var (
	// devbox.json: shell.init_hook runs on 'devbox shell', shell.scripts
	// on 'devbox run'.
	devboxTasks = jsonTasks{kind: Devbox, single: [][]string{{"shell", "init_hook"}}, each: [][]string{{"shell", "scripts"}}}
	// deno.json: 'deno task NAME' runs tasks.NAME with Deno's shell,
	// which reads bash's syntax.
	denoTasks = jsonTasks{kind: Deno, each: [][]string{{"tasks"}}}
)

// jsonTasks reads the commands of a JSON config (comments and trailing
// commas allowed) as t says.
func (x *extractor) jsonTasks(t jsonTasks) error {
	std, err := x.standardJSON()
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(std, &doc); err != nil {
		return x.syntaxError(0, "json does not parse: %v", err)
	}
	at := func(path []string) any {
		v := doc
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	var values []any
	for _, p := range t.single {
		values = append(values, at(p))
	}
	for _, p := range t.each {
		m, _ := at(p).(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			values = append(values, m[k])
		}
	}
	cursor := map[string]int{}
	for _, v := range values {
		if m, ok := v.(map[string]any); ok {
			v = m["command"]
		}
		list, ok := v.([]any)
		if !ok {
			list = []any{v}
		}
		for _, c := range list {
			if s, ok := c.(string); ok {
				x.emitJSON(t.kind, std, s, s, cursor)
			}
		}
	}
	return nil
}

// cargoMakeShells are the script runners whose scripts are shell (no
// runner is the shell too).
var cargoMakeShells = []string{"", "@shell", "sh", "bash"}

// interpreters are the programs whose code a tool may be told to run,
// and the command line that runs such code inline: guard reviews that
// command line (code it does not review: B at least).
var interpreters = []struct {
	names []string
	argv  []string
}{
	{[]string{"python", "python3", "python2", "py"}, []string{"python3", "-c"}},
	{[]string{"node", "nodejs", "deno", "bun"}, []string{"node", "-e"}},
	{[]string{"ruby"}, []string{"ruby", "-e"}},
	{[]string{"perl"}, []string{"perl", "-e"}},
	{[]string{"pwsh", "powershell"}, []string{"pwsh", "-Command"}},
}

// interpreterArgv is the inline command line of the interpreter named by
// runner (a name or a path to one), nil when it is none of interpreters.
func interpreterArgv(runner string) []string {
	name := strings.ToLower(path.Base(runner))
	name = strings.TrimSuffix(name, ".exe")
	for _, in := range interpreters {
		if slices.Contains(in.names, name) {
			return in.argv
		}
	}
	return nil
}

// cargoMake reads cargo-make's Makefile.toml: each task's command with its
// args, its script (one string, a list of its lines, or pre, main and post
// parts, each one of those) when it runs under
// the shell, the same in its per-platform overrides, and the scripts that
// compute [env] values, which run whenever the file is loaded.
func (x *extractor) cargoMake() error {
	doc, err := x.tomlTable()
	if err != nil {
		return err
	}
	var cmds []string
	var lines func(v any)
	lines = func(v any) {
		switch s := v.(type) {
		case string:
			cmds = append(cmds, s)
		case []any:
			var lines []string
			for _, l := range s {
				if l, ok := l.(string); ok {
					lines = append(lines, l)
				}
			}
			if len(lines) > 0 {
				cmds = append(cmds, strings.Join(lines, "\n"))
			}
		case map[string]any:
			// script = { pre = …, main = …, post = … }: run in that order,
			// each a string or a list of lines.
			for _, part := range []string{"pre", "main", "post"} {
				if p, ok := s[part]; ok {
					lines(p)
				}
			}
		}
	}
	script := func(t map[string]any) {
		runner, _ := t["script_runner"].(string)
		if slices.Contains(cargoMakeShells, runner) {
			lines(t["script"])
			return
		}
		// Another runner: an interpreter guard knows runs it as its
		// inline code (python3 -c: B); any other (@rust, @duckscript, a
		// program by path) is code guard does not review, reported.
		from := len(cmds)
		lines(t["script"])
		found := cmds[from:]
		cmds = cmds[:from]
		argv := interpreterArgv(runner)
		if s, ok := t["script"].(map[string]any); ok {
			// script = { file = "…" }: the runner runs that file. An
			// interpreter guard knows runs it as any script of its
			// (python3 FILE); another runner's file is code guard does
			// not review, reported (it was dropped).
			if f, ok := s["file"].(string); ok && f != "" {
				at := x.anchor(f, map[string]int{})
				q, err := "", error(nil)
				if argv != nil {
					q, err = parse.Quote([]string{argv[0], f})
				}
				if argv == nil || err != nil {
					x.unreviewed(CargoMake, at, "script_runner "+runner+":", "cargo-make runs the script file "+f+" with it; guard does not review that code")
				} else {
					var b builder
					b.put(q, at)
					x.emit(CargoMake, x.dir, &b)
				}
			}
		}
		for _, code := range found {
			at := x.anchor(code, map[string]int{})
			if argv == nil {
				x.unreviewed(CargoMake, at, "script_runner "+runner+":", "cargo-make runs this task's script with it; guard does not review that code")
				continue
			}
			q, err := parse.Quote(append(slices.Clip(argv), code))
			if err != nil {
				x.unreviewed(CargoMake, at, "script_runner "+runner+":", "cargo-make runs this task's script with it; guard cannot quote it to review")
				continue
			}
			var b builder
			b.put(q, at)
			x.emit(CargoMake, x.dir, &b)
		}
	}
	task := func(t map[string]any) {
		if c, ok := t["command"].(string); ok && c != "" {
			words := []any{c}
			if args, ok := t["args"].([]any); ok {
				words = append(words, args...)
			}
			if q, ok := quoteWords(words); ok {
				cmds = append(cmds, q)
			}
		}
		script(t)
	}
	tasks := table(doc, "tasks")
	for _, name := range slices.Sorted(maps.Keys(tasks)) {
		t, _ := tasks[name].(map[string]any)
		task(t)
		for _, osKey := range []string{"linux", "mac", "windows"} {
			if o := table(t, osKey); o != nil {
				task(o)
			}
		}
	}
	env := table(doc, "env")
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if t, ok := env[name].(map[string]any); ok {
			script(t)
		}
	}
	x.emitAll(CargoMake, cmds)
	x.inFileOrder()
	return nil
}

// netlify reads netlify.toml's build and dev commands, and those of each
// deploy context; Netlify's build machine runs them with the site's
// secrets. ignore is a command too: Netlify runs it before each build to
// decide whether to build.
func (x *extractor) netlify() error {
	doc, err := x.tomlTable()
	if err != nil {
		return err
	}
	var cmds []string
	add := func(t map[string]any) {
		for _, k := range []string{"command", "ignore"} {
			if c, ok := t[k].(string); ok {
				cmds = append(cmds, c)
			}
		}
	}
	add(table(doc, "build"))
	add(table(doc, "dev"))
	contexts := table(doc, "context")
	for _, name := range slices.Sorted(maps.Keys(contexts)) {
		c, _ := contexts[name].(map[string]any)
		add(c)
		add(table(c, "build"))
	}
	x.emitAll(Netlify, cmds)
	return nil
}

// earthfile reads an Earthfile's RUN lines as a Dockerfile's are read. They
// are not lowered as an image build's: after LOCALLY they run on the
// machine itself, and --push or WITH DOCKER lines reach out of the build.
func (x *extractor) earthfile() {
	from := len(x.out)
	x.dockerfile()
	for i := from; i < len(x.out); i++ {
		x.out[i].Kind = Earthly
	}
}

// emitAll adds each command, mapped to where it is written in the file
// (its first line, searched past where the same text was found last), or
// to the file's start.
func (x *extractor) emitAll(kind Kind, cmds []string) {
	cursor := map[string]int{}
	for _, c := range cmds {
		var b builder
		b.put(c, x.anchor(c, cursor))
		x.emit(kind, x.dir, &b)
	}
}

// anchor is where the TOML string c is written: the string quoted whole
// (one line), or its first line after an opening quote (a multi-line
// string), or its first word quoted (a list of words), or its first line
// anywhere; past where the same anchor was found last. 0 when it is not
// found.
func (x *extractor) anchor(c string, cursor map[string]int) int {
	first, rest, multi := strings.Cut(c, "\n")
	var tries []string
	for _, q := range []string{`"`, `'`} {
		if multi {
			tries = append(tries, q+first)
		} else {
			tries = append(tries, q+first+q)
		}
	}
	if w := strings.Fields(c); len(w) > 0 && !multi {
		tries = append(tries, `"`+w[0]+`"`, `'`+w[0]+`'`)
	}
	if trimmed := strings.TrimSpace(first); trimmed != "" {
		tries = append(tries, trimmed)
	} else if trimmed := strings.TrimSpace(rest); trimmed != "" {
		line, _, _ := strings.Cut(trimmed, "\n")
		tries = append(tries, line)
	}
	for _, a := range tries {
		if i := bytes.Index(x.src[cursor[a]:], []byte(a)); i >= 0 {
			at := cursor[a] + i
			cursor[a] = at + 1
			if a[0] == '"' || a[0] == '\'' {
				at++
			}
			return at
		}
	}
	return 0
}
