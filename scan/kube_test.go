package scan

import (
	"slices"
	"strings"
	"testing"
)

// TestKubeWorkflowDetect: Tekton and Argo files are known by their
// apiVersion whatever their name and layout (a list item, flow style,
// quoted), and Tekton's by .tekton/; other Kubernetes resources and
// non-YAML files are not. eed3eff knew none of them.
func TestKubeWorkflowDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"ci/task.yaml", "apiVersion: tekton.dev/v1\nkind: Task\n", true},
		{"ci/task.yml", "# c\n---\n\"apiVersion\": \"tekton.dev/v1beta1\"\n", true},
		{"x.yaml", "{apiVersion: argoproj.io/v1alpha1, kind: Workflow}\n", true},
		{"list.yaml", "items:\n- apiVersion: triggers.tekton.dev/v1beta1\n", true},
		{"deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\n", false},
		{"notes.md", "apiVersion: tekton.dev/v1\n", false},
		{"doc.yaml", "description: see apiVersion: tekton.dev/v1 docs\n", false},
	} {
		if got := isKubeWorkflow(c.name, []byte(c.head)); got != c.want {
			t.Errorf("isKubeWorkflow(%q, %q) = %v, want %v", c.name, c.head, got, c.want)
		}
	}
	if KindOf(".tekton/push.yaml") != KubeWorkflow || KindOf("sub/.tekton/pr.yml") != KubeWorkflow || KindOf(".tekton/README.md") != "" {
		t.Errorf("KindOf .tekton files: %q %q %q", KindOf(".tekton/push.yaml"), KindOf("sub/.tekton/pr.yml"), KindOf(".tekton/README.md"))
	}
}

// TestKubeWorkflowCommands: what is read, and how references Tekton and
// Argo fill in are written for the review.
func TestKubeWorkflowCommands(t *testing.T) {
	src := "apiVersion: tekton.dev/v1\nkind: Task\nspec:\n  steps:\n    - name: a\n      script: |\n        make $(params.target)\n    - name: b\n      command: [\"git\", \"clone\"]\n      args: [\"$(params.url)\", \"{{inputs.parameters.dir}}\"]\n    - name: c\n      script: \"#!/bin/bash\\necho hi\"\n"
	snips, err := Extract("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range snips {
		if s.Kind != KubeWorkflow {
			t.Errorf("snippet %q has kind %q", s.Text, s.Kind)
		}
		texts = append(texts, strings.TrimSpace(s.Text))
	}
	want := []string{"make ${params_target}", "git clone '${params_url}' '${inputs_parameters_dir}'", "#!/bin/bash\necho hi"}
	if !slices.Equal(texts, want) {
		t.Errorf("commands %q, want %q", texts, want)
	}

	// Other resources beside them, and Argo's that are not workflows (a
	// Rollout's containers run in a cluster), are not read.
	src = "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nspec:\n  template:\n    spec:\n      containers:\n        - command: [sh, -c, rm -rf /cache]\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nspec:\n  containers:\n    - command: [rm, -rf, /]\n---\n" +
		"apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nspec:\n  workflowSpec:\n    templates:\n      - container:\n          command: [make]\n"
	snips, err = Extract("deploy.yaml", []byte(src))
	texts = nil
	for _, s := range snips {
		texts = append(texts, s.Text)
	}
	if err != nil || !slices.Equal(texts, []string{"make"}) {
		t.Errorf("mixed file: %q (err %v), want the CronWorkflow's make only", texts, err)
	}
}
