package policy

import (
	"errors"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guard-sh/guard/profile"
)

// compiled is a rule's match, ready to evaluate.
type compiled struct {
	words []wordPat
	re    *regexp.Regexp
	caps  map[profile.Cap]bool
}

// wordPat matches argv words: a lone "*" matches any number of words
// (none included); any other pattern matches exactly one word.
type wordPat struct {
	any  bool
	lit  string         // a word without wildcards
	glob *regexp.Regexp // a word with wildcards
}

// compileWord compiles one word of a command pattern: * matches any text
// (slashes included), ? one character, [abc] and [!a-z] a class, and a
// backslash makes the next character literal.
func compileWord(w string) (wordPat, error) {
	if w == "*" {
		return wordPat{any: true}, nil
	}
	var b strings.Builder
	var lit strings.Builder
	meta := false
	b.WriteString(`^(?s:`)
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\\':
			if i+1 == len(w) {
				return wordPat{}, errors.New("trailing backslash")
			}
			i++
			b.WriteString(regexp.QuoteMeta(w[i : i+1]))
			lit.WriteByte(w[i])
		case '*':
			meta = true
			b.WriteString(`.*`)
		case '?':
			meta = true
			b.WriteString(`.`)
		case '[':
			meta = true
			j := i + 1
			neg := false
			if j < len(w) && (w[j] == '!' || w[j] == '^') {
				neg = true
				j++
			}
			var cls strings.Builder
			first := true
			for ; j < len(w) && (w[j] != ']' || first); j++ {
				first = false
				switch w[j] {
				case '\\':
					if j+1 < len(w) {
						j++
					}
					cls.WriteString(regexp.QuoteMeta(w[j : j+1]))
				case '[', ']', '^':
					cls.WriteString(`\` + w[j:j+1])
				default:
					cls.WriteByte(w[j])
				}
			}
			if j >= len(w) {
				return wordPat{}, errors.New("unclosed [")
			}
			if neg {
				b.WriteString(`[^` + cls.String() + `]`)
			} else {
				b.WriteString(`[` + cls.String() + `]`)
			}
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(w[i : i+1]))
			lit.WriteByte(c)
		}
	}
	if !meta {
		return wordPat{lit: lit.String()}, nil
	}
	b.WriteString(`)$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return wordPat{}, errors.New(unwrapRegexpErr(err))
	}
	return wordPat{glob: re}, nil
}

// unresolved reports whether an argv word is one guard could not resolve:
// the profile shows such words as written ($X, $(…)) or as "(unknown)".
func unresolved(w string) bool {
	return w == "(unknown)" || strings.ContainsAny(w, "$`")
}

// matchWord matches one pattern word against one argv word. With loose
// (an allow or a grant), a wildcard never matches an unresolved word:
// guard cannot tell what it will be.
func (wp wordPat) matchWord(w string, loose bool) bool {
	if wp.glob == nil && !wp.any {
		return wp.lit == w
	}
	if loose && unresolved(w) {
		return false
	}
	if wp.any {
		return true
	}
	return wp.glob.MatchString(w)
}

// matchWords matches a whole argv: a lone * consumes any number of words.
// Dynamic programming keeps it linear in len(pats)*len(words).
func matchWords(pats []wordPat, words []string, loose bool) bool {
	// ok[j]: pats[:i] matches words[:j].
	ok := make([]bool, len(words)+1)
	ok[0] = true
	for _, p := range pats {
		next := make([]bool, len(words)+1)
		if p.any {
			reach := false
			for j := 0; j <= len(words); j++ {
				if ok[j] {
					reach = true
				}
				next[j] = reach
				if reach && j < len(words) && !p.matchWord(words[j], loose) {
					// An unresolved word stops a loose lone *.
					reach = false
				}
			}
		} else {
			for j := 1; j <= len(words); j++ {
				next[j] = ok[j-1] && p.matchWord(words[j-1], loose)
			}
		}
		ok = next
	}
	return ok[len(words)]
}

// matchCommand matches the rule's command pattern against one command.
// The first pattern word names the program: without a slash it is matched
// against the program's name as guard resolved it (git for /usr/bin/git),
// with a slash against the word as written.
func (c *compiled) matchCommand(cmd profile.Command, loose bool) bool {
	if len(c.words) == 0 {
		return true
	}
	if len(cmd.Argv) == 0 {
		return false
	}
	prog := cmd.Name
	if p := c.words[0]; p.lit != "" && strings.Contains(p.lit, "/") || p.glob != nil && strings.Contains(p.glob.String(), "/") {
		prog = cmd.Argv[0]
	}
	if prog == "" {
		prog = cmd.Argv[0]
	}
	if c.words[0].any {
		return matchWords(c.words, append([]string{prog}, cmd.Argv[1:]...), loose)
	}
	if !c.words[0].matchWord(prog, loose) {
		return false
	}
	return matchWords(c.words[1:], cmd.Argv[1:], loose)
}

// effectCaps are the caps an effect counts as: its own, and the row its
// path class puts it in (reading a secret counts as "secrets", writing
// guard's own files as "self", writing another terminal as "inject").
func effectCaps(e profile.Effect) []profile.Cap {
	out := []profile.Cap{e.Cap}
	switch e.Class {
	case profile.ClassSecret:
		if e.Cap == profile.CapRead || e.Cap == profile.CapReveal {
			out = append(out, profile.CapSecrets)
		}
	case profile.ClassGuard:
		out = append(out, profile.CapSelf)
	case profile.ClassTTY:
		if e.Cap != profile.CapRead {
			out = append(out, profile.CapInject)
		}
	case profile.ClassPersistence:
		if e.Cap == profile.CapWrite || e.Cap == profile.CapDelete {
			out = append(out, profile.CapPersistence)
		}
	case profile.ClassSystem, profile.ClassDevice, profile.ClassRoot:
		if e.Cap == profile.CapWrite || e.Cap == profile.CapDelete {
			out = append(out, profile.CapSystem)
		}
	}
	return out
}

// protected reports whether an effect may never be lowered: guard-self,
// terminal injection, and the fail-closed rows for text guard could not
// analyse.
func protected(e profile.Effect) bool {
	for _, c := range effectCaps(e) {
		switch c {
		case profile.CapSelf, profile.CapInject, profile.CapUnparsed, profile.CapLimit, profile.CapUnsupported:
			return true
		}
	}
	return false
}

// matchPath matches a paths glob against an effect's resolved target. A
// pattern starting with / or ~ is matched against the absolute path; any
// other pattern against the path relative to the workspace root, and one
// starting with ** also against the absolute path (so "**/*.env" matches
// a .env file anywhere).
func matchPath(pattern, target string, ctx *profile.Context) bool {
	home, ws := "", ""
	if ctx != nil {
		home, ws = ctx.Home, ctx.Workspace
	}
	if strings.HasPrefix(pattern, "~") {
		if home == "" {
			return false
		}
		return doublestar.MatchUnvalidated(expandTilde(pattern, home), target)
	}
	if strings.HasPrefix(pattern, "/") {
		return doublestar.MatchUnvalidated(pattern, target)
	}
	if strings.HasPrefix(pattern, "**") && doublestar.MatchUnvalidated(pattern, target) {
		return true
	}
	if ws != "" && ws != "/" && path.Clean(ws) != path.Clean(home) {
		ws = path.Clean(ws)
		if strings.HasPrefix(target, ws+"/") {
			return doublestar.MatchUnvalidated(pattern, target[len(ws)+1:])
		}
	}
	return false
}

// expandTilde replaces a leading ~ with home.
func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return path.Join(home, p[2:])
	}
	return p
}

