package profile

import (
	"regexp"
	"strings"
	"sync"
)

// awkIO finds an awk program's own file I/O: gawk's @load (a native
// extension) and @include (more program), getline < FILE, and print or
// printf > FILE / >> FILE where FILE is an expression. It is matched
// against the program with string literals' contents masked, so a '>'
// inside a string is not a redirection.
var awkIO = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(@load|@include)\s+("[^"]*")|\bgetline\b(?:\s+[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)?\s*(<)\s*([^;{}\n)]+)|\b(printf?)\b([^;{}\n>|]*)(>>?)\s*([^;{}\n|]+)`)
})

// awkAssign finds a variable set by an awk program (not compared: == and
// != do not match), on the masked program.
var awkAssign = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^=;{}\n][^;{}\n]*)`)
})

// awkFiles prices the files an awk program reads, writes and loads
// itself. A target built from an expression (ENVIRON["HOME"] "/.bashrc")
// is a word with unresolved parts: what it could name, it names
// (principle 10), as $X/.bashrc would. A variable set once, in the
// program or by -v, stands for what it was set to.
func (b *builder) awkFiles(c *call, prog field) {
	sp := span{prog.pos, prog.end}
	src := prog.val
	masked := awkMask(src)
	vars := awkVars(c, src, masked)
	at := func(m []int, g int) field {
		f := awkTarget(src[m[2*g]:m[2*g+1]], vars)
		f.pos, f.end = sp.pos, sp.end
		return f
	}
	for _, m := range awkIO().FindAllStringSubmatchIndex(masked, -1) {
		switch {
		case m[2] >= 0 && src[m[2]:m[3]] == "@load":
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: at(m, 2).display(), Msg: "loads a gawk extension (@load), native code guard cannot review"}, c.sp)
		case m[2] >= 0:
			f := at(m, 2)
			if f.known && strings.TrimSuffix(f.val, ".awk") == "inplace" {
				continue
			}
			b.pathEffect(CapRead, "awk.program-file", "awk", f, c.st, c.sp, "reads its program from")
			b.add(Effect{Cap: CapDynamic, Rule: "awk.program-file", Program: c.prog, Msg: "runs an awk program from a file, which guard does not review"}, c.sp)
		case m[6] >= 0:
			b.pathEffect(CapRead, "awk.read", "awk", at(m, 4), c.st, c.sp, "reads")
		case m[10] >= 0:
			// print (a > b) compares: a '>' inside parentheses is not a
			// redirection.
			args := masked[m[12]:m[13]]
			if strings.Count(args, "(") > strings.Count(args, ")") {
				continue
			}
			f := at(m, 8)
			if f.known && awkSpecialFile(f.val) {
				continue
			}
			b.pathEffect(CapWrite, "awk.write", "awk", f, c.st, c.sp, "writes")
		}
	}
}

// awkSpecialFile reports whether gawk handles the name itself rather than
// opening a file: its standard streams and descriptors.
func awkSpecialFile(name string) bool {
	return name == "/dev/stdout" || name == "/dev/stderr" || name == "-" || strings.HasPrefix(name, "/dev/fd/")
}

// awkMask returns the program with every character inside a string
// literal (and its escapes) replaced by 'x', the quotes kept: the same
// length, so indices found in it hold in the program.
func awkMask(src string) string {
	out := []byte(src)
	in := false
	for i := 0; i < len(out); i++ {
		switch {
		case !in && out[i] == '"':
			in = true
		case in && out[i] == '\\' && i+1 < len(out):
			out[i], out[i+1] = 'x', 'x'
			i++
		case in && out[i] == '"':
			in = false
		case in:
			out[i] = 'x'
		}
	}
	return string(out)
}

// awkVars are the variables an awk program or its -v options set, each
// to one value (a target field); a variable set to two different values
// is left out, so it stays unresolved.
func awkVars(c *call, src, masked string) map[string]field {
	vars := map[string]field{}
	twice := map[string]bool{}
	set := func(name string, val field) {
		if old, ok := vars[name]; ok && (old.val != val.val || old.known != val.known) {
			twice[name] = true
		}
		vars[name] = val
	}
	for _, v := range c.a.values("-v", "--assign") {
		if name, val, ok := strings.Cut(v.val, "="); ok && v.known {
			set(name, field{val: val, known: true})
		}
	}
	for _, m := range awkAssign().FindAllStringSubmatchIndex(masked, -1) {
		set(src[m[2]:m[3]], awkTarget(src[m[4]:m[5]], nil))
	}
	for name := range twice {
		delete(vars, name)
	}
	return vars
}

// awkTarget turns an awk expression naming a file into a field: string
// literals and variables in vars are its parts (awk concatenates adjacent
// operands), anything else an unresolved part. The field is known only
// when every part is.
func awkTarget(expr string, vars map[string]field) field {
	var val strings.Builder
	known := true
	unknown := false // the last part written was an unresolved one
	unresolved := func() {
		if !unknown {
			val.WriteString("${AWK}")
		}
		known, unknown = false, true
	}
	for i := 0; i < len(expr); i++ {
		ch := expr[i]
		switch {
		case ch == '"':
			j := i + 1
			for ; j < len(expr) && expr[j] != '"'; j++ {
				if expr[j] == '\\' && j+1 < len(expr) {
					j++
				}
				val.WriteByte(expr[j])
			}
			i = j
			unknown = false
		case ch == ' ' || ch == '\t' || ch == '(' || ch == ')':
		case ch == '[':
			// A subscript (ENVIRON["HOME"]) is part of an unresolved value.
			if j := strings.IndexByte(expr[i:], ']'); j > 0 {
				i += j
			}
			unresolved()
		case ch == '_' || ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z':
			j := i
			for j < len(expr) && (expr[j] == '_' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			if v, ok := vars[expr[i:j]]; ok && (j == len(expr) || expr[j] != '[') {
				val.WriteString(v.val)
				unknown = !v.known && strings.HasSuffix(v.val, "${AWK}")
				known = known && v.known
			} else {
				unresolved()
			}
			i = j - 1
		default:
			unresolved()
		}
	}
	return field{val: val.String(), known: known, raw: strings.TrimSpace(expr)}
}
