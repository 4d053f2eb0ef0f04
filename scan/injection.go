package scan

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
)

// Rule ids of script injection in CI files: data someone else wrote,
// turned into shell code.
const (
	// RuleWorkflowInjection: a GitHub Actions ${{ }} expression of event
	// data an outsider writes, inside a run: step (C).
	RuleWorkflowInjection = "scan-workflow-injection"
	// RuleWorkflowInput: a ${{ inputs.* }} expression inside a run: step
	// (B: see docs/ci.md for why inputs are not C).
	RuleWorkflowInput = "scan-workflow-input"
	// RuleGitLabInjection: a GitLab CI variable the author of a merge
	// request or commit sets, unquoted or evaluated in a script (C).
	RuleGitLabInjection = "scan-gitlab-injection"
)

// Injection is untrusted data expanded into shell code, found while the
// shell was extracted: scan reports it as a finding of Rule.
type Injection struct {
	Position
	Rule string
	// Ref is the expression or variable, as written.
	Ref string
	// How says what happens to it.
	How string
}

// UntrustedGitHub are the GitHub Actions contexts whose values an outsider
// chooses (GitHub Security Lab's list: opening an issue, a pull request
// from a fork, a comment, a commit). "*" stands for one segment (an array
// index). A reference to an object that holds one of them
// (github.event.pull_request, toJSON(github.event)) is untrusted too.
var UntrustedGitHub = []string{
	"github.event.issue.title", "github.event.issue.body",
	"github.event.pull_request.title", "github.event.pull_request.body",
	"github.event.pull_request.head.ref", "github.event.pull_request.head.label",
	"github.event.pull_request.head.repo.default_branch",
	"github.event.comment.body", "github.event.review.body", "github.event.review_comment.body",
	"github.event.discussion.title", "github.event.discussion.body",
	"github.event.pages.*.page_name",
	"github.event.commits.*.message", "github.event.commits.*.author.email", "github.event.commits.*.author.name",
	"github.event.head_commit.message", "github.event.head_commit.author.email", "github.event.head_commit.author.name",
	"github.event.workflow_run.head_branch", "github.event.workflow_run.display_title",
	"github.event.workflow_run.head_commit.message", "github.event.workflow_run.head_commit.author.email",
	"github.event.workflow_run.head_commit.author.name", "github.event.workflow_run.pull_requests.*.head.ref",
	"github.head_ref",
}

// InputGitHub are the contexts of workflow inputs (RuleWorkflowInput).
var InputGitHub = []string{"inputs.*", "github.event.inputs.*"}

// UntrustedGitLab are the GitLab CI predefined variables whose values the
// author of a merge request or commit chooses. The _SLUG variants are
// reduced to [a-z0-9-] by GitLab and are not listed.
var UntrustedGitLab = map[string]bool{
	"CI_MERGE_REQUEST_TITLE": true, "CI_MERGE_REQUEST_DESCRIPTION": true,
	"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": true, "CI_EXTERNAL_PULL_REQUEST_SOURCE_BRANCH_NAME": true,
	"CI_COMMIT_MESSAGE": true, "CI_COMMIT_TITLE": true, "CI_COMMIT_DESCRIPTION": true,
	"CI_COMMIT_BRANCH": true, "CI_COMMIT_REF_NAME": true, "CI_COMMIT_TAG_MESSAGE": true,
	"CI_COMMIT_AUTHOR": true,
}

// ghRef finds context references in an expression: a name, then .name,
// .*, ['name'] or [0] parts. Compiled on first use: guard starts for every
// hook call, and most never scan.
var ghRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:github|inputs)(?:\s*\.\s*[a-z0-9_*-]+|\s*\[\s*(?:'[^']*'|"[^"]*"|\*|[0-9]+)\s*\])*`)
})

// ghString is a string literal of the expression language.
var ghString = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'(?:[^']|'')*'`) })

// untrustedExpr returns the rule an expression's text falls under ("" for
// none) and the reference that decided it.
func untrustedExpr(expr string) (rule, ref string) {
	// A string literal holds no reference: blank it, keeping a bracket's
	// own quoted key (github.event['issue']) readable.
	masked := ghString().ReplaceAllStringFunc(expr, func(s string) string {
		return "'" + strings.Repeat(" ", len(s)-2) + "'"
	})
	for _, loc := range ghRef().FindAllStringIndex(masked, -1) {
		segs := refSegments(expr[loc[0]:loc[1]])
		switch {
		case matchesAny(segs, UntrustedGitHub):
			return RuleWorkflowInjection, strings.TrimSpace(expr[loc[0]:loc[1]])
		case matchesAny(segs, InputGitHub) && rule == "":
			rule, ref = RuleWorkflowInput, strings.TrimSpace(expr[loc[0]:loc[1]])
		}
	}
	return rule, ref
}

// refSegments splits github.event['issue'].title into its lower-case
// segments.
func refSegments(ref string) []string {
	var segs []string
	for _, part := range strings.FieldsFunc(ref, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		part = strings.Trim(strings.TrimSpace(part), `'"`)
		if part != "" {
			segs = append(segs, strings.ToLower(part))
		}
	}
	return segs
}

