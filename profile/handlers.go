package profile

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/guard-sh/guard/parse"
	"path"
	"regexp"
	"strings"
)

// Handlers hold the knowledge that does not fit a row: programs that run
// other programs (wrappers, shells, find, xargs), change the directory, or
// carry code in an argument. Each is named in the table in rules.go.

// cdTarget is where cd DIR goes: a relative DIR that does not start with
// . or .. is looked up in each CDPATH entry first, as bash does; with a
// CDPATH guard cannot see, the directory is unknown.
func (b *builder) cdTarget(st *state, dir string) string {
	if cdpath, set := st.vars["CDPATH"]; set && !strings.HasPrefix(dir, "/") && dir != "." && dir != ".." && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") {
		if cdpath == nil || b.ctx.EvalSymlinks == nil {
			return ""
		}
		for _, e := range strings.Split(*cdpath, ":") {
			if e == "" {
				e = "."
			}
			if p, ok := b.ctx.Resolve(st.cwd, path.Join(e, dir)); ok {
				if _, err := b.ctx.EvalSymlinks(p); err == nil {
					return p
				}
			}
		}
	}
	if p, ok := b.cdableVar(st, dir); ok {
		return p
	}
	// cd is logical (bash's default cd -L): .. drops the name before it.
	if p, ok := b.ctx.Resolve(st.cwd, path.Clean(dir)); ok {
		return p
	}
	return ""
}

// hCd changes the directory for the rest of the line.
func hCd(b *builder, c *call) stream {
	dir := ""
	switch {
	case len(c.a.ops) == 0:
		if v := c.st.vars["HOME"]; v != nil {
			dir = *v
		}
	case !c.a.ops[0].known || c.a.ops[0].val == "-":
	default:
		dir = b.cdTarget(c.st, c.a.ops[0].val)
	}
	chdir(c.st, dir)
	return stream{}
}

// wrap runs the command that follows the wrapper's options after skipping
// skip positional words (timeout's duration, flock's file).
func wrap(skip int) handler {
	return func(b *builder, c *call) stream {
		inner := c.a.rest
		if len(inner) <= skip {
			return stream{}
		}
		return b.exec(inner[skip:], c.st, c.in, c.prog, c.sp)
	}
}

// hEnv: env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE…] [CMD…].
func hEnv(b *builder, c *call) stream {
	st := c.st
	if dirs := c.a.values("-C", "--chdir"); len(dirs) > 0 {
		st = st.clone()
		if d := dirs[0]; d.known {
			if p, ok := b.ctx.Resolve(st.cwd, d.val); ok {
				st.cwd = p
			}
		} else {
			st.cwd = ""
		}
	}
	if ss := c.a.values("-S", "--split-string"); len(ss) > 0 {
		s := ss[0]
		if !s.known {
			b.add(Effect{Cap: CapDynamic, Rule: "env.split-dynamic", Program: "env", Msg: "runs env -S with a command that is not static"}, c.sp)
			return stream{kind: streamUnknown}
		}
		argv := envSplit(s.val, st, span{s.pos, s.end})
		argv = append(argv, c.a.rest...)
		return b.exec(skipAssigns(argv), st, c.in, "env -S", c.sp)
	}
	inner := skipAssigns(c.a.rest)
	assigns := c.a.rest[:len(c.a.rest)-len(inner)]
	b.envAssigns(assigns, st, c.sp)
	if len(inner) > 0 {
		// The program env runs has these in its environment, as after
		// a prefix assignment: its lookups (GOBIN, GIT_PAGER) and the
		// shell code it runs see them. -u NAME takes one out: its value
		// there is not one guard knows.
		env := st.clone()
		var names []string
		for _, f := range c.a.values("-u", "--unset") {
			if f.known {
				delete(env.vars, f.val)
				names = append(names, f.val)
			}
		}
		for _, f := range assigns {
			name, v, _ := strings.Cut(f.val, "=")
			if !validName(name) {
				continue
			}
			var val *string
			if f.known {
				val = &v
			}
			env.setTainted(name, val, f.taint)
			if name == "PATH" {
				env.setPathDirs(val, []field{f})
			}
			names = append(names, name)
		}
		return b.inEnv(st, env, names, func() stream { return b.exec(inner, st, c.in, "env", c.sp) })
	}
	if len(inner) == 0 {
		if len(c.a.rest) == 0 {
			b.add(Effect{Cap: CapRead, Rule: "env.print-all", Program: "env", Msg: "prints all environment variables (the sandbox does not pass secret-looking ones)"}, c.sp)
		}
		out := b.envListing(st)
		for _, f := range c.a.rest {
			// env NAME=VALUE prints the pair among the others.
			out.near += f.display() + "\n"
		}
		return out
	}
	return b.exec(inner, st, c.in, "env", c.sp)
}

// envListing is what env and printenv print: NAME=VALUE lines, unquoted,
// of an environment guard does not see whole. A value the line set is
// among them as it is (X='a; rm -rf ~' env | sh runs rm -rf ~), so
// those lines are the known text near the listing; the values the
// context gave are left out (the user's own environment).
func (b *builder) envListing(st *state) stream {
	init := b.initialState().vars
	var near strings.Builder
	for _, name := range slices.Sorted(maps.Keys(st.vars)) {
		if v := st.vars[name]; v != nil && validName(name) && (init[name] == nil || *init[name] != *v) {
			near.WriteString(name + "=" + *v + "\n")
		}
	}
	return stream{kind: streamUnknown, near: near.String()}
}

// hPrintenv: printenv alone prints the environment as env does;
// printenv NAME… prints their values, known when the line set them.
func hPrintenv(b *builder, c *call) stream {
	if len(c.a.ops) == 0 {
		return b.envListing(c.st)
	}
	var out strings.Builder
	for _, f := range c.a.ops {
		v, ok := c.st.vars[f.val]
		if !f.known || !ok || v == nil {
			return stream{kind: streamUnknown}
		}
		out.WriteString(*v + "\n")
	}
	return stream{kind: streamText, text: out.String()}
}

// envSplit splits an env -S string as env does: blanks separate words,
// '…' is literal, "…" allows \" \\ \$ and ${VAR}, a backslash outside
// quotes escapes (\_ is a blank, \c ends the string), ${VAR} expands and
// # at the start of a word comments out the rest. A ~ is read as home
// (env does not expand it, but the worse reading is the one to review).
func envSplit(text string, st *state, sp span) []field {
	var out []field
	cur := staticField("", sp)
	inWord := false
	push := func() {
		if inWord {
			out = append(out, cur)
		}
		cur = staticField("", sp)
		inWord = false
	}
	expandVar := func(i int) int {
		end := strings.IndexByte(text[i:], '}')
		if !strings.HasPrefix(text[i:], "${") || end < 0 {
			cur.val += "$"
			return i + 1
		}
		name := text[i+2 : i+end]
		if v := st.vars[name]; v != nil {
			cur.val += *v
		} else {
			cur.known = false
			cur.raw = text
		}
		inWord = true
		return i + end + 1
	}
	escapes := map[byte]string{'t': "\t", 'n': "\n", 'r': "\r", 'f': "\f", 'v': "\v", '_': " "}
	quote := byte(0)
	for i := 0; i < len(text); {
		ch := text[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else if ch == '\\' && i+1 < len(text) && (text[i+1] == '\'' || text[i+1] == '\\') {
				i++
				cur.val += string(text[i])
			} else {
				cur.val += string(ch)
			}
			i++
		case quote == '"' && ch == '"':
			quote = 0
			i++
		case ch == '$':
			i = expandVar(i)
		case ch == '\\' && i+1 < len(text):
			n := text[i+1]
			if n == 'c' {
				i = len(text)
				break
			}
			if n == '_' && quote == 0 {
				push()
			} else if e, ok := escapes[n]; ok {
				cur.val += e
			} else {
				cur.val += string(n)
			}
			inWord = true
			i += 2
		case quote == '"':
			cur.val += string(ch)
			i++
		case ch == ' ' || ch == '\t' || ch == '\n':
			push()
			i++
		case ch == '#' && !inWord:
			i = len(text)
		case ch == '\'' || ch == '"':
			quote = ch
			inWord = true
			i++
		default:
			cur.val += string(ch)
			inWord = true
			i++
		}
	}
	push()
	if h := st.vars["HOME"]; h != nil {
		for k := range out {
			if v := out[k].val; out[k].known && (v == "~" || strings.HasPrefix(v, "~/")) {
				out[k].val = *h + v[1:]
			}
		}
	}
	return out
}

func skipAssigns(fs []field) []field {
	for i, f := range fs {
		if !f.known || !strings.Contains(f.val, "=") || strings.HasPrefix(f.val, "=") || strings.HasPrefix(f.val, "-") {
			return fs[i:]
		}
		name := f.val[:strings.IndexByte(f.val, '=')]
		if strings.ContainsAny(name, "/ ") {
			return fs[i:]
		}
	}
	return nil
}

// hWatch: watch runs its arguments joined as shell text, repeatedly.
// hSet: set [OPTIONS] [--] ARG… sets the positional parameters to the
// words after the options: "$@" later on the line is those words
// (set -- rm -rf ~; "$@" runs rm -rf on the home directory).
func hSet(b *builder, c *call) stream {
	setKeyword(c)
	fs := c.fs
	i, dashes := 0, false
	for i < len(fs) {
		f := fs[i]
		if !f.known {
			break // it may be an option or a word: the words are unknown
		}
		if f.val == "--" || f.val == "-" {
			i, dashes = i+1, true
			break
		}
		if len(f.val) < 2 || (f.val[0] != '-' && f.val[0] != '+') {
			break
		}
		if strings.ContainsRune(f.val[1:], 'o') {
			i++ // -o NAME, -eo NAME
		}
		i++
	}
	if i >= len(fs) && !dashes {
		return stream{} // options only: the parameters stay as they are
	}
	c.st.setParams(fs[min(i, len(fs)):])
	return stream{}
}

