package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	exeA = "/opt/guard/bin/guard"
	exeB = "/home/u/go/bin/guard"
)

// settingsFixtures are settings files as people have them: other keys,
// other hooks, their own formatting.
var settingsFixtures = map[string]string{
	"claude-other-hooks": `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test:*)"],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [ { "type": "command", "command": "prettier --check \"$FILE\"" } ]
            }
        ],
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/log-bash"}]}
        ]
    },
    "statusLine": {"type": "command", "command": "echo <&>"}
}
`,
	"no-hooks-tabs": "{\n\t\"theme\": \"dark\",\n\t\"env\": {\"A\": \"1\"}\n}\n",
	"hooks-other-event": `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  }
}`,
	"empty-event-list": `{"hooks": {"PreToolUse": []}}`,
	"one-line":         `{"a":1,"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`,
	"empty-object":     "{}\n",
	"jsonc-comments": `{
  // Gemini CLI allows comments
  "general": { "vimMode": true }, /* trailing */
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [ { "name": "fmt", "type": "command", "command": "fmt-check" } ] } // keep me
    ]
  }
}
`,
	"empty-file": "",
}

func TestInstallHookJSONRoundTrip(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini"} {
		tg := agentNamed(agent)
		for name, orig := range settingsFixtures {
			t.Run(agent+"/"+name, func(t *testing.T) {
				in := []byte(orig)
				once, err := installHookJSON(in, tg, exeA)
				if err != nil {
					t.Fatalf("install: %v", err)
				}
				if !json.Valid(stripComments(once)) {
					t.Fatalf("install made invalid JSON:\n%s", once)
				}
				if got := tg.ourHookCommands(once); len(got) != 1 || got[0] != exeA+" hook "+agent {
					t.Fatalf("installed hooks %q in:\n%s", got, once)
				}
				twice, err := installHookJSON(once, tg, exeA)
				if err != nil || string(twice) != string(once) {
					t.Fatalf("second install changed the file (%v):\n%s", err, twice)
				}
				back, err := uninstallHookJSON(once, tg)
				if err != nil {
					t.Fatalf("uninstall: %v", err)
				}
				want := orig
				switch name {
				case "empty-file":
					want = "{}\n" // guard created the object; an empty one is left
				case "empty-event-list":
					if tg.event == "PreToolUse" {
						want = `{}` // the emptied list and hooks go with guard's entry
					}
				}
				if string(back) != want {
					t.Errorf("install+uninstall is not the original:\n--- got\n%s\n--- want\n%s", back, want)
				}
			})
		}
	}
}

// stripComments removes // and /* */ comments outside strings, to check
// JSONC output with json.Valid.
func stripComments(b []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			j := strings.Index(string(b[i+2:]), "*/")
			i += j + 3
		default:
			out = append(out, c)
		}
	}
	return out
}

// TestInstallAddsOnFailureBlock: guard's Claude Code hook says
// onFailure: "block" (a hook that cannot start, times out or exits
// otherwise blocks the call), and installing again over an entry written
// before it updates that entry in place, once. Codex and Gemini CLI
// entries carry no such key (their agents document none).
func TestInstallAddsOnFailureBlock(t *testing.T) {
	old := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/opt/guard/bin/guard hook claude","timeout":10}]}]}}`
	got, err := installHookJSON([]byte(old), agentNamed("claude"), exeA)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/opt/guard/bin/guard hook claude","timeout":10,"onFailure":"block"}]}]}}`
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got\n%s\nwant (as JSON)\n%s", got, want)
	}
	for _, name := range []string{"codex", "gemini"} {
		b, err := installHookJSON(nil, agentNamed(name), exeA)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "onFailure") {
			t.Errorf("%s: %s carries onFailure", name, b)
		}
	}
}

func TestInstallHookJSONExactOutput(t *testing.T) {
	tg := agentNamed("claude")
	got, err := installHookJSON([]byte(settingsFixtures["hooks-other-event"]), tg, exeA)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/guard/bin/guard hook claude",
            "timeout": 10,
            "onFailure": "block"
          }
        ]
      }
    ]
  }
}`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	got, err = installHookJSON([]byte(settingsFixtures["one-line"]), tg, exeA)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"a":1,"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}, {"matcher":"*","hooks":[{"type":"command","command":"/opt/guard/bin/guard hook claude","timeout":10,"onFailure":"block"}]}]}}`
	if string(got) != want {
		t.Errorf("one-line: got\n%s\nwant\n%s", got, want)
	}
	g, err := installHookJSON(nil, agentNamed("gemini"), "/a b/guard")
	if err != nil {
		t.Fatal(err)
	}
	want = `{
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "*",
        "hooks": [
          {
            "name": "guard",
            "type": "command",
            "command": "'/a b/guard' hook gemini",
            "timeout": 10000
          }
        ]
      }
    ]
  }
}
`
	if string(g) != want {
		t.Errorf("new gemini file: got\n%s\nwant\n%s", g, want)
	}
}

// A guard that moved (an upgrade to another path) updates its entry where
// it is; uninstall then removes it.
func TestInstallHookJSONUpdatesPath(t *testing.T) {
	tg := agentNamed("claude")
	orig := []byte(settingsFixtures["claude-other-hooks"])
	a, _ := installHookJSON(orig, tg, exeA)
	b, err := installHookJSON(a, tg, exeB)
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.ourHookCommands(b); len(got) != 1 || got[0] != exeB+" hook claude" {
		t.Fatalf("after the update: %q\n%s", got, b)
	}
	if strings.Count(string(b), "hook claude") != 1 {
		t.Fatalf("two guard entries:\n%s", b)
	}
	back, _ := uninstallHookJSON(b, tg)
	if string(back) != string(orig) {
		t.Errorf("not the original after uninstall:\n%s", back)
	}
}

