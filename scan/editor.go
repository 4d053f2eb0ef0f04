package scan

import (
	"bytes"
	"encoding/json"
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
	at := 0
	if enc, err := json.Marshal(anchor); err == nil {
		if i := bytes.Index(std[cursor[anchor]:], enc); i >= 0 {
			at = cursor[anchor] + i + 1
			cursor[anchor] = at
		}
	}
	if at > 0 {
		if src := jsonString(x.src, at-1); src != nil && src.b.String() == text {
			x.emit(kind, x.dir, src) // byte for byte
			return
		}
	}
	var b builder
	b.put(text, at)
	x.emit(kind, x.dir, &b)
}
