package main

import (
	"regexp"
	"strings"
	"sync"
)

// agentProtocol is everything guard knows about one agent, in one row:
// how its pre-tool hook event is decoded, how an answer is encoded, where
// and how the installer configures the hook, and the pattern of the hook
// command guard installs. `guard hook`, `guard install|uninstall` and
// `guard doctor` all read this table; a new agent is a new row.
type agentProtocol struct {
	name  string // the argument: guard hook NAME, guard install NAME
	label string // for messages: "Claude Code"
	// docs is where the protocol facts of this row were checked.
	docs string

	// Event decoding.

	// event is the hook_event_name guard answers; any other is refused.
	event string
	// provenance goes into audit records and queued requests.
	provenance string
	// shellTools are the tools whose tool_input.command is shell text.
	shellTools []string
	// fileTools are the tools that read or write the paths they carry.
	fileTools map[string]fileAccess
	// textTools are the agent's own tools whose free text goes to a
	// model or a person and is never run (a subagent's prompt, a plan,
	// a to-do list, a search query): its strings are not read as
	// commands for what they would do if run (contentParts), which
	// would ask about every plan that says "run `rm -rf build`". Their
	// command keys, paths and metadata URLs are judged as any tool's.
	textTools []string

	// Answer encoding.

	// canAsk: the agent has an "ask" answer that prompts its user before
	// the call runs. Codex does not honour "ask": it must not be used.
	canAsk bool
	// askRewrite: an "ask" answer can carry a rewritten tool input, which
	// is what runs when the user says yes (so it runs in guard's
	// sandbox) and what the user sees in the prompt.
	askRewrite bool
	// askNeedsTerminal: the event says nothing about whether a person
	// answers the agent's prompt, so guard asks only when the agent runs
	// in a terminal (the hook shares its controlling terminal). Without
	// one the agent is headless, or a client program (an editor over
	// ACP, another agent over A2A) answers its prompts: what would be
	// asked is denied and queued instead.
	askNeedsTerminal bool
	// gemini: answers are {"decision": …} (with the rewrite under
	// hookSpecificOutput.tool_input and the prompt's text in
	// systemMessage) rather than Claude Code's hookSpecificOutput.
	gemini bool

	// Installer target.

	// The installer writes {"matcher": matcher, "hooks": [{"type":
	// "command", "command": "GUARD hook NAME", "timeout": timeout}]}
	// under hooks.<event> of the settings file.
	matcher string
	// onFailure, when set, is the hook's onFailure setting: "block" makes
	// the agent block the call when the hook cannot start, times out or
	// exits with a status other than 0 or 2 (guard's binary moved or
	// removed, a crash that escaped guard), instead of running it.
	onFailure string
	// timeout is in the agent's unit: seconds for Claude Code and Codex,
	// milliseconds for Gemini CLI. It must exceed hookDeadline, so guard
	// answers (deny) before the agent gives up on it and runs the call.
	timeout int
	named   bool // Gemini hooks carry a name (for /hooks enable|disable)
	// userDir (under HOME, or userEnv when set) and projectDir (under the
	// project root) hold the settings file.
	userDir, userEnv, file, projectDir string
	hints                              []string
}

// claudeFileTools are Claude Code's file tools; Codex sends apply_patch.
var claudeFileTools = map[string]fileAccess{
	"Read": accessRead, "NotebookRead": accessRead,
	"Glob": accessList, "LS": accessList,
	"Grep":  accessSearch,
	"Write": accessWrite, "Edit": accessWrite, "MultiEdit": accessWrite, "NotebookEdit": accessWrite,
	"apply_patch": accessPatch,
}

// Agents' text tools (agentProtocol.textTools): Claude Code's subagent
// (Task, Agent), plan, to-do, question and web tools; Codex's plan,
// image and search tools; Gemini CLI's search, memory and to-do tools.
var (
	claudeTextTools = []string{"Task", "Agent", "TodoWrite", "ExitPlanMode", "AskUserQuestion", "WebSearch", "WebFetch"}
	codexTextTools  = []string{"update_plan", "view_image", "web_search"}
	geminiTextTools = []string{"google_web_search", "web_fetch", "save_memory", "write_todos"}
)