// hMapfile: mapfile [-C CALLBACK] [ARRAY] assigns ARRAY (MAPFILE when
// none is named) from its input, and evaluates CALLBACK as shell code.
func hMapfile(b *builder, c *call) stream {
	for _, f := range c.a.values("-C") {
		b.shellText([]field{f}, c, c.prog+" -C")
	}
	name := staticField("MAPFILE", c.sp)
	if n := len(c.a.ops); n > 0 {
		name = c.a.ops[n-1]
	}
	b.builtinSet(c, name, nil, c.in)
	return stream{}
}

func hWatch(b *builder, c *call) stream {
	return b.shellText(c.a.rest, c, "watch")
}

// shellText joins words the way `sh -c "$*"` would and profiles them.
func (b *builder) shellText(fs []field, c *call, via string) stream {
	return b.shellTextIn(fs, c, via, c.st.clone())
}

// shellTextIn is shellText run in the shell state st.
func (b *builder) shellTextIn(fs []field, c *call, via string, st *state) stream {
	if len(fs) == 0 {
		return stream{}
	}
	var parts []string
	for _, f := range fs {
		if !f.known {
			return b.dynamicCode(f, c, via)
		}
		parts = append(parts, f.val)
	}
	return b.text(strings.Join(parts, " "), st, c.in, via, span{fs[0].pos, fs[len(fs)-1].end})
}

// dynamicCode records code guard cannot see: C when it comes from the
// network or decoding, else B.
func (b *builder) dynamicCode(f field, c *call, via string) stream {
	if f.taint.tainted() {
		b.add(Effect{Cap: CapNetCode, Rule: "exec.code-from-network", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("runs code (%s) that comes from the network or from decoded data", via)}, c.sp)
	} else {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("runs code (%s) that is not static, so guard cannot review it", via)}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// stdinCode profiles code a shell reads from its stdin.
func (b *builder) stdinCode(c *call, via string) stream {
	return b.codeIn(c, c.in, c.st.clone(), via, "piped into "+c.prog, "its input")
}

// codeIn profiles code a shell reads from data (its stdin, a descriptor)
// in inner; piped and input say where it comes from in messages.
func (b *builder) codeIn(c *call, data stream, inner *state, via, piped, input string) stream {
	switch data.kind {
	case streamText:
		return b.text(data.text, inner, stream{}, via, c.sp)
	case streamNetwork, streamDecoded:
		b.add(Effect{Cap: CapNetCode, Rule: "exec.pipe-to-shell", Program: c.prog, Msg: fmt.Sprintf("runs data from the network or from decoding as code (%s) that nobody has reviewed", piped)}, c.sp)
	case streamNone:
		b.interactive(c, fmt.Sprintf("starts an interactive %s; what it will run cannot be reviewed", c.prog))
	default:
		b.add(Effect{Cap: CapDynamic, Rule: "exec.stdin-code", Program: c.prog, Msg: fmt.Sprintf("runs code that %s reads from %s, which guard cannot see", c.prog, input)}, c.sp)
		if data.near != "" {
			b.text(data.near, c.st.clone(), stream{}, via, c.sp)
		}
	}
	return stream{kind: streamUnknown}
}

// scriptOperand reviews a script file handed to a shell or source.
func (b *builder) scriptOperand(f field, c *call, source bool) stream {
	if n, ok := inFdPath(f.val); f.known && (ok || isStdinPath(f.val)) {
		if !ok {
			n = "0"
		}
		return b.fdCode(n, c, c.prog+" "+f.val, source)
	}
	if !f.known || f.proc {
		if f.taint.kind == streamText {
			inner := c.st
			if !source {
				inner = c.st.clone()
			}
			return b.text(f.taint.text, inner, c.in, c.prog+" <(…)", c.sp)
		}
		return b.dynamicCode(f, c, c.prog+" "+f.display())
	}
	abs, ok := b.ctx.Resolve(c.st.cwd, f.val)
	class := ClassUnknown
	if ok {
		class = b.ctx.Classify(abs)
	}
	if class == ClassSensitive && source {
		b.add(Effect{Cap: CapReveal, Rule: "shell.source-secrets", Program: c.prog, Target: abs, Class: class, Msg: "loads " + describeTarget(abs, class) + " into the shell"}, c.sp)
	}
	if class == ClassSecret || class == ClassGuard {
		b.add(Effect{Cap: CapRead, Rule: "shell.script-read", Program: c.prog, Target: abs, Class: class, Msg: "reads " + describeTarget(abs, class)}, c.sp)
	}
	b.add(Effect{Cap: CapExec, Rule: "exec.script", Program: c.prog, Target: abs, Class: class, Msg: "runs the script " + describeTarget(abs, class)}, c.sp)
	return b.reviewScriptFile(abs, ok, c.st, c.in, c.prog+" "+path.Base(f.val), c.sp, source)
}

// hSource: source FILE / . FILE runs the file in this shell.
func hSource(b *builder, c *call) stream {
	if len(c.a.ops) == 0 {
		return stream{}
	}
	f := c.a.ops[0]
	if abs, ok := b.onLinePath(f.val, c.st); ok && f.known {
		// source NAME looks in PATH first (bash's sourcepath).
		f.val = abs
	}
	return b.scriptOperand(f, c, true)
}

// hEval: eval joins its arguments and runs them as shell text.
func hEval(b *builder, c *call) stream {
	// eval runs in this shell: functions, aliases and variables it
	// defines stay for the rest of the line.
	fs := c.fs
	if len(fs) > 0 && fs[0].known && fs[0].val == "--" {
		fs = fs[1:]
	}
	return b.shellTextIn(fs, c, "eval", c.st)
}

// hInterp: python -c, node -e, perl -e, ruby -e…: inline code is not
// reviewed (B; C when it comes from the network); a script runs as a
// program; stdin from the network is C.
// pyCodeModules are python modules whose arguments are code they run
// (timeit's statements, pdb's -c debugger commands, which can run any
// Python).
var pyCodeModules = map[string]bool{"timeit": true, "pdb": true, "code": true}

// interpLoads are interpreters' options whose value names code they load
// before the script (a module, a preload, a library directory); for php,
// the ini settings that do.
var interpLoads = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"node": {"-r", "--require", "--import", "--loader", "--experimental-loader"},
		"perl": {"-I"}, "ruby": {"-I", "-r"}, "php": {"-d"},
	}
})

// loadsFrom: code loaded from a path outside the workspace and the temp
// dirs is code this line does not show (as PYTHONPATH=/elsewhere is):
// node -r /tmp/../x.js, perl -I ~/lib, php -d auto_prepend_file=/x.php.
func (b *builder) loadsFrom(c *call) {
	for _, v := range c.a.values(interpLoads()[c.prog]...) {
		f := v
		if c.prog == "php" {
			key, val, ok := strings.Cut(v.val, "=")
			if !v.known || !ok || (key != "auto_prepend_file" && key != "auto_append_file") {
				continue
			}
			f.val = val
		}
		if !f.known || !strings.Contains(f.val, "/") && f.val != ".." && !strings.HasPrefix(f.val, "~") {
			continue // a module by name, from the interpreter's own paths
		}
		switch t, class := b.classify(f, c.st); class {
		case ClassWorkspace, ClassTemp, ClassSensitive:
		default:
			b.add(Effect{Cap: CapDynamic, Rule: "interp.load-outside", Program: c.prog, Target: t, Class: class, Msg: "loads code from " + describeTarget(t, class) + ", which this line does not show"}, c.sp)
		}
	}
}

func hInterp(codeFlags string) handler {
	return func(b *builder, c *call) stream {
		b.loadsFrom(c)
		if codes := c.a.values(strings.Fields(codeFlags)...); len(codes) > 0 {
			f := codes[0]
			if f.taint.tainted() {
				return b.dynamicCode(f, c, c.prog+" inline code")
			}
			b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(f.display()), Msg: fmt.Sprintf("runs inline %s code, which guard does not review", c.prog)}, c.sp)
			for _, g := range codes {
				if g.known {
					b.inlineShellCalls(g.val, c)
				}
			}
			return stream{kind: streamUnknown}
		}
		if mods := c.a.values("-m"); len(mods) > 0 {
			m := mods[0]
			if m.known && pyCodeModules[m.val] {
				// python -m timeit 'STMT', python -m pdb -c 'CMD': the
				// arguments are code the module runs.
				idx := indexOf(c.fs, m)
				if len(c.fs) > idx+1 {
					b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(c.fs[len(c.fs)-1].display()), Msg: fmt.Sprintf("runs %s code given to the %s module, which guard does not review", c.prog, m.val)}, c.sp)
					return stream{kind: streamUnknown}
				}
			}
			if m.known && specFor(m.val) != nil {
				// python -m pip install …: the module is the program.
				idx := indexOf(c.fs, m)
				return b.exec(append([]field{m}, c.fs[idx+1:]...), c.st, c.in, c.prog+" -m", c.sp)
			}
			b.add(Effect{Cap: CapExec, Rule: "interp.module", Program: c.prog, Target: m.display(), Msg: "runs the " + c.prog + " module " + m.display()}, c.sp)
			return stream{kind: streamUnknown}
		}
		if len(c.a.ops) > 0 && c.a.ops[0].val != "-" {
			f := c.a.ops[0]
			if !f.known {
				if f.taint.tainted() {
					return b.dynamicCode(f, c, c.prog)
				}
				b.add(Effect{Cap: CapDynamic, Rule: "interp.dynamic-script", Program: c.prog, Target: f.display(), Msg: "runs a " + c.prog + " script whose name is not static"}, c.sp)
				return stream{kind: streamUnknown}
			}
			if p, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
				if w, ok := c.st.written(p); ok && w.tainted() {
					b.add(Effect{Cap: CapNetCode, Rule: "exec.downloaded-script", Program: c.prog, Target: p, Msg: "runs a script written earlier on this line from the network or from decoded data"}, c.sp)
				} else if ok {
					b.runnerFound(c.prog, p, w, c)
				}
			}
			t, class := b.classify(f, c.st)
			b.add(Effect{Cap: CapExec, Rule: "interp.script", Program: c.prog, Target: t, Class: class, Msg: "runs the " + c.prog + " script " + describeTarget(t, class)}, c.sp)
			// Its arguments may name files it will read: secrets count.
			b.handedPaths(c.prog, c.a.ops[1:], c.st, c.sp)
			return stream{kind: streamUnknown}
		}
		switch c.in.kind {
		case streamNetwork, streamDecoded:
			return b.stdinCode(c, c.prog)
		case streamNone:
			b.interactive(c, "starts an interactive "+c.prog)
		default:
			b.add(Effect{Cap: CapDynamic, Rule: "interp.stdin-code", Program: c.prog, Msg: "runs " + c.prog + " code from its input, which guard does not review"}, c.sp)
			if t := knownText(c.in); t != "" {
				b.inlineShellCalls(t, c)
			}
		}
		return stream{kind: streamUnknown}
	}
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}

