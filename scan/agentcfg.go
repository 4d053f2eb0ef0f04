package scan

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/guard-sh/guard/parse"
)

// A coding agent's project configuration, committed in a repository,
// makes the agent run commands on the developer's machine when it works
// there: hooks (at session start, before and after each tool), MCP
// servers (started with the session), helpers (Claude Code's apiKeyHelper,
// statusLine), and the environment of every command its shell tool runs
// (Claude Code's env: BASH_ENV=./x runs ./x before each command, outside
// any sandbox the command is then put in). It can also turn the agent's
// hooks off, guard's among them. eed3eff read none of it.

// agentConfigDirs are the directories, at the project's top, whose files
// an agent reads as project configuration (agentConfigFiles).
var agentConfigFiles = []struct{ dir, base string }{
	{".claude", "settings.json"}, {".claude", "settings.local.json"},
	{".gemini", "settings.json"},
	{".codex", "hooks.json"}, {".codex", "config.toml"},
	{".cursor", "mcp.json"}, {".vscode", "mcp.json"},
	{"", ".mcp.json"},
}

// isAgentConfig reports whether name is one of agentConfigFiles.
func isAgentConfig(name string) bool {
	base, dir := path.Base(name), path.Base(path.Dir(name))
	for _, f := range agentConfigFiles {
		if base == f.base && (f.dir == "" || dir == f.dir) {
			return true
		}
	}
	return false
}

// agentHelperKeys hold a command line the agent runs (Claude Code's
// credential and telemetry helpers).
var agentHelperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper"}

// agentConfig reads an agent's project configuration: every object with
// a command (a hook, a status line, an MCP server: command with its args
// and env, as one command line), every helper command, every env block
// and Codex's [shell_environment_policy] set (each variable as the
// export it is), and Codex's notify program; and
// reports settings that turn the agent's hooks off (RuleAgentHooksOff).
func (x *extractor) agentConfig() error {
	var doc any
	std := x.src
	if strings.HasSuffix(x.name, ".toml") {
		if err := toml.Unmarshal(x.src, &doc); err != nil {
			return x.syntaxError(0, "toml does not parse: %v", err)
		}
	} else {
		var err error
		if std, err = x.standardJSON(); err != nil {
			return err
		}
		if err := json.Unmarshal(std, &doc); err != nil {
			return x.syntaxError(0, "json does not parse: %v", err)
		}
	}
	x.agentHooksOff(doc)
	x.agentWalk(doc, std, map[string]int{}, 0)
	return nil
}

// agentWalk emits the commands of v (agentConfig).
func (x *extractor) agentWalk(v any, std []byte, cursor map[string]int, depth int) {
	if depth > 32 {
		return
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			x.agentWalk(e, std, cursor, depth+1)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		cmd, hasCmd := v["command"].(string)
		if hasCmd && strings.TrimSpace(cmd) != "" {
			x.agentCommand(v, cmd, std, cursor)
		}
		for _, k := range keys {
			switch s, isStr := v[k].(string); {
			case k == "command" && hasCmd:
			case k == "env" && hasCmd: // the command's own (agentCommand)
			case k == "env":
				x.agentEnv(v[k], std, cursor)
			case k == "shell_environment_policy":
				// Codex puts set's variables in the environment of
				// every command its shell tool runs, as env does.
				if pol, ok := v[k].(map[string]any); ok {
					x.agentEnv(pol["set"], std, cursor)
				}
			case isStr && slices.Contains(agentHelperKeys, k) && strings.TrimSpace(s) != "":
				x.emitJSON(AgentConfig, std, s, s, cursor)
			case k == "notify":
				// Codex runs this program (an argv) after each turn.
				if argv, ok := stringsOf(v[k]); ok && len(argv) > 0 {
					q, err := parse.Quote(argv)
					if err != nil {
						q = placeholder("unquotable") // reviewed as unknown, not left out
					}
					x.emitJSON(AgentConfig, std, argv[0], q, cursor)
				}
			default:
				x.agentWalk(v[k], std, cursor, depth+1)
			}
		}
	}
}

