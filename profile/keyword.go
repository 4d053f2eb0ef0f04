package profile

import (
	"slices"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// set -k (set -o keyword): bash then takes every NAME=VALUE word of a
// simple command as an assignment to that command's environment, not only
// those before its name. `set -k; make BASH_ENV=./evil.sh` runs make with
// BASH_ENV set, `set -k; git log GIT_PAGER='rm -rf ~'` runs the pager.
// The review follows the option through the line and prices such words as
// the prefix assignments they become (and, to stay on the safe side, as
// the arguments they would be without it).

// keywordOpt is set's keyword option in the state's option map (shopt's
// names never take this form).
const keywordOpt = "set:keyword"

// setOpt turns a tracked option on or off for the rest of the line.
func (s *state) setOpt(name string, on bool) {
	if s.shopts[name] == on {
		return
	}
	opts := make(map[string]bool, len(s.shopts)+1)
	for k, v := range s.shopts {
		opts[k] = v
	}
	opts[name] = on
	s.shopts = opts
}

// keywordWords reads option words (set's, or a shell's before its first
// operand) for the keyword option: -k/+k in any cluster (-ek), and -o/+o
// keyword, the name being the next word after any cluster holding o (set
// -eo keyword). It returns the last setting they make and whether they
// make one. An option word guard cannot see may be -k, and a name it
// cannot see may be keyword: both turn it on. A shell's long options
// (--rcfile FILE) and -O NAME (shopt's) are skipped.
func keywordWords(fs []field) (on, changed bool) {
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		switch {
		case !f.known:
			return true, true
		case f.val == "--" || f.val == "-" || len(f.val) < 2 || (f.val[0] != '-' && f.val[0] != '+'):
			return on, changed
		case strings.HasPrefix(f.val, "--"):
			if f.val == "--rcfile" || f.val == "--init-file" {
				i++
			}
			continue
		}
		set := f.val[0] == '-'
		if strings.ContainsRune(f.val[1:], 'k') {
			on, changed = set, true
		}
		if strings.ContainsAny(f.val[1:], "oO") && i+1 < len(fs) {
			i++
			if !strings.ContainsRune(f.val[1:], 'o') {
				continue
			}
			switch n := fs[i]; {
			case !n.known && set:
				on, changed = true, true
			case n.known && n.val == "keyword":
				on, changed = set, true
			}
		}
	}
	return on, changed
}

// setKeyword follows set's option words for the rest of the line.
func setKeyword(c *call) {
	if on, changed := keywordWords(c.fs); changed {
		c.st.setOpt(keywordOpt, on)
	}
}

// shellKeyword: a shell started with -k, -o keyword, or SHELLOPTS
// holding keyword (or a value guard cannot see) in its environment runs
// its commands under set -k.
func (b *builder) shellKeyword(c *call) *call {
	on, _ := keywordWords(c.fs)
	if v, ok := b.getenv(c.st, "SHELLOPTS"); ok && (v == nil || strings.Contains(*v, "keyword")) {
		on = true
	}
	if !on || c.st.shopts[keywordOpt] {
		return c
	}
	nc := *c
	nc.st = c.st.clone()
	nc.st.setOpt(keywordOpt, true)
	return &nc
}

// shoptKeyword: shopt -s -o keyword (or a name guard cannot see) turns
// set's keyword option on, -u -o keyword off.
func shoptKeyword(st *state, names []field, on bool) {
	for _, n := range names {
		switch {
		case !n.known && on:
			st.setOpt(keywordOpt, true)
		case n.known && n.val == "keyword":
			st.setOpt(keywordOpt, on)
		}
	}
}

// keywordCall is c as bash runs it under set -k: the words after the
// command's name that have an assignment's form are assignments too.
// They stay arguments as well, so the review sees the worse of both.
func keywordCall(c *parse.Call, st *state) *parse.Call {
	if !st.shopts[keywordOpt] || len(c.Args) < 2 {
		return c
	}
	var extra []*parse.Assign
	for _, w := range c.Args[1:] {
		if a := assignWord(w); a != nil {
			extra = append(extra, a)
		}
	}
	if len(extra) == 0 {
		return c
	}
	return &parse.Call{Assigns: append(slices.Clone(c.Assigns), extra...), Args: c.Args}
}

// assignWord reads a word of the form NAME=VALUE or NAME+=VALUE as the
// assignment it is under set -k, or nil. The name must lie in the word's
// leading literal text; what follows the = is the value, parts and all.
func assignWord(w *parse.Word) *parse.Assign {
	if len(w.Parts) == 0 || w.Parts[0].Kind != parse.Lit {
		return nil
	}
	head := w.Parts[0]
	name, rest, ok := strings.Cut(head.Text, "=")
	if !ok {
		return nil
	}
	app := strings.HasSuffix(name, "+")
	name = strings.TrimSuffix(name, "+")
	if !validName(name) {
		return nil
	}
	val := &parse.Word{Pos: w.Pos, End: w.End}
	if rest != "" {
		head.Text, head.Raw = rest, rest
		val.Parts = append(val.Parts, head)
	}
	val.Parts = append(val.Parts, w.Parts[1:]...)
	if len(val.Parts) == 0 {
		val.Parts = []parse.Part{{Kind: parse.Lit}} // NAME=: the empty value
	}
	return &parse.Assign{Pos: w.Pos, Name: name, Value: val, Append: app}
}