// awkSystem finds the command lines of an awk program written as string
// literals: system("CMD"), "CMD" | getline (and |&, a coprocess), and
// print … | "CMD".
var awkSystem = sync.OnceValue(func() *regexp.Regexp {
	const str = `"((?:[^"\\]|\\.)*)"`
	return regexp.MustCompile(`system\s*\(\s*` + str + `\s*\)|` + str + `\s*\|&?\s*getline|\|&?\s*` + str)
})

// awkPrintPipe is print or printf to a command given as a literal: the
// arguments, then the command.
var awkPrintPipe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bprintf?\b((?:[^;{}\n|"]|"(?:[^"\\]|\\.)*")*)\|&?\s*"((?:[^"\\]|\\.)*)"`)
})

// awkLitRes are awkLiterals' expressions, compiled on first use: print's
// arguments made only of string literals, one literal (and a comma after
// it), and a single literal (printf's format alone).
var awkLitRes = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^\s*\(?\s*((?:"(?:[^"\\]|\\.)*"\s*,?\s*)+)\)?\s*$`),
		regexp.MustCompile(`"((?:[^"\\]|\\.)*)"(\s*,)?`),
		regexp.MustCompile(`^\s*\(?\s*"(?:[^"\\]|\\.)*"\s*\)?\s*$`),
	}
})

