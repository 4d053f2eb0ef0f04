package scan

import (
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ciSystems are the CI and task-runner files (beyond GitHub Actions and
// GitLab CI, which have readers of their own) whose keys hold shell: at
// any depth, a key of the system's set whose value is a string, a list of
// strings, or a mapping (or list of mappings) with a command or cmd string.
var ciSystems = []struct {
	match func(name, lower, dir string) bool
	keys  []string
}{
	{ // CircleCI: steps' run (a string, or a mapping with command).
		func(name, lower, dir string) bool {
			return (dir == ".circleci" || strings.HasSuffix(dir, "/.circleci")) && isYAML(lower)
		},
		[]string{"run"},
	},
	{ // Bitbucket Pipelines.
		func(name, lower, dir string) bool { return lower == "bitbucket-pipelines.yml" },
		[]string{"script", "after-script"},
	},
	{ // Azure Pipelines: script and bash steps.
		func(name, lower, dir string) bool {
			return isYAML(lower) && (strings.HasPrefix(lower, "azure-pipelines") || strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(lower, ".yml"), ".yaml"), ".azure-pipelines"))
		},
		[]string{"script", "bash"},
	},
	{ // Travis CI: every phase is a list of commands.
		func(name, lower, dir string) bool { return lower == ".travis.yml" },
		[]string{"before_install", "install", "before_script", "script", "after_success", "after_failure", "after_script", "before_deploy", "after_deploy", "before_cache"},
	},
	{ // Drone and Woodpecker: steps' commands.
		func(name, lower, dir string) bool {
			return lower == ".drone.yml" || lower == ".woodpecker.yml" || lower == ".woodpecker.yaml" ||
				((dir == ".woodpecker" || strings.HasSuffix(dir, "/.woodpecker")) && isYAML(lower))
		},
		[]string{"commands"},
	},
	{ // Semaphore: jobs' commands, and the prologue and epilogue of a
		// task (commands, on_pass, on_fail: commands again).
		func(name, lower, dir string) bool {
			return (dir == ".semaphore" || strings.HasSuffix(dir, "/.semaphore")) && isYAML(lower)
		},
		[]string{"commands"},
	},
	{ // Cirrus CI: script and every *_script instruction (test_script,
		// setup_script, …), a command or a list of them.
		func(name, lower, dir string) bool { return lower == ".cirrus.yml" || lower == ".cirrus.yaml" },
		[]string{"script", "*_script"},
	},
	{ // Google Cloud Build (a step's script), Codemagic (scripts' script)
		// and Bitrise (a script step's content).
		func(name, lower, dir string) bool {
			return lower == "cloudbuild.yaml" || lower == "cloudbuild.yml" || lower == "codemagic.yaml" || lower == "codemagic.yml"
		},
		[]string{"script"},
	},
	{
		func(name, lower, dir string) bool { return lower == "bitrise.yml" || lower == "bitrise.yaml" },
		[]string{"content"},
	},
	{ // Buildkite.
		func(name, lower, dir string) bool {
			return (dir == ".buildkite" || strings.HasSuffix(dir, "/.buildkite")) && isYAML(lower)
		},
		[]string{"command", "commands"},
	},
	{ // Hooks managers that git runs on commit: lefthook's commands and
		// jobs (run), in its main and -local configs (YAML or JSON, which
		// the YAML reader reads too) and their .config/ spellings;
		// pre-commit's hooks (entry: for language system, a command line
		// run on every commit).
		func(name, lower, dir string) bool {
			if lower == ".pre-commit-config.yaml" || lower == ".pre-commit-hooks.yaml" {
				return true
			}
			ext := path.Ext(lower)
			stem := strings.TrimPrefix(strings.TrimSuffix(lower, ext), ".")
			return (isYAML(lower) || ext == ".json") && (stem == "lefthook" || stem == "lefthook-local")
		},
		[]string{"run", "entry"},
	},
	{ // Renovate: postUpgradeTasks' commands run on the bot's machine
		// after each upgrade, with the repository's token. Its JSON
		// configs (renovate.json5 is JSON5, which no reader here reads).
		func(name, lower, dir string) bool {
			if lower == "renovate.json" {
				return dir == "." || dir == ".github" || dir == ".gitlab"
			}
			return dir == "." && (lower == ".renovaterc" || lower == ".renovaterc.json")
		},
		[]string{"commands"},
	},
	{ // Gitpod: a workspace's tasks run before, init and command when it
		// starts.
		func(name, lower, dir string) bool { return lower == ".gitpod.yml" || lower == ".gitpod.yaml" },
		[]string{"before", "init", "command"},
	},
	{ // Task (Taskfile.yml): cmds, strings or mappings with cmd.
		func(name, lower, dir string) bool {
			return lower == "taskfile.yml" || lower == "taskfile.yaml" || lower == "taskfile.dist.yml" || lower == "taskfile.dist.yaml"
		},
		[]string{"cmds", "cmd"},
	},
}

// ciKeys returns the shell-bearing keys of the CI file name, nil when it
// is none of ciSystems.
func ciKeys(name string) []string {
	base := path.Base(name)
	lower := strings.ToLower(base)
	dir := path.Dir(name)
	for _, s := range ciSystems {
		if s.match(name, lower, dir) {
			return s.keys
		}
	}
	return nil
}

// ci reads the shell of a CI file of ciSystems: every value of its keys,
// at any depth (anchors resolved, each node once).
func (x *extractor) ci() error {
	keys := map[string]bool{}
	var suffixes []string // "*_script": any key that ends in _script
	for _, k := range ciKeys(x.name) {
		if rest, ok := strings.CutPrefix(k, "*"); ok {
			suffixes = append(suffixes, rest)
			continue
		}
		keys[k] = true
	}
	isKey := func(k string) bool {
		return keys[k] || slices.ContainsFunc(suffixes, func(s string) bool { return len(k) > len(s) && strings.HasSuffix(k, s) })
	}
	docs, err := x.yamlDocs()
	emitted := map[*yaml.Node]bool{} // a value under two keys (cmds: [{cmd: …}]) is one command
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		n = resolve(n)
		if n == nil || seen[n] || depth > 32 {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind == yaml.ScalarNode && isKey(k.Value) {
					x.ciCommands(n.Content[i+1], emitted, 0)
				}
				walk(n.Content[i+1], depth+1)
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	for _, doc := range docs {
		walk(doc, 0)
	}
	return err
}

// ciCommands emits a key's value: a command string, a list of them, or a
// mapping holding one under command or cmd.
func (x *extractor) ciCommands(n *yaml.Node, emitted map[*yaml.Node]bool, depth int) {
	n = resolve(n)
	if n == nil || depth > 8 || emitted[n] {
		return
	}
	emitted[n] = true
	switch n.Kind {
	case yaml.ScalarNode:
		// Every scalar but a bool, number or null is a command: a custom
		// tag (run: !x rm -rf ~) does not hide it.
		switch n.Tag {
		case "!!bool", "!!int", "!!float", "!!null":
		default:
			x.emit(CI, ".", x.yamlScalar(n))
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			x.ciCommands(e, emitted, depth+1)
		}
	case yaml.MappingNode:
		for _, k := range []string{"command", "cmd"} {
			if c := lookup(n, k); c != nil {
				x.ciCommands(c, emitted, depth+1)
			}
		}
	}
}
