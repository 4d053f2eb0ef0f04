package profile

// agentTable: coding agents. Starting one hands the line to a model that
// decides its own commands, which guard does not review here (its own
// agent hook reviews them, if installed for that agent): B. Their
// settings and MCP servers are persistence: an MCP server's command runs
// whenever the agent starts, and settings can switch guard's hook off.
func agentTable() map[string]*spec {
	run := func(name string) *spec {
		s := whole("agent.run", CapDynamic, "starts "+name+", a coding agent that runs the commands it decides on itself")
		// A prompt that reads as a command line is what the agent may run
		// (codex exec 'rm -rf ~'), as for a program guard does not know.
		s.fn = func(b *builder, c *call) stream {
			b.argumentCommands(c.prog, c.fs, c.st, c.in, c.sp)
			return stream{kind: streamUnknown}
		}
		return s
	}
	config := func() *spec {
		return whole("agent.config", CapPersistence, "changes a coding agent's settings or MCP servers (commands it runs; settings that can switch guard's hook off)")
	}
	// mcp and config subcommands: listing and reading are plain, the rest
	// change what the agent runs.
	settings := func() *spec {
		return subs(config(), map[string]*spec{"list": plain(), "get": plain(), "ls": plain(), "show": plain()})
	}
	agent := func(name string, extra map[string]*spec) *spec {
		m := map[string]*spec{"mcp": settings(), "config": settings()}
		for k, v := range extra {
			m[k] = v
		}
		return subs(run(name), m)
	}
	return map[string]*spec{
		"claude": agent("Claude Code", map[string]*spec{"doctor": plain(), "plugin": settings(), "hooks": settings()}),
		"codex":  agent("Codex", map[string]*spec{"exec": run("Codex"), "e": run("Codex"), "login": config(), "logout": config(), "features": settings()}),
		"gemini": agent("Gemini CLI", map[string]*spec{"extensions": settings(), "extension": settings()}),
		"qwen":   agent("Qwen Code", nil),
		"aider":  run("aider"), "cursor-agent": agent("Cursor's agent", nil),
		"opencode": agent("opencode", map[string]*spec{"run": run("opencode")}), "goose": agent("goose", map[string]*spec{"run": run("goose"), "configure": config()}),
		"amp": agent("Amp", nil), "crush": agent("Crush", nil), "copilot": agent("GitHub Copilot CLI", nil),
	}
}
