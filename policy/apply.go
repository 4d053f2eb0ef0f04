package policy

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Match is one rule (or floor) that matched a command line, and how it
// moved the level.
type Match struct {
	Rule   string // the rule id; "min_level" for a file's floor
	Origin Origin
	Effect string       // "deny", "require C", "allow", "grant", "min_level B"
	From   review.Level // the level before the rule
	To     review.Level // the level after it
	Grants []string     // what it added to the sandbox, in words
}

// String reads "rule ID (user policy.toml:12) raised B → C".
func (m Match) String() string {
	var b strings.Builder
	if m.Rule == "min_level" {
		fmt.Fprintf(&b, "min_level %s (%s)", strings.TrimPrefix(m.Effect, "min_level "), m.Origin)
	} else {
		fmt.Fprintf(&b, "rule %s (%s)", m.Rule, m.Origin)
	}
	switch {
	case m.To == review.Deny:
		fmt.Fprintf(&b, " denied it (was %s)", m.From)
	case m.To > m.From:
		fmt.Fprintf(&b, " raised %s → %s", m.From, m.To)
	case m.To < m.From:
		fmt.Fprintf(&b, " lowered %s → %s", m.From, m.To)
	case len(m.Grants) == 0:
		fmt.Fprintf(&b, " matched; the level stays %s", m.To)
	}
	if len(m.Grants) > 0 {
		if m.To == m.From {
			b.WriteString(" granted ")
		} else {
			b.WriteString(" and granted ")
		}
		b.WriteString(strings.Join(m.Grants, ", "))
	}
	return b.String()
}

// Outcome is a verdict after policy.
type Outcome struct {
	Verdict review.Verdict
	Matches []Match
	// KeepEnv are variable names the sandbox should pass through even
	// though they look like secrets (from user grants).
	KeepEnv []string
	// NetPorts are the ports user grants asked for when they granted the
	// network only for some ports and nothing else needs it. The sandbox
	// cannot limit ports yet: Verdict.Sandbox.Net is on.
	NetPorts []int
	// LoweredFromB is set when review put the line at B and a user allow
	// rule brought it to A. Only such lines may run unprompted in CI and
	// in agents.
	LoweredFromB bool
}

