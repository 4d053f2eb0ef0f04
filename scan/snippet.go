package scan

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"
)

// Kind says where in a repository a piece of shell was found.
type Kind string

// The kinds of file scan reads shell from.
const (
	Script         Kind = "script"          // a shell script, by extension or shebang
	Workflow       Kind = "github-actions"  // a run step of a GitHub Actions workflow or composite action
	GitLab         Kind = "gitlab-ci"       // a script line of .gitlab-ci.yml
	Makefile       Kind = "makefile"        // a Makefile recipe line
	Dockerfile     Kind = "dockerfile"      // a Dockerfile RUN instruction
	NPM            Kind = "npm"             // a package.json script
	Composer       Kind = "composer"        // a composer.json script
	VSCode         Kind = "vscode-task"     // a VS Code task's command (.vscode/tasks.json)
	VSCodeSettings Kind = "vscode-settings" // a program .vscode/settings.json makes VS Code start (an interpreter, a terminal shell)
	DevContainer   Kind = "devcontainer"    // a dev container's lifecycle command (devcontainer.json)
	CI             Kind = "ci"              // a command of another CI system or task runner (CircleCI, Bitbucket, Azure, Travis, Drone, Woodpecker, Buildkite, Task, Gitpod, Jenkins)
	Just           Kind = "justfile"        // a justfile recipe line, backtick or shell() call
	Procfile       Kind = "procfile"        // a Procfile process's command
	Mise           Kind = "mise"            // a mise task or hook (mise.toml)
	Pyproject      Kind = "pyproject"       // a pyproject.toml task (Poe the Poet, PDM, Hatch, taskipy, tox)
	Tox            Kind = "tox"             // a tox environment's command (tox.ini, tox.toml)
	Devbox         Kind = "devbox"          // a devbox.json init_hook or script
	Earthly        Kind = "earthfile"       // an Earthfile RUN line
	Deno           Kind = "deno"            // a deno.json task
	CargoMake      Kind = "cargo-make"      // a cargo-make task's command or script (Makefile.toml)
	Netlify        Kind = "netlify"         // a netlify.toml build or dev command
	AppVeyor       Kind = "appveyor"        // an AppVeyor phase's command (appveyor.yml)
	GitConfig      Kind = "git-config"      // a command git or git-lfs runs, set in .gitmodules, .lfsconfig or a committed git config
	Compose        Kind = "compose"         // a Compose file; its inline Dockerfiles' RUN lines are of kind Dockerfile
	Rake           Kind = "rakefile"        // a command a Rakefile runs (sh, system, backticks)
	NPMRC          Kind = "npmrc"           // a program a project's .npmrc makes npm run (script-shell, node-options)
	Yarnrc         Kind = "yarnrc"          // code a project's .yarnrc.yml or .yarnrc makes yarn run (yarnPath, plugins)
	Vagrant        Kind = "vagrant"         // a Vagrant shell provisioner's inline script (runs in the virtual machine)
	VagrantHost    Kind = "vagrant-trigger" // a Vagrant trigger's inline script (runs on the host)
	KubeWorkflow   Kind = "kube-workflow"   // a Tekton or Argo Workflows step's script or command (by apiVersion, or in .tekton/)
	AgentConfig    Kind = "agent-config"    // a command a coding agent's project settings make it run (hooks, MCP servers, helpers, env), or a setting that turns its hooks off
	Unreviewed     Kind = "unreviewed"      // a file a tool runs as code guard does not review (setup.py, flake.nix, Tiltfile, …): reported, never dropped
)

// Position is a place in a file: 1-based line and 1-based byte column, as
// compilers report them.
type Position struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Snippet is one piece of shell found in a file: the text the reviewer sees
// and the means to map any byte offset in that text back to the file.
type Snippet struct {
	Path string // as the file was named to Extract
	Kind Kind
	// Text is what the shell would run, after the file format's own
	// processing: YAML scalars decoded, Make's $$ turned into $ and its
	// variable references into shell parameters, Dockerfile continuations
	// joined.
	Text string
	// Dir is the directory the command runs in, relative to the repository
	// root and slash-separated ("." for the root).
	Dir string
	// Argv is set for a Dockerfile exec-form RUN: Text is then the argument
	// vector quoted for the shell, not shell written by a person.
	Argv bool
	// Injections are untrusted data expanded into the shell that the
	// extractor found (a GitHub ${{ }} expression of event data, a GitLab
	// variable a merge request's author sets, unquoted or evaluated).
	Injections []Injection
	// NotShell is set on a run step in another language (shell: python,
	// pwsh) that holds injections: only they are reported; the text is
	// not reviewed as shell.
	NotShell bool

	segs  []segment
	lines *lineIndex
}

// segment maps Text[off:] (up to the next segment) back to the file. An
// exact segment was copied byte for byte from src; any other was written by
// the extractor (a placeholder, a decoded escape, a joining space) and all
// of its bytes map to src.
type segment struct {
	off   int
	src   int
	exact bool
}

// Start is where the snippet begins in its file.
func (s *Snippet) Start() Position { return s.Pos(0) }

