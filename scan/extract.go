package scan

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// SyntaxError is a file scan could not read as the kind its name says:
// YAML or JSON that does not parse. Shell that does not parse is the
// reviewer's to judge, not an error here.
type SyntaxError struct {
	Path string
	Pos  Position
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Extract finds the shell in one file. name is the file's path relative to
// the repository root, slash-separated; it decides the kind (see KindOf),
// and a file whose name says nothing is a script when its first line is a
// sh or bash shebang. A file that holds no shell gives no snippets.
//
// The error is a *SyntaxError when the file's own format (YAML, JSON) does
// not parse; the snippets found before the error, if any, are returned too.
func Extract(name string, src []byte) ([]Snippet, error) {
	return ExtractKind(name, KindOf(name), src)
}

// ExtractKind is Extract with the kind known from elsewhere (a file that
// .gitlab-ci.yml includes is GitLab CI whatever its name); "" is Extract.
func ExtractKind(name string, kind Kind, src []byte) ([]Snippet, error) {
	if kind == "" {
		kind = KindOf(name)
	}
	if kind == "" && isShebangShell(src) {
		kind = Script
	}
	if kind == "" && isKubeWorkflow(name, src[:min(len(src), kubeHeadSize)]) {
		kind = KubeWorkflow
	}
	if kind == "" {
		return nil, nil
	}
	// .npmrc's reader reports a value with a NUL byte where it is
	// (scan-unreviewed-code); every other reader gets text without one.
	src, msg := textOf(name, src, kind == NPMRC)
	if msg != "" {
		return nil, &SyntaxError{Path: name, Pos: Position{Line: 1, Col: 1}, Msg: msg}
	}
	x := &extractor{name: name, src: src, lines: newLineIndex(src), dir: path.Dir(name)}
	var err error
	switch kind {
	case Script:
		x.script()
	case Workflow:
		err = x.workflow()
	case GitLab:
		err = x.gitlab()
	case Makefile:
		x.makefile()
	case Dockerfile:
		x.dockerfile()
	case NPM:
		err = x.npm()
	case Composer:
		err = x.composer()
	case NPMRC:
		x.npmrc()
	case Yarnrc:
		err = x.yarnrc()
	case CI:
		if isJenkinsfile(strings.ToLower(path.Base(name))) {
			err = x.jenkinsfile()
		} else {
			err = x.ci()
		}
	case VSCode:
		err = x.vscodeTasks()
	case VSCodeSettings:
		err = x.vscodeSettings()
	case DevContainer:
		err = x.devcontainer()
	case Just:
		x.justfile()
	case Procfile:
		x.procfile()
	case Mise:
		err = x.mise()
	case Pyproject:
		err = x.pyproject()
	case Tox:
		err = x.tox()
	case Devbox:
		err = x.jsonTasks(devboxTasks)
	case Earthly:
		x.earthfile()
	case Deno:
		err = x.jsonTasks(denoTasks)
	case CargoMake:
		err = x.cargoMake()
	case Netlify:
		err = x.netlify()
	case AppVeyor:
		err = x.appveyor()
	case GitConfig:
		err = x.gitConfig()
	case Compose:
		err = x.compose()
	case Rake:
		x.rakefile()
	case Vagrant:
		x.vagrantfile()
	case KubeWorkflow:
		err = x.kubeWorkflow()
	case AgentConfig:
		err = x.agentConfig()
	case Unreviewed:
		x.unreviewedCode()
	}
	return x.out, err
}

// extractor holds one file being read and the snippets found so far.
type extractor struct {
	name  string
	src   []byte
	lines *lineIndex
	dir   string // the file's directory, relative to the root
	out   []Snippet
}

// emit adds a snippet unless it holds nothing but blanks.
func (x *extractor) emit(kind Kind, dir string, b *builder) *Snippet {
	s := b.snippet(x.name, kind, dir, x.lines)
	if strings.TrimSpace(s.Text) == "" {
		return nil
	}
	x.out = append(x.out, s)
	return &x.out[len(x.out)-1]
}

// unreviewed reports code a tool runs that guard has no reviewer for
// (RuleUnreviewed) at file offset off: ref is what runs, how says who
// runs it. It is a finding of its own, not a command to review.
func (x *extractor) unreviewed(kind Kind, off int, ref, how string) {
	pos := x.lines.position(off)
	x.out = append(x.out, Snippet{Path: x.name, Kind: kind, Dir: x.dir, NotShell: true, lines: x.lines,
		segs:       []segment{{src: off}},
		Injections: []Injection{{Position: pos, Rule: RuleUnreviewed, Ref: ref, How: how}}})
}

// inFileOrder sorts what was found by where it starts in the file.
func (x *extractor) inFileOrder() {
	slices.SortStableFunc(x.out, func(a, b Snippet) int {
		pa, pb := a.Start(), b.Start()
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Col - pb.Col
	})
}

func (x *extractor) syntaxError(off int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Path: x.name, Pos: x.lines.position(off), Msg: fmt.Sprintf(format, args...)}
}

func (x *extractor) script() {
	var b builder
	b.copy(x.src, 0, len(x.src))
	x.emit(Script, ".", &b)
}

// placeholder turns a template or Make reference (a GitHub ${{ expr }}, a
// Make $(VAR)) into a shell parameter expansion: a word whose value the
// reviewer cannot know, which is the truth. The name keeps the reference
// readable in explanations.
func placeholder(ref string) string {
	var b strings.Builder
	under := false
	for _, r := range ref {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok || r == '_' {
			if b.Len() > 0 {
				under = true
			}
			continue
		}
		if under {
			b.WriteByte('_')
			under = false
		}
		b.WriteRune(r)
	}
	name := b.String()
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "_")
	}
	if name == "" {
		name = "expr"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	return "${" + name + "}"
}
