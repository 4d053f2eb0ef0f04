package scan

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/guard-sh/guard/parse"
)

// Tekton (tekton.dev: Task, Pipeline, PipelineRun, StepAction, in .tekton/
// for Pipelines-as-Code, which runs them on every pull request with the
// repository's secrets) and Argo Workflows (argoproj.io: Workflow,
// WorkflowTemplate, CronWorkflow) are YAML files of any name. They are
// known by their apiVersion, in the head of the file, and by .tekton/.

// kubeHeadSize is how much of a YAML file of no known name is read to
// find a Tekton or Argo apiVersion (a licence header comes first).
const kubeHeadSize = 4096

// kubeAPIVersion matches the apiVersion line of a Tekton or Argo
// resource.
var kubeAPIVersion = sync.OnceValue(func() *regexp.Regexp {
	// At a line's start, in a list item, or in flow style ({apiVersion: …}).
	return regexp.MustCompile(`(?m)(?:^|[{,])[ \t-]*["']?apiVersion["']?[ \t]*:[ \t]*["']?(?:[a-z0-9.-]*tekton\.dev|argoproj\.io)/`)
})

// isKubeWorkflow reports whether a YAML file's head declares a Tekton or
// Argo resource.
func isKubeWorkflow(name string, head []byte) bool {
	return isYAML(strings.ToLower(path.Base(name))) && kubeAPIVersion().Match(head)
}

// tektonDir reports whether dir is a Pipelines-as-Code directory.
func tektonDir(dir string) bool {
	return dir == ".tekton" || strings.HasSuffix(dir, "/.tekton")
}

// kubeWorkflow reads the commands of a Tekton or Argo file, in every
// mapping at any depth:
//
//   - script (a Tekton step, sidecar or StepAction): shell, run by sh
//     unless its #! line names another interpreter (then it is code guard
//     does not review, reported);
//   - source beside command (an Argo script template): shell when command
//     names a shell, else code guard does not review;
//   - command, with args after it (a container, a Tekton step): the
//     command line they make, as it would be run.
//
// $(params.x) (Tekton) and {{inputs.parameters.x}} (Argo) are filled in
// before anything runs: they are words guard cannot know.
func (x *extractor) kubeWorkflow() error {
	docs, err := x.yamlDocs()
	for _, d := range docs {
		if x.kubeRuns(d) {
			walkMaps([]*yaml.Node{d}, x.kubeCommands)
		}
	}
	for i := range x.out {
		kubeExprs(&x.out[i])
	}
	return err
}

// argoWorkflowKinds are the Argo resources that run steps as a workflow
// (Argo CD's Application, Rollouts and Events share argoproj.io: their
// containers run in a cluster as a deployment does, and are not read).
var argoWorkflowKinds = []string{"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"}

// kubeRuns reports whether a document of the file is one whose steps
// kubeWorkflow reads: a Tekton resource, an Argo workflow, or, in
// .tekton/, a document that names no apiVersion. Another resource in
// the same file (a Deployment beside a Task) is not.
func (x *extractor) kubeRuns(doc *yaml.Node) bool {
	api := scalarString(lookup(doc, "apiVersion"))
	switch {
	case api == "":
		return tektonDir(x.dir)
	case strings.Contains(api, "tekton.dev/"):
		return true
	case strings.HasPrefix(api, "argoproj.io/"):
		return slices.Contains(argoWorkflowKinds, scalarString(lookup(doc, "kind")))
	}
	return false
}

// kubeCommands emits the commands of one mapping (kubeWorkflow).
func (x *extractor) kubeCommands(m *yaml.Node) {
	at := func(n *yaml.Node) int { return x.lines.offset(n.Line, n.Column) }
	x.kubeRemote(m)
	command := resolve(lookup(m, "command"))
	if src := resolve(lookup(m, "source")); src != nil && src.Kind == yaml.ScalarNode && command != nil {
		// An Argo script template: command runs the file holding source.
		argv, _ := yamlStrings(command)
		if len(argv) > 0 && isShellProgram(argv[0]) {
			x.emit(KubeWorkflow, ".", x.yamlScalar(src))
		} else {
			x.unreviewed(KubeWorkflow, at(src), "script source:",
				"Argo runs this script with "+printableList(argv)+", not a shell; guard does not review it")
		}
		return
	}
	if s := resolve(lookup(m, "script")); s != nil && s.Kind == yaml.ScalarNode {
		b := x.yamlScalar(s)
		text := strings.TrimLeft(b.b.String(), " \t\r\n")
		if !strings.HasPrefix(text, "#!") || isShebangShell([]byte(text)) {
			// Tekton runs a script without a #! line with sh.
			x.emit(KubeWorkflow, ".", b)
		} else {
			x.unreviewed(KubeWorkflow, at(s), "step script:",
				"Tekton runs this script with the interpreter its #! line names, not a shell; guard does not review it")
		}
	}
	args := resolve(lookup(m, "args"))
	if command == nil {
		// A container's args without a command go to the image's
		// entrypoint; an image with none (alpine) runs them as the
		// command: read as one, the worse reading (clean on 92e44db).
		if args == nil || lookup(m, "image") == nil || lookup(m, "script") != nil {
			return
		}
		command, args = args, nil
	}
	argv, ok := yamlStrings(command)
	if ok && args != nil {
		more, ok2 := yamlStrings(args)
		argv, ok = append(argv, more...), ok2
	}
	if !ok {
		x.unreviewed(KubeWorkflow, at(command), "command:",
			"the container runs this command, which guard cannot read as a list of words")
		return
	}
	if len(argv) == 0 {
		return
	}
	q, err := parse.Quote(argv)
	if err != nil {
		q = placeholder("unquotable") // a NUL: a command guard cannot see
	}
	var b builder
	b.put(q, at(command))
	x.emit(KubeWorkflow, ".", &b)
}