// awkLiterals is the line print writes for args made only of string
// literals (adjacent ones concatenate, a comma is a space), with awk's
// escapes undone.
func awkLiterals(args string) (string, bool) {
	lits := awkLitRes()[0].FindStringSubmatch(args)
	if lits == nil {
		return "", false
	}
	var out strings.Builder
	for _, m := range awkLitRes()[1].FindAllStringSubmatch(lits[1], -1) {
		out.WriteString(strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`, `\/`, "/").Replace(m[1]))
		if m[2] != "" {
			out.WriteString(" ")
		}
	}
	return out.String() + "\n", true
}

// hAwk: awk programs that call system() or pipe to commands run code.
func hAwk(b *builder, c *call) stream {
	// gawk's program files: -f/--file, -E/--exec, and -i/--include of
	// anything but its own inplace library (awk may be gawk).
	files := c.a.values("-f", "--file", "-E", "--exec")
	inplace := false
	for _, inc := range c.a.values("-i", "--include") {
		if inc.known && strings.TrimSuffix(inc.val, ".awk") == "inplace" {
			inplace = true
			continue
		}
		inplace = inplace || !inc.known
		files = append(files, inc)
	}
	for _, l := range c.a.values("-l", "--load") {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: l.display(), Msg: "loads a gawk extension (" + l.display() + "), native code guard cannot review"}, c.sp)
	}
	if len(files) > 0 {
		for _, f := range files {
			b.pathEffect(CapRead, "awk.program-file", "awk", f, c.st, c.sp, "reads its program from")
		}
		b.add(Effect{Cap: CapDynamic, Rule: "awk.program-file", Program: c.prog, Msg: "runs an awk program from a file, which guard does not review"}, c.sp)
		return stream{kind: streamUnknown}
	}
	ops := c.a.ops
	var prog field
	if srcs := c.a.values("-e", "--source"); len(srcs) > 0 {
		// gawk -e TEXT: the program; every operand is input.
		prog = srcs[0]
		for _, s := range srcs[1:] {
			prog.val += "\n" + s.val
			prog.known = prog.known && s.known
		}
	} else if len(ops) > 0 {
		prog, ops = ops[0], ops[1:]
	} else {
		return stream{kind: streamUnknown}
	}
	for _, f := range ops {
		if !strings.Contains(f.val, "=") {
			b.pathEffect(CapRead, "awk.read", "awk", f, c.st, c.sp, "reads")
			if inplace {
				// gawk -i inplace: the operands are rewritten.
				b.pathEffect(CapWrite, "fs.edit-in-place", c.prog, f, c.st, c.sp, "edits in place")
			}
		}
	}
	if !prog.known {
		return b.dynamicCode(prog, c, "an awk program")
	}
	b.awkFiles(c, prog)
	// print … | "CMD": CMD reads what the program prints to it. Text
	// made only of string literals is that text; anything else is the
	// awk's input or data guard cannot see, and keeps the input's kind.
	body := awkPrintPipe().ReplaceAllStringFunc(prog.val, func(m string) string {
		sub := awkPrintPipe().FindStringSubmatch(m)
		in := stream{kind: max(streamUnknown, c.in.kind), near: c.in.near + c.in.text}
		if text, ok := awkLiterals(sub[1]); ok && !strings.HasPrefix(m, "printf") {
			in = stream{kind: streamText, text: text}
		} else if ok && !strings.Contains(text, "%") && awkLitRes()[2].MatchString(sub[1]) {
			in = stream{kind: streamText, text: strings.TrimSuffix(text, "\n")} // printf FORMAT: no newline of its own
		}
		b.text(strings.ReplaceAll(sub[2], `\"`, `"`), c.st.clone(), in, "awk command", span{prog.pos, prog.end})
		return ""
	})
	body = awkSystem().ReplaceAllStringFunc(body, func(m string) string {
		sub := awkSystem().FindStringSubmatch(m)
		cmd := sub[1] + sub[2] + sub[3] // one of them matched
		b.text(strings.ReplaceAll(cmd, `\"`, `"`), c.st.clone(), stream{}, "awk command", span{prog.pos, prog.end})
		return ""
	})
	// What is left: system() of something not a literal, and a pipe to or
	// from a command held in a variable or built by an expression (awk's
	// || is not a pipe).
	if re(`\bsystem\s*\(|(^|[^|])\|&?\s*[A-Za-z_"($]`).MatchString(body) {
		b.add(Effect{Cap: CapDynamic, Rule: "awk.runs-commands", Program: "awk", Msg: "runs an awk program that starts commands guard cannot see"}, c.sp)
	}
	return stream{kind: streamUnknown}
}

// hSed: sed -i edits files; the e command and s///e flag run commands.
func hSed(b *builder, c *call) stream {
	ops := c.a.ops
	scripts := c.a.values("-e", "--expression")
	if len(scripts) == 0 && len(ops) > 0 && !c.a.has("-f", "--file") {
		scripts, ops = ops[:1], ops[1:]
	}
	for _, f := range c.a.values("-f", "--file") {
		// A sed program file is read and reviewed like an inline one.
		text := stream{kind: streamUnknown}
		if f.known && !isStdinPath(f.val) {
			text = b.fileStream([]field{f}, c.st)
		}
		if text.kind != streamText {
			b.add(Effect{Cap: CapDynamic, Rule: "sed.exec", Program: "sed", Target: f.display(), Msg: "runs a sed program from a file guard cannot read (it may run commands or write files)"}, c.sp)
			continue
		}
		scripts = append(scripts, staticField(text.text, span{f.pos, f.end}))
	}
	for _, s := range scripts {
		if !s.known {
			// A program guard cannot see may hold e (run a command) or w
			// (write a file), as one in a file it cannot read may.
			if s.taint.tainted() {
				b.dynamicCode(s, c, "sed program")
			} else {
				b.add(Effect{Cap: CapDynamic, Rule: "sed.exec", Program: "sed", Target: s.display(), Msg: "runs a sed program that is not static (it may run commands or write files)"}, c.sp)
			}
			continue
		}
		b.sedProgram(s, c)
	}
	verb, cp := "reads", CapRead
	rule := "sed.read"
	if c.a.has("-i", "--in-place") {
		verb, cp, rule = "edits", CapWrite, "sed.in-place"
	}
	for _, f := range ops {
		b.pathEffect(cp, rule, "sed", f, c.st, c.sp, verb)
	}
	if suffix, ok := inPlaceSuffix(c, "efl", "--in-place"); ok && cp == CapWrite {
		for _, f := range ops {
			b.backupOf(c, f, suffix)
		}
	}
	return stream{kind: streamUnknown}
}

// sed commands that take the rest of the line: e COMMAND runs it, w/W FILE
// write to it, r/R FILE read it; an address (N, $, /re/, a range, !) may
// come first. s///e runs the pattern space, s///w FILE writes. GNU sed
// needs no blank before the argument: w/home/u/.bashrc writes
// /home/u/.bashrc, r/etc/shadow reads it.
var (
	sedLineCmd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:^|[;{}])\s*(?:(?:\d+|\$|/(?:[^/\\\n]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\\n]|\\.)*/|~?\d+))?\s*!?\s*)?([ewWrR])(?:[ \t]*([^ \t\n;}][^\n]*)|[ \t]*(?:$|[;}]))`)
	})
)

// sedSubst is one s command: its flags and the file of a w flag.
type sedSubst struct {
	flags, wfile, repl string
}

// sedSubsts finds the s commands of a sed program (any delimiter,
// backslash escapes) and returns them with the program where each was
// replaced by ";", so text inside a substitution is not read as a command.
func sedSubsts(prog string) ([]sedSubst, string) {
	var out []sedSubst
	var rest strings.Builder
	i := 0
	for i < len(prog) {
		ch := prog[i]
		if ch != 's' || i+1 >= len(prog) || !sedCmdPos(prog, i) {
			rest.WriteByte(ch)
			i++
			continue
		}
		d := prog[i+1]
		if d == '\\' || d == '\n' || d == ' ' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9' {
			rest.WriteByte(ch)
			i++
			continue
		}
		j, seen, mid := i+2, 0, 0
		for j < len(prog) && seen < 2 {
			switch prog[j] {
			case '\\':
				j++
			case d:
				seen++
				if seen == 1 {
					mid = j
				}
			}
			j++
		}
		if seen < 2 {
			rest.WriteString(prog[i:])
			break
		}
		k := j
		for k < len(prog) && strings.IndexByte("gpiImMe0123456789", prog[k]) >= 0 {
			k++
		}
		sub := sedSubst{flags: prog[j:k], repl: prog[mid+1 : j-1]}
		if k < len(prog) && prog[k] == 'w' {
			e := strings.IndexByte(prog[k:], '\n')
			if e < 0 {
				e = len(prog) - k
			}
			sub.wfile = strings.TrimSpace(prog[k+1 : k+e])
			k += e
		}
		out = append(out, sub)
		rest.WriteByte(';')
		i = k
	}
	return out, rest.String()
}

// sedCmdPos reports whether position i of a sed program can start a
// command: after the start, a separator, or an address.
func sedCmdPos(prog string, i int) bool {
	j := i - 1
	for j >= 0 && (prog[j] == ' ' || prog[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	return strings.IndexByte(";{}\n!$/0123456789", prog[j]) >= 0
}

// sedProgram records what one sed program runs, writes and reads.
func (b *builder) sedProgram(s field, c *call) {
	at := span{s.pos, s.end}
	substs, rest := sedSubsts(s.val)
	for _, m := range substs {
		if strings.Contains(m.flags, "e") {
			b.add(Effect{Cap: CapDynamic, Rule: "sed.exec", Program: "sed", Msg: "runs a sed script that executes the edited text as a command (s///e)"}, c.sp)
			// The replacement becomes (part of) the command: review its
			// literal text, with & and \N (the matched text) left out.
			if r := re(`\\[0-9&]|&`).ReplaceAllString(m.repl, " "); strings.TrimSpace(r) != "" {
				if _, err := parse.DefaultLimits.Bash(r); err == nil {
					b.text(r, c.st.clone(), stream{}, "sed s///e", at)
				}
			}
		}
		if m.wfile != "" {
			b.sedWrite(m.wfile, c)
		}
	}
	for _, m := range sedLineCmd().FindAllStringSubmatch(rest, -1) {
		arg := strings.TrimSpace(m[2])
		switch m[1] {
		case "e":
			if arg == "" {
				b.add(Effect{Cap: CapDynamic, Rule: "sed.exec", Program: "sed", Msg: "runs a sed script that executes its input lines as commands (e)"}, c.sp)
				continue
			}
			b.text(arg, c.st.clone(), stream{}, "sed e", at)
		case "w", "W":
			if arg != "" {
				b.sedWrite(arg, c)
			}
		case "r", "R":
			if arg != "" && !isStdinPath(arg) {
				b.pathEffect(CapRead, "sed.read", "sed", b.sedPath(arg, c), c.st, c.sp, "reads")
			}
		}
	}
}

func (b *builder) sedWrite(arg string, c *call) {
	arg = strings.TrimSpace(arg)
	if arg == "/dev/stdout" || arg == "/dev/stderr" || arg == "" {
		return
	}
	f := b.sedPath(arg, c)
	b.pathEffect(CapWrite, "sed.write", "sed", f, c.st, c.sp, "writes")
	if p, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
		c.st.wrote(p, stream{kind: streamUnknown})
	}
}

// sedPath is a file name in a sed program; sed does not expand ~, but a
// tilde there is what the author meant, so guard reads it as home (the
// worse reading).
func (b *builder) sedPath(arg string, c *call) field {
	if arg == "~" || strings.HasPrefix(arg, "~/") {
		if h := c.st.vars["HOME"]; h != nil {
			arg = *h + arg[1:]
		}
	}
	return staticField(arg, c.sp)
}

// hFind: find's start paths, -delete, -exec and friends.
func hFind(b *builder, c *call) stream {
	var starts []field
	i := 0
	// Options before the start paths: -H -L -P (symlinks), -D LIST
	// (debug), -O LEVEL (optimisation).
	for ; i < len(c.fs); i++ {
		v := c.fs[i].val
		if !c.fs[i].known {
			break
		}
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			continue
		}
		if v == "-D" {
			i++
			continue
		}
		break
	}
	for ; i < len(c.fs); i++ {
		v := c.fs[i].val
		if c.fs[i].known && (strings.HasPrefix(v, "-") || v == "(" || v == "!") {
			break
		}
		starts = append(starts, c.fs[i])
	}
	if len(starts) == 0 {
		starts = []field{staticField(".", c.sp)}
	}
	// The name every file found must have (-name, -iname), when the
	// expression gives exactly one.
	var names []string
	for k := i; k+1 < len(c.fs); k++ {
		if c.fs[k].known && (c.fs[k].val == "-name" || c.fs[k].val == "-iname") {
			n := c.fs[k+1]
			if !n.known || strings.ContainsAny(n.val, anyParts+anyDirs) {
				names = append(names, "")
				continue
			}
			if c.fs[k].val == "-iname" {
				n.val = strings.ToLower(n.val)
			}
			names = append(names, n.val)
		}
	}
	under := func(s field) field {
		g := s
		if s.known {
			g.val = strings.TrimSuffix(s.val, "/") + "/*"
			g.glob = true
			if len(names) == 1 && names[0] != "" {
				// Found at any depth, in dot directories too (find does
				// not skip them): ~/.ssh/id_rsa for find ~ -name 'id_*'.
				g.val = strings.TrimSuffix(s.val, "/") + "/" + anyDirs + "/" + names[0]
			}
		}
		return g
	}
	for _, s := range starts {
		b.pathEffect(CapRead, "find.read", "find", s, c.st, c.sp, "searches")
	}
	for ; i < len(c.fs); i++ {
		f := c.fs[i]
		if !f.known {
			b.add(Effect{Cap: CapDynamic, Rule: "find.dynamic", Program: "find", Target: f.display(), Msg: "runs find with an expression that is not static"}, c.sp)
			continue
		}
		switch f.val {
		case "-delete":
			for _, s := range starts {
				b.pathEffect(CapDelete, "find.delete", "find", under(s), c.st, c.sp, "deletes files under")
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(c.fs) && !(c.fs[j].known && (c.fs[j].val == ";" || c.fs[j].val == "+")) {
				j++
			}
			for _, s := range starts {
				// {} is each file found, also inside a longer word
				// (/dest/{}, 'rm {}' in sh -c).
				item := under(s)
				inner := append([]field(nil), c.fs[i+1:min(j, len(c.fs))]...)
				for k := range inner {
					if !inner[k].known || !strings.Contains(inner[k].val, "{}") {
						continue
					}
					switch {
					case inner[k].val == "{}":
						inner[k] = item
					case item.known:
						inner[k].val = strings.ReplaceAll(inner[k].val, "{}", item.val)
						inner[k].glob = true
					default:
						inner[k] = field{raw: inner[k].val, taint: item.taint, pos: inner[k].pos, end: inner[k].end}
					}
				}
				b.exec(inner, c.st.clone(), stream{}, "find "+f.val, c.sp)
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.fs) {
				b.pathEffect(CapWrite, "find.write", "find", c.fs[i+1], c.st, c.sp, "writes")
				i++
			}
			if f.val == "-fprintf" {
				i++
			}
		case "-files0-from":
			if i+1 < len(c.fs) {
				b.pathEffect(CapRead, "find.read", "find", c.fs[i+1], c.st, c.sp, "reads the start paths from")
				i++
			}
			b.add(Effect{Cap: CapDynamic, Rule: "find.dynamic", Program: "find", Msg: "searches start paths read from a file, which guard cannot see"}, c.sp)
		default:
			// A test's value (-name "$X", -newer FILE) is data: skip it,
			// so a pattern that is not static is not taken for code.
			if (findValue()[f.val] || strings.HasPrefix(f.val, "-newer")) && i+1 < len(c.fs) {
				i++
			}
		}
	}
	out := stream{kind: streamPaths, dir: starts[0].val}
	if it := under(starts[0]); it.known && strings.Contains(it.val, anyDirs) {
		out.text = it.val // the pattern each path matches
	}
	return out
}

// findValue are find's tests and actions that take one value.
var findValue = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
		"-regex": true, "-iregex": true, "-regextype": true, "-lname": true, "-ilname": true, "-newer": true,
		"-anewer": true, "-cnewer": true, "-samefile": true, "-user": true, "-group": true, "-uid": true, "-gid": true,
		"-perm": true, "-size": true, "-type": true, "-xtype": true, "-mtime": true, "-atime": true, "-ctime": true,
		"-mmin": true, "-amin": true, "-cmin": true, "-used": true, "-links": true, "-inum": true, "-maxdepth": true,
		"-mindepth": true, "-printf": true, "-fstype": true, "-context": true,
	}
})

// hXargs: xargs runs a command with items from stdin as arguments.
func hXargs(b *builder, c *call) stream {
	inner := c.a.rest
	if len(inner) == 0 {
		inner = []field{staticField("echo", c.sp)}
	}
	var items []field
	repl := c.a.values("-I", "--replace")
	for _, f := range c.fs[:len(c.fs)-len(c.a.rest)] {
		// -i[R] is -I R with R attached (default {}), never a separate word.
		if r, ok := strings.CutPrefix(f.val, "-i"); ok && f.known {
			if r == "" {
				r = "{}"
			}
			repl = append(repl, staticField(r, c.sp))
		}
	}
	in := c.in
	if files := c.a.values("-a", "--arg-file"); len(files) > 0 {
		// The items come from the file; stdin is the command's.
		in = b.fileStream(files[len(files)-1:], c.st)
	}
	switch in.kind {
	case streamText:
		items = xargsItems(in.text, c, len(repl) > 0)
	case streamPaths:
		v := strings.TrimSuffix(c.in.dir, "/") + "/*"
		if c.in.text != "" {
			v = c.in.text // find -name: at any depth
		}
		items = []field{{val: v, glob: true, known: true, pos: c.sp.pos, end: c.sp.end}}
	default:
		items = []field{{raw: "(input)", taint: in, pos: c.sp.pos, end: c.sp.end}}
	}
	if len(repl) > 0 {
		r := repl[0].val
		if r == "" {
			r = "{}"
		}
		var out stream
		for _, it := range items {
			argv := make([]field, len(inner))
			for k, f := range inner {
				argv[k] = f
				if f.known && strings.Contains(f.val, r) {
					switch {
					case it.known:
						argv[k].val = strings.ReplaceAll(f.val, r, it.val)
						argv[k].glob = it.glob
					case f.val != r:
						argv[k] = partlyUnknown(f, r, it)
					default:
						argv[k] = it
					}
				}
			}
			out = b.exec(argv, c.st.clone(), stream{}, "xargs", c.sp)
		}
		return out
	}
	argv := append(append([]field(nil), inner...), items...)
	return b.exec(argv, c.st.clone(), stream{}, "xargs", c.sp)
}

// partlyUnknown is the word f with each r in it replaced by an item
// guard cannot see: the literal rest stays, so ~/.config/autostart/{}
// still lies in the autostart directory and ~/.{} may be ~/.bashrc
// (principle 10), where the bare item said nothing of where it lands.
func partlyUnknown(f field, r string, it field) field {
	out := it
	out.val = strings.ReplaceAll(f.val, r, "${input}")
	out.raw = strings.ReplaceAll(f.display(), r, "(input)")
	out.known, out.glob = false, false
	out.pos, out.end = f.pos, f.end
	return out
}

// xargsItems splits xargs' input into the items it passes (at most 64):
// with -0 or -d at that delimiter (newlines and blanks are part of an
// item: printf 'rm -rf ~\n' | xargs -d '\n' sh -c runs rm); with -I one per
// line; else at blanks and newlines, with '…', "…" and backslash quoting as
// xargs does ("'rm -rf ~'" is one item).
func xargsItems(text string, c *call, perLine bool) []field {
	var parts []string
	switch {
	case c.a.has("-0", "--null"):
		parts = strings.Split(text, "\x00")
	case len(c.a.values("-d", "--delimiter")) > 0:
		d := c.a.values("-d", "--delimiter")[0]
		if !d.known {
			return []field{{raw: "(input)", taint: stream{kind: streamUnknown}, pos: c.sp.pos, end: c.sp.end}}
		}
		parts = strings.Split(text, xargsDelimiter(d.val))
	case perLine:
		return lineItems(text, c.sp)
	default:
		parts = xargsWords(text)
	}
	var items []field
	for _, p := range parts {
		if p == "" {
			continue
		}
		items = append(items, staticField(p, c.sp))
		if len(items) >= 64 {
			break
		}
	}
	return items
}

// xargsDelimiter is the character -d names: a character, or a C escape
// (\n, \t, \0, \\, \xHH, \NNN).
func xargsDelimiter(d string) string {
	if len(d) < 2 || d[0] != '\\' {
		return d
	}
	switch d[1] {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '\\':
		return `\`
	case 'x':
		if n, err := strconv.ParseUint(d[2:], 16, 8); err == nil {
			return string(rune(n))
		}
	default:
		if n, err := strconv.ParseUint(d[1:], 8, 8); err == nil {
			return string(rune(n))
		}
	}
	return d
}

// xargsWords splits at blanks and newlines; quotes group and backslash
// escapes, as xargs reads its input by default.
func xargsWords(text string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == '\\' && i+1 < len(text):
			i++
			cur.WriteByte(text[i])
			in = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// lineItems are the non-empty lines of text (at most 64), as xargs -I
// and parallel take them.
func lineItems(text string, sp span) []field {
	var items []field
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimLeft(l, " \t"); l == "" {
			continue
		}
		items = append(items, staticField(l, sp))
		if len(items) >= 64 {
			break
		}
	}
	return items
}

// hParallel: parallel CMD ::: ARGS runs CMD once per argument.
func hParallel(b *builder, c *call) stream {
	fs := c.a.rest
	var cmd, items []field
	for i, f := range fs {
		if f.known && (f.val == ":::" || f.val == "::::") {
			cmd, items = fs[:i], fs[i+1:]
			break
		}
	}
	pipe := c.a.has("--pipe", "--pipepart")
	if cmd == nil {
		cmd = fs
		in := c.in
		if files := c.a.values("-a", "--arg-file"); len(files) > 0 {
			in = b.fileStream(files[len(files)-1:], c.st)
		}
		items = []field{{raw: "(input)", taint: in}}
		switch {
		case pipe:
			// --pipe: the input goes to each command's stdin, not its argv.
			items = nil
		case in.kind == streamText:
			// Items are the lines of its input (or -0/-d records).
			items = xargsItems(in.text, c, true)
		}
	}
	if len(items) == 0 {
		items = []field{staticField("", c.sp)}
	}
	stdin := stream{}
	if pipe {
		stdin = c.in
	}
	repl := "{}"
	if rs := c.a.values("-I"); len(rs) > 0 && rs[0].known {
		repl = rs[0].val
	}
	for _, it := range items {
		st, quoted := c.st, false
		if len(cmd) > 0 && !it.known {
			// An item guard cannot see is still one quoted word of the
			// command: it stands as a variable of unknown value (with
			// the item's taint), so cp x ~/.{} may write ~/.bashrc.
			st = st.clone()
			st.setTainted(parallelItem, nil, it.taint)
			it = field{val: `"$` + parallelItem + `"`, known: true, pos: it.pos, end: it.end}
			quoted = true
		}
		// With a command, parallel puts each item in as one quoted word
		// (parallel sh -c ::: 'rm -rf ~' runs sh -c 'rm -rf ~'); without
		// one, the items are the command lines.
		item := it.val
		if len(cmd) > 0 && it.known && it.val != "" && !quoted {
			q, err := parse.Quote([]string{it.val})
			if err != nil {
				it = field{raw: it.val, pos: it.pos, end: it.end}
			} else {
				it.val = q
			}
		}
		var argv []field
		placed := false
		for _, f := range cmd {
			g := f
			if f.known && (strings.Contains(f.val, repl) || parallelRepls().MatchString(f.val)) {
				placed = true
				v, ok := "", false
				if it.known {
					v, ok = parallelFill(f.val, repl, item, it.val, quoted)
				}
				if ok {
					g.val = v
				} else {
					g = it
				}
			}
			argv = append(argv, g)
		}
		if !placed && (it.val != "" || !it.known) {
			argv = append(argv, it)
		}
		b.shellText(argv, &call{prog: "parallel", st: st, in: stdin, sp: c.sp}, "parallel")
	}
	return stream{kind: streamUnknown}
}

// parallelItem is the variable that stands for an item of parallel's input
// guard cannot see (hParallel).
const parallelItem = "PARALLEL_ITEM"

// parallelRepls are parallel's replacement strings besides {} (or -I's):
// {.} the item without its extension, {/} its base name, {//} its
// directory, {/.} the base name without extension, {#} and {%} the job
// and slot numbers, each also numbered for an input source ({2/}).
var parallelRepls = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{[0-9]*(\.|/|//|/\.|#|%)?\}`)
})