// matchesAny reports whether a reference is one of patterns, something
// inside one (github.event.issue.title.length), or an object holding one
// (github.event.issue, github.event).
func matchesAny(ref []string, patterns []string) bool {
	for _, p := range patterns {
		ps := strings.Split(p, ".")
		n := min(len(ps), len(ref))
		ok := n > 0
		for i := 0; i < n && ok; i++ {
			ok = ps[i] == "*" || ref[i] == "*" || ps[i] == ref[i]
		}
		if ok {
			return true
		}
	}
	return false
}

// gitlabInjections finds the untrusted GitLab variables of a script that
// are expanded unquoted (split into words and globbed: options, paths) or
// handed to eval or sh -c (run as code). Text that does not parse is left
// to the reviewer, which gives it C anyway.
func gitlabInjections(s *Snippet) {
	if !mentionsUntrustedGitLab(s.Text) {
		return // most scripts: no parse
	}
	script, err := parse.Bash(s.Text)
	if err != nil {
		return
	}
	g := &gitlabWalk{s: s}
	g.script(script)
}

// mentionsUntrustedGitLab reports whether text names one of
// UntrustedGitLab at all.
func mentionsUntrustedGitLab(text string) bool {
	if !strings.Contains(text, "CI_") {
		return false
	}
	for name := range UntrustedGitLab {
		if strings.Contains(text, name) {
			return true
		}
	}
	return false
}

type gitlabWalk struct {
	s *Snippet
}

func (g *gitlabWalk) script(sc *parse.Script) {
	if sc == nil {
		return
	}
	for _, st := range sc.Stmts {
		g.stmt(st, false)
	}
}

// stmt walks st; feedsShell is set when its output is a shell's code (a
// stage before `| sh`).
func (g *gitlabWalk) stmt(st *parse.Stmt, feedsShell bool) {
	if st == nil {
		return
	}
	call, _ := st.Cmd.(*parse.Call)
	stdinCode := call != nil && readsCodeFromStdin(call.Args)
	for _, r := range st.Redirs {
		switch {
		case stdinCode && (r.Op == "<<" || r.Op == "<<-"):
			g.evaluated(r.Heredoc) // sh <<EOF: the body is the script
		case stdinCode && r.Op == "<<<":
			g.evaluated(r.Target)
		default:
			g.word(r.Target, false)
			g.word(r.Heredoc, true)
		}
	}
	switch n := st.Cmd.(type) {
	case *parse.Call:
		code := feedsShell || evaluates(n.Args)
		for _, a := range n.Assigns {
			g.assign(a)
		}
		for i, w := range n.Args {
			if code || namesVariable(n.Args, i) {
				g.evaluated(w)
			} else {
				g.word(w, false)
			}
		}
	case *parse.Decl:
		// A word that is not an option nor a written NAME=value is a
		// NAME[INDEX]=value the shell reads at run time: its index is
		// evaluated (declare "$X" with X='a[$(id)]' runs id).
		for _, w := range n.Opts {
			if !w.Static() {
				g.evaluated(w)
			}
		}
		for _, a := range n.Assigns {
			g.assign(a)
		}
	case *parse.Block:
		for _, s := range n.Stmts {
			g.stmt(s, feedsShell)
		}
	case *parse.Pipeline:
		// What flows into a shell that reads its code from stdin is code.
		shellAt := -1
		for i, s := range n.Stmts {
			if c, ok := s.Cmd.(*parse.Call); ok && readsCodeFromStdin(c.Args) {
				shellAt = i
			}
		}
		for i, s := range n.Stmts {
			g.stmt(s, feedsShell || i < shellAt)
		}
	case *parse.FuncDecl:
		g.stmt(n.Body, false)
	case *parse.Words:
		// Only a for list splits its words; [[ ]], case and arithmetic
		// do not (arithmetic evaluates, which is code).
		for _, w := range n.Words {
			switch n.Kind {
			case "for-list":
				g.word(w, false)
			case "arith", "let":
				g.arith(w)
			default:
				g.word(w, true)
			}
		}
	default:
		// Unsupported: the reviewer fails closed on it.
	}
}

// assign: a value is neither split nor globbed; its substitutions run.
func (g *gitlabWalk) assign(a *parse.Assign) {
	g.word(a.Value, true)
	for _, w := range a.Array {
		g.word(w, false)
	}
	for _, w := range a.Index {
		g.arith(w)
	}
}

// word reports untrusted variables expanded unquoted in w (unless safe:
// a context that neither splits nor globs) and walks its substitutions.
func (g *gitlabWalk) word(w *parse.Word, safe bool) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		if p.Kind == parse.Var && UntrustedGitLab[p.Text] && !p.Quoted && !safe {
			g.add(w, p, "is expanded unquoted: split into words and globbed")
		}
		if p.Kind == parse.Dynamic && !p.Quoted && !safe && dynamicUntrusted(p.Raw) != "" {
			g.add(w, parse.Part{Text: dynamicUntrusted(p.Raw)}, "is expanded unquoted: split into words and globbed")
		}
		for _, a := range p.Arith {
			g.arith(a)
		}
	}
	for _, sc := range w.Scripts() {
		g.script(sc)
	}
}

