package scan

import (
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/guard-sh/guard/parse"
)

// workflow reads the run steps of a GitHub Actions workflow
// (jobs.<id>.steps[].run) or of a composite action (runs.steps[].run).
// Steps that run under another shell (python, pwsh, cmd) are skipped, as
// are steps without a shell on Windows runners, which default to pwsh.
func (x *extractor) workflow() error {
	docs, err := x.yamlDocs()
	for _, doc := range docs {
		wfShell, wfDir := runDefaults(doc)
		jobs := resolve(lookup(doc, "jobs"))
		if jobs != nil && jobs.Kind == yaml.MappingNode {
			for i := 1; i < len(jobs.Content); i += 2 {
				job := jobs.Content[i]
				shell, dir := runDefaults(job)
				if shell == nil {
					shell = wfShell
				}
				if dir == "" {
					dir = wfDir
				}
				x.steps(lookup(job, "steps"), shell, dir, onWindows(lookup(job, "runs-on")))
			}
		}
		runs := lookup(doc, "runs")
		switch using := strings.ToLower(scalarString(lookup(runs, "using"))); {
		case using == "composite":
			x.steps(lookup(runs, "steps"), nil, "", false)
		case using == "docker":
			x.dockerAction(runs)
		case strings.HasPrefix(using, "node"):
			// A JavaScript action: the runner runs these files with
			// node, on the runner, with the job's token.
			for _, k := range []string{"pre", "main", "post"} {
				if v := resolve(lookup(runs, k)); v != nil && scalarString(v) != "" {
					x.unreviewed(Workflow, x.lines.offset(v.Line, v.Column), "JavaScript action "+k+":",
						"the runner runs "+printableList([]string{scalarString(v)})+" with node wherever a workflow uses this action; guard does not review JavaScript")
				}
			}
		}
	}
	return err
}

// dockerAction reads a Docker container action's commands: entrypoint
// with args (the container's command line), and pre-entrypoint and
// post-entrypoint, which run in the same container before and after.
// eed3eff read none of them (an action.yml with entrypoint /bin/sh and
// args -c 'curl … | sh' was clean). args without an entrypoint go to
// the image's own, which scan cannot see; an image with none (alpine,
// debian, ubuntu) runs args as the command: they are read as one, the
// worse reading (args sh -c 'curl … | sh' was clean on 64298a6).
func (x *extractor) dockerAction(runs *yaml.Node) {
	args, _ := yamlStrings(lookup(runs, "args"))
	entrypoint := scalarString(lookup(runs, "entrypoint"))
	for _, k := range []string{"pre-entrypoint", "entrypoint", "post-entrypoint", "args"} {
		v := resolve(lookup(runs, k))
		argv := []string{scalarString(v)}
		switch k {
		case "entrypoint":
			argv = append(argv, args...)
		case "args":
			if entrypoint != "" {
				continue // the entrypoint's, above
			}
			argv = args
		}
		if v == nil || len(argv) == 0 || argv[0] == "" {
			continue
		}
		q, err := parse.Quote(argv)
		if err != nil {
			q = placeholder("unquotable")
		}
		var b builder
		b.put(q, x.lines.offset(v.Line, v.Column))
		if s := x.emit(Workflow, ".", &b); s != nil {
			githubExprs(s)
		}
	}
}

// runDefaults reads defaults.run.shell and defaults.run.working-directory.
func runDefaults(n *yaml.Node) (shell *yaml.Node, dir string) {
	run := lookup(lookup(n, "defaults"), "run")
	return lookup(run, "shell"), scalarString(lookup(run, "working-directory"))
}

