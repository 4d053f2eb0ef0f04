package scan

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/guard-sh/guard/review"
)

// Allowance is a reviewed exception written in the code:
//
//	# guard:allow <rule-id> -- <reason>
//
// on the line of a finding or the line above it suppresses findings of that
// rule there. Several rules may be listed, separated by commas. The reason
// is required: it is what a reviewer of the change reads.
type Allowance struct {
	Line   int      `json:"line"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
}

// Problem is an allowance scan cannot accept (no reason, unknown rule). It
// fails the scan as a usage error: an allowance that does not say why, or
// names nothing, must be fixed rather than ignored.
type Problem struct {
	Path string `json:"path"`
	Position
	Msg  string `json:"message"`
	Hint string `json:"hint,omitempty"`
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d:%d: %s", p.Path, p.Line, p.Col, p.Msg) }

var allowMarker = []byte("guard:allow")

// allowComment matches the comment on a line: `#` then guard:allow.
var allowComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#\s*guard:allow\b(.*)$`) })

const allowHint = "write it as '# guard:allow <rule-id> -- <why this is safe>' on the line or the line above"

const policyHint = "policy.<id> names a rule of the policy guard reads here (.guard.toml and your policy.toml): 'guard policy show' lists them"

// allowances reads the guard:allow comments of a file. known reports
// whether a rule id exists; nil accepts any.
func allowances(path string, li *lineIndex, known func(string) bool, trusted func(string, []byte) bool) (map[int][]Allowance, []Problem, []Problem) {
	if !bytes.Contains(li.src, allowMarker) {
		return nil, nil, nil
	}
	byLine := map[int][]Allowance{}
	var problems, untrusted []Problem
	for ln := 1; ln <= len(li.starts); ln++ {
		line := trimCR(li.line(ln))
		if !bytes.Contains(line, allowMarker) {
			continue
		}
		loc := allowComment().FindSubmatchIndex(line)
		if loc == nil {
			continue
		}
		pos := Position{Line: ln, Col: loc[0] + 1}
		bad := func(format string, args ...any) {
			problems = append(problems, Problem{Path: path, Position: pos, Msg: fmt.Sprintf(format, args...), Hint: allowHint})
		}
		rest := strings.TrimSpace(string(line[loc[2]:loc[3]]))
		ids, reason, hasSep := strings.Cut(rest, "--")
		ids, reason = strings.TrimSpace(ids), strings.TrimSpace(reason)
		if f := strings.Fields(ids); !hasSep && len(f) > 0 {
			ids = f[0]
		}
		var rules []string
		for _, id := range strings.Split(ids, ",") {
			if id = strings.TrimSpace(id); id != "" {
				rules = append(rules, id)
			}
		}
		switch {
		case len(rules) == 0:
			bad("guard:allow names no rule")
			continue
		case !hasSep || reason == "":
			bad("guard:allow %s has no reason", strings.Join(rules, ","))
			continue
		}
		ok := true
		for _, r := range rules {
			if strings.ContainsAny(r, " \t") {
				bad("guard:allow: %q is not a rule id", r)
				ok = false
			} else if known != nil && !known(r) && !ownRule(r) {
				bad("guard:allow names unknown rule %q", r)
				if strings.HasPrefix(r, "policy.") {
					problems[len(problems)-1].Hint = policyHint
				}
				ok = false
			}
		}
		switch {
		case !ok:
		case trusted != nil && !trusted(path, line):
			untrusted = append(untrusted, Problem{Path: path, Position: pos,
				Msg:  fmt.Sprintf("guard:allow %s is new in this change: not honoured", strings.Join(rules, ",")),
				Hint: "an allowance counts once it is on the branch the change is checked against (--trust-from); ask a reviewer to add it there"})
		default:
			byLine[ln] = append(byLine[ln], Allowance{Line: ln, Rules: rules, Reason: reason})
		}
	}
	return byLine, problems, untrusted
}

// allowed returns the allowance covering rule at line, looking at the line
// itself, the line above, the lines at and above where the command starts
// (a comment above "curl URL \" covers the "| sh" below it), and the
// lines at and above where the snippet starts (so a comment above a
// workflow's `run: |` covers the whole step).
func allowed(byLine map[int][]Allowance, rule string, line, cmdLine, snippetLine int) *Allowance {
	for _, ln := range [...]int{line, line - 1, cmdLine, cmdLine - 1, snippetLine, snippetLine - 1} {
		for i, a := range byLine[ln] {
			for _, r := range a.Rules {
				if r == rule {
					return &byLine[ln][i]
				}
			}
		}
	}
	return nil
}

// explainAllowed keeps the explanation that the findings of one command
// share consistent with the allowances that suppress some of them: its
// "Level X" heading gives the level of what is left, and a section says
// what was allowed, where and why.
func explainAllowed(fs []Finding) {
	var items []string
	left := review.A
	for _, f := range fs {
		if f.Suppressed != nil {
			items = append(items, fmt.Sprintf("%s (%s) by guard:allow at line %d: %s", f.Rule, f.Level, f.Suppressed.Line, f.Suppressed.Reason))
		} else {
			left = review.Max(left, f.Level)
		}
	}
	if len(items) == 0 || fs[0].Explanation == "" {
		return
	}
	expl := withSection(retitle(fs[0].Explanation, left), "Allowed in the code:", uniq(items))
	for i := range fs {
		fs[i].Explanation = expl
	}
}
