package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/review"
)

// contentParts judges the strings of a tool's input that are written
// like a command line or code (shellLike) by what they would do if the
// tool ran them, whatever their key and whatever the tool's name: key
// and tool-name words only say where guard is sure; a tool with unusual
// names (mcp__acme__go {"q": "rm -rf ~"}) still runs what it is given.
// Each string is read two ways, and the worst counts:
//
//   - as shell text, when bash parses it (prose and queries mostly parse
//     to unknown programs, level A; text that does not parse is not
//     shell);
//   - as code in a language guard does not know, for the command lines
//     it spells out for the shell or as an argument list (os.system("…"),
//     execSync("…"), subprocess.run([…]), os.execute("…")): guard reads
//     them as it reads python3 -c code, less that code's own B
//     (interp.inline-code), which prose with brackets would also get.
//
// Level A in every directory the tool may work in is no opinion; B is
// asked where a person answers the agent's prompt and denied elsewhere;
// C is denied, as a command under a command key is.
func (h *hookCall) contentParts(content []contentText, dirs []string) ([]judged, error) {
	if slices.Contains(h.p.textTools, h.ev.ToolName) {
		return nil, nil // text for a model or a person (agentProtocol.textTools)
	}
	var parts []judged
	for _, c := range content {
		// A NUL byte splits the text: a program that takes it as a C
		// string runs what comes before the NUL, one that reads a list
		// of NUL-ended items (xargs -0, a -z option) runs each item.
		// Each part is judged, and the worst counts (eed3eff judged the
		// first only: "notes\0rm -rf ~" was no opinion).
		var worst *contentReading
		var worstText string
		for _, text := range strings.Split(c.text, "\x00") {
			if strings.TrimSpace(text) == "" {
				continue
			}
			for _, dir := range dirs {
				for _, read := range []func(string, string) (*contentReading, error){h.readAsShell, h.readAsCode} {
					r, err := read(text, dir)
					if err != nil {
						return nil, err
					}
					if r != nil && (worst == nil || r.reason.Level > worst.reason.Level) {
						worst, worstText = r, text
					}
				}
			}
		}
		if worst == nil || worst.reason.Level < review.B {
			continue
		}
		parts = append(parts, h.contentPart(c, worstText, worst))
	}
	return parts, nil
}

// contentReading is the worst reason one reading of a string gives.
type contentReading struct {
	a      *assessment
	reason review.Reason
	rules  []string
	as     string // "a shell command" or "code that runs a command"
}

// maxPrefixTries bounds shellPrefix's re-parses; text that needs more
// cannot be judged (denied).
const maxPrefixTries = 64

// shellPrefix is the part of text bash would run: bash reads -c text
// a line at a time and stops at the first line it cannot parse, having
// run the lines before it ("rm -rf ~" then a line "it's" runs the
// delete). Markdown fence lines (```, ~~~) are left out first: bash
// would read a fenced block as a command substitution whose output names
// a program (C for any issue body with a code block); the block's own
// lines are reviewed as the commands they are. "" when no line parses.
func shellPrefix(text string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	kept := lines[:0:0]
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			kept = append(kept, l)
		}
	}
	for range maxPrefixTries {
		if len(kept) == 0 {
			return "", nil
		}
		text = strings.Join(kept, "")
		_, err := parse.Bash(text)
		if err == nil {
			return text, nil
		}
		var se *parse.SyntaxError
		if !errors.As(err, &se) {
			return "", fmt.Errorf("a string in tool_input cannot be reviewed as shell text: %v", err)
		}
		// The error's line is where the construct bash could not read
		// starts (an unclosed quote reports where it opened).
		n := min(max(se.Line-1, 0), len(kept)-1)
		kept = kept[:n]
	}
	return "", fmt.Errorf("a string in tool_input cannot be reviewed as shell text: it does not parse after %d tries", maxPrefixTries)
}

// readAsShell reviews the part of text bash would run (shellPrefix) as
// shell text, in dir; nil when bash would run none of it.
func (h *hookCall) readAsShell(text, dir string) (*contentReading, error) {
	text, err := shellPrefix(text)
	if err != nil || text == "" {
		return nil, err
	}
	a, err := h.e.Assess(text, assessOptions{Cwd: dir, Provenance: review.ProvAgent})
	if err != nil {
		return nil, fmt.Errorf("review failed: %v", err)
	}
	return worstReading(a, a.Verdict.Reasons, "a shell command"), nil
}

