package profile

import (
	"regexp"
	"strings"
	"sync"
)

// args is a command's argument list split into options and operands with
// the option grammar from its table row.
type args struct {
	all   []field
	flags map[string][]field // "-f" → values (one empty field for a flag without value)
	order []string           // flags in order of appearance
	ops   []field
	dyn   bool // some argument is not static: it may be any option
	rest  []field
}

// parseArgs splits fs. val lists the options that take a value
// ("-o --output"). posix stops option parsing at the first operand, for
// wrappers whose operands start another command.
func parseArgs(fs []field, val string, posix bool) args {
	a := args{all: fs, flags: map[string][]field{}}
	takes := map[string]bool{}
	for _, v := range strings.Fields(val) {
		takes[v] = true
	}
	addFlag := func(name string, v field) {
		if _, ok := a.flags[name]; !ok {
			a.order = append(a.order, name)
		}
		a.flags[name] = append(a.flags[name], v)
	}
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if !f.known {
			a.dyn = true
		}
		s := f.val
		switch {
		case !f.known || s == "-" || !strings.HasPrefix(s, "-"):
			a.ops = append(a.ops, f)
			if posix {
				a.rest = fs[i:]
				return a
			}
		case s == "--":
			a.ops = append(a.ops, fs[i+1:]...)
			a.rest = fs[i+1:]
			return a
		case strings.HasPrefix(s, "--"):
			name, v, hasV := strings.Cut(s, "=")
			name = expandLong(name, takes)
			if hasV {
				addFlag(name, field{val: v, known: true, pos: f.pos, end: f.end})
			} else if takes[name] && i+1 < len(fs) {
				addFlag(name, fs[i+1])
				i++
			} else {
				addFlag(name, field{known: true})
			}
		case takes[s]: // a multi-letter single-dash option: -name x, -exec
			if i+1 < len(fs) {
				addFlag(s, fs[i+1])
				i++
			} else {
				addFlag(s, field{known: true})
			}
		case strings.Contains(s, "=") && takes[s[:strings.IndexByte(s, '=')]] && strings.IndexByte(s, '=') > 2:
			// -name=value, as Go's flag package takes it (-coverprofile=x).
			name, v, _ := strings.Cut(s, "=")
			addFlag(name, field{val: v, known: true, pos: f.pos, end: f.end})
		default:
			// A cluster of short options: -rf, -n19, -o file. The whole
			// token is recorded too, for single-dash long options
			// (-auto-approve, -delete).
			if len(s) > 2 {
				addFlag(s, field{known: true})
			}
			for j := 1; j < len(s); j++ {
				name := "-" + string(s[j])
				if takes[name] {
					if j+1 < len(s) {
						addFlag(name, field{val: s[j+1:], known: true, pos: f.pos, end: f.end})
					} else if i+1 < len(fs) {
						addFlag(name, fs[i+1])
						i++
					} else {
						addFlag(name, field{known: true})
					}
					break
				}
				addFlag(name, field{known: true})
			}
		}
	}
	return a
}

// minAbbrev is the shortest long option taken for an abbreviation: "--"
// and one letter. getopt_long takes any unambiguous prefix, so sed --i
// is sed --in-place and env --s is env --split-string. A prefix that is
// ambiguous for the program is refused by it; for guard it stands for
// every option it could be (the worst of them).
const minAbbrev = 3

// expandLong: getopt_long, git's parse-options, tar and others accept any
// unambiguous prefix of a long option (git push --forc is --force). A long
// option the spec does not list that is the prefix of exactly one option
// taking a value is that option, so its value is read as one.
func expandLong(name string, takes map[string]bool) string {
	if takes[name] || len(name) < minAbbrev {
		return name
	}
	full := ""
	for v := range takes {
		if strings.HasPrefix(v, name) {
			if full != "" {
				return name // ambiguous: the program refuses it
			}
			full = v
		}
	}
	if full == "" {
		return name
	}
	return full
}

// flag returns an option's values: given by its name, or, for a long
// option, by an abbreviation of it (--forc for --force; see expandLong).
func (a args) flag(n string) ([]field, bool) {
	if vs, ok := a.flags[n]; ok || !strings.HasPrefix(n, "--") {
		return vs, ok
	}
	var out []field
	found := false
	for _, k := range a.order {
		if len(k) >= minAbbrev && len(k) < len(n) && strings.HasPrefix(k, "--") && strings.HasPrefix(n, k) {
			out = append(out, a.flags[k]...)
			found = true
		}
	}
	return out, found
}

func (a args) has(names ...string) bool {
	for _, n := range names {
		if _, ok := a.flag(n); ok {
			return true
		}
	}
	return false
}

func (a args) values(names ...string) []field {
	var out []field
	for _, n := range names {
		vs, _ := a.flag(n)
		out = append(out, vs...)
	}
	return out
}

var (
	reMu    sync.Mutex
	reCache = map[string]*regexp.Regexp{}
)

func re(expr string) *regexp.Regexp {
	reMu.Lock()
	defer reMu.Unlock()
	if r, ok := reCache[expr]; ok {
		return r
	}
	r := regexp.MustCompile("(?i)" + expr)
	reCache[expr] = r
	return r
}

