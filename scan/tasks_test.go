package scan

import (
	"errors"
	"testing"
)

// TestExtractTaskRunners: mise, pyproject.toml's task runners, tox,
// devbox and Earthly keep commands the developer's machine runs. None of
// them was read (every case with commands failed before). Keys of other
// tools, and values that are not commands (a PDM call, a Poe script, a
// sequence's task names), give nothing.
func TestExtractTaskRunners(t *testing.T) {
	checkExtract(t, "mise.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"hooks and tasks", "[hooks]\nenter = \"echo in\"\npostinstall = [\"a\", \"b\"]\n[tasks.x]\nrun = \"curl https://x | sh\"\n[tasks]\ny = \"ls\"\n", []extracted{{"echo in", "2:10"}, {"a", "3:17"}, {"b", "3:22"}, {"curl https://x | sh", "5:8"}, {"ls", "7:6"}}},
		{"hook table and multi-line run", "[hooks]\ncd = { script = \"make\" }\n[tasks.t]\nrun = '''\nset -e\nrm -rf ~\n'''\n", []extracted{{"make", "2:18"}, {"set -e\nrm -rf ~\n", "5:1"}}},
		{"env and tools are not commands", "[tools]\ngo = \"1.22\"\n[env]\nX = \"rm -rf ~\"\n", nil},
		{"watch_files", "[[watch_files]]\npatterns = [\"src/*.go\"]\nrun = \"rm -rf ~\"\n", []extracted{{"rm -rf ~", "3:8"}}},
	})
	checkExtract(t, "pyproject.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"poe", "[tool.poe.tasks]\na = \"ls\"\nb = { shell = \"curl https://x | sh\" }\nc = { script = \"pkg:main\" }\nd = [\"a\", \"b\"]\ne = { sequence = [\"a\", { cmd = \"rm -rf ~\" }] }\n", []extracted{{"ls", "2:6"}, {"curl https://x | sh", "3:16"}, {"rm -rf ~", "6:33"}}},
		{"poe parallel and switch", "[tool.poe.tasks.a]\nparallel = [{ cmd = \"ls\" }, \"b\"]\n[tool.poe.tasks.c]\ncontrol.expr = \"sys.platform\"\nswitch = [{ case = \"linux\", shell = \"rm -rf ~\" }]\n", []extracted{{"ls", "2:22"}, {"rm -rf ~", "5:38"}}},
		{"pdm", "[tool.pdm.scripts]\n_ = { env_file = \".env\" }\na = { cmd = [\"go\", \"test\"] }\nb = { call = \"pkg:main\" }\nc = { composite = [\"a\", \"rm -rf ~\"] }\n", []extracted{{"go test", "3:15"}, {"a", "5:21"}, {"rm -rf ~", "5:26"}}},
		{"hatch and taskipy", "[tool.hatch.envs.default]\npre-install-commands = [\"rm -rf ~\"]\n[tool.hatch.envs.lint.scripts]\nx = [\"ls\", \"pwd\"]\n[tool.taskipy.tasks]\ny = { cmd = \"make\" }\n", []extracted{{"make", "6:14"}, {"rm -rf ~", "2:26"}, {"ls", "4:7"}, {"pwd", "4:13"}}},
		{"tox in pyproject", "[tool.tox.env_run_base]\ncommands = [[\"pytest\", \"{posargs}\"]]\n[tool.tox.env.lint]\ncommands_pre = [[\"sh\", \"-c\", \"rm -rf ~\"]]\n", []extracted{{"pytest '{posargs}'", "2:15"}, {"sh -c 'rm -rf ~'", "4:19"}}},
		// A word tox fills in ({replace = "posargs"}) is one the review
		// cannot know; the command was dropped, unreviewed.
		{"tox replace element", "[tool.tox.env_run_base]\ncommands = [[\"sh\", \"-c\", \"rm -rf ~\", { replace = \"posargs\" }]]\n", []extracted{{"sh -c 'rm -rf ~' ${map_replace_posargs}", "2:15"}}},
		{"project metadata is not a command", "[project]\nname = \"x\"\nscripts = { x = \"rm -rf ~\" }\n[tool.ruff]\nline-length = 100\n", nil},
	})
	checkExtract(t, "tox.ini", []struct {
		name, src string
		want      []extracted
	}{
		{"commands lines", "[tox]\nenvlist = py3\n[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs}\n    - sh -c 'rm -rf ~'\ncommands_pre = curl https://x \\\n    | sh\n[testenv:lint]\ncommands = ruff check .\n", []extracted{{"pytest ${posargs}", "6:5"}, {"sh -c 'rm -rf ~'", "7:7"}, {"curl https://x  | sh", "8:16"}, {"ruff check .", "11:12"}}},
		// configparser also takes ':' for '=': the commands were missed.
		{"colon delimiter", "[testenv]\ncommands: rm -rf ~\n", []extracted{{"rm -rf ~", "2:11"}}},
		{"other sections and keys", "[flake8]\ncommands = rm -rf ~\n[testenv]\ndescription = rm -rf ~\n", nil},
	})
	checkExtract(t, "setup.cfg", []struct {
		name, src string
		want      []extracted
	}{
		{"tox sections only", "[metadata]\nname = x\n[tox:tox]\nenvlist = py3\n[testenv]\ncommands = rm -rf ~\n", []extracted{{"rm -rf ~", "6:12"}}},
	})
	checkExtract(t, "devbox.json", []struct {
		name, src string
		want      []extracted
	}{
		{"init_hook and scripts", "{\"shell\": {\"init_hook\": \"rm -rf ~\", \"scripts\": {\"a\": [\"ls\"], \"b\": \"pwd\"}}}", []extracted{{"rm -rf ~", "1:26"}, {"ls", "1:56"}, {"pwd", "1:68"}}},
		{"packages only", "{\"packages\": [\"rm\"]}", nil},
	})
	checkExtract(t, "Earthfile", []struct {
		name, src string
		want      []extracted
	}{
		{"targets", "VERSION 0.8\nFROM alpine\nbuild:\n    RUN ls\ndeploy:\n    LOCALLY\n    RUN curl https://x | sh\n", []extracted{{"ls", "4:9"}, {"curl https://x | sh", "7:9"}}},
	})
	checkExtract(t, "deno.json", []struct {
		name, src string
		want      []extracted
	}{
		{"tasks", "{\n  // dev\n  \"tasks\": {\"a\": \"rm -rf ~\", \"b\": {\"command\": \"ls\", \"description\": \"rm -rf ~\"}},\n  \"imports\": {\"x\": \"rm -rf ~\"}\n}", []extracted{{"rm -rf ~", "3:19"}, {"ls", "3:48"}}},
	})
	checkExtract(t, "Makefile.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"command, script and env", "[env]\nV = { script = [\"curl https://x | sh\"] }\n[tasks.a]\ncommand = \"cargo\"\nargs = [\"build\", \"--release\"]\n[tasks.b]\nscript = [\"set -e\", \"rm -rf ~\"]\n[tasks.b.linux]\nscript = \"make\"\n", []extracted{{"curl https://x | sh", "2:18"}, {"cargo build --release", "4:12"}, {"set -e\nrm -rf ~", "7:12"}, {"make", "9:11"}}},
		// Other runners are not shell: reported, or reviewed as the
		// interpreter's inline code (both dropped on 17c6cc7).
		{"other runners are not shell", "[tasks.a]\nscript_runner = \"@rust\"\nscript = \"fn main() {}\"\n[tasks.b]\nscript_runner = \"python\"\nscript = [\"import os\"]\n", []extracted{{"scan-unreviewed-code script_runner @rust:", "3:11"}, {"python3 -c 'import os'", "6:12"}}},
	})
	checkExtract(t, "netlify.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"build, dev and contexts", "[build]\ncommand = \"npm run build\"\npublish = \"dist\"\n[dev]\ncommand = \"npm run dev\"\n[context.deploy-preview]\ncommand = \"curl https://x | sh\"\n", []extracted{{"npm run build", "2:12"}, {"npm run dev", "5:12"}, {"curl https://x | sh", "7:12"}}},
	})
	checkExtract(t, ".cirrus.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"script and *_script", "task:\n  container:\n    image: golang\n  setup_script: curl https://x | sh\n  test_script:\n    - go test ./...\n  script: make\n  _script: no\n  transcript: no\n", []extracted{{"curl https://x | sh", "4:17"}, {"go test ./...", "6:7"}, {"make", "7:11"}}},
	})
	checkExtract(t, "cloudbuild.yaml", []struct {
		name, src string
		want      []extracted
	}{
		{"step script", "steps:\n- name: ubuntu\n  script: |\n    curl https://x | sh\n", []extracted{{"curl https://x | sh\n", "4:5"}}},
	})
	checkExtract(t, "bitrise.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"script step content", "workflows:\n  ci:\n    steps:\n    - script@1:\n        inputs:\n        - content: rm -rf ~\n", []extracted{{"rm -rf ~", "6:20"}}},
	})
	for name, want := range map[string]Kind{
		".cirrus.yml": CI, "cloudbuild.yaml": CI, "codemagic.yaml": CI, "bitrise.yml": CI,
		".gitea/workflows/ci.yml": Workflow, ".forgejo/workflows/ci.yaml": Workflow, "sub/.gitea/workflows/x.yml": Workflow, ".gitea/ci.yml": "",
		"deno.json": Deno, "deno.jsonc": Deno, "Makefile.toml": CargoMake, "netlify.toml": Netlify,
		".semaphore/semaphore.yml": CI, "deno.lock": "",
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]Kind{
		"mise.toml": Mise, ".mise.toml": Mise, "mise.local.toml": Mise, "mise.dev.toml": Mise, ".config/mise.toml": Mise,
		".config/mise/config.toml": Mise, "mise/config.toml": Mise, ".mise/config.toml": Mise, ".config/mise/conf.d/a.toml": Mise,
		"pyproject.toml": Pyproject, "sub/pyproject.toml": Pyproject, "tox.ini": Tox, "tox.toml": Tox, "devbox.json": Devbox, "Earthfile": Earthly,
		"config.toml": "", "promise.toml": "", "Cargo.toml": "", "setup.cfg": Tox, "earthfile.txt": "", "devbox.lock": "",
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExtractDroppedCommands: commands these readers dropped — netlify's
// ignore (run before each build), cargo-make's script as pre/main/post
// parts, mise's exec() templates (run when mise renders the value, on
// entering the directory) — and AppVeyor's phases, which nothing read.
// Every case with commands failed before.
func TestExtractDroppedCommands(t *testing.T) {
	checkExtract(t, "netlify.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"ignore", "[build]\nignore = \"curl https://x | sh\"\n[context.production]\nignore = \"git diff --quiet\"\n", []extracted{{"curl https://x | sh", "2:11"}, {"git diff --quiet", "4:11"}}},
	})
	checkExtract(t, "Makefile.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"script parts", "[tasks.a]\nscript = { pre = \"echo pre\", main = [\"set -e\", \"rm -rf ~\"], post = \"curl https://x | sh\" }\n", []extracted{{"echo pre", "2:19"}, {"set -e\nrm -rf ~", "2:39"}, {"curl https://x | sh", "2:69"}}},
		// A script of another runner is not shell: an interpreter guard
		// knows runs it as inline code, any other runner is reported as
		// code guard does not review. Both were dropped on 17c6cc7.
		{"script parts of another runner", "[tasks.a]\nscript_runner = \"@rust\"\nscript = { main = \"fn main() {}\" }\n", []extracted{{"scan-unreviewed-code script_runner @rust:", "3:20"}}},
		// A script file of another runner was dropped: an interpreter's
		// runs as its script, any other is reported.
		{"script file of another runner", "[tasks.a]\nscript_runner = \"python\"\nscript = { file = \"ci/gen.py\" }\n[tasks.b]\nscript_runner = \"@rust\"\nscript = { file = \"ci/b.rs\" }\n", []extracted{{"python3 ci/gen.py", "3:20"}, {"scan-unreviewed-code script_runner @rust:", "6:20"}}},
		{"script of an interpreter", "[tasks.a]\nscript_runner = \"python\"\nscript = \"import os; os.system('rm -rf ~')\"\n[tasks.b]\nscript_runner = \"@duckscript\"\nscript = [\"exec rm -rf ~\"]\n", []extracted{{`python3 -c "import os; os.system('rm -rf ~')"`, "3:11"}, {"scan-unreviewed-code script_runner @duckscript:", "6:12"}}},
	})
	checkExtract(t, "mise.toml", []struct {
		name, src string
		want      []extracted
	}{
		{"exec in env", "[env]\nTOKEN = \"{{ exec(command='curl https://x | sh') }}\"\nV = \"{{exec(command=\\\"git describe\\\")}}\"\n[tools]\nnode = \"{{ exec( command = `cat .nvmrc` ) }}\"\n", []extracted{{"curl https://x | sh", "2:27"}, {"git describe", "3:23"}, {"cat .nvmrc", "5:29"}}},
		{"other templates", "[env]\nX = \"{{ env.HOME }}/bin\"\nY = \"exec is a word\"\n", nil},
		// A task's templates are rendered before the shell runs it:
		// {{config_root}} is the task's own directory, any other {{…}} a
		// value guard cannot know. They were reviewed as brace
		// expansions and parse errors on 17c6cc7.
		{"task templates", "[tasks.a]\nrun = \"{{config_root}}/scripts/x.sh\"\n[tasks.b]\nrun = \"{{ vars.cmd }} --all\"\n[tasks.c]\nrun = \"echo {{arg(name='x')}}\"\n", []extracted{{"./scripts/x.sh", "2:8"}, {"${mise_vars_cmd} --all", "4:8"}, {"echo ${mise_arg_name_x}", "6:8"}}},
	})
	checkExtract(t, "appveyor.yml", []struct {
		name, src string
		want      []extracted
	}{
		// Windows (the default image): cmd.exe and PowerShell are not
		// shell, and are reviewed as the command lines that run them
		// (cmd /c, pwsh -Command); sh items are shell. The cmd.exe and
		// PowerShell lines were dropped on 17c6cc7.
		{"windows image", "install:\n  - cmd: del /q build\n  - ps: Remove-Item x\n  - sh: curl https://x | sh\nbuild_script:\n  - msbuild\n", []extracted{{"cmd /c 'del /q build'", "2:10"}, {"pwsh -Command 'Remove-Item x'", "3:9"}, {"curl https://x | sh", "4:9"}, {"cmd /c msbuild", "6:5"}}},
		{"ubuntu image", "image: Ubuntu2204\ninit:\n  - rm -rf ~\nbefore_build:\n  - cmd: make\n  - ps: Get-ChildItem\ntest_script:\n  - sh: go test ./...\non_finish:\n  - curl https://x | sh\n", []extracted{{"rm -rf ~", "3:5"}, {"make", "5:10"}, {"pwsh -Command Get-ChildItem", "6:9"}, {"go test ./...", "8:9"}, {"curl https://x | sh", "10:5"}}},
		{"matrix with windows", "image:\n  - Ubuntu\n  - Visual Studio 2022\ninstall:\n  - make\n  - sh: make check\n", []extracted{{"cmd /c make", "5:5"}, {"make check", "6:9"}}},
		{"not a phase", "image: Ubuntu\nenvironment:\n  X: rm -rf ~\nmatrix:\n  fast_finish: true\n", nil},
	})
	for name, want := range map[string]Kind{"appveyor.yml": AppVeyor, ".appveyor.yml": AppVeyor, "ci/appveyor.yml": AppVeyor, "appveyor.json": ""} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExtractTaskRunnerSyntax: a TOML config that does not parse is a
// syntax error at its place, like YAML and JSON (a scan cannot say it holds
// no command).
func TestExtractTaskRunnerSyntax(t *testing.T) {
	for _, name := range []string{"mise.toml", "pyproject.toml", "tox.toml"} {
		_, err := Extract(name, []byte("[tasks]\nx = \"ls\"\ny = \n"))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Pos.Line != 3 {
			t.Errorf("%s: err = %v, want a syntax error on line 3", name, err)
		}
	}
}
