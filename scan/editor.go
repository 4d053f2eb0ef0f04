package scan

import (
	"bytes"
	"encoding/json"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/guard-sh/guard/parse"
	"github.com/tailscale/hujson"
)

// Editor and dev-container files run commands on the developer's machine
// when a folder is opened: VS Code tasks (runOn: folderOpen, or any task
// the user starts) and a dev container's lifecycle commands
// (initializeCommand runs on the host before the container exists). Both
// are JSON with comments and trailing commas (hujson standardizes them to
// JSON without moving a byte).

// vscodeTasks reads the commands of .vscode/tasks.json: each task's
// command with its args, and the per-OS overrides (linux, osx, windows).
// A shell task's command is a command line; a process task's command and
// args are words.
func (x *extractor) vscodeTasks() error {
	std, err := x.standardJSON()
	if err != nil {
		return err
	}
	var file struct {
		Tasks []map[string]json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(std, &file); err != nil {
		return x.syntaxError(0, "json does not parse: %v", err)
	}
	cursor := map[string]int{}
	for _, t := range file.Tasks {
		x.vscodeTask(std, t, cursor)
		for _, osKey := range []string{"linux", "osx", "windows"} {
			var over map[string]json.RawMessage
			if raw, ok := t[osKey]; ok && json.Unmarshal(raw, &over) == nil {
				if _, ok := over["type"]; !ok {
					over["type"] = t["type"]
				}
				x.vscodeTask(std, over, cursor)
			}
		}
	}
	return nil
}

func (x *extractor) vscodeTask(std []byte, t map[string]json.RawMessage, cursor map[string]int) {
	var kind string
	command, ok := taskString(t["command"])
	if !ok || command == "" {
		return
	}
	json.Unmarshal(t["type"], &kind)
	var words []string
	var args []json.RawMessage
	json.Unmarshal(t["args"], &args)
	for _, a := range args {
		if s, ok := taskString(a); ok {
			words = append(words, s)
		}
	}
	text := command
	if kind == "process" {
		text = ""
		words = append([]string{command}, words...)
	}
	if len(words) > 0 {
		if q, err := parse.Quote(words); err == nil {
			text = strings.TrimSpace(text + " " + q)
		}
	}
	x.emitJSON(VSCode, std, command, text, cursor)
}

// taskString reads a task's command or argument as VS Code takes it: a
// string, a list of strings (joined by blanks), or either under
// {"value": …, "quoting": …}.
func taskString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, " "), true
	}
	var q struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &q) == nil && q.Value != nil {
		return taskString(q.Value)
	}
	return "", false
}

// vscodePrograms are .vscode/settings.json settings that name a program
// VS Code or an extension starts when the folder is opened (a language
// server, the interpreter it asks for its environment, git): the
// program is reviewed as a command, so a script in the repository is
// read like one the line runs.
var vscodePrograms = []string{
	"python.defaultInterpreterPath", "python.pythonPath", "python.condaPath", "python.pipenvPath", "python.poetryPath",
	"git.path", "rust-analyzer.server.path", "clangd.path", "php.validate.executablePath", "go.goroot",
	"terminal.integrated.automationShell.linux", "terminal.integrated.automationShell.osx",
}

// vscodeShells are legacy terminal settings: the shell (with its
// arguments, under the matching shellArgs setting) a new terminal starts.
var vscodeShells = []string{"terminal.integrated.shell.linux", "terminal.integrated.shell.osx"}

// vscodeProfiles are terminal settings that hold profiles ({path, args}),
// one ({path, args}) for the automation shell, and the environment every
// terminal starts with.
var (
	vscodeProfiles   = []string{"terminal.integrated.profiles.linux", "terminal.integrated.profiles.osx"}
	vscodeAutomation = []string{"terminal.integrated.automationProfile.linux", "terminal.integrated.automationProfile.osx"}
	vscodeEnv        = []string{"terminal.integrated.env.linux", "terminal.integrated.env.osx"}
)