// parallelFill puts the item into word as parallel does: item is its
// value and quoted the value as one quoted word. placeholder says the
// item is the stand-in for one guard cannot see, which every form
// stands for as it is. ok is false when a form cannot be quoted.
func parallelFill(word, repl, item, quotedItem string, placeholder bool) (string, bool) {
	ok := true
	fill := func(m string) string {
		if placeholder || m == repl || m == "{}" {
			return quotedItem
		}
		v := item
		switch form := strings.TrimLeft(m[1:len(m)-1], "0123456789"); form {
		case "":
		case ".":
			v = strings.TrimSuffix(item, path.Ext(item))
		case "/":
			v = path.Base(item)
		case "//":
			v = path.Dir(item)
		case "/.":
			v = strings.TrimSuffix(path.Base(item), path.Ext(item))
		default: // {#}, {%}
			return "1"
		}
		q, err := parse.Quote([]string{v})
		if err != nil {
			ok = false
		}
		return q
	}
	out := regexp.MustCompile(regexp.QuoteMeta(repl)+`|`+parallelRepls().String()).ReplaceAllStringFunc(word, fill)
	return out, ok
}

// hSu: su [-] [user] [-c CMD].
func hSu(b *builder, c *call) stream {
	if codes := c.a.values("-c", "--command"); len(codes) > 0 {
		if !codes[0].known {
			return b.dynamicCode(codes[0], c, "su -c")
		}
		return b.text(codes[0].val, c.st.clone(), c.in, "su -c", span{codes[0].pos, codes[0].end})
	}
	return stream{}
}

// sshLocalCommands are the ssh options whose value ssh runs as a shell
// command on this machine (lower-case: ssh's keys are case-insensitive).
var sshLocalCommands = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true}

// sshOptions reviews the -o options that run a command here, as ssh, scp
// and sftp pass them to ssh: ProxyCommand, LocalCommand and
// KnownHostsCommand. It returns the value of RemoteCommand, the command
// ssh runs on the other machine when the line gives none, if any.
func (b *builder) sshOptions(c *call) (remote []field) {
	// -F FILE holds the same keys, one a line: optionFiles' sshConfigText.
	for _, o := range c.a.values("-o") {
		if !o.known {
			continue
		}
		// ssh -o takes "Key=Value", "Key Value" and "Key = Value".
		val := strings.TrimSpace(o.val)
		i := strings.IndexAny(val, "= \t")
		if i < 0 {
			continue
		}
		k, v := val[:i], strings.TrimLeft(val[i:], "= \t")
		switch {
		case sshLocalCommands[strings.ToLower(k)]:
			b.text(v, c.st.clone(), stream{}, c.prog+" "+k, span{o.pos, o.end})
		case strings.EqualFold(k, "RemoteCommand"):
			remote = []field{{val: v, known: true, pos: o.pos, end: o.end}}
		}
	}
	return remote
}

