package scan

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/guard-sh/guard/parse"
)

// Docker Compose builds the images its services name: a service's
// build.dockerfile is a Dockerfile whatever it is named (ci/Build.df,
// relative to build.context), and build.dockerfile_inline is one written
// in the compose file itself. Their RUN lines run on every 'docker compose
// build' or 'up'.

// isCompose reports whether a (lower-case) base name is a Compose file:
// compose.yaml, docker-compose.yml, and their overrides
// (docker-compose.override.yml, compose.prod.yaml).
func isCompose(lower string) bool {
	if !isYAML(lower) {
		return false
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(lower, ".yml"), ".yaml")
	for _, s := range []string{"compose", "docker-compose"} {
		if stem == s || strings.HasPrefix(stem, s+".") {
			return true
		}
	}
	return false
}

// composeBuilds calls f with every service's build mapping and the
// directory (slash-separated, from the root) its context names; a
// context elsewhere (a URL, a git repository, a path out of the
// repository) gives ok false.
func composeBuilds(name string, docs []*yaml.Node, f func(build *yaml.Node, context string, ok bool)) {
	for _, doc := range docs {
		services := resolve(lookup(resolve(doc), "services"))
		if services == nil || services.Kind != yaml.MappingNode {
			continue
		}
		for i := 1; i < len(services.Content); i += 2 {
			build := resolve(lookup(resolve(services.Content[i]), "build"))
			if build == nil || build.Kind != yaml.MappingNode {
				continue // a string is a context, whose Dockerfile is read by its name
			}
			context := "."
			if c := resolve(lookup(build, "context")); c != nil && c.Kind == yaml.ScalarNode {
				context = c.Value
			}
			dir := path.Join(path.Dir(name), context)
			ok := !strings.Contains(context, "://") && !strings.HasPrefix(context, "git@") && !path.IsAbs(context) && dir != ".." && !strings.HasPrefix(dir, "../")
			f(build, dir, ok)
		}
	}
}

// composeDockerfiles are the Dockerfiles (from the root) the Compose file
// name builds by a name of their own.
func composeDockerfiles(name string, src []byte) []string {
	var doc yaml.Node
	if len(src) == 0 || yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var out []string
	composeBuilds(name, doc.Content, func(build *yaml.Node, context string, ok bool) {
		d := resolve(lookup(build, "dockerfile"))
		if !ok || d == nil || d.Kind != yaml.ScalarNode || d.Value == "" || path.IsAbs(d.Value) {
			return
		}
		if p := path.Join(context, d.Value); p != ".." && !strings.HasPrefix(p, "../") {
			out = append(out, escapeGlob(p))
		}
	})
	return out
}

// escapeGlob quotes the glob characters of a file name, so it matches
// only itself.
func escapeGlob(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// composeRuntime are the members of a service that run commands in its
// container: command and entrypoint (a string or an argv), healthcheck's
// test (["CMD", argv…], ["CMD-SHELL", line] or a line), and the lifecycle
// hooks post_start and pre_stop (each a list of {command: …}). They are
// reviewed as commands of this machine, without the image adjustment a
// Dockerfile RUN gets: a service's container runs with the volumes the
// file binds (the home directory, the Docker socket).
func (x *extractor) composeRuntime(docs []*yaml.Node) {
	for _, doc := range docs {
		services := resolve(lookup(resolve(doc), "services"))
		if services == nil || services.Kind != yaml.MappingNode {
			continue
		}
		for i := 1; i < len(services.Content); i += 2 {
			svc := resolve(services.Content[i])
			for _, k := range []string{"command", "entrypoint"} {
				x.composeCommand(resolve(lookup(svc, k)), false)
			}
			x.composeCommand(resolve(lookup(resolve(lookup(svc, "healthcheck")), "test")), true)
			for _, k := range []string{"post_start", "pre_stop"} {
				if hooks := resolve(lookup(svc, k)); hooks != nil && hooks.Kind == yaml.SequenceNode {
					for _, h := range hooks.Content {
						x.composeCommand(resolve(lookup(resolve(h), "command")), false)
					}
				}
			}
		}
	}
}

// composeCommand emits one runtime command: a string as a command line,
// a list as an argv (a healthcheck's led by CMD, CMD-SHELL or NONE).
func (x *extractor) composeCommand(n *yaml.Node, health bool) {
	switch {
	case n == nil:
	case n.Kind == yaml.ScalarNode:
		if n.Tag != "!!null" && n.Value != "" {
			x.emit(Compose, x.dir, x.yamlScalar(n))
		}
	case n.Kind == yaml.SequenceNode:
		items := n.Content
		if health && len(items) > 0 {
			switch scalarString(items[0]) {
			case "NONE":
				return
			case "CMD-SHELL":
				if len(items) == 2 {
					x.composeCommand(resolve(items[1]), false)
					return
				}
				items = items[1:]
			case "CMD":
				items = items[1:]
			}
		}
		var b builder
		for k, it := range items {
			it = resolve(it)
			at := x.lines.offset(it.Line, it.Column)
			if k > 0 {
				b.put(" ", at)
			}
			w := placeholder("compose_value")
			if it.Kind == yaml.ScalarNode {
				q, err := parse.Quote([]string{it.Value})
				if err == nil {
					w = q
				}
			}
			b.put(w, at)
		}
		x.emit(Compose, x.dir, &b)
	default:
		// A mapping where a command goes: not one Compose runs; what
		// guard cannot read is not called safe.
		var b builder
		b.put(placeholder("compose_value"), x.lines.offset(n.Line, n.Column))
		x.emit(Compose, x.dir, &b)
	}
}

// compose reads the Dockerfiles a Compose file writes inline
// (build.dockerfile_inline) as Dockerfiles: their RUN lines, each mapped
// to its line in the compose file; and the commands its services run in
// their containers (composeRuntime).
func (x *extractor) compose() error {
	docs, err := x.yamlDocs()
	x.composeRuntime(docs)
	composeBuilds(x.name, docs, func(build *yaml.Node, context string, _ bool) {
		n := resolve(lookup(build, "dockerfile_inline"))
		if n == nil || n.Kind != yaml.ScalarNode {
			return
		}
		value := x.yamlScalar(n).snippet(x.name, Dockerfile, context, x.lines)
		inner := &extractor{name: x.name, src: []byte(value.Text), dir: context}
		inner.lines = newLineIndex(inner.src)
		inner.dockerfile()
		for _, s := range inner.out {
			// Each piece of the inline Dockerfile maps to where its
			// first byte is in the compose file.
			for k := range s.segs {
				s.segs[k] = segment{off: s.segs[k].off, src: value.srcOffset(s.segs[k].src)}
			}
			s.lines = x.lines
			x.out = append(x.out, s)
		}
	})
	return err
}