// holds evaluates a row condition: space-separated terms that must all
// hold. Terms:
//
//	-f|--force        one of these options is present (or an argument is not static)
//	-X=~REGEX         an option's value matches
//	op~REGEX          some operand matches;  op0~REGEX  operand 0 matches (or is not static)
//	any~REGEX         some argument (option values too) matches
//	ops / noops       there are operands / there are none
//	!TERM             negation
func (a args) holds(cond string) bool {
	for _, t := range strings.Fields(cond) {
		neg := strings.HasPrefix(t, "!")
		t = strings.TrimPrefix(t, "!")
		if neg && a.unseen(t) {
			// A word guard cannot see may be this option or operand,
			// or not: the row may apply either way (cp x $D/.bashrc
			// writes the last operand unless $D is -t DIR).
			continue
		}
		if a.term(t) == neg {
			return false
		}
	}
	return true
}

// unseen reports whether term t holds only because of a word guard
// cannot see: an option that is not given but may be that word, an
// operand at an index that is that word.
func (a args) unseen(t string) bool {
	if !a.dyn {
		return false
	}
	switch {
	case strings.HasPrefix(t, "-"):
		given, maybe := a.option(t)
		return !given && maybe
	case len(t) > 3 && t[:2] == "op" && t[2] >= '0' && t[2] <= '9' && t[3] == '~':
		i := int(t[2] - '0')
		return i < len(a.ops) && !a.ops[i].known
	}
	return false
}

// option evaluates an option term, -a|--b or -a|--b=~REGEX: given, one
// of the options is there (with a value that matches); maybe, none is,
// but a word guard cannot see may make it so (a value that is not
// static, or an argument that may be the option itself).
func (a args) option(t string) (given, maybe bool) {
	names, expr, hasExpr := strings.Cut(t, "=~")
	for _, n := range strings.Split(names, "|") {
		vs, ok := a.flag(n)
		if !ok {
			continue
		}
		if !hasExpr {
			return true, false
		}
		for _, v := range vs {
			if !v.known {
				maybe = true
			} else if re(expr).MatchString(v.val) {
				return true, false
			}
		}
	}
	return false, maybe || a.dyn && !hasExpr
}

func (a args) term(t string) bool {
	switch {
	case t == "ops":
		return len(a.ops) > 0
	case t == "noops":
		return len(a.ops) == 0
	case strings.HasPrefix(t, "any~"):
		r := re(t[4:])
		for _, f := range a.all {
			if f.known && r.MatchString(f.val) {
				return true
			}
		}
		return false
	case strings.HasPrefix(t, "op"):
		name, expr, _ := strings.Cut(t, "~")
		r := re(expr)
		if name == "op" {
			for _, f := range a.ops {
				if f.known && r.MatchString(f.val) {
					return true
				}
			}
			return false
		}
		// Operand N selects what the tool does (a verb, a resource type):
		// one guard cannot see may be the one the row is about.
		i := int(name[2] - '0')
		return i < len(a.ops) && (!a.ops[i].known || r.MatchString(a.ops[i].val))
	case strings.HasPrefix(t, "-"):
		given, maybe := a.option(t)
		return given || maybe
	}
	return false
}

// selectTargets picks the fields a row acts on:
//
//	ops, ops1, ops2   operands (from index 1 or 2)
//	ops.              the operands, or the working directory (.) when none
//	last, init        the last operand, all but the last
//	-o|--output       values of these options
//	kv:of             dd-style key=value operands
//
// A row whose selector starts with "into:" (into:--distpath) names
// directories the program writes names of its own choosing into (an
// output directory): each is priced as the directory and as any name in
// it (writeAnyName), so ~/.local/bin or ~ counts as shadowing a program
// or writing a start-up file.
func (a args) selectTargets(sel string) []field {
	var out []field
	for _, s := range strings.Fields(sel) {
		switch {
		case s == "ops":
			out = append(out, a.ops...)
		case s == "ops.":
			out = append(out, a.ops...)
			if len(a.ops) == 0 {
				out = append(out, field{val: ".", known: true})
			}
		case len(s) == 3 && s[:2] == "op" && s[2] >= '0' && s[2] <= '9':
			if i := int(s[2] - '0'); i < len(a.ops) {
				out = append(out, a.ops[i])
			}
		case s == "ops1" && len(a.ops) > 1:
			out = append(out, a.ops[1:]...)
		case s == "ops2" && len(a.ops) > 2:
			out = append(out, a.ops[2:]...)
		case s == "last" && len(a.ops) > 0:
			out = append(out, a.ops[len(a.ops)-1])
		case s == "init" && len(a.ops) > 1:
			out = append(out, a.ops[:len(a.ops)-1]...)
		case strings.HasPrefix(s, "kv:"):
			key := s[3:] + "="
			for _, f := range a.ops {
				if f.known && strings.HasPrefix(f.val, key) {
					g := f
					g.val = strings.TrimPrefix(f.val, key)
					out = append(out, g)
				}
			}
		case strings.HasPrefix(s, "-"):
			out = append(out, a.values(strings.Split(s, "|")...)...)
		}
	}
	return out
}