// hSSH: the remote command of ssh (its operands after the host, else
// -o RemoteCommand) runs on another machine; guard reviews it as shell
// text there. ProxyCommand, LocalCommand and KnownHostsCommand run here.
func hSSH(b *builder, c *call) stream {
	cmd := b.sshOptions(c)
	if len(c.a.rest) >= 2 {
		cmd = c.a.rest[1:]
	}
	if len(c.a.rest) > 0 && len(cmd) == 0 && c.in.kind != streamNone && !c.a.has("-N", "-n", "-s", "-W") {
		// No remote command: the remote login shell reads its commands
		// from ssh's input (echo 'rm -rf ~' | ssh host).
		prev := b.ctx
		b.ctx = prev.remoteView()
		remote := &call{prog: c.prog, st: &state{vars: map[string]*string{}, funcs: map[string]*parse.Stmt{}}, in: c.in, sp: c.sp}
		b.stdinCode(remote, "ssh "+c.a.rest[0].display())
		b.ctx = prev
	}
	if len(c.a.rest) == 0 || len(cmd) == 0 {
		return stream{kind: streamNetwork}
	}
	b.remoteText(cmd, c, "ssh "+c.a.rest[0].display())
	return stream{kind: streamNetwork}
}

// remoteText reviews a command line that runs on another machine (ssh's
// remote command, a cloud VM's run-command) against a remote view of the
// context: Build never writes to the context it was given.
func (b *builder) remoteText(cmd []field, c *call, via string) {
	prev := b.ctx
	b.ctx = prev.remoteView()
	defer func() { b.ctx = prev }()
	remote := &call{prog: c.prog, st: &state{vars: map[string]*string{}, funcs: map[string]*parse.Stmt{}}, in: c.in, sp: c.sp}
	b.shellText(cmd, remote, via)
}

// hCloudRemote: a cloud CLI's ways to run a command on a virtual machine —
// gcloud compute ssh --command, az vm run-command invoke --scripts — are
// reviewed as ssh's remote command is.
func hCloudRemote(b *builder, c *call) stream {
	for _, f := range c.a.values("--command", "--scripts") {
		b.remoteText([]field{f}, c, c.prog+" remote command")
	}
	return stream{}
}

// hAnsible: ansible HOSTS -m shell|command|raw -a ARGS runs ARGS as a
// command on each host; on this machine (localhost, 127.0.0.1, or -c
// local) it is reviewed as a command here, elsewhere against a remote
// view, as ssh's remote command is.
func hAnsible(b *builder, c *call) stream {
	mod := "command"
	if ms := c.a.values("-m", "--module-name"); len(ms) > 0 {
		if !ms[0].known {
			return stream{}
		}
		mod = ms[0].val
	}
	switch strings.TrimPrefix(strings.TrimPrefix(mod, "ansible.builtin."), "ansible.legacy.") {
	case "shell", "command", "raw", "script":
	default:
		return stream{}
	}
	args := c.a.values("-a", "--args")
	if len(args) == 0 {
		return stream{}
	}
	local := false
	for _, v := range c.a.values("-c", "--connection") {
		local = local || (v.known && v.val == "local")
	}
	if len(c.a.ops) > 0 && c.a.ops[0].known {
		switch c.a.ops[0].val {
		case "localhost", "127.0.0.1", "::1":
			local = true
		}
	}
	if local {
		return b.commandText(args[0], c, "ansible "+mod)
	}
	prev := b.ctx
	b.ctx = prev.remoteView()
	defer func() { b.ctx = prev }()
	remote := &call{prog: "ansible", st: &state{vars: map[string]*string{}, funcs: map[string]*parse.Stmt{}}, in: c.in, sp: c.sp}
	b.commandText(args[0], remote, "ansible "+mod)
	return stream{}
}

// hKill: a signal to pid -1 reaches every process the user may signal.
func hKill(b *builder, c *call) stream {
	if n := len(c.fs); n > 0 && c.fs[n-1].known && c.fs[n-1].val == "-1" {
		b.add(Effect{Cap: CapSystem, Rule: "kill.all", Program: c.prog, Msg: "signals every process you can reach (pid -1), which takes the whole session down"}, c.sp)
	}
	return stream{}
}

// hChmod: setuid/setgid bits are privilege; -R outside the workspace is a
// system change; otherwise it modifies its operands.
func hChmod(b *builder, c *call) stream {
	ops := c.a.ops
	if c.prog == "chmod" && len(ops) > 0 {
		mode := ops[0]
		if mode.known && re(`(^|,)[ugoa]*[+=][rwxXt]*s|^[0-7]*[2467][0-7]{3}$`).MatchString(mode.val) {
			b.add(Effect{Cap: CapPrivilege, Rule: "chmod.setuid", Program: c.prog, Target: mode.val, Msg: "sets the setuid/setgid bit, letting the program run with its owner's privileges"}, c.sp)
		}
		ops = ops[1:]
	} else if len(ops) > 0 && (c.prog == "chown" || c.prog == "chgrp") {
		ops = ops[1:] // chown/chgrp owner
	}
	recursive := c.a.has("-R", "--recursive")
	others := grantsOthersWrite(c)
	for _, f := range ops {
		t, class := b.classify(f, c.st)
		if others != "" && class != ClassWorkspace && class != ClassTemp {
			b.add(Effect{Cap: CapPrivilege, Rule: "perm.others-write", Program: c.prog, Target: t, Class: class,
				Msg: fmt.Sprintf("lets %s write %s: another account on this machine could then change what runs as you", others, describeTarget(t, class))}, c.sp)
		}
		if recursive && class != ClassWorkspace && class != ClassTemp {
			b.add(Effect{Cap: CapSystem, Rule: "perm.recursive-outside", Program: c.prog, Target: t, Class: class, Msg: fmt.Sprintf("changes permissions recursively on %s", describeTarget(t, class))}, c.sp)
			continue
		}
		b.pathEffect(CapWrite, "perm.modify", c.prog, f, c.st, c.sp, "changes permissions of")
	}
	return stream{}
}

// grantsOthersWrite says whom a chmod or setfacl call lets write besides
// the owner ("" for no one): a group or other write bit in chmod's mode
// (symbolic with g, o or a, or octal), a setfacl entry that gives w to
// a named user or group, the owning group, others or the mask, or
// entries guard cannot read (a mode not written out, an ACL file).
// A bare "+w" is the owner's under a usual umask, and is not counted.
func grantsOthersWrite(c *call) string {
	switch c.prog {
	case "chmod":
		if len(c.a.ops) == 0 || c.a.has("--reference") {
			return ""
		}
		mode := c.a.ops[0]
		if !mode.known {
			return "other users (a mode guard cannot read)"
		}
		if chmodOthersWrite(mode.val) {
			return "other users"
		}
	case "setfacl":
		if len(c.a.values("-M", "--modify-file", "--set-file")) > 0 {
			return "the users an ACL file names"
		}
		for _, f := range c.a.values("-m", "--modify", "--set") {
			if !f.known {
				return "the users an ACL guard cannot read names"
			}
			if aclOthersWrite(f.val) {
				return "other users"
			}
		}
	}
	return ""
}

// chmodOthersWrite reports whether a chmod mode (0777, go+w, a=rwx,
// u+x,o+w) gives the group or others the write bit.
func chmodOthersWrite(mode string) bool {
	if mode != "" && strings.Trim(mode, "01234567") == "" {
		n := len(mode)
		for _, d := range mode[max(0, n-2):] {
			if (d-'0')&2 != 0 {
				return true
			}
		}
		return false
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+-=")
		if i < 0 || !strings.ContainsAny(clause[:i], "goa") {
			continue
		}
		// Each operator applies the letters that follow it, up to the
		// next operator: g+r-x+w gives w, g+w-w... is read as given.
		rest := clause[i:]
		for j := 0; j < len(rest); {
			k := j + 1
			for k < len(rest) && !strings.ContainsRune("+-=", rune(rest[k])) {
				k++
			}
			if rest[j] != '-' && strings.ContainsAny(rest[j+1:k], "w") {
				return true
			}
			j = k
		}
	}
	return false
}

// aclOthersWrite reports whether setfacl's ACL entries (u:alice:rw,
// d:o::rwx, m::7) give write to anyone but the owner.
func aclOthersWrite(acl string) bool {
	for _, e := range strings.Split(acl, ",") {
		parts := strings.Split(strings.TrimSpace(e), ":")
		if len(parts) > 0 && (parts[0] == "d" || parts[0] == "default") {
			parts = parts[1:]
		}
		if len(parts) < 2 {
			continue
		}
		tag, perms := parts[0], parts[len(parts)-1]
		owner := (tag == "u" || tag == "user") && (len(parts) < 3 || parts[1] == "")
		if owner {
			continue
		}
		if strings.Contains(perms, "w") || len(perms) == 1 && perms[0] >= '0' && perms[0] <= '7' && (perms[0]-'0')&2 != 0 {
			return true
		}
	}
	return false
}

// hDD: dd if=… of=…; of= a device is a system change.
func hDD(b *builder, c *call) stream {
	for _, f := range c.a.selectTargets("kv:if") {
		b.pathEffect(CapRead, "dd.read", "dd", f, c.st, c.sp, "reads")
	}
	for _, f := range c.a.selectTargets("kv:of") {
		t, class := b.classify(f, c.st)
		if class == ClassDevice {
			b.add(Effect{Cap: CapSystem, Rule: "dd.device", Program: "dd", Target: t, Class: class, Msg: "writes raw data to the device " + t + ", destroying what is on it"}, c.sp)
			continue
		}
		b.pathEffect(CapWrite, "dd.write", "dd", f, c.st, c.sp, "writes")
	}
	return stream{kind: streamUnknown}
}

