package scan

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// yamlDocs parses every document in the file (GitLab CI components put a
// spec header before a --- line).
func (x *extractor) yamlDocs() ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(x.src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, x.yamlError(err)
		}
		if len(n.Content) > 0 {
			docs = append(docs, n.Content[0])
		}
	}
}

var yamlErrorLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

func (x *extractor) yamlError(err error) *SyntaxError {
	msg := err.Error()
	line := 1
	if m := yamlErrorLine().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &SyntaxError{Path: x.name, Pos: Position{Line: line, Col: 1}, Msg: "yaml does not parse: " + msg}
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// lookup returns the value of key in a mapping node, following aliases and
// merge keys (<<: *defaults); nil if absent.
func lookup(m *yaml.Node, key string) *yaml.Node {
	return lookupDepth(m, key, 0)
}

func lookupDepth(m *yaml.Node, key string, depth int) *yaml.Node {
	m = resolve(m)
	if m == nil || m.Kind != yaml.MappingNode || depth > 8 {
		return nil
	}
	var merged []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Value == key && k.Kind == yaml.ScalarNode && k.Tag != "!!merge" {
			return m.Content[i+1]
		}
		if k.Tag == "!!merge" || k.Value == "<<" {
			merged = append(merged, m.Content[i+1])
		}
	}
	for _, v := range merged {
		v = resolve(v)
		if v == nil {
			continue
		}
		if v.Kind == yaml.SequenceNode {
			for _, e := range v.Content {
				if r := lookupDepth(e, key, depth+1); r != nil {
					return r
				}
			}
			continue
		}
		if r := lookupDepth(v, key, depth+1); r != nil {
			return r
		}
	}
	return nil
}

// scalarString returns the value of a scalar node ("" for anything else).
func scalarString(n *yaml.Node) string {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// yamlScalar builds the text of a scalar node with its mapping to the
// file. Block scalars map line by line (the indentation YAML strips is
// accounted for); plain and quoted single-line scalars map byte for byte.
// When the file's bytes cannot be matched to the value (escapes, folded
// multi-line flow scalars), every byte maps to where the value starts.
func (x *extractor) yamlScalar(n *yaml.Node) *builder {
	start := x.lines.offset(n.Line, n.Column)
	if start >= len(x.src) {
		start = max(len(x.src)-1, 0)
	}
	v := n.Value
	var b builder
	if n.Tag == "!!binary" {
		// A loader that honours the tag hands the tool the decoded
		// bytes: run: !!binary Y3VybCDigKYgfCBzaA== is curl … | sh, not a
		// word of base64 (it was reviewed as that word, A).
		if d, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), "")); err == nil {
			b.put(string(d), start)
			return &b
		}
	}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		if x.blockScalar(&b, n, start) {
			return &b
		}
		b = builder{}
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		if from := start + 1; from+len(v) <= len(x.src) && string(x.src[from:from+len(v)]) == v {
			b.copy(x.src, from, from+len(v))
			return &b
		}
		start++
	default:
		if start+len(v) <= len(x.src) && string(x.src[start:start+len(v)]) == v {
			b.copy(x.src, start, start+len(v))
			return &b
		}
	}
	b.put(v, start)
	return &b
}

// blockLine is one line of a block scalar's content in the file.
type blockLine struct {
	from, to int // content after the indentation, without the line break
	eol      int // offset of the line break
	blank    bool
}

// blockScalar rebuilds a | or > scalar from the file's lines and checks the
// result against the decoded value; false if they differ.
func (x *extractor) blockScalar(b *builder, n *yaml.Node, start int) bool {
	folded := n.Style&yaml.FoldedStyle != 0
	var content []blockLine
	ind := -1
	for ln := n.Line + 1; ln <= len(x.lines.starts); ln++ {
		line := x.lines.line(ln)
		ls := x.lines.lineStart(ln)
		eol := ls + len(line)
		line = bytes.TrimSuffix(line, []byte("\r"))
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		if sp == len(line) {
			from := ls + min(sp, max(ind, 0))
			content = append(content, blockLine{from: from, to: ls + len(line), eol: eol, blank: ind < 0 || sp <= ind})
			continue
		}
		if ind < 0 {
			ind = sp
		}
		if sp < ind {
			break
		}
		content = append(content, blockLine{from: ls + ind, to: ls + len(line), eol: eol})
	}
	if ind <= 0 {
		return false
	}
	for i := range content {
		if content[i].blank {
			content[i].from = content[i].to
		}
	}
	if folded {
		foldLines(b, x.src, content)
	} else {
		for _, l := range content {
			b.copy(x.src, l.from, l.to)
			b.put("\n", l.eol)
		}
	}
	got := b.b.String()
	if !strings.HasPrefix(got, n.Value) {
		return false
	}
	b.truncate(len(n.Value))
	return true
}

// foldLines applies YAML's line folding for > scalars: a line break
// between two lines of normal text becomes a space, empty lines stand for
// line breaks, and more-indented lines keep theirs.
func foldLines(b *builder, src []byte, content []blockLine) {
	started, prevMore := false, false
	empty, last := 0, len(src)
	for _, l := range content {
		last = l.eol
		if l.blank || l.from == l.to {
			empty++
			continue
		}
		more := src[l.from] == ' ' || src[l.from] == '\t'
		switch {
		case !started:
			b.put(strings.Repeat("\n", empty), l.from)
		case !prevMore && !more && empty == 0:
			b.put(" ", l.from)
		case !prevMore && !more:
			b.put(strings.Repeat("\n", empty), l.from)
		default:
			b.put(strings.Repeat("\n", empty+1), l.from)
		}
		b.copy(src, l.from, l.to)
		started, prevMore, empty = true, more, 0
	}
	b.put(strings.Repeat("\n", empty+1), last)
}

// githubExprs replaces ${{ … }} expressions, which the runner substitutes
// before the shell sees the script, by shell parameters.
func githubExprs(s *Snippet) {
	var edits []edit
	t := s.Text
	for i := 0; ; {
		j := strings.Index(t[i:], "${{")
		if j < 0 {
			break
		}
		j += i
		k := strings.Index(t[j+3:], "}}")
		if k < 0 {
			break
		}
		end := j + 3 + k + 2
		if rule, ref := untrustedExpr(t[j+3 : end-2]); rule != "" {
			s.Injections = append(s.Injections, Injection{Position: s.Pos(j), Rule: rule, Ref: ref,
				How: "is written into the script before the shell starts"})
		}
		edits = append(edits, edit{from: j, to: end, with: placeholder(t[j+3 : end-2])})
		i = end
	}
	s.rewrite(edits)
}