// Pos maps a byte offset in Text (a review.Reason's Pos) to the file.
func (s *Snippet) Pos(off int) Position { return s.lines.position(s.srcOffset(off)) }

// srcOffset maps a byte offset in Text to a byte offset in the file.
func (s *Snippet) srcOffset(off int) int {
	if len(s.segs) == 0 {
		return 0
	}
	if off < 0 {
		off = 0
	}
	if off > len(s.Text) {
		off = len(s.Text)
	}
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].off > off }) - 1
	if i < 0 {
		i = 0
	}
	g := s.segs[i]
	if !g.exact {
		return g.src
	}
	return g.src + off - g.off
}

// builder assembles a snippet's text and its segments.
type builder struct {
	b    strings.Builder
	segs []segment
}

// copy appends src[from:to] verbatim.
func (b *builder) copy(src []byte, from, to int) {
	if to <= from {
		return
	}
	off := b.b.Len()
	if n := len(b.segs); n > 0 {
		last := b.segs[n-1]
		if last.exact && last.src+off-last.off == from {
			b.b.Write(src[from:to])
			return
		}
	}
	b.segs = append(b.segs, segment{off: off, src: from, exact: true})
	b.b.Write(src[from:to])
}

// put appends text that is not in the file as such, attributing it to the
// file offset at.
func (b *builder) put(text string, at int) {
	if text == "" {
		return
	}
	b.segs = append(b.segs, segment{off: b.b.Len(), src: at})
	b.b.WriteString(text)
}

// append appends another builder's text, keeping where each part came
// from.
func (b *builder) append(o *builder) {
	off := b.b.Len()
	for _, g := range o.segs {
		g.off += off
		b.segs = append(b.segs, g)
	}
	b.b.WriteString(o.b.String())
}

func (b *builder) len() int { return b.b.Len() }

// truncate keeps the first n bytes.
func (b *builder) truncate(n int) {
	s := b.b.String()[:n]
	b.b.Reset()
	b.b.WriteString(s)
	for len(b.segs) > 0 && b.segs[len(b.segs)-1].off >= n {
		b.segs = b.segs[:len(b.segs)-1]
	}
}

func (b *builder) snippet(path string, kind Kind, dir string, li *lineIndex) Snippet {
	return Snippet{Path: path, Kind: kind, Text: b.b.String(), Dir: dir, segs: b.segs, lines: li}
}

// edit is a replacement of Text[from:to] by with.
type edit struct {
	from, to int
	with     string
}

// rewrite applies edits (sorted, not overlapping) to the snippet, keeping the
// mapping of the bytes it does not touch. A replacement maps to where the
// replaced text began.
func (s *Snippet) rewrite(edits []edit) {
	if len(edits) == 0 {
		return
	}
	var b builder
	next := 0 // first segment that may overlap what is kept next
	keep := func(from, to int) {
		for i := next; i < len(s.segs); i++ {
			g := s.segs[i]
			end := len(s.Text)
			if i+1 < len(s.segs) {
				end = s.segs[i+1].off
			}
			if end <= from {
				next = i + 1
				continue
			}
			if g.off >= to {
				break
			}
			lo, hi := max(g.off, from), min(end, to)
			if lo >= hi {
				continue
			}
			src := g.src
			if g.exact {
				src += lo - g.off
			}
			b.segs = append(b.segs, segment{off: b.b.Len(), src: src, exact: g.exact})
			b.b.WriteString(s.Text[lo:hi])
		}
	}
	at := 0
	for _, e := range edits {
		keep(at, e.from)
		b.put(e.with, s.srcOffset(e.from))
		at = e.to
	}
	keep(at, len(s.Text))
	s.Text, s.segs = b.b.String(), b.segs
}

// lineIndex maps byte offsets in a file to lines and columns.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of each line's first byte
}

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &lineIndex{src: src, starts: starts}
}

func (li *lineIndex) position(off int) Position {
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return Position{Line: i + 1, Col: off - li.starts[i] + 1}
}

// line returns line n (1-based) without its newline.
func (li *lineIndex) line(n int) []byte {
	if n < 1 || n > len(li.starts) {
		return nil
	}
	from := li.starts[n-1]
	to := len(li.src)
	if n < len(li.starts) {
		to = li.starts[n] - 1
	}
	return li.src[from:to]
}

// lineStart returns the byte offset of line n (1-based).
func (li *lineIndex) lineStart(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(li.starts) {
		return len(li.src)
	}
	return li.starts[n-1]
}

// offset converts a line and a column counted in characters (as YAML
// reports them) to a byte offset.
func (li *lineIndex) offset(line, runeCol int) int {
	start := li.lineStart(line)
	l := li.line(line)
	i := 0
	for c := 1; c < runeCol && i < len(l); c++ {
		_, n := utf8.DecodeRune(l[i:])
		i += n
	}
	return start + i
}

// utf16Col is the 1-based column of p counted in UTF-16 code units, which
// is what SARIF counts by default.
func (li *lineIndex) utf16Col(p Position) int {
	l := li.line(p.Line)
	if p.Col-1 > len(l) {
		return p.Col
	}
	col := 1
	for _, r := range string(l[:p.Col-1]) {
		col++
		if r >= 0x10000 {
			col++
		}
	}
	return col
}