// hTar: -x extracts (writes into -C DIR or the cwd), -c creates -f FILE.
func hTar(b *builder, c *call) stream {
	// tar accepts a bundled first word without a dash: tar xzf a.tgz.
	a := c.a
	if len(c.fs) > 0 && c.fs[0].known && !strings.HasPrefix(c.fs[0].val, "-") {
		fs := append([]field{{val: "-" + c.fs[0].val, known: true}}, c.fs[1:]...)
		a = parseArgs(fs, lookupSpec("tar").val, false)
	}
	// Options that run commands: each is reviewed as a command line.
	for _, f := range a.values("--to-command", "--use-compress-program", "-I", "-F", "--info-script", "--new-volume-script") {
		b.commandText(f, c, "tar")
	}
	for _, f := range a.values("--rsh-command", "--rmt-command") {
		// tar runs it with the host and the remote tape program after
		// it: reviewed with arguments it does not know.
		if f.known {
			f.val += ` "$@"`
		}
		b.commandText(f, c, "tar")
	}
	for _, f := range a.values("--checkpoint-action") {
		if !f.known {
			b.dynamicCode(f, c, "tar --checkpoint-action")
			continue
		}
		if cmd, ok := strings.CutPrefix(f.val, "exec="); ok {
			f.val = cmd
			b.commandText(f, c, "tar --checkpoint-action=exec")
		}
	}
	files := a.values("-f", "--file")
	if !a.has("--force-local") {
		// HOST:PATH is an archive on another machine, through rsh or
		// ssh: a send, whatever tar then does with it.
		local := files[:0:0]
		for _, f := range files {
			if i := strings.IndexByte(f.val, ':'); f.known && i > 0 && !strings.Contains(f.val[:i], "/") {
				b.add(Effect{Cap: CapSend, Rule: "net.upload", Program: "tar", Target: f.val, Msg: "reads or writes the archive " + f.val + " on another machine"}, c.sp)
				continue
			}
			local = append(local, f)
		}
		files = local
	}
	dirs := a.values("-C", "--directory")
	if a.has("-x", "--extract", "--get") {
		dir := staticField(".", c.sp)
		if len(dirs) > 0 {
			dir = dirs[0]
		}
		if !a.has("--to-command", "-O", "--to-stdout") {
			b.pathEffect(CapWrite, "tar.extract", "tar", dir, c.st, c.sp, "extracts files into")
			if a.has("-P", "--absolute-names") {
				b.extractAnywhere(c)
			}
		}
		for _, f := range files {
			b.pathEffect(CapRead, "tar.read", "tar", f, c.st, c.sp, "reads")
		}
		b.extracted(c, files, dir)
	} else if a.has("-c", "--create", "-r", "--append", "-u", "--update") {
		for _, f := range files {
			b.pathEffect(CapWrite, "tar.create", "tar", f, c.st, c.sp, "writes")
		}
		// Operands are relative to the -C directory (every one given,
		// as guard does not track which operand follows which).
		sts := []*state{c.st}
		if len(dirs) > 0 {
			sts = nil
			for _, d := range dirs {
				st := c.st.clone()
				st.cwd = ""
				if d.known {
					if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok {
						st.cwd = p
					}
				}
				sts = append(sts, st)
			}
		}
		for _, st := range sts {
			for _, f := range a.ops {
				b.pathEffect(CapRead, "tar.read", "tar", f, st, c.sp, "reads")
				if a.has("--remove-files") {
					b.pathEffect(CapDelete, "tar.remove-files", "tar", f, st, c.sp, "deletes, after archiving,")
				}
			}
		}
	} else {
		for _, f := range files {
			b.pathEffect(CapRead, "tar.read", "tar", f, c.st, c.sp, "reads")
		}
	}
	return stream{kind: streamUnknown}
}

// hSQL: SQL text from -c/-e/--command, stdin or a here-string; DROP,
// TRUNCATE and unqualified DELETE destroy remote state.
func hSQL(flags string) handler {
	return func(b *builder, c *call) stream {
		var texts []field
		texts = append(texts, c.a.values(strings.Fields(flags)...)...)
		if t := knownText(c.in); t != "" {
			texts = append(texts, staticField(t, c.sp))
		}
		switch c.prog {
		case "redis-cli":
			texts = append(texts, c.a.ops...)
		case "sqlite3", "duckdb":
			// sqlite3 DB SQL…: the operands after the database are run.
			if len(c.a.ops) > 1 {
				texts = append(texts, c.a.ops[1:]...)
			}
			// Its input, an -init file and the files .read reads are
			// commands too: their shell escapes run (.shell, .system).
			switch {
			case c.in.tainted():
				b.add(Effect{Cap: CapNetCode, Rule: "exec.stdin-code", Program: c.prog, Msg: "runs " + c.prog + " commands from the network or from decoded data (their .shell runs commands)"}, c.sp)
			case c.in.kind != streamNone && c.in.kind != streamText:
				b.add(Effect{Cap: CapDynamic, Rule: "exec.stdin-code", Program: c.prog, Msg: "runs the " + c.prog + " commands on its input, which guard cannot see (their .shell runs commands)"}, c.sp)
			}
			files := c.a.values("-init")
			for _, t := range texts {
				for _, m := range re(`(?m)^\s*\.read\s+(\S+)`).FindAllStringSubmatch(t.val, -1) {
					if t.known && !strings.HasPrefix(m[1], "|") && !strings.HasPrefix(m[1], "'|") {
						files = append(files, staticField(strings.Trim(m[1], `'"`), c.sp))
					}
				}
			}
			for _, f := range files {
				if in := b.fileStream([]field{f}, c.st); in.kind == streamText {
					texts = append(texts, staticField(in.text, c.sp))
				} else {
					b.add(Effect{Cap: CapDynamic, Rule: "exec.script-unreadable", Program: c.prog, Target: f.display(), Msg: "runs " + c.prog + " commands from " + f.display() + ", which guard cannot read (their .shell runs commands)"}, c.sp)
				}
			}
		}
		for _, t := range texts {
			if !t.known {
				continue
			}
			b.clientEscapes(c, t)
			if re(`\b(drop\s+(table|database|schema|index|view|user|role)|truncate\b|delete\s+from\s+\w+\s*(;|$)|flushall|flushdb|dropdatabase|\.drop\(\)|deleteMany\(\s*\{\s*\}\s*\))`).MatchString(t.val) {
				b.add(Effect{Cap: CapPublish, Rule: "db.destroy", Program: c.prog, Target: shorten(t.val), Msg: "destroys database data (DROP, TRUNCATE, DELETE without WHERE, FLUSHALL), which cannot be undone"}, c.sp)
			}
		}
		return stream{kind: streamNetwork}
	}
}

// clientEscapes reviews the shell commands a database client runs from
// its own command language: sqlite3 .shell/.system, psql \! and mysql
// system or \!, and output or input piped through a command (.output |CMD,
// .once |CMD, .read |CMD, .import |CMD, psql \o |CMD, \g |CMD, mysql
// pager CMD). sqlite3 .load loads native code guard cannot see.
func (b *builder) clientEscapes(c *call, t field) {
	b.clientFiles(c, t)
	for _, line := range strings.Split(t.val, "\n") {
		if m := re(`^\s*(?:\.shell|\.system|\\!|system|pager|\\P)\s+(.+)$`).FindStringSubmatch(line); m != nil {
			b.text(m[1], c.st.clone(), stream{}, c.prog+" shell escape", span{t.pos, t.end})
			continue
		}
		if m := re(`^\s*(\.output|\.once|\.read|\.import|\\o|\\out|\\g|\\w|\\copy|copy)\b`).FindStringSubmatch(line); m != nil {
			if cmd, ok := pipedCommand(line, !strings.HasSuffix(strings.ToLower(m[1]), "copy")); ok {
				b.text(cmd, c.st.clone(), stream{}, c.prog+" pipe", span{t.pos, t.end})
			}
			continue
		}
		if re(`^\s*\.load\b`).MatchString(line) {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: shorten(line), Msg: "loads a native extension into " + c.prog + ", code guard cannot review"}, c.sp)
		}
	}
}

// pipedCommand finds the command of a client meta-command that pipes
// through one: "|CMD" (to the end of the line, or to the closing quote
// when the | follows a quote; not for COPY, where | is SQL), or COPY …
// PROGRAM 'CMD'.
func pipedCommand(line string, bar bool) (string, bool) {
	if m := re(`\bprogram\s+'([^']*)'`).FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	i := strings.Index(line, "|")
	if i < 0 || !bar {
		return "", false
	}
	rest := line[i+1:]
	if i > 0 && (line[i-1] == '\'' || line[i-1] == '"') {
		if j := strings.IndexByte(rest, line[i-1]); j >= 0 {
			rest = rest[:j]
		}
	}
	return strings.TrimSpace(rest), true
}

// guardReadOnly are guard's subcommands that change nothing: they are A.
// Everything else run through guard (pin, approve, install, run, --) is
// guard-self, C. A second word narrows it ("policy show" but not a bare
// "policy").
var guardReadOnly = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"check": nil, "log": nil, "version": nil, "help": nil, "completion": nil,
		"doctor": nil, "scan": nil, "approvals": nil, "checkpoints": nil, "docs": nil,
		"policy": {"show", "check"},
	}
})

// guardWrites are the words that make a read-only subcommand change
// something: guard log prune deletes rotated audit files, guard scan
// --write-baseline writes a file.
var guardWrites = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"log":  {"prune"},
		"scan": {"--write-baseline"},
	}
})

// guardChanges reports whether guard's arguments hold one of its
// subcommand's guardWrites, or a word guard cannot see (which could be).
func guardChanges(rest []field) bool {
	words := guardWrites()[rest[0].val]
	for _, f := range rest[1:] {
		if !f.known {
			return words != nil
		}
		name, _, _ := strings.Cut(f.val, "=")
		if slices.Contains(words, name) {
			return true
		}
	}
	return false
}