// agentCommand emits one object's command: a program with its args
// (an MCP server), or a command line (a hook), after the variables of
// its env.
func (x *extractor) agentCommand(obj map[string]any, cmd string, std []byte, cursor map[string]int) {
	text := cmd
	if args, ok := stringsOf(obj["args"]); ok && len(args) > 0 {
		q, err := parse.Quote(append([]string{cmd}, args...))
		if err != nil {
			q = placeholder("unquotable") // a NUL: a command guard cannot see
		}
		text = q
	}
	var pre []string
	for _, a := range envAssigns(obj["env"]) {
		pre = append(pre, a[1])
	}
	if len(pre) > 0 {
		text = strings.Join(pre, " ") + " " + text
	}
	x.emitJSON(AgentConfig, std, cmd, text, cursor)
}

// agentEnv emits an env block as the exports it amounts to: the agent
// puts these variables in the environment of every command it runs.
func (x *extractor) agentEnv(v any, std []byte, cursor map[string]int) {
	for _, a := range envAssigns(v) {
		x.emitJSON(AgentConfig, std, a[0], "export "+a[1], cursor)
	}
}

// envAssigns is an env block (a JSON object of strings) as NAME=VALUE
// shell assignments, quoted, by name: {name, assignment} pairs. A value
// that cannot be quoted (a NUL) is a placeholder, a word guard does not
// know, not left out.
func envAssigns(v any) [][2]string {
	env, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	slices.Sort(names)
	var out [][2]string
	for _, n := range names {
		s, ok := env[n].(string)
		if !ok || !validEnvName(n) {
			continue
		}
		q, err := parse.Quote([]string{s})
		if err != nil {
			q = placeholder("unquotable")
		}
		out = append(out, [2]string{n, n + "=" + q})
	}
	return out
}

// stringsOf is v as a list of strings, when it is one.
func stringsOf(v any) ([]string, bool) {
	xs, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(xs))
	for _, e := range xs {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// agentHooksOff reports the settings that turn an agent's hooks off:
// Claude Code's disableAllHooks, Gemini CLI's hooksConfig.enabled false
// or hooksConfig.disabled (and the older hooks.enabled false), Codex's
// [features] hooks = false (or codex_hooks); and a PermissionRequest
// hook, which answers the agent's permission prompts (guard's asks among
// them) in the user's place (RuleAgentAutoApprove).
func (x *extractor) agentHooksOff(doc any) {
	m, _ := doc.(map[string]any)
	member := func(m map[string]any, k string) map[string]any {
		sub, _ := m[k].(map[string]any)
		return sub
	}
	report := func(marker, what, rule string) {
		off := max(bytes.Index(x.src, []byte(marker)), 0)
		how := "turns the agent's hooks off, guard's among them: every command the agent runs in this repository would go unreviewed and unsandboxed"
		if rule == RuleAgentAutoApprove {
			how = "runs at each of the agent's permission prompts and can answer it: guard's asks would be approved without the user"
		}
		x.out = append(x.out, Snippet{Path: x.name, Kind: AgentConfig, Dir: x.dir, NotShell: true, lines: x.lines,
			segs:       []segment{{src: off}},
			Injections: []Injection{{Position: x.lines.position(off), Rule: rule, Ref: what, How: how}}})
	}
	if b, ok := m["disableAllHooks"].(bool); ok && b {
		report("disableAllHooks", "disableAllHooks:", RuleAgentHooksOff)
	}
	hc := member(m, "hooksConfig")
	if b, ok := hc["enabled"].(bool); ok && !b {
		report("hooksConfig", "hooksConfig.enabled false:", RuleAgentHooksOff)
	}
	if d, ok := hc["disabled"].([]any); ok && len(d) > 0 {
		report("disabled", "hooksConfig.disabled:", RuleAgentHooksOff)
	}
	if b, ok := member(m, "hooks")["enabled"].(bool); ok && !b {
		report("enabled", "hooks.enabled false:", RuleAgentHooksOff)
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if b, ok := member(m, "features")[k].(bool); ok && !b {
			report(k, "[features] "+k+" = false:", RuleAgentHooksOff)
		}
	}
	if _, ok := member(m, "hooks")["PermissionRequest"]; ok {
		// Whatever its command, it runs at the permission prompt and
		// may answer it (an echo of {"behavior": "allow"} is A to the
		// review): guard's asks would be approved without the user.
		report("PermissionRequest", "PermissionRequest hook:", RuleAgentAutoApprove)
	}
}