// readAsCode reviews the command lines text spells out as code, in dir
// (as python3 -c TEXT, before policy, less interp.inline-code); nil when
// it can spell none (every such call has a parenthesis). Text it cannot
// write as that command line (a NUL byte, which contentParts splits on
// before it gets here) is an error, never silence: eed3eff returned nil,
// no opinion.
func (h *hookCall) readAsCode(text, dir string) (*contentReading, error) {
	if !strings.Contains(text, "(") {
		return nil, nil
	}
	line, err := parse.Quote([]string{"python3", "-c", text})
	if err != nil {
		return nil, fmt.Errorf("a string in tool_input cannot be reviewed as code: %v", err)
	}
	a, err := h.e.Assess(line, assessOptions{Cwd: dir, Provenance: review.ProvAgent})
	if err != nil {
		return nil, fmt.Errorf("review failed: %v", err)
	}
	return worstReading(a, a.Reviewed.Reasons, "code that runs a command"), nil
}

// contentWeakRules say only that guard cannot tell what a text's first
// word runs (a/b c, /* a comment */, $HOME is set, python, npm test
// without a package.json): for text no key calls a command that is
// weak evidence it is one, so they do not count; everything a text
// says it does (rm -rf ~, curl … | sh, > ~/.bashrc) does. And a
// reading as code does not count the code's own B.
var contentWeakRules = []string{"exec.script-unreadable", "exec.dynamic-name", "exec.interactive", "pkg.script-unreadable", "interp.inline-code"}

// worstReading is the first of the worst of rs that count; nil for
// none.
func worstReading(a *assessment, rs []review.Reason, as string) *contentReading {
	var out *contentReading
	var rules []string
	// A first word guard has no row for (never run rm -rf ~) or cannot
	// name (/* a comment */) is priced at the worst it could do with its
	// arguments: what they name (exec.argument-command, handed paths,
	// exec.dynamic-target) all carry that word's span. In prose that is
	// a mention, as weak as the word itself. What the shell does around
	// it (a redirect, a second command, a pipe into sh) has its own span
	// and counts.
	//
	// A command substitution inside such a word's arguments (markdown's
	// inline code in prose: "run `git push --force` if needed") does run
	// under bash, whatever the word; in a chat message or an issue body
	// it is a mention. It counts at most B: asked where a person answers
	// the agent's prompt (and shown), denied where nobody can.
	type span struct{ pos, end int }
	unnamed := map[span]bool{}
	var programs []span
	for _, e := range a.Profile.Effects {
		if e.Rule == "exec.program" || e.Rule == "exec.dynamic-name" && !namesProgramByPattern(e.Target) {
			unnamed[span{e.Pos, e.End}] = true
		}
		if e.Rule == "exec.program" {
			programs = append(programs, span{e.Pos, e.End})
		}
	}
	for _, r := range rs {
		if slices.Contains(contentWeakRules, r.Rule) || unnamed[span{r.Pos, r.End}] {
			continue
		}
		if r.Level > review.B && slices.ContainsFunc(programs, func(p span) bool { return p.pos <= r.Pos && r.End <= p.end }) {
			r.Level = review.B
			r.Message += " (in a substitution inside the words of a program guard does not know: a mention in prose, or a command if the tool runs it)"
		}
		rules = append(rules, r.Rule)
		if out == nil || r.Level > out.reason.Level {
			out = &contentReading{a: a, reason: r, as: as}
		}
	}
	if out != nil {
		out.rules = rules
	}
	return out
}

// namesProgramByPattern reports whether a first word guard cannot
// compute still names a program: a path whose last part is a literal
// name (/???/rm, $HOME/bin/rm, /usr/*/curl) is that program wherever the
// pattern leads, not a comment (/*) or a variable ($X).
func namesProgramByPattern(word string) bool {
	i := strings.LastIndexByte(word, '/')
	if i < 0 {
		return false
	}
	last := word[i+1:]
	return last != "" && !strings.ContainsAny(last, "*?[]{}$`\\'\"() \t")
}

// contentPart is the answer about one string: asked (B, where a person
// answers) or denied, with a record.
func (h *hookCall) contentPart(c contentText, text string, r *contentReading) judged {
	tool := h.ev.ToolName
	lvl := r.reason.Level
	rec := audit.Record{Cwd: r.a.Ctx.Cwd, Workspace: r.a.Ctx.Workspace, Command: text, Level: lvl, Rules: r.rules,
		Note: fmt.Sprintf("tool %s: %s under %q", tool, r.as, c.key)}
	reason := fmt.Sprintf("guard: level %s: %s: %s\n(tool %s carries %s under %q: guard cannot tell whether the tool runs it, and cannot sandbox it if it does)",
		lvl, r.reason.Rule, audit.Mask(r.reason.Message), tool, r.as, c.key)
	if lvl == review.B && h.canAsk() {
		rec.Decision = audit.Pending
		return judged{rec: rec, ans: hookAnswer{decision: hookAsk, reason: reason}}
	}
	rec.Decision = audit.Refused
	if lvl == review.Deny {
		rec.Decision = audit.DeniedPolicy
	}
	return judged{rec: rec, ans: denyf("%s\nIf the tool runs it, use the shell tool instead, so the command can be reviewed and approved.", reason)}
}