// guard's hook put by hand into someone else's group: install moves it
// into guard's own group; uninstall leaves the other hook alone.
func TestInstallHookJSONMixedGroup(t *testing.T) {
	tg := agentNamed("claude")
	mixed := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}, {"type": "command", "command": "guard hook claude"}]}]}}`
	got, err := installHookJSON([]byte(mixed), tg, exeA)
	if err != nil {
		t.Fatal(err)
	}
	if cmds := tg.ourHookCommands(got); len(cmds) != 1 || cmds[0] != exeA+" hook claude" || !strings.Contains(string(got), `"lint"`) {
		t.Fatalf("got %q:\n%s", cmds, got)
	}
	back, err := uninstallHookJSON([]byte(mixed), tg)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}]}}`; string(back) != want {
		t.Errorf("uninstall from a mixed group:\n%s\nwant\n%s", back, want)
	}
	// Other agents' entries are not ours.
	if got := agentNamed("codex").ourHookCommands([]byte(mixed)); len(got) != 0 {
		t.Errorf("codex sees claude's hook as its own: %q", got)
	}
}

func TestInstallHookJSONErrors(t *testing.T) {
	tg := agentNamed("claude")
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `{"a": }`, `{"a": 1} x`, `{"a": "unterminated}`, `{/* open`} {
		if _, err := installHookJSON([]byte(bad), tg, exeA); err == nil {
			t.Errorf("install into %s: no error", bad)
		}
	}
	// Uninstall from a file without guard changes nothing.
	for name, orig := range settingsFixtures {
		got, err := uninstallHookJSON([]byte(orig), tg)
		if err != nil || string(got) != orig {
			t.Errorf("%s: uninstall without guard changed the file (%v)", name, err)
		}
	}
}

func TestInstallOurHookCommand(t *testing.T) {
	tg := agentNamed("claude")
	for cmd, want := range map[string]bool{
		"guard hook claude":                true,
		"/usr/local/bin/guard hook claude": true,
		"'/a b/guard' hook claude":         true,
		"guard hook codex":                 false,
		"notguard hook claude":             false,
		"guard hook claude; rm -rf /":      false,
		"/x/guard-old hook claude":         false,
	} {
		if got := tg.isOurs(cmd); got != want {
			t.Errorf("isOurs(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestInstallAgentHookChecks: an installed hook is probed through sh, as the agent
// runs it, and a hook command that fails open is reported.
func TestInstallAgentHookChecks(t *testing.T) {
	guardBin, err := exec.LookPath("guard")
	if err != nil {
		t.Skip("no guard command on PATH (testscript sets one up)")
	}
	w := newHookWorld(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Chdir(w.proj)
	claude := agentNamed("claude")
	path, _ := claude.settingsPath(false)
	data, err := installHookJSON(nil, claude, guardBin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
	// A broken hook: another program where guard should be (it exits 1,
	// which fails open).
	gem := agentNamed("gemini")
	gpath, _ := gem.settingsPath(false)
	fake := filepath.Join(w.work, "bin", "guard")
	writeFile(t, fake, "#!/bin/sh\nexit 1\n")
	os.Chmod(fake, 0o755)
	gdata, _ := installHookJSON(nil, gem, fake)
	writeFile(t, gpath, string(gdata))

	checks := agentHookChecks(nil)
	if len(checks) != 2 {
		t.Fatalf("checks: %+v", checks)
	}
	for _, c := range checks {
		switch {
		case strings.HasPrefix(c.Name, "Claude Code"):
			if !c.OK {
				t.Errorf("claude hook: %+v", c)
			}
		case strings.HasPrefix(c.Name, "Gemini CLI"):
			if c.OK || !strings.Contains(c.Detail, "not this guard") {
				t.Errorf("broken gemini hook passed: %+v", c)
			}
		default:
			t.Errorf("unexpected check %+v", c)
		}
	}
	if sec := doctorAgents(nil); len(sec.Checks) != 2 || sec.Title != "agents" {
		t.Errorf("doctor section: %+v", sec)
	}
}

// TestClaudeGatePermissionHook: a PermissionRequest hook in any of Claude
// Code's settings files answers its permission prompts, guard's asks
// among them; doctor said nothing of it on eed3eff. guard's hook still
// fires, and the detail names the file. Control: without one, no detail.
func TestClaudeGatePermissionHook(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	old := claudeManagedSettings
	claudeManagedSettings = filepath.Join(home, "no-managed-settings.json")
	t.Cleanup(func() { claudeManagedSettings = old })
	proj := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(proj, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"guard hook claude"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := claudeGate(settings, true); !g.fires || g.detail != "" {
		t.Errorf("without a PermissionRequest hook: %+v", g)
	}
	local := filepath.Join(proj, "settings.local.json")
	if err := os.WriteFile(local, []byte(`{"hooks":{"PermissionRequest":[{"matcher":"*","hooks":[{"type":"command","command":"echo allow"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := claudeGate(settings, true); !g.fires || !strings.Contains(g.detail, "PermissionRequest hook in") || !strings.Contains(g.detail, "settings.local.json") {
		t.Errorf("with a PermissionRequest hook: %+v", g)
	}
}