// arith reports every untrusted variable in an expression bash evaluates
// arithmetically ($((…)), an index, a slice, (( )), let): there a value is
// evaluated again, so a[$(cmd)] in it runs cmd, quoted or not, whether the
// variable is written $NAME or NAME.
func (g *gitlabWalk) arith(w *parse.Word) {
	const how = "is evaluated as arithmetic, which runs any $(…) in its value"
	for _, p := range w.Parts {
		var names []string
		switch p.Kind {
		case parse.Var:
			names = []string{p.Text}
		case parse.Dynamic:
			names = []string{dynamicUntrusted(p.Raw)}
		case parse.Lit:
			names = strings.FieldsFunc(p.Text, func(r rune) bool { return !isNameRune(r) })
		}
		for _, name := range names {
			if UntrustedGitLab[name] {
				g.add(w, parse.Part{Text: name}, how)
			}
		}
		for _, a := range p.Arith {
			g.arith(a)
		}
	}
	for _, sc := range w.Scripts() {
		g.script(sc)
	}
}

func isNameRune(r rune) bool {
	return r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
}

// evaluated reports every untrusted variable in a word that is run as
// code, quoted or not.
func (g *gitlabWalk) evaluated(w *parse.Word) {
	for _, p := range w.Parts {
		name := ""
		switch p.Kind {
		case parse.Var:
			name = p.Text
		case parse.Dynamic:
			name = dynamicUntrusted(p.Raw)
		}
		if UntrustedGitLab[name] {
			g.add(w, parse.Part{Text: name}, "is run as shell code")
		}
		for _, a := range p.Arith {
			g.arith(a)
		}
	}
	for _, sc := range w.Scripts() {
		g.script(sc)
	}
}

// dynamicUntrusted returns the untrusted variable of an expansion such as
// ${CI_COMMIT_MESSAGE:-x} or ${CI_COMMIT_TITLE%%x}, or "".
func dynamicUntrusted(raw string) string {
	name := strings.TrimPrefix(raw, "${")
	if name == raw {
		return ""
	}
	end := strings.IndexFunc(name, func(r rune) bool { return !isNameRune(r) })
	if end >= 0 {
		name = name[:end]
	}
	if UntrustedGitLab[name] {
		return name
	}
	return ""
}

func (g *gitlabWalk) add(w *parse.Word, p parse.Part, how string) {
	g.s.Injections = append(g.s.Injections, Injection{Position: g.s.Pos(w.Pos), Rule: RuleGitLabInjection, Ref: "$" + p.Text, How: how})
}

// shellInterpreters run their -c argument as code.
var shellInterpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "zsh": true, "ksh": true}

// nameBuiltins take variable names as operands; a name may carry an
// index, which the shell evaluates (unset "$X" with X='a[$(id)]' runs id).
var nameBuiltins = map[string]bool{"unset": true, "read": true, "mapfile": true, "readarray": true}

// namesVariable reports whether args[i] is a variable name computed at run
// time: a non-static operand of a nameBuiltins call, or the value of
// printf -v.
func namesVariable(args []*parse.Word, i int) bool {
	if i == 0 || args[i].Static() {
		return false
	}
	name, ok := args[0].Value()
	if !ok {
		return false
	}
	if name == "printf" {
		prev, ok := args[i-1].Value()
		return ok && prev == "-v"
	}
	return nameBuiltins[name]
}

// readsCodeFromStdin reports whether a call is a shell that reads its
// script from stdin: no operand (or -s), no -c.
func readsCodeFromStdin(args []*parse.Word) bool {
	if len(args) == 0 {
		return false
	}
	name, ok := args[0].Value()
	if !ok || !shellInterpreters[path.Base(name)] {
		return false
	}
	for i := 1; i < len(args); i++ {
		v, ok := args[i].Value()
		switch {
		case !ok || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
			return false // a script file (or an unknown word)
		case v == "--":
			return i+1 == len(args) // an operand after it is the script
		case strings.HasPrefix(v, "--"):
		case strings.Contains(v[1:], "c"):
			return false // -c: code from an argument (evaluates)
		case strings.Contains(v[1:], "s"):
			return true // -s: the rest are arguments
		case strings.HasSuffix(v, "o"):
			i++ // -o pipefail
		}
	}
	return true
}

// evaluates reports whether a call runs its arguments as shell code: eval,
// or a shell with -c (alone or among other one-letter flags).
func evaluates(args []*parse.Word) bool {
	if len(args) == 0 {
		return false
	}
	name, ok := args[0].Value()
	if !ok {
		return false
	}
	name = path.Base(name)
	if name == "eval" {
		return true
	}
	if !shellInterpreters[name] {
		return false
	}
	for _, a := range args[1:] {
		v, ok := a.Value()
		if !ok || !strings.HasPrefix(v, "-") || strings.HasPrefix(v, "--") {
			break
		}
		if strings.Contains(v[1:], "c") {
			return true
		}
	}
	return false
}
