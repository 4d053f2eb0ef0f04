package scan

import (
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/guard-sh/guard/parse"
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
		azureKeys,
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
	{ // AWS CodeBuild: each phase's commands and finally commands
		// (buildspec.yml, and buildspec-*.yml a project names).
		func(name, lower, dir string) bool { return strings.HasPrefix(lower, "buildspec") && isYAML(lower) },
		[]string{"commands", "finally"},
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
		taskfileKeys,
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

// isAppVeyor reports whether a (lower-case) base name is an AppVeyor
// configuration.
func isAppVeyor(lower string) bool {
	return lower == "appveyor.yml" || lower == ".appveyor.yml" || lower == "appveyor.yaml" || lower == ".appveyor.yaml"
}

// appveyorLinux says whether an AppVeyor image runs commands with bash:
// its Ubuntu and macOS images do; its Windows images (the default) run
// them with cmd.exe, which is not shell.
func appveyorLinux(image string) bool {
	image = strings.ToLower(image)
	return strings.Contains(image, "ubuntu") || strings.Contains(image, "macos") || strings.Contains(image, "linux")
}

// appveyor reads the commands of an AppVeyor configuration: its phases
// (init, install, before_build, build_script, …, on_finish, and any
// *_script) hold a command or a list of them; an item is a command, or
// a mapping whose sh (bash on every image) or cmd (bash on Ubuntu and
// macOS images) holds one. A plain command or cmd runs with cmd.exe on
// Windows images and is read as shell only when every image the file
// names (at any depth: a matrix, a for: override) is Ubuntu or macOS;
// otherwise it is reviewed as the cmd /c command line that runs it. ps
// and pwsh are PowerShell, reviewed as pwsh -Command (code guard does not
// review: B at least). None is dropped.
func (x *extractor) appveyor() error {
	docs, err := x.yamlDocs()
	var images []string
	walkKeys(docs, func(k string) bool { return k == "image" }, func(v *yaml.Node) {
		if v.Kind == yaml.SequenceNode {
			for _, e := range v.Content {
				images = append(images, scalarString(e))
			}
			return
		}
		images = append(images, scalarString(v))
	})
	bash := len(images) > 0 && !slices.ContainsFunc(images, func(s string) bool { return !appveyorLinux(s) })
	pwsh := []string{"pwsh", "-Command"}
	how := ciValue{kind: AppVeyor, scalars: bash, keys: []string{"sh"}, wrapKeys: map[string][]string{"ps": pwsh, "pwsh": pwsh}}
	if bash {
		how.keys = append(how.keys, "cmd")
	} else {
		// cmd.exe's command lines, on a Windows image.
		how.wrap = []string{"cmd", "/c"}
		how.wrapKeys["cmd"] = how.wrap
	}
	isPhase := func(k string) bool {
		return slices.Contains(appveyorPhases, k) || len(k) > len("_script") && strings.HasSuffix(k, "_script")
	}
	emitted := map[*yaml.Node]bool{}
	walkKeys(docs, isPhase, func(v *yaml.Node) { x.ciCommands(v, how, emitted, 0) })
	return err
}

// appveyorPhases are AppVeyor's phases that hold commands (besides any
// *_script: build_script, test_script, deploy_script, clone_script).
var appveyorPhases = []string{"init", "install", "before_build", "after_build", "before_test", "after_test", "before_package", "before_deploy", "after_deploy", "on_success", "on_failure", "on_finish"}

// taskfileKeys and azureKeys are the shell-bearing keys of Task and Azure
// Pipelines (their rows of ciSystems): the two read other files by path.
var (
	taskfileKeys = []string{"cmds", "cmd"}
	azureKeys    = []string{"script", "bash"}
)

// ciIncludes are the files (from the root) a CI file includes by path,
// relative to its directory, which the system runs as its own whatever
// their names: a Taskfile's includes (NAME: PATH, or NAME: {taskfile:
// PATH}; a directory holds a Taskfile.yml, read by its name), and an
// Azure Pipelines file's templates (template: PATH at any depth, in a
// pipeline or in a template it includes; PATH@repo is another
// repository's).
func ciIncludes(name string, src []byte) []string {
	keys := ciKeys(name)
	taskfile := slices.Equal(keys, taskfileKeys)
	if !taskfile && keys != nil && !slices.Equal(keys, azureKeys) {
		return nil
	}
	var doc yaml.Node
	if len(src) == 0 || yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var paths []string
	add := func(v *yaml.Node) {
		if p := scalarString(v); p != "" && !strings.Contains(p, "://") && !strings.Contains(p, "@") {
			paths = append(paths, p)
		}
	}
	if !taskfile {
		walkKeys([]*yaml.Node{&doc}, func(k string) bool { return k == "template" }, add)
		return repoPaths(name, paths)
	}
	inc := resolve(lookup(resolve(doc.Content[0]), "includes"))
	if inc == nil || inc.Kind != yaml.MappingNode {
		return nil
	}
	for i := 1; i < len(inc.Content); i += 2 {
		v := resolve(inc.Content[i])
		if v != nil && v.Kind == yaml.MappingNode {
			v = resolve(lookup(v, "taskfile"))
		}
		add(v)
	}
	return repoPaths(name, paths)
}

// ci reads the shell of a CI file of ciSystems: every value of its keys,
// at any depth (anchors resolved, each node once). A file of kind CI
// whose name is none of theirs is one a Taskfile or an Azure pipeline
// includes (ciIncludes, the only way such a file gets the kind): both
// systems' keys are read there.
func (x *extractor) ci() error {
	keys := map[string]bool{}
	var suffixes []string // "*_script": any key that ends in _script
	own := ciKeys(x.name)
	if own == nil {
		own = append(slices.Clip(taskfileKeys), azureKeys...)
	}
	for _, k := range own {
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
	how := ciValue{kind: CI, scalars: true, keys: []string{"command", "cmd"}}
	walkKeys(docs, isKey, func(v *yaml.Node) { x.ciCommands(v, how, emitted, 0) })
	if slices.Contains(own, "bash") && slices.Contains(own, "script") {
		// Azure Pipelines' powershell and pwsh steps: PowerShell,
		// reviewed as the pwsh -Command that runs it, never dropped.
		pwsh := ciValue{kind: CI, wrap: []string{"pwsh", "-Command"}}
		walkKeys(docs, func(k string) bool { return k == "powershell" || k == "pwsh" }, func(v *yaml.Node) { x.ciCommands(v, pwsh, emitted, 0) })
		x.azureRemoteTemplates(docs)
	}
	if isCircleCI(x.name) {
		x.circleOrbs(docs)
	}
	return err
}

// walkKeys calls visit with the value of every mapping key, at any depth
// of docs, whose name isKey says (anchors resolved, each node once).
func walkKeys(docs []*yaml.Node, isKey func(string) bool, visit func(*yaml.Node)) {
	walkMaps(docs, func(m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; k.Kind == yaml.ScalarNode && isKey(k.Value) {
				if v := resolve(m.Content[i+1]); v != nil {
					visit(v)
				}
			}
		}
	})
}

// walkMaps calls visit with every mapping of docs, at any depth up to 48
// (anchors resolved, each node once), a mapping before what it holds.
func walkMaps(docs []*yaml.Node, visit func(m *yaml.Node)) {
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		n = resolve(n)
		if n == nil || seen[n] || depth > 48 {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.MappingNode:
			visit(n)
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i], depth+1)
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
}

// ciValue says how a shell-bearing key's value holds commands: a string
// is one when scalars says so, a list holds more, a mapping holds one
// under one of keys.
type ciValue struct {
	kind    Kind
	scalars bool
	keys    []string
	// wrap runs a scalar that is not shell (scalars false) through this
	// command line (cmd /c on a Windows image), and wraps the values
	// of other keys (ps: pwsh -Command): code of another shell is
	// reviewed as the command that runs it, never dropped.
	wrap     []string
	wrapKeys map[string][]string
}

// ciCommands emits a key's value as how says: a command string, a list
// of them, or a mapping holding one under one of how's keys.
func (x *extractor) ciCommands(n *yaml.Node, how ciValue, emitted map[*yaml.Node]bool, depth int) {
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
			switch {
			case how.scalars:
				x.emit(how.kind, ".", x.yamlScalar(n))
			case how.wrap != nil:
				x.emitWrapped(how.kind, how.wrap, n)
			}
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			x.ciCommands(e, how, emitted, depth+1)
		}
	case yaml.MappingNode:
		held := how
		held.scalars = true
		for _, k := range how.keys {
			if c := lookup(n, k); c != nil {
				x.ciCommands(c, held, emitted, depth+1)
			}
		}
		keys := make([]string, 0, len(how.wrapKeys))
		for k := range how.wrapKeys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if c := lookup(n, k); c != nil && !slices.Contains(how.keys, k) {
				wrapped := ciValue{kind: how.kind, wrap: how.wrapKeys[k]}
				x.ciCommands(c, wrapped, emitted, depth+1)
			}
		}
	}
}

// emitWrapped emits the scalar n as the code argument of the command
// line argv (cmd /c TEXT, pwsh -Command TEXT).
func (x *extractor) emitWrapped(kind Kind, argv []string, n *yaml.Node) {
	text := x.yamlScalar(n)
	q, err := parse.Quote(append(slices.Clip(argv), text.b.String()))
	if err != nil {
		q = strings.Join(argv, " ") + " " + placeholder("unquotable") // a NUL: code guard cannot see
	}
	var b builder
	start := 0
	if len(text.segs) > 0 {
		start = text.segs[0].src
	}
	b.put(q, start)
	x.emit(kind, ".", &b)
}