// steps reads a list of steps. Without a shell: anywhere, a step runs
// under bash, or pwsh on a Windows runner.
func (x *extractor) steps(steps *yaml.Node, shell *yaml.Node, dir string, windows bool) {
	steps = resolve(steps)
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	for _, step := range steps.Content {
		if script := githubScript(step); script != nil {
			// JavaScript, not shell, but ${{ }} is substituted into it
			// the same way: keep it only for what it injects.
			s := x.yamlScalar(script).snippet(x.name, Workflow, ".", x.lines)
			if githubExprs(&s); len(s.Injections) > 0 {
				s.NotShell = true
				x.out = append(x.out, s)
			}
		}
		run := resolve(lookup(step, "run"))
		if run == nil || run.Kind != yaml.ScalarNode {
			continue
		}
		sh := shell
		if s := lookup(step, "shell"); s != nil {
			sh = s
		}
		d := dir
		if s := scalarString(lookup(step, "working-directory")); s != "" {
			d = s
		}
		if sh != nil && shellTemplateRuns(scalarString(sh)) {
			// shell: is itself a command line the runner starts
			// (bash -c "CMD" {0}): it is reviewed as one.
			if s := x.emit(Workflow, workDir(d), x.yamlScalar(resolve(sh))); s != nil {
				githubExprs(s)
			}
		}
		if sh == nil && windows || sh != nil && !isShellCommand(scalarString(sh)) {
			// Not shell, but ${{ }} is substituted into any language's
			// script: keep the step only for what it injects.
			s := x.yamlScalar(run).snippet(x.name, Workflow, ".", x.lines)
			if githubExprs(&s); len(s.Injections) > 0 {
				s.NotShell = true
				x.out = append(x.out, s)
			}
			// The code itself is reviewed as the command line that runs
			// it (pwsh -Command, python3 -c, cmd /c): code guard does not
			// review is B at least, never dropped.
			name := "pwsh"
			if sh != nil {
				name, _, _ = strings.Cut(strings.TrimSpace(scalarString(sh)), " ")
			}
			argv := interpreterArgv(name)
			if strings.EqualFold(name, "cmd") {
				argv = []string{"cmd", "/c"}
			}
			if argv != nil {
				x.emitWrapped(Workflow, argv, run)
				continue
			}
			if sh != nil {
				// A program guard has no command line for (shell:
				// ./tools/run.sh {0}; deno and bun are node's row of
				// interpreters, reviewed above) runs the
				// step: that program is reviewed as the command line
				// the runner starts, and the script it is handed is
				// code guard does not review. Both were dropped.
				if !shellTemplateRuns(scalarString(sh)) {
					if s := x.emit(Workflow, workDir(d), x.yamlScalar(resolve(sh))); s != nil {
						githubExprs(s)
					}
				}
				x.unreviewed(Workflow, x.lines.offset(run.Line, run.Column), "shell "+name+":", "the runner hands this step's script to that program; guard does not review it")
			}
			continue
		}
		if s := x.emit(Workflow, workDir(d), x.yamlScalar(run)); s != nil {
			githubExprs(s)
		}
	}
}

// githubScript is the with.script of an actions/github-script step (code
// the action runs, into which ${{ }} is substituted first), or nil.
func githubScript(step *yaml.Node) *yaml.Node {
	uses := strings.ToLower(scalarString(lookup(step, "uses")))
	if uses != "actions/github-script" && !strings.HasPrefix(uses, "actions/github-script@") {
		return nil
	}
	script := resolve(lookup(lookup(step, "with"), "script"))
	if script == nil || script.Kind != yaml.ScalarNode {
		return nil
	}
	return script
}

// isShellCommand reports whether a workflow shell: value runs sh or bash
// ("bash", "sh", "bash -e {0}", "/usr/bin/bash --noprofile {0}"). A value
// built from an expression cannot be known and counts as shell, so the step
// is reviewed.
func isShellCommand(s string) bool {
	if strings.Contains(s, "${{") {
		return true
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	return slices.Contains(shells, strings.TrimSuffix(path.Base(f[0]), ".exe"))
}

// shellTemplateRuns reports whether a custom shell: value does more than
// start a shell on the step's script: anything but the program, its
// options (with the value of -o, also in a cluster) and {0} (bash -c "CMD" {0}, sh -c CMD).
func shellTemplateRuns(s string) bool {
	f := strings.Fields(s)
	for i := 1; i < len(f); i++ {
		switch w := f[i]; {
		case w == "{0}":
		case len(w) > 1 && (w[0] == '-' || w[0] == '+') && w[1] != '-' && !strings.Contains(w, "c") && strings.HasSuffix(w, "o"):
			i++ // -o pipefail, -eo pipefail
		case strings.HasPrefix(w, "-") && !strings.Contains(strings.TrimLeft(w, "-"), "c") || strings.HasPrefix(w, "--"):
		default:
			return true
		}
	}
	return false
}

// onWindows reports whether runs-on names only Windows runners.
func onWindows(n *yaml.Node) bool {
	n = resolve(n)
	if n == nil {
		return false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return strings.Contains(strings.ToLower(n.Value), "windows") && !strings.Contains(n.Value, "${{")
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if onWindows(e) {
				return true
			}
		}
	}
	return false
}

// workDir turns a working-directory value into a directory relative to the
// repository root; anything it cannot place (absolute, an expression,
// leaving the root) is the root.
func workDir(d string) string {
	if d == "" || strings.Contains(d, "${{") || path.IsAbs(d) {
		return "."
	}
	d = path.Clean(d)
	if d == ".." || strings.HasPrefix(d, "../") {
		return "."
	}
	return d
}
