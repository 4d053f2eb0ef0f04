package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// gitlabIncluded marks the files a GitLab CI file includes from the
// repository (include: local, or a plain path; globs too) as GitLab CI:
// GitLab runs their jobs' scripts, whatever the files are named
// (ci/build.yml). Includes of includes count. A file that cannot be read
// or parsed here includes nothing: its own scan reports that.
func gitlabIncluded(root string, files []File) []File {
	return included(root, files, GitLab, func(_ string, src []byte) []string { return gitlabLocalIncludes(src) })
}

// included marks the files that files of kind include as that kind:
// includes(name, src) gives the slash-separated patterns, from the root,
// of the files the file name includes. Includes of includes count; a file
// that already has a kind keeps it.
func included(root string, files []File, kind Kind, includes func(name string, src []byte) []string) []File {
	return includedAs(root, files, kind, kind, includes)
}

// includedAs marks the files that files of kind from name as kind to (a
// compose file's build.dockerfile is a Dockerfile); when from and to are
// the same, what those files include counts too.
func includedAs(root string, files []File, from, kind Kind, includes func(name string, src []byte) []string) []File {
	// The files' names sorted: a pattern is matched only against the
	// names under its static directory, a plain name is one search (a
	// tree of Makefiles names many patterns).
	order := make([]int, len(files))
	var todo []int
	for i, f := range files {
		order[i] = i
		if f.Kind() == from {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return files
	}
	sort.Slice(order, func(a, b int) bool { return files[order[a]].Path < files[order[b]].Path })
	under := func(prefix string) []int {
		lo := sort.Search(len(order), func(k int) bool { return files[order[k]].Path >= prefix })
		hi := lo
		for hi < len(order) && strings.HasPrefix(files[order[hi]].Path, prefix) {
			hi++
		}
		return order[lo:hi]
	}
	out := files
	copied := false
	for len(todo) > 0 {
		at := todo[0]
		f := out[at]
		todo = todo[1:]
		src := f.Src
		if src == nil && f.Err == nil {
			var err error
			if src, err = f.source(root, true); err != nil && f.blob != "" {
				// A staged blob git does not give: the file is
				// scanned as unreadable (C), never dropped as context.
				if !copied {
					out, copied = append([]File(nil), files...), true
				}
				out[at].Err, out[at].context = err, false
			}
		}
		for _, pat := range includes(f.Path, src) {
			var candidates []int
			if meta := strings.IndexAny(pat, `*?[{\`); meta < 0 {
				candidates = under(pat)
			} else if slash := strings.LastIndex(pat[:meta], "/"); slash >= 0 {
				candidates = under(pat[:slash+1])
			} else {
				candidates = order
			}
			for _, i := range candidates {
				if ok, _ := doublestar.Match(pat, files[i].Path); !ok || out[i].Kind() != "" {
					continue
				}
				if !copied {
					out, copied = append([]File(nil), files...), true
				}
				out[i].kind = kind
				if from == kind {
					todo = append(todo, i)
				}
			}
		}
	}
	return out
}

// gitlabLocalIncludes are the patterns of the repository files a GitLab
// CI file includes: include: PATH, include: [PATH, {local: PATH}, …] or
// include: {local: PATH}; remote URLs, project and template includes are
// not in the repository. Slash-separated, from the root.
func gitlabLocalIncludes(src []byte) []string {
	var doc yaml.Node
	if len(src) == 0 || yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	inc := lookup(resolve(doc.Content[0]), "include")
	var out []string
	add := func(n *yaml.Node) {
		n = resolve(n)
		if n != nil && n.Kind == yaml.MappingNode {
			n = resolve(lookup(n, "local"))
		}
		if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" || strings.Contains(n.Value, "://") {
			return
		}
		out = append(out, path.Clean(strings.TrimPrefix(n.Value, "/")))
	}
	if inc = resolve(inc); inc != nil && inc.Kind == yaml.SequenceNode {
		for _, e := range inc.Content {
			add(e)
		}
	} else {
		add(inc)
	}
	return out
}

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
	x.gitlabRemoteIncludes(docs)
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