// kubeRemote reports the steps a Tekton file fetches from elsewhere and
// runs, which scan cannot see: a taskRef, pipelineRef or stepRef with a
// resolver other than the cluster's (git, hub, bundles, http), an OCI
// bundle, and Pipelines-as-Code's task and pipeline annotations (a name
// on Tekton Hub or Artifact Hub, a URL, a path in another repository).
func (x *extractor) kubeRemote(m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		at := x.lines.offset(k.Line, k.Column)
		switch {
		case k.Value == "resolver" && v.Value != "cluster":
			x.unreviewed(KubeWorkflow, at, "remote task:",
				"Tekton fetches this task with the "+printableList([]string{v.Value})+" resolver and runs its steps; guard cannot see them")
		case k.Value == "bundle":
			x.unreviewed(KubeWorkflow, at, "remote task:",
				"Tekton fetches this task from an OCI bundle and runs its steps; guard cannot see them")
		case strings.HasPrefix(k.Value, "pipelinesascode.tekton.dev/task") || strings.HasPrefix(k.Value, "pipelinesascode.tekton.dev/pipeline"):
			x.unreviewed(KubeWorkflow, at, "remote task:",
				"Pipelines-as-Code fetches "+printableList([]string{v.Value})+" and runs its steps; guard cannot see them")
		}
	}
}

// printableList is words for a message, with what a terminal would
// interpret removed.
func printableList(words []string) string {
	s := strings.Join(words, " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}

// yamlStrings is a sequence of scalars (or one scalar) as strings; false
// when it holds anything else.
func yamlStrings(n *yaml.Node) ([]string, bool) {
	n = resolve(n)
	switch {
	case n == nil:
		return nil, true
	case n.Kind == yaml.ScalarNode:
		return []string{n.Value}, true
	case n.Kind != yaml.SequenceNode:
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		c = resolve(c)
		if c == nil || c.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, c.Value)
	}
	return out, true
}

// isShellProgram reports whether a command's program is a shell guard
// reviews (sh, bash, /bin/sh, /usr/bin/env bash is not resolved: a
// launcher is not a shell).
func isShellProgram(p string) bool {
	for _, s := range shells {
		if path.Base(p) == s {
			return true
		}
	}
	return false
}

// kubeExprs replaces the references Tekton ($(params.x), $(results.y.path),
// $(workspaces.w.path), $(context.…)) and Argo ({{inputs.parameters.x}},
// {{workflow.name}}) fill in before the step runs by shell parameters:
// words whose value guard cannot know, which is the truth.
func kubeExprs(s *Snippet) {
	var edits []edit
	t := s.Text
	for i := 0; i < len(t); {
		j := strings.IndexAny(t[i:], "${")
		if j < 0 {
			break
		}
		j += i
		// Both open with two bytes; "$(" closes with one, "{{" with two.
		end, closeLen := -1, 0
		switch {
		case strings.HasPrefix(t[j:], "$(") && tektonRef(t[j+2:]):
			if k := strings.IndexByte(t[j+2:], ')'); k >= 0 {
				end, closeLen = j+2+k+1, 1
			}
		case strings.HasPrefix(t[j:], "{{"):
			if k := strings.Index(t[j+2:], "}}"); k >= 0 && !strings.ContainsAny(t[j+2:j+2+k], "\n{") {
				end, closeLen = j+2+k+2, 2
			}
		}
		if end < 0 {
			i = j + 1
			continue
		}
		inner := strings.TrimSpace(t[j+2 : end-closeLen])
		edits = append(edits, edit{from: j, to: end, with: placeholder(inner)})
		i = end
	}
	s.rewrite(edits)
}

// tektonRefs are the roots of Tekton's variable substitutions.
var tektonRefs = []string{"params.", "params[", "context.", "results.", "workspaces.", "steps.", "step.", "tasks.", "inputs.", "outputs.", "resources.", "credentials.", "artifacts."}

// tektonRef reports whether the text after "$(" is a Tekton reference
// (not a command substitution).
func tektonRef(rest string) bool {
	for _, r := range tektonRefs {
		if strings.HasPrefix(rest, r) {
			k := strings.IndexByte(rest, ')')
			return k > 0 && !strings.ContainsAny(rest[:k], " \t\n;|&$`(")
		}
	}
	return false
}