// hGuard: guard's read-only subcommands are A; anything else changes
// guard itself or runs through it and is C.
func hGuard(b *builder, c *call) stream {
	rest := c.a.rest
	if len(rest) == 0 {
		if len(c.fs) == 0 || c.a.has("--help", "-h", "--version", "-v") {
			return stream{kind: streamText}
		}
	} else if rest[0].known {
		if rest[0].val == "undo" && undoListOnly(rest[1:]) {
			return stream{kind: streamText} // the list of checkpoints
		}
		if subs, ok := guardReadOnly()[rest[0].val]; ok && !guardChanges(rest) {
			if subs == nil || len(rest) > 1 && rest[1].known && slices.Contains(subs, rest[1].val) {
				return stream{kind: streamText}
			}
		}
	}
	what := "guard"
	if len(rest) > 0 {
		what = rest[0].display()
	}
	b.add(Effect{Cap: CapSelf, Rule: "guard.self", Program: "guard", Target: what, Msg: "runs guard itself to change its settings, approvals or PIN, or to run a command through it"}, c.sp)
	return stream{kind: streamUnknown}
}

// undoListOnly: guard undo's arguments only list checkpoints (--list,
// with --all or --workspace DIR), undoing nothing.
func undoListOnly(args []field) bool {
	list := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case !a.known:
			return false
		case a.val == "--list":
			list = true
		case a.val == "--all":
		case a.val == "--workspace" && i+1 < len(args):
			i++
		default:
			return false
		}
	}
	return list
}

// hCat: cat of readable files outputs their text, so `cat x.sh | bash`
// is reviewed by the file's contents.
func hCat(b *builder, c *call) stream {
	if len(c.a.ops) == 0 {
		if c.in.kind == streamText {
			if t, ok := filterText("cat", c.fs, c.in.text); ok {
				return stream{kind: streamText, text: t}
			}
			return stream{kind: streamUnknown, near: c.in.text}
		}
		return c.in
	}
	out := stream{kind: streamUnknown}
	if len(c.a.ops) == 1 {
		out = b.fileStream(c.a.ops, c.st)
	} else {
		// Several files: their text joined is not computed, but a
		// file the line downloaded or decoded keeps its taint.
		for _, f := range c.a.ops {
			if s := b.fileStream([]field{f}, c.st); s.tainted() {
				out = worse(out, s)
			}
		}
	}
	if out.kind == streamText && (len(c.a.flags) > 1 || len(c.a.flags) == 1 && !c.a.has("-u")) {
		// -n, -v, -A and the rest change the text they print.
		out = stream{kind: streamUnknown}
	}
	return out
}

// hCurl: data options that name files (-d @file, -F name=@file or <file)
// read those files to send them; -o FILE is network data for later.
func hCurl(b *builder, c *call) stream {
	var outDir field
	if ds := c.a.values("--output-dir"); len(ds) > 0 {
		outDir = ds[0]
	}
	for _, f := range c.a.values("-o", "--output") {
		if f.known && f.val != "-" {
			b.downloaded(c.st, outDir, f.val)
		}
	}
	if c.a.has("-O", "--remote-name", "--remote-name-all") {
		b.defaultDownloads(c, true, "--output-dir")
	}
	for _, v := range c.a.values("-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "-F", "--form") {
		if !v.known {
			continue
		}
		val := v.val
		if i := strings.IndexAny(val, "@<"); i >= 0 && (i == 0 || strings.Contains(val[:i], "=")) {
			f := v
			f.val = val[i+1:]
			if j := strings.IndexByte(f.val, ';'); j >= 0 {
				f.val = f.val[:j]
			}
			if f.val != "-" && f.val != "" {
				b.pathEffect(CapRead, "net.send-file", c.prog, f, c.st, c.sp, "reads, to send,")
			}
		}
	}
	return stream{}
}

// isStdinPath names the command's own standard input.
func isStdinPath(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// hTee writes its input to its operands (and passes it on).
func hTee(b *builder, c *call) stream {
	for _, f := range c.a.ops {
		if f.known {
			if p, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
				c.st.wrote(p, c.in)
			}
		}
	}
	return c.in
}

// hWget: -O FILE writes the download there; -O - writes it to stdout.
func hWget(b *builder, c *call) stream {
	if !c.a.has("-O", "--output-document") {
		b.defaultDownloads(c, true, "-P", "--directory-prefix")
	}
	for _, f := range c.a.values("-O", "--output-document") {
		if f.known && f.val != "-" {
			if p, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
				c.st.wrote(p, stream{kind: streamNetwork})
			}
		}
	}
	return stream{}
}

// hAlias: an alias body is code the shell may run later; review it now.
func hAlias(b *builder, c *call) stream {
	for _, f := range c.a.ops {
		if !f.known {
			continue
		}
		if name, body, ok := strings.Cut(f.val, "="); ok && body != "" {
			b.text(body, c.st.clone(), stream{}, "alias", c.sp)
			c.st.defineAlias(name, body)
		}
	}
	return stream{}
}

// hPkgScript runs a package.json script by name (npm run X, npm test,
// yarn X): the script's text, and its pre/post scripts, are reviewed like
// any shell text. npm finds package.json in the cwd or a parent.
func hPkgScript(nameFrom string) handler {
	return func(b *builder, c *call) stream {
		name := nameFrom
		if name == "" {
			if len(c.a.ops) == 0 {
				return stream{}
			}
			if !c.a.ops[0].known {
				return b.dynamicCode(c.a.ops[0], c, c.prog+" run")
			}
			name = c.a.ops[0].val
		}
		b.scriptShell(c)
		scripts, dir, ok := b.packageScripts(c.st.cwd)
		if !ok {
			b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: c.prog, Target: name, Msg: "runs a package script guard cannot read to review"}, c.sp)
			return stream{kind: streamUnknown}
		}
		inner := c.st.clone()
		inner.cwd = dir
		out := stream{kind: streamUnknown}
		for _, n := range []string{"pre" + name, name, "post" + name} {
			if text, ok := scripts[n]; ok {
				out = b.text(text, inner.clone(), c.in, c.prog+" run "+n, c.sp)
			}
		}
		return out
	}
}

// packageScripts reads the scripts of the nearest package.json.
func (b *builder) packageScripts(dir string) (map[string]string, string, bool) {
	if b.ctx.ReadFile == nil || dir == "" || b.ctx.Remote {
		return nil, "", false
	}
	for d := dir; ; d = path.Dir(d) {
		data, err := b.ctx.ReadFile(path.Join(d, "package.json"))
		if err == nil {
			b.recordInput(path.Join(d, "package.json"), data, nil)
			var pkg struct {
				Scripts map[string]string `json:"scripts"`
			}
			if json.Unmarshal(data, &pkg) != nil {
				return nil, "", false
			}
			return pkg.Scripts, d, true
		}
		if d == "/" || d == "." {
			return nil, "", false
		}
	}
}

// hBunRun: bun [run] NAME runs package.json's script NAME when there is
// one (reviewed as npm's), else the file NAME (as any interpreter runs a
// script). A NAME that is neither, as far as guard can read, is not A: it
// may be a script or a subcommand guard does not know.
func hBunRun(b *builder, c *call) stream {
	if c.a.has("-e", "--eval") || len(c.a.ops) == 0 {
		return hInterp("-e --eval")(b, c)
	}
	name := c.a.ops[0]
	if name.known {
		if scripts, _, ok := b.packageScripts(c.st.cwd); ok {
			if _, has := scripts[name.val]; has {
				return hPkgScript("")(b, c)
			}
		}
		if p, ok := b.ctx.Resolve(c.st.cwd, name.val); ok && b.ctx.ReadFile != nil {
			if _, err := b.ctx.ReadFile(p); err == nil {
				return hInterp("-e --eval")(b, c)
			}
		}
	}
	b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: c.prog, Target: name.display(), Msg: "runs a package script, file or subcommand guard cannot read to review"}, c.sp)
	return stream{kind: streamUnknown}
}

// yarnBare: `yarn NAME` / `pnpm NAME` runs the script NAME when the
// package has one, else a binary from node_modules/.bin (not reviewed).
func yarnBare(b *builder, c *call) stream {
	b.plantedRun(staticField(c.sub, c.sp), c.fs, c)
	scripts, _, ok := b.packageScripts(c.st.cwd)
	if !ok {
		// No package.json guard can read: a script or a yarn command
		// guard does not know (principle 8: not A).
		b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: c.prog, Target: c.sub, Msg: "runs a package script or command guard cannot read to review"}, c.sp)
		return stream{kind: streamUnknown}
	}
	if _, has := scripts[c.sub]; has {
		return hPkgScript(c.sub)(b, c)
	}
	b.add(Effect{Cap: CapExec, Rule: "pkg.run", Program: c.prog, Target: c.sub, Msg: "runs a project binary"}, c.sp)
	return stream{kind: streamUnknown}
}

// hYarnForeach: yarn workspaces foreach [OPTIONS] COMMAND… runs the yarn
// command in every workspace; list and info only print.
func hYarnForeach(b *builder, c *call) stream {
	fs := c.fs
	if len(fs) == 0 || !fs[0].known || fs[0].val != "foreach" {
		if len(fs) > 0 && fs[0].known && (fs[0].val == "list" || fs[0].val == "info") {
			return stream{kind: streamText}
		}
		b.add(Effect{Cap: CapFetch, Rule: "pkg.install", Program: c.prog, Msg: "installs the workspaces' packages"}, c.sp)
		return stream{}
	}
	i := 1
	for i < len(fs) && fs[i].known && strings.HasPrefix(fs[i].val, "-") {
		switch fs[i].val {
		case "-j", "--jobs", "--include", "--exclude", "--from":
			i++
		}
		i++
	}
	if i >= len(fs) {
		return stream{}
	}
	return b.exec(append([]field{staticField("yarn", c.sp)}, fs[i:]...), c.st, c.in, "yarn workspaces foreach", c.sp)
}