// pathTarget reports whether an effect has a path target, and whether
// guard could resolve it.
func pathTarget(e profile.Effect) (isPath, resolved bool) {
	switch {
	case e.Class == profile.ClassRemote:
		return false, false
	case e.Class == profile.ClassUnknown:
		return true, false
	case e.Class != "" && strings.HasPrefix(e.Target, "/"):
		return true, true
	}
	return false, false
}

// scene is one command line being evaluated: its profile, its text and
// which commands each effect belongs to.
type scene struct {
	p      *profile.Profile
	text   string
	ctx    *profile.Context
	owners [][]int // effect index → indexes of the commands that may have caused it
}

func newScene(p *profile.Profile, text string, ctx *profile.Context) *scene {
	s := &scene{p: p, text: text, ctx: ctx, owners: make([][]int, len(p.Effects))}
	for i, e := range p.Effects {
		if e.Program == "" {
			// Redirections and line-level findings belong to no command.
			continue
		}
		for j, c := range p.Commands {
			if c.Name == e.Program && c.Pos <= e.Pos && e.End <= c.End {
				s.owners[i] = append(s.owners[i], j)
			}
		}
	}
	return s
}

// site is where a rule matched: the span to point at and the effects it
// covers.
type site struct {
	matched  bool
	pos, end int
	effects  []int
}

