package profile

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A filter changes the text it passes on. Only where guard computes the
// change can a shell that reads the result be reviewed by that text;
// any other filter handed known text puts out data guard cannot see
// (echo 'true # ~ fr- mr' | rev | sh runs rm -rf ~, while the text
// piped in reads as true). Network and decoded data keep their taint
// through every filter (principle 9); that is worse() in apply.

// textFilter computes what a filter reading known text on its stdin
// writes to its stdout, from its arguments; false when it cannot.
type textFilter func(fs []field, in string) (string, bool)

// textProgram is what guard knows of a text program's arguments.
type textProgram struct {
	// script: its first operand is its program or pattern, not a file,
	// unless one of these options gives it (nil: operands are files).
	script []string
	// prints: it prints text taken from its arguments that guard does
	// not compute: sed's replacements and a/i/c text, jq's and awk's
	// string literals, date's +FORMAT, yes, basename, dirname.
	prints bool
	// printed: the prefix that marks the arguments it prints, which
	// it prints without it (date's +FORMAT); "" when it may print any
	// argument that is not an option.
	printed string
}

// textPrograms is the one table of text programs, every spelling of
// each (gsed, gojq, yq), so scriptFirst and argPrinter agree. A switch:
// nothing is built at start.
func textPrograms(prog string) textProgram {
	switch prog {
	case "sed", "gsed":
		return textProgram{script: []string{"-e", "--expression", "-f", "--file"}, prints: true}
	case "grep", "egrep", "fgrep":
		return textProgram{script: []string{"-e", "--regexp", "-f", "--file"}}
	case "awk", "gawk", "mawk", "nawk":
		return textProgram{script: []string{"-f", "--file", "-e", "--source", "--exec"}, prints: true}
	case "jq", "gojq", "yq":
		return textProgram{script: []string{"-f", "--from-file"}, prints: true}
	case "date":
		return textProgram{prints: true, printed: "+"}
	case "yes", "basename", "dirname":
		return textProgram{prints: true}
	}
	return textProgram{}
}

// scriptFirst are filters whose first operand is their program or
// pattern, not a file, unless one of these options gives it.
func scriptFirst(prog string) ([]string, bool) {
	s := textPrograms(prog).script
	return s, s != nil
}

// readsInput reports whether a filter reads its standard input: it has
// no file operands (tr has none at all; a sed, grep or awk program is not
// one).
func readsInput(c *call) bool {
	if c.prog == "tr" {
		return true
	}
	ops := len(c.a.ops)
	if opts, ok := scriptFirst(c.prog); ok && ops > 0 && !c.a.has(opts...) {
		ops--
	}
	return ops == 0
}

// argPrinter reports whether prog prints text taken from its arguments
// that guard does not compute (textProgram.prints).
func argPrinter(prog string) bool { return textPrograms(prog).prints }

// argNear is text a program's output may hold, from its known
// arguments: each argument, the parts of one split at the punctuation
// that delimits sed's commands (s/A/B/, s|A|B|), and the contents of its
// double-quoted strings (jq's and awk's literals), one a line; only
// those with the table's printed prefix, without it, where it has one
// (date's +FORMAT).
func argNear(prog string, fs []field) string {
	mark := textPrograms(prog).printed
	var out []string
	for _, f := range fs {
		if !f.known || f.val == "" {
			continue
		}
		v := f.val
		if mark != "" {
			rest, ok := strings.CutPrefix(v, mark)
			if !ok {
				continue
			}
			v = rest // printed whatever it starts with (date '+-rf ~')
		} else if strings.HasPrefix(v, "-") {
			continue // an option, not printed text
		}
		out = append(out, v)
		out = append(out, strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("/|#,:@;\"\n", r) })...)
	}
	return strings.Join(out, "\n")
}

// maxNearJoin bounds the near text a stage of a pipeline copies to add
// its own: a line of thousands of sed stages over a long text would
// otherwise copy that text at every stage (quadratic time). Past it the
// stage's own text is left out; its output stays data guard cannot see
// (at least B).
const maxNearJoin = 8 << 10

// joinNear joins two texts a stream's output may resemble, leaving b out
// when the result would pass limit.
func joinNear(a, b string, limit int) string {
	switch {
	case a == "":
		return b
	case b == "" || len(a)+len(b) >= limit:
		return a
	}
	return a + "\n" + b
}

