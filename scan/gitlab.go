package scan

import (
	"gopkg.in/yaml.v3"
)

// gitlabScriptKeys are the keys of a GitLab CI job (or of default:, or the
// top level) whose values are shell: a string or a list of strings, lists
// nested by anchors included.
var gitlabScriptKeys = []string{"before_script", "script", "after_script"}

// gitlab reads the script lines of a .gitlab-ci.yml. Each list item is a
// command of its own. !reference tags are skipped: what they point to is
// read where it is written.
func (x *extractor) gitlab() error {
	docs, err := x.yamlDocs()
	seen := map[*yaml.Node]bool{}
	for _, doc := range docs {
		doc = resolve(doc)
		if doc == nil || doc.Kind != yaml.MappingNode {
			continue
		}
		x.gitlabJob(doc, seen)
		for i := 1; i < len(doc.Content); i += 2 {
			x.gitlabJob(doc.Content[i], seen)
		}
	}
	return err
}

func (x *extractor) gitlabJob(job *yaml.Node, seen map[*yaml.Node]bool) {
	for _, k := range gitlabScriptKeys {
		x.gitlabScript(lookup(job, k), seen, 0)
	}
}

func (x *extractor) gitlabScript(n *yaml.Node, seen map[*yaml.Node]bool, depth int) {
	n = resolve(n)
	if n == nil || seen[n] || depth > 8 || n.Tag == "!reference" {
		return
	}
	seen[n] = true
	switch n.Kind {
	case yaml.ScalarNode:
		if s := x.emit(GitLab, ".", x.yamlScalar(n)); s != nil {
			gitlabInjections(s)
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			x.gitlabScript(e, seen, depth+1)
		}
	}
}