// Apply adjusts a verdict by the policy: user allow rules lower what they
// cover (never guard-self, terminal injection or text guard could not
// analyse, never text of untrusted provenance, never below the input's
// floor); require rules and floors raise; deny rules refuse; grants widen
// the sandbox. Deny beats require beats allow, and the highest level wins.
// The verdict gets a Reason per matching rule (rule id "policy.<id>"), an
// explanation that says what policy did and a new Digest. With no match
// the verdict is returned unchanged.
//
// Apply is a pure function of its arguments, like review.Assess.
func Apply(pol *Policy, p *profile.Profile, v review.Verdict, in review.Input) Outcome {
	out := Outcome{Verdict: v}
	if pol == nil || p == nil {
		return out
	}
	s := newScene(p, in.Text, in.Context)
	orig := v.Level
	reasons := append([]review.Reason(nil), v.Reasons...)
	level := v.Level
	var matches []Match
	var added []review.Reason
	span := func(st site) (int, int) {
		if st.pos < 0 {
			return 0, len(in.Text)
		}
		return st.pos, st.end
	}

	// 1. Allow: lower what user rules cover.
	if in.Provenance != review.ProvUntrusted {
		covered := map[int]*Rule{} // effect index → first covering rule
		var allowRules []*Rule
		var allowSites []site
		for _, r := range pol.Rules() {
			if !r.Allow || !r.effectiveLoosening() {
				continue
			}
			st := r.eval(s, true)
			if !st.matched {
				continue
			}
			allowRules = append(allowRules, r)
			allowSites = append(allowSites, st)
			for _, i := range st.effects {
				if _, ok := covered[i]; !ok && !protected(p.Effects[i]) {
					covered[i] = r
				}
			}
		}
		if len(allowRules) > 0 {
			lowered := lowerReasons(p, reasons, covered)
			newLevel := review.A
			for i, r := range reasons {
				if lowered[i] {
					reasons[i].Level = review.A
					continue
				}
				newLevel = review.Max(newLevel, r.Level)
			}
			if in.MinLevel > newLevel && in.MinLevel <= review.C {
				// The caller's floor still holds.
				newLevel = in.MinLevel
				if !hasRule(reasons, "floor.min-level") {
					reasons = append(reasons, review.Reason{Rule: "floor.min-level", Level: in.MinLevel, Message: fmt.Sprintf("a floor of %s was set for this command", in.MinLevel), End: len(in.Text)})
				}
			}
			for k, r := range allowRules {
				pos, end := span(allowSites[k])
				msg := r.Message
				if msg == "" {
					msg = "allowed by your policy"
					if r.Description != "" {
						msg += ": " + r.Description
					}
				}
				added = append(added, review.Reason{Rule: "policy." + r.ID, Level: review.A, Message: msg, Pos: pos, End: end})
				matches = append(matches, Match{Rule: r.ID, Origin: r.Origin, Effect: "allow", From: level, To: newLevel})
			}
			level = newLevel
		}
	}

	// 2. Require: raise.
	for _, r := range pol.Rules() {
		if r.Require == 0 {
			continue
		}
		st := r.eval(s, false)
		if !st.matched {
			continue
		}
		pos, end := span(st)
		msg := r.Message
		if msg == "" {
			msg = fmt.Sprintf("your %s policy requires at least %s for this", r.Origin.Scope, r.Require)
			if r.Description != "" {
				msg += ": " + r.Description
			}
		}
		added = append(added, review.Reason{Rule: "policy." + r.ID, Level: r.Require, Message: msg, Pos: pos, End: end})
		to := review.Max(level, r.Require)
		matches = append(matches, Match{Rule: r.ID, Origin: r.Origin, Effect: "require " + r.Require.String(), From: level, To: to})
		level = to
	}

	// 3. Floors: raise.
	for _, f := range pol.Files {
		if f.MinLevel > level {
			o := Origin{Scope: f.Scope, Path: f.Path, Line: f.MinLevelLine}
			added = append(added, review.Reason{Rule: "policy.min-level", Level: f.MinLevel, Message: fmt.Sprintf("your %s policy sets a floor of %s", f.Scope, f.MinLevel), End: len(in.Text)})
			matches = append(matches, Match{Rule: "min_level", Origin: o, Effect: "min_level " + f.MinLevel.String(), From: level, To: f.MinLevel})
			level = f.MinLevel
		}
	}

	// 4. Deny: refuse.
	for _, r := range pol.Rules() {
		if !r.Deny {
			continue
		}
		st := r.eval(s, false)
		if !st.matched {
			continue
		}
		pos, end := span(st)
		msg := r.Message
		if msg == "" {
			msg = "denied by your " + r.Origin.Scope.String() + " policy"
			if r.Description != "" {
				msg += ": " + r.Description
			}
		}
		added = append(added, review.Reason{Rule: "policy." + r.ID, Level: review.Deny, Message: msg, Pos: pos, End: end})
		matches = append(matches, Match{Rule: r.ID, Origin: r.Origin, Effect: "deny", From: level, To: review.Deny})
		level = review.Deny
	}

	// 5. Grants: widen the sandbox.
	sb := v.Sandbox
	sb.ExtraWrite = append([]string(nil), sb.ExtraWrite...)
	portsOnly := !sb.Net
	var ports []int
	for _, r := range pol.Rules() {
		if !r.grants() || !r.effectiveLoosening() {
			continue
		}
		st := r.eval(s, true)
		if !st.matched {
			continue
		}
		var what []string
		for _, g := range r.GrantWrite {
			g = grantPath(g, in.Context)
			if g == "" {
				continue
			}
			sb.ExtraWrite = append(sb.ExtraWrite, g)
			what = append(what, "write access to "+g)
		}
		if r.GrantNet {
			if r.NetPorts == nil {
				portsOnly = false
				what = append(what, "network access")
			} else {
				ports = append(ports, r.NetPorts...)
				what = append(what, "network access (ports "+joinInts(r.NetPorts)+")")
			}
			sb.Net = true
		}
		for _, k := range r.KeepEnv {
			out.KeepEnv = append(out.KeepEnv, k)
			what = append(what, "the variable "+k)
		}
		if len(what) == 0 {
			continue
		}
		pos, end := span(st)
		msg := r.Message
		if msg == "" {
			msg = "your policy grants " + strings.Join(what, ", ")
		}
		added = append(added, review.Reason{Rule: "policy." + r.ID, Level: review.A, Message: msg, Pos: pos, End: end})
		matches = append(matches, Match{Rule: r.ID, Origin: r.Origin, Effect: "grant", From: level, To: level, Grants: what})
	}
	if len(matches) == 0 {
		return out
	}
	// Only an allow can take a line from B to A; anything that raised
	// it again (require, floor, deny) left it above A.
	out.LoweredFromB = orig == review.B && level == review.A
	if portsOnly && len(ports) > 0 {
		out.NetPorts = uniqInts(ports)
	}
	out.KeepEnv = uniqStrings(out.KeepEnv)
	sb.ExtraWrite = uniqStrings(sb.ExtraWrite)

	reasons = append(reasons, added...)
	sort.SliceStable(reasons, func(i, j int) bool {
		if reasons[i].Level != reasons[j].Level {
			return reasons[i].Level > reasons[j].Level
		}
		return reasons[i].Pos < reasons[j].Pos
	})
	nv := review.Verdict{Level: level, Reasons: reasons, Sandbox: sb}
	nv.Explanation = explain(v.Explanation, nv, matches)
	nv.Digest = review.Digest(in, nv)
	out.Verdict = nv
	out.Matches = matches
	return out
}