// filterText returns the output of prog reading the text in, for the
// filters guard computes: cat and tee pass it on unchanged, head and
// tail cut it, rev and tac reverse it.
func filterText(prog string, fs []field, in string) (string, bool) {
	var f textFilter
	switch prog {
	case "cat":
		f = catText
	case "tee":
		f = teeText
	case "head":
		f = func(fs []field, in string) (string, bool) { return cutText(fs, in, false) }
	case "tail":
		f = func(fs []field, in string) (string, bool) { return cutText(fs, in, true) }
	case "rev":
		f = revText
	case "tac":
		f = tacText
	default:
		return "", false
	}
	for _, a := range fs {
		if !a.known {
			return "", false
		}
	}
	return f(fs, in)
}

// catText: cat without operands passes its input on; -u (unbuffered) is
// the only option that does not change it (-n numbers lines, -v -A -E
// -T show characters, -s squeezes blank lines).
func catText(fs []field, in string) (string, bool) {
	for _, a := range fs {
		if a.val != "-u" {
			return "", false
		}
	}
	return in, true
}

// teeText: tee writes its input to its files and to stdout unchanged,
// whatever its options (-a, -i, -p) and operands.
func teeText(_ []field, in string) (string, bool) { return in, true }

// lines splits text after each newline; the last line may have none.
func lines(in string) []string {
	ls := strings.SplitAfter(in, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// cutText computes head (first lines or bytes) and tail (last ones) for
// -n N, -c N, --lines=N, --bytes=N, the old -N, head's -n -N (all but
// the last N) and tail's -n +N (from the Nth on). Any other option, or
// a file operand, and guard does not compute it.
func cutText(fs []field, in string, tail bool) (string, bool) {
	bytes, spec := false, "10"
	for i := 0; i < len(fs); i++ {
		v := fs[i].val
		switch {
		case v == "-n" || v == "-c" || v == "--lines" || v == "--bytes":
			if i+1 >= len(fs) {
				return "", false
			}
			bytes, spec = v == "-c" || v == "--bytes", fs[i+1].val
			i++
		case strings.HasPrefix(v, "--lines="), strings.HasPrefix(v, "--bytes="):
			bytes, spec = strings.HasPrefix(v, "--bytes="), v[len("--lines="):]
		case strings.HasPrefix(v, "-n") || strings.HasPrefix(v, "-c"):
			bytes, spec = v[1] == 'c', v[2:]
		case len(v) > 1 && v[0] == '-' && strings.Trim(v[1:], "0123456789") == "":
			spec = v[1:]
		case v == "-q" || v == "--quiet" || v == "--silent":
		default:
			return "", false
		}
	}
	from := strings.HasPrefix(spec, "+")
	allBut := strings.HasPrefix(spec, "-")
	n, err := strconv.Atoi(strings.TrimLeft(spec, "+-"))
	if err != nil || n < 0 || (from && !tail) || (allBut && tail) {
		return "", false
	}
	if bytes {
		parts := make([]string, len(in))
		for i := range len(in) {
			parts[i] = in[i : i+1]
		}
		return cutParts(parts, n, tail, from, allBut), true
	}
	if in == "" {
		return "", true
	}
	return cutParts(lines(in), n, tail, from, allBut), true
}

// cutParts keeps the first n parts (head), all but the last n (head -n
// -N), the last n (tail) or those from the nth on (tail -n +N).
func cutParts(parts []string, n int, tail, from, allBut bool) string {
	k := len(parts)
	switch {
	case from:
		if n > 0 {
			n--
		}
		return strings.Join(parts[min(n, k):], "")
	case tail:
		return strings.Join(parts[k-min(n, k):], "")
	case allBut:
		return strings.Join(parts[:k-min(n, k)], "")
	default:
		return strings.Join(parts[:min(n, k)], "")
	}
}

// revText reverses the characters of each line, as rev does in a UTF-8
// locale; text that is not UTF-8 is reversed by bytes in the C locale,
// so guard does not compute it.
func revText(fs []field, in string) (string, bool) {
	if len(fs) > 0 || !utf8.ValidString(in) {
		return "", false
	}
	var out strings.Builder
	for _, l := range lines(in) {
		body, nl := strings.CutSuffix(l, "\n")
		r := []rune(body)
		slices.Reverse(r)
		out.WriteString(string(r))
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.String(), true
}

// tacText writes the lines last first; a last line without a newline is
// joined to the one printed after it, as tac does.
func tacText(fs []field, in string) (string, bool) {
	if len(fs) > 0 {
		return "", false
	}
	ls := strings.SplitAfter(in, "\n")
	slices.Reverse(ls)
	return strings.Join(ls, ""), true
}