// agentProtocols is the table of supported agents.
var agentProtocols = []*agentProtocol{
	// Claude Code: https://code.claude.com/docs/en/hooks ("PreToolUse",
	// "PreToolUse decision control"): permissionDecision allow|deny|ask
	// (ask: the reason is shown in the user's prompt; deny: shown to
	// Claude); updatedInput replaces the tool input, with allow or with
	// ask (the user is shown, and approves, the modified input). Exit 2
	// blocks with stderr as the reason; any other non-zero exit lets the
	// call run, unless the hook says onFailure: "block" (Claude Code
	// 2.1.295 and later: a hook that cannot start, times out or exits
	// with another status blocks the call; earlier releases ignore the
	// key). Hook timeout is in seconds.
	{name: "claude", label: "Claude Code", docs: "https://code.claude.com/docs/en/hooks",
		event: "PreToolUse", provenance: "hook:claude-code",
		shellTools: []string{"Bash"}, fileTools: claudeFileTools, textTools: claudeTextTools,
		canAsk: true, askRewrite: true,
		matcher: "*", onFailure: "block", timeout: 10,
		userDir: ".claude", userEnv: "CLAUDE_CONFIG_DIR", file: "settings.json", projectDir: ".claude",
		hints: []string{"Claude Code reads hooks at start: restart it, then '/hooks' lists guard's"}},
	// Codex: https://developers.openai.com/codex/hooks (PreToolUse, same
	// JSON as Claude Code; hooks on by default, [features] hooks = false
	// turns them off; a new hook runs only once trusted in /hooks).
	// permissionDecision "deny" (or exit 2) blocks; "ask" is not honoured
	// (openai/codex pull request 20756, which would have added it, was
	// closed unmerged), so guard never answers ask to Codex.
	{name: "codex", label: "Codex", docs: "https://developers.openai.com/codex/hooks",
		event: "PreToolUse", provenance: "hook:codex",
		shellTools: []string{"Bash"}, fileTools: claudeFileTools, textTools: codexTextTools,
		// "*": Codex sends PreToolUse for MCP tools too (mcp__server__tool),
		// whose input can carry commands and paths; "Bash|apply_patch"
		// never showed them to guard.
		matcher: "*", timeout: 10,
		userDir: ".codex", userEnv: "CODEX_HOME", file: "hooks.json", projectDir: ".codex",
		hints: []string{
			"Codex runs a new hook only after you trust it: open '/hooks' in Codex and trust guard's",
			"hooks must not be turned off in Codex's config.toml ([features] hooks = false)",
		}},
	// Gemini CLI: google-gemini/gemini-cli docs/hooks/reference.md
	// (BeforeTool: decision allow|deny|block, reason, and
	// hookSpecificOutput.tool_input merged into the tool's arguments;
	// timeout in milliseconds) and packages/core/src/hooks/types.ts
	// (HookDecision includes "ask"), packages/core/src/scheduler/
	// hook-utils.ts and scheduler.ts: "ask" forces the confirmation
	// prompt, shows systemMessage in it, and the modified tool_input is
	// what the confirmed call runs. hooksConfig.enabled (default true) and
	// hooksConfig.disabled decide whether the hook runs
	// (docs/reference/configuration.md). BeforeTool's input carries no
	// approval mode and nothing says whether the session is interactive
	// (packages/core/src/hooks/types.ts HookInput, BeforeToolInput): a
	// hook's ask becomes ASK_USER whatever the policy says
	// (scheduler.ts), which non-interactive runs (gemini -p) cannot
	// show, the ACP mode hands to the editor client
	// (packages/cli/src/acp/acpSession.ts requestPermission) and the A2A
	// server to its remote client, often another program
	// (packages/a2a-server/src/agent/task.ts, input-required). Only the interactive UI,
	// which needs a terminal, shows it to a person: askNeedsTerminal.
	{name: "gemini", label: "Gemini CLI", docs: "https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md",
		event: "BeforeTool", provenance: "hook:gemini-cli",
		shellTools: []string{"run_shell_command"}, textTools: geminiTextTools,
		fileTools: map[string]fileAccess{
			"read_file": accessRead, "read_many_files": accessRead,
			"list_directory": accessList, "glob": accessList,
			"search_file_content": accessSearch, "grep_search": accessSearch,
			"write_file": accessWrite, "replace": accessWrite,
		},
		canAsk: true, askRewrite: true, askNeedsTerminal: true, gemini: true,
		matcher: "*", timeout: 10000, named: true,
		userDir: ".gemini", file: "settings.json", projectDir: ".gemini",
		hints: []string{"Gemini CLI runs hooks unless hooksConfig.enabled is false or guard's hook is in hooksConfig.disabled; '/hooks panel' lists guard's"}},
}

// agentNamed is the row for name, or nil.
func agentNamed(name string) *agentProtocol {
	for _, p := range agentProtocols {
		if p.name == name {
			return p
		}
	}
	return nil
}

// agentNames are the rows' names, "claude|codex|gemini".
func agentNames() string {
	var names []string
	for _, p := range agentProtocols {
		names = append(names, p.name)
	}
	return strings.Join(names, "|")
}

// ourHookCommand matches the command of a hook guard installed, whatever
// guard's path was then: ".../guard hook NAME" for a NAME in the table.
var ourHookCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|/)guard'?\s+hook\s+(` + agentNames() + `)\s*$`)
})

// isOurs reports whether command is guard's hook for this agent.
func (p *agentProtocol) isOurs(command string) bool {
	m := ourHookCommand().FindStringSubmatch(command)
	return m != nil && m[1] == p.name
}

// hookExecutable is the guard path in a hook command guard installed
// ("" when it is not one): the command is the quoted path, then
// " hook NAME".
func hookExecutable(command string) string {
	if ourHookCommand().FindStringIndex(command) == nil {
		return ""
	}
	i := strings.LastIndex(command, " hook ")
	if i < 0 {
		return ""
	}
	exe := strings.TrimSpace(command[:i])
	if n := len(exe); n >= 2 && exe[0] == '\'' && exe[n-1] == '\'' {
		exe = strings.ReplaceAll(exe[1:n-1], `'\''`, `'`)
	}
	return exe
}
