package scan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/guard-sh/guard/review"
)

// fakeRules stand in for the real engine: a pattern, the level it asks for
// and a rule id. They are crude on purpose; what scan is tested for is that
// a reason at a byte offset lands at the right line and column.
var fakeRules = []struct {
	rule  string
	level review.Level
	re    *regexp.Regexp
}{
	{"fake-pipe-shell", review.C, regexp.MustCompile(`curl [^|\n]*\| *(sh|bash)\b`)},
	{"fake-rm-root", review.C, regexp.MustCompile(`rm -rf /($|[\s;&|])`)},
	{"fake-push-force", review.C, regexp.MustCompile(`git push --force`)},
	{"fake-sudo", review.C, regexp.MustCompile(`\bsudo\b`)},
	{"fake-delete", review.B, regexp.MustCompile(`rm -rf [a-z$]`)},
	{"fake-network", review.B, regexp.MustCompile(`\b(curl|wget)\b`)},
	{"fake-read", review.A, regexp.MustCompile(`\bls\b`)},
}

func fakeKnown(id string) bool {
	for _, r := range fakeRules {
		if r.rule == id {
			return true
		}
	}
	return id == "fake-parse-error"
}

// fakeReview is a Reviewer: every match of every rule is a reason; a text
// with an unbalanced double quote does not "parse" and is C.
func fakeReview(text, workspace, cwd string) (Review, error) {
	v, err := fakeVerdict(text)
	return Review{Verdict: v}, err
}

func fakeVerdict(text string) (review.Verdict, error) {
	var v review.Verdict
	v.Level = review.A
	if unbalancedQuotes(text) {
		v.Level = review.C
		v.Reasons = []review.Reason{{Rule: "fake-parse-error", Level: review.C, Message: "does not parse: unterminated quote", Pos: 0, End: len(text)}}
		v.Explanation = "The command does not parse, so guard cannot tell what it does."
		return v, nil
	}
	var rules []string
	for _, r := range fakeRules {
		for _, m := range r.re.FindAllStringIndex(text, -1) {
			v.Reasons = append(v.Reasons, review.Reason{Rule: r.rule, Level: r.level,
				Message: fmt.Sprintf("%s: %q", r.rule, text[m[0]:m[1]]), Pos: m[0], End: m[1]})
			v.Level = review.Max(v.Level, r.level)
			rules = append(rules, r.rule)
		}
	}
	if len(rules) > 0 {
		v.Explanation = "Fake review found " + strings.Join(rules, ", ") + ".\nSecond line of the explanation."
	}
	return v, nil
}

func unbalancedQuotes(t string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '\\' && !inSingle:
			i++
		case c == '\'' && !inDouble:
			inSingle = !inSingle
		case c == '"' && !inSingle:
			inDouble = !inDouble
		}
	}
	return inDouble
}