// eval evaluates a rule's match on the scene. loose is for allow rules
// and grants, strict otherwise: when guard cannot tell (an unresolved word
// or path, an effect that several commands may have caused), a tightening
// rule matches and a loosening one does not.
func (r *Rule) eval(s *scene, loose bool) site {
	c := &r.compiled
	if c.re != nil && !c.re.MatchString(s.text) {
		return site{}
	}
	out := site{pos: -1}
	mark := func(pos, end int) {
		if out.pos < 0 {
			out.pos, out.end = pos, end
		}
		out.matched = true
	}
	effectLevel := r.Caps != nil || r.Paths != nil
	switch {
	case effectLevel:
		for i, e := range s.p.Effects {
			if r.matchEffect(s, i, e, loose) {
				mark(e.Pos, e.End)
				out.effects = append(out.effects, i)
			}
		}
	case r.Command != "":
		for _, cmd := range s.p.Commands {
			if c.matchCommand(cmd, loose) {
				mark(cmd.Pos, cmd.End)
			}
		}
		for i := range s.p.Effects {
			if r.ownedBy(s, i, loose) {
				out.effects = append(out.effects, i)
			}
		}
	default: // a regex alone: the whole line
		mark(0, len(s.text))
		for i := range s.p.Effects {
			out.effects = append(out.effects, i)
		}
	}
	if !out.matched {
		return site{}
	}
	return out
}

// ownedBy reports whether effect i comes from a command the pattern
// matches: for a loose rule every command that may have caused it must
// match, for a strict one any.
func (r *Rule) ownedBy(s *scene, i int, loose bool) bool {
	if len(r.compiled.words) == 0 {
		return true
	}
	owners := s.owners[i]
	if len(owners) == 0 {
		return false
	}
	for _, j := range owners {
		m := r.compiled.matchCommand(s.p.Commands[j], loose)
		if loose && !m {
			return false
		}
		if !loose && m {
			return true
		}
	}
	return loose
}

func (r *Rule) matchEffect(s *scene, i int, e profile.Effect, loose bool) bool {
	if r.Caps != nil {
		ok := false
		for _, c := range effectCaps(e) {
			if r.compiled.caps[c] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if r.Paths != nil {
		isPath, resolved := pathTarget(e)
		switch {
		case !isPath:
			return false
		case !resolved:
			// An unresolved path might be any of them.
			if loose {
				return false
			}
		default:
			ok := false
			for _, p := range r.Paths {
				if matchPath(p, e.Target, s.ctx) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
	}
	return r.ownedBy(s, i, loose)
}

// Matches reports whether the rule matches a command line as guard
// profiled it in ctx, the way Apply evaluates it: loosely for allow rules
// and grants, strictly for deny and require.
func (r *Rule) Matches(p *profile.Profile, text string, ctx *profile.Context) bool {
	return r.eval(newScene(p, text, ctx), r.Loosens()).matched
}
