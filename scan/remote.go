package scan

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// Configuration a CI system fetches from elsewhere and runs as its own: a
// GitLab include of a URL, another project or a CI/CD component; an Azure
// Pipelines template from another repository (PATH@alias); a CircleCI
// orb from the orb registry. Its commands run with the pipeline's
// secrets, and scan cannot read them: each is reported as code guard does
// not review (scan-unreviewed-code, B), never nothing. eed3eff said
// nothing about any of them.

// gitlabRemoteIncludes reports the includes of a GitLab CI file that are
// not in the repository: include: (at the top or under trigger:) of a
// URL, or of a mapping with remote, project, component or artifact (a
// child pipeline a job of the pipeline generates). GitLab's own
// templates (template:) are GitLab's code, not the repository's author's.
func (x *extractor) gitlabRemoteIncludes(docs []*yaml.Node) {
	var visit func(n *yaml.Node, depth int)
	visit = func(n *yaml.Node, depth int) {
		n = resolve(n)
		if n == nil || depth > 4 {
			return
		}
		switch n.Kind {
		case yaml.SequenceNode:
			for _, e := range n.Content {
				visit(e, depth+1)
			}
		case yaml.ScalarNode:
			if strings.Contains(n.Value, "://") {
				x.remote(GitLab, n, "GitLab includes "+printableList([]string{n.Value}))
			}
		case yaml.MappingNode:
			// artifact: a child pipeline a job generates while it runs.
			for _, k := range []string{"remote", "project", "component", "artifact"} {
				if v := resolve(lookup(n, k)); v != nil {
					x.remote(GitLab, v, "GitLab includes the "+k+" "+printableList([]string{scalarString(v)}))
					return
				}
			}
		}
	}
	walkKeys(docs, func(k string) bool { return k == "include" }, func(v *yaml.Node) { visit(v, 0) })
}

// azureRemoteTemplates reports the templates an Azure Pipelines file
// takes from another repository (template: PATH@alias, but not @self).
func (x *extractor) azureRemoteTemplates(docs []*yaml.Node) {
	// extends: {template: …} is a template key too, at its depth.
	walkKeys(docs, func(k string) bool { return k == "template" }, func(v *yaml.Node) {
		s := scalarString(v)
		if _, repo, ok := strings.Cut(s, "@"); ok && repo != "self" {
			x.remote(CI, v, "Azure Pipelines takes the template "+printableList([]string{s})+" from another repository")
		}
	})
}

// circleOrbs reports the orbs a CircleCI config takes from the orb
// registry (orbs: NAME: ns/orb@version); an orb written inline is read
// where it stands.
func (x *extractor) circleOrbs(docs []*yaml.Node) {
	for _, d := range docs {
		orbs := resolve(lookup(d, "orbs"))
		if orbs == nil || orbs.Kind != yaml.MappingNode {
			continue
		}
		for i := 1; i < len(orbs.Content); i += 2 {
			if v := resolve(orbs.Content[i]); v != nil && v.Kind == yaml.ScalarNode {
				x.remote(CI, v, "CircleCI takes the orb "+printableList([]string{v.Value})+" from the orb registry")
			}
		}
	}
}

// remote reports configuration fetched from elsewhere, at node n.
func (x *extractor) remote(kind Kind, n *yaml.Node, what string) {
	x.unreviewed(kind, x.lines.offset(n.Line, n.Column), "remote configuration:",
		what+" and runs its commands with the pipeline's secrets; guard cannot see them")
}

// isCircleCI reports whether name is a CircleCI configuration.
func isCircleCI(name string) bool {
	dir := path.Dir(name)
	return (dir == ".circleci" || strings.HasSuffix(dir, "/.circleci")) && isYAML(strings.ToLower(path.Base(name)))
}