// lowerReasons decides which reasons the covered effects account for
// entirely. A reason that no effect produced (provenance, floors, a wider
// sandbox asked for on the command line) is never lowered.
func lowerReasons(p *profile.Profile, reasons []review.Reason, covered map[int]*Rule) []bool {
	out := make([]bool, len(reasons))
	for i, r := range reasons {
		any, all := false, true
		for j, e := range p.Effects {
			if e.Rule != r.Rule || e.Msg != r.Message || review.EffectLevel(e) == review.A {
				continue
			}
			any = true
			if _, ok := covered[j]; !ok {
				all = false
			}
		}
		out[i] = any && all
	}
	return out
}

// grantPath expands ~ and refuses grants that would reach guard's own
// config or state: no policy can hand the sandbox those.
func grantPath(g string, ctx *profile.Context) string {
	if ctx == nil {
		if strings.HasPrefix(g, "~") {
			return ""
		}
		return g
	}
	if strings.HasPrefix(g, "~") {
		if ctx.Home == "" {
			return ""
		}
		g = expandTilde(g, ctx.Home)
	}
	g = path.Clean(g)
	for _, d := range []string{ctx.ConfigDir, ctx.StateDir} {
		if d == "" {
			continue
		}
		d = path.Clean(d)
		if g == d || strings.HasPrefix(g, d+"/") || strings.HasPrefix(d, g+"/") || g == "/" {
			return ""
		}
	}
	return g
}

func hasRule(rs []review.Reason, id string) bool {
	for _, r := range rs {
		if r.Rule == id {
			return true
		}
	}
	return false
}

func uniqStrings(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	s := append([]string(nil), in...)
	sort.Strings(s)
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func uniqInts(in []int) []int {
	s := append([]int(nil), in...)
	sort.Ints(s)
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// explain rewrites review's explanation for the adjusted verdict: the
// level line, a Policy section saying what each rule did, and the sandbox
// line.
func explain(old string, v review.Verdict, matches []Match) string {
	lines := strings.SplitAfter(old, "\n")
	var b strings.Builder
	b.WriteString(review.Heading(v.Level))
	for i, l := range lines {
		if i == 0 || strings.HasPrefix(l, "Sandbox: ") || l == "" {
			continue
		}
		b.WriteString(l)
	}
	b.WriteString("Policy:\n")
	for _, m := range matches {
		fmt.Fprintf(&b, "  - %s\n", m)
	}
	b.WriteString("Sandbox: ")
	b.WriteString(review.DescribeSandbox(v.Sandbox))
	b.WriteString("\n")
	return b.String()
}
