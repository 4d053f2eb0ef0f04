package profile

import (
	"path"
	"strings"
)

// bash's options that change where globs and cd lead: nocaseglob (a glob
// matches regardless of case), dotglob (and a GLOBIGNORE that is set: *
// matches dot files), cdable_vars (cd NAME goes to $NAME when there is no
// directory NAME). shopt -s turns them on for the rest of the line, so a
// pattern or a cd is reviewed as it would then resolve (principle 10).

// shoptTracked are the options the review follows.
var shoptTracked = []string{"nocaseglob", "dotglob", "cdable_vars", "lastpipe"}

// hShopt: shopt -s NAME… / -u NAME…; a name guard cannot see may be any
// of them (taken as on). -o works on set's options, which these are not.
func hShopt(b *builder, c *call) stream {
	on, off, setOpts := false, false, false
	var names []field
	for _, f := range c.fs {
		switch {
		case f.known && strings.HasPrefix(f.val, "-") && len(f.val) > 1:
			on = on || strings.Contains(f.val, "s")
			off = off || strings.Contains(f.val, "u")
			setOpts = setOpts || strings.Contains(f.val, "o")
		default:
			names = append(names, f)
		}
	}
	if setOpts && on != off {
		shoptKeyword(c.st, names, on)
	}
	if setOpts || on == off {
		return stream{kind: streamText}
	}
	opts := make(map[string]bool, len(c.st.shopts)+1)
	for k, v := range c.st.shopts {
		opts[k] = v
	}
	for _, n := range names {
		if !n.known {
			if on {
				for _, t := range shoptTracked {
					opts[t] = true
				}
			}
			continue
		}
		opts[n.val] = on
	}
	c.st.shopts = opts
	return stream{}
}

// shellStartOpts: bash -O NAME and a BASHOPTS in its environment turn
// shopt options on before the shell reads anything, as shopt -s would in
// its text (bash -O dotglob -c 'rm -rf *' deletes .git). A BASHOPTS guard
// cannot see may turn any of them on. It returns c with a state for the
// new shell that has them on.
func (b *builder) shellStartOpts(c *call) *call {
	if path.Base(c.prog) != "bash" && path.Base(c.prog) != "rbash" {
		return c
	}
	var on []string
	unknown := false
	for _, f := range c.a.values("-O") {
		if !f.known {
			unknown = true
			continue
		}
		on = append(on, f.val)
	}
	if v, set := b.getenv(c.st, "BASHOPTS"); set {
		if v == nil {
			unknown = true
		} else {
			on = append(on, strings.Split(*v, ":")...)
		}
	}
	if unknown {
		on = append(on, shoptTracked...)
	}
	if len(on) == 0 {
		return c
	}
	opts := make(map[string]bool, len(c.st.shopts)+len(on))
	for k, v := range c.st.shopts {
		opts[k] = v
	}
	for _, n := range on {
		opts[n] = true
	}
	nc := *c
	nc.st = c.st.clone()
	nc.st.shopts = opts
	return &nc
}

// globOpts are the options a glob is matched under: nocaseglob, and
// dotglob (shopt -s dotglob, or GLOBIGNORE set to anything, or to a
// value guard cannot see).
func (s *state) globOpts() (fold, dot bool) {
	fold = s.shopts["nocaseglob"]
	dot = s.shopts["dotglob"]
	if v, set := s.vars["GLOBIGNORE"]; set && (v == nil || *v != "") {
		dot = true
	}
	return fold, dot
}

// couldNameUnder is couldName under the glob options: with fold, case
// does not matter; with dot, a component that starts with * or ? may
// also start a dot file's name.
func couldNameUnder(pat, loc []string, fold, dot bool) bool {
	if fold {
		pat, loc = lowerAll(pat), lowerAll(loc)
	}
	if couldName(pat, loc) {
		return true
	}
	if !dot {
		return false
	}
	dotted := make([]string, len(pat))
	changed := false
	for i, p := range pat {
		switch {
		case strings.HasPrefix(p, "*") && p != "**":
			dotted[i], changed = "."+p, true
		case strings.HasPrefix(p, "?"):
			dotted[i], changed = "."+p[1:], true
		default:
			dotted[i] = p
		}
	}
	return changed && couldName(dotted, loc)
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// cdableVar is where cd NAME goes under cdable_vars when there is no
// directory NAME: $NAME's value; "" when unknown. ok is false when the
// option is off or dir is not a plain name.
func (b *builder) cdableVar(st *state, dir string) (string, bool) {
	if !st.shopts["cdable_vars"] || !validName(dir) {
		return "", false
	}
	if p, ok := b.ctx.Resolve(st.cwd, dir); ok && b.ctx.EvalSymlinks != nil {
		if _, err := b.ctx.EvalSymlinks(p); err == nil {
			return p, true // the directory exists: bash goes there
		}
	}
	v, set := st.vars[dir]
	if !set {
		return "", false // no such variable: cd DIR as usual
	}
	if v == nil || *v == "" || *v == dir {
		return "", true
	}
	p, ok := b.ctx.Resolve(st.cwd, path.Clean(*v))
	if !ok {
		return "", true
	}
	return p, true
}