// vscodeSettings reads the programs .vscode/settings.json makes VS Code
// run: interpreters and language servers by path, terminal shells and
// profiles with their arguments (a terminal starts one), and the
// terminal's environment (each variable as an export: BASH_ENV or
// PROMPT_COMMAND there is code the shell runs). Settings of a language
// block ("[python]": {…}) count too. Windows' shells are not sh.
func (x *extractor) vscodeSettings() error {
	std, err := x.standardJSON()
	if err != nil {
		return err
	}
	var file map[string]any
	if err := json.Unmarshal(std, &file); err != nil {
		return x.syntaxError(0, "json does not parse: %v", err)
	}
	cursor := map[string]int{}
	program := func(path any, args any) {
		words := []any{path}
		if list, ok := path.([]any); ok { // git.path: the first that exists
			words = list[:min(len(list), 1)]
		}
		switch a := args.(type) {
		case []any:
			words = append(words, a...)
		case string:
			words = append(words, a)
		}
		if len(words) == 0 {
			return
		}
		first, ok := words[0].(string)
		if !ok || first == "" {
			return
		}
		// A program found on PATH (python3, bash) with no arguments but
		// options (-l, --login) is the user's own: nothing the repository
		// wrote runs, and reviewed alone it would be an interactive
		// program. A path (./tools/python) or an argument that is not an
		// option (-c CODE, --rcfile FILE) is the repository's to answer
		// for.
		if !strings.Contains(first, "/") && !slices.ContainsFunc(words[1:], func(w any) bool {
			s, ok := w.(string)
			return !ok || !strings.HasPrefix(s, "-")
		}) {
			return
		}
		if q, ok := quoteWords(words); ok {
			x.emitJSON(VSCodeSettings, std, first, q, cursor)
		}
	}
	blocks := []map[string]any{file}
	for _, k := range slices.Sorted(maps.Keys(file)) {
		if b, ok := file[k].(map[string]any); ok && strings.HasPrefix(k, "[") {
			blocks = append(blocks, b)
		}
	}
	for _, s := range blocks {
		for _, k := range vscodePrograms {
			program(s[k], nil)
		}
		if tools, ok := s["go.alternateTools"].(map[string]any); ok {
			for _, t := range slices.Sorted(maps.Keys(tools)) {
				program(tools[t], nil)
			}
		}
		for _, k := range vscodeShells {
			program(s[k], s[strings.Replace(k, ".shell.", ".shellArgs.", 1)])
		}
		for _, k := range vscodeProfiles {
			profiles, _ := s[k].(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(profiles)) {
				if p, ok := profiles[name].(map[string]any); ok {
					program(p["path"], p["args"])
				}
			}
		}
		for _, k := range vscodeAutomation {
			if p, ok := s[k].(map[string]any); ok {
				program(p["path"], p["args"])
			}
		}
		for _, k := range vscodeEnv {
			env, _ := s[k].(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(env)) {
				v, ok := env[name].(string)
				if !ok {
					continue
				}
				if q, err := parse.Quote([]string{v}); err == nil && validEnvName(name) {
					x.emitJSON(VSCodeSettings, std, v, "export "+name+"="+q, cursor)
				}
			}
		}
	}
	return nil
}

// validEnvName reports whether name can be exported by the shell.
func validEnvName(name string) bool {
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}

// devcontainerKeys are the lifecycle commands of devcontainer.json, in the
// order they run; initializeCommand runs on the host.
var devcontainerKeys = []string{"initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand", "postAttachCommand"}

// devcontainer reads a dev container's lifecycle commands: a string (a
// command line), an array (words) or an object of named commands (each a
// string or an array).
func (x *extractor) devcontainer() error {
	std, err := x.standardJSON()
	if err != nil {
		return err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(std, &file); err != nil {
		return x.syntaxError(0, "json does not parse: %v", err)
	}
	cursor := map[string]int{}
	var one func(raw json.RawMessage, depth int)
	one = func(raw json.RawMessage, depth int) {
		var s string
		var words []string
		var named map[string]json.RawMessage
		switch {
		case json.Unmarshal(raw, &s) == nil:
			x.emitJSON(DevContainer, std, s, s, cursor)
		case json.Unmarshal(raw, &words) == nil && len(words) > 0:
			if q, err := parse.Quote(words); err == nil {
				x.emitJSON(DevContainer, std, words[0], q, cursor)
			}
		case depth == 0 && json.Unmarshal(raw, &named) == nil:
			names := make([]string, 0, len(named))
			for n := range named {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				one(named[n], depth+1)
			}
		}
	}
	for _, k := range devcontainerKeys {
		if raw, ok := file[k]; ok {
			one(raw, 0)
		}
	}
	return nil
}

// standardJSON is the file with comments and trailing commas blanked out,
// every byte where it was.
func (x *extractor) standardJSON() ([]byte, error) {
	std, err := hujson.Standardize(bytes.Clone(x.src))
	if err != nil {
		return nil, x.syntaxError(0, "json does not parse: %v", err)
	}
	return std, nil
}

// emitJSON adds text as a snippet that maps to where the JSON string
// anchor is written (searched past where the same anchor was found last,
// so repeated values map in order), or to the file's start when it cannot
// be found.
func (x *extractor) emitJSON(kind Kind, std []byte, anchor, text string, cursor map[string]int) {
	dir := x.dir
	switch kind {
	case VSCode, VSCodeSettings, DevContainer:
		dir = openedFolder(dir)
	case AgentConfig:
		// The agent runs them in the project, whose configuration
		// directory (.claude, .gemini, .codex, .cursor, .vscode) this is.
		if b := path.Base(dir); strings.HasPrefix(b, ".") && b != "." {
			dir = path.Dir(dir)
		}
	}
	at := 0
	if enc, err := json.Marshal(anchor); err == nil {
		if i := bytes.Index(std[cursor[anchor]:], enc); i >= 0 {
			at = cursor[anchor] + i + 1
			cursor[anchor] = at
		}
	}
	if at > 0 {
		if src := jsonString(x.src, at-1); src != nil && src.b.String() == text {
			x.emit(kind, dir, src) // byte for byte
			return
		}
	}
	var b builder
	b.put(text, at)
	x.emit(kind, dir, &b)
}

// openedFolder is the folder an editor opened, whose .vscode or
// .devcontainer (or .devcontainer/NAME) directory is dir: VS Code runs
// tasks, the programs its settings name and a dev container's host
// commands there, not in the settings' directory.
func openedFolder(dir string) string {
	for _, d := range []string{dir, path.Dir(dir)} {
		switch path.Base(d) {
		case ".vscode", ".devcontainer":
			return path.Dir(d)
		}
	}
	return dir
}
