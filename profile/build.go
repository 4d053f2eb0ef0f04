package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
)

// Budget bounds nested analysis (bash -c inside eval inside a script…).
const (
	maxNesting = 12
	maxCalls   = 20_000
)

// Build profiles a command line. It never fails: text that does not parse,
// is over a limit or uses a construct guard does not model becomes an
// effect that the review fails closed on.
func Build(text string, ctx *Context) *Profile {
	b := newBuilder(ctx)
	b.src = text
	b.text(text, b.initialState(), stream{}, "", span{0, len(text)})
	b.flushFds()
	b.finish()
	return b.prof
}

type builder struct {
	ctx       *Context
	prof      *Profile
	depth     int
	calls     int
	active    map[string]bool    // functions being analysed (recursion guard)
	anchor    *span              // nested text reports positions of the outer word
	seen      map[string]bool    // effect dedupe
	src       string             // the top-level text
	inputs    map[string]string  // files read for the review: path → SHA-256
	argCmd    bool               // inside a command found in an unknown program's arguments
	env       map[string]*string // prefix assignments of the commands being profiled (getenv)
	start     map[string]bool    // the variables of the environment the review starts from (newshell.go)
	shellWord bool               // the next exec is of a command word the shell runs itself (shellExec)
	net       bool               // an effect since the last reset exchanged data with the network
	unplanted string             // a name being reviewed as the program it says, not the file the line planted (exec)
	// outProcs are >(…) bodies met in the statement being profiled: they
	// read what its command writes, known once the command is (stmt).
	outProcs []outProc
	// fdProcs are the >(…) bodies exec made descriptors of the shell,
	// reviewed at the end of the line with what they were fed (execfd.go).
	fdProcs []*fdProc
	// lcds are the local directories a transfer client's lcd set, by
	// call (ftpcmds.go).
	lcds map[*call]string
	// fork is the other ways out of the branches just reviewed, for the
	// statements after them (branches.go); forks counts the reviews
	// spent on them.
	fork      *pendingFork
	forks     int
	forkBytes int
}

// outProc is a >(…) body waiting for the output it is given.
type outProc struct {
	script *parse.Script
	st     *state
	sp     span
}

type span struct{ pos, end int }

func newBuilder(ctx *Context) *builder {
	return &builder{ctx: ctx, prof: &Profile{Commands: []Command{}, Effects: []Effect{}}, active: map[string]bool{}, seen: map[string]bool{}}
}

// state is what a shell knows while running a line: the directory and the
// variables and functions defined so far.
type state struct {
	cwd   string // "" when unknown
	vars  map[string]*string
	globs map[string]bool // variables whose value is a glob pattern (for f in *.go)
	funcs map[string]*parse.Stmt
	// files are what earlier commands on the line wrote, by absolute path:
	// known text, or data from the network or decoding. Shared by every
	// scope, like the file system.
	files map[string]stream
	// hashed are `hash -p PATH NAME` entries: NAME runs PATH.
	hashed map[string]string
	// refs are namerefs (declare -n REF=TARGET): REF names TARGET, ""
	// when the target is not static.
	refs map[string]string
	// argv are the positional parameters when known ("$@" expands to one
	// field each); nil when not set or unknown.
	argv []field
	// links are the symlinks earlier commands on the line made: link →
	// target, both absolute. Shared like files.
	links map[string]string
	// ints are the variables declared -i: bash evaluates every value
	// assigned to them as arithmetic.
	ints map[string]bool
	// taint are the variables whose value came from the network or from
	// decoding (x=$(curl …), read x < <(curl …)): code made of them later
	// on the line is code from the network, whatever their value.
	taint map[string]stream
	// arrays are the elements of arrays assigned NAME=(…) with static
	// elements, valid only while $NAME is still the value that
	// assignment set (first, the same pointer): any other assignment,
	// read -a, mapfile or unset sets another and the elements are
	// unknown again.
	arrays map[string]arrayVal
	// assocs are the variables declared -A; assoc are the elements
	// with static keys of those the line set (assoc.go), valid as
	// arrays are.
	assocs map[string]bool
	assoc  map[string]assocVal
	// volatile are the variables a trap's code assigns: it may run
	// before any later command, so their value is never known again
	// (trap.go).
	volatile map[string]bool
	// inFds are input descriptors other than 0 a redirection filled
	// (3<<<TEXT): what /dev/fd/3 reads (infd.go); copied on write.
	inFds map[string]stream
	// cases are the variables declared -l, -u or -c: bash converts
	// every value assigned to them (caseattr.go).
	cases map[string]byte
	// stdinShell is set while the shell reads its commands from its
	// stdin (TEXT | bash, sh <<< TEXT): exec < FILE makes it read the
	// rest from FILE (stdinshell.go). A subshell or a new shell does
	// not (clone leaves it unset).
	stdinShell bool
	// dirs is bash's directory stack below the current directory
	// (pushd, popd; dirstack.go), "" for an entry guard does not know.
	dirs []string
	// shopts are the bash options shopt -s/-u set on the line that the
	// review follows (shopt.go).
	shopts map[string]bool
	// aliases are alias NAME=BODY definitions made on the line
	// (aliases.go); copied on write.
	aliases map[string]string
	// pathDirs are the directories the line put on PATH (linepath.go).
	pathDirs []string
	// fds are the shell's descriptors that feed a >(…) body since an
	// exec (execfd.go); copied on write.
	fds map[string]*fdProc
	// exported are the variables the line exported (export, declare
	// -x) or put in a command's environment: a new shell inherits them
	// (newshell.go).
	exported map[string]bool
	// readonly are the variables declared readonly (readonly, declare
	// -r): bash refuses every later assignment, local or unset of them
	// and keeps the value, so a value guard took from one is not what
	// the variable holds: any write makes it unknown (set).
	readonly map[string]bool
}

type arrayVal struct {
	first *string
	elems []field
}

// array returns NAME's elements when the line set them and nothing has
// changed NAME since.
func (s *state) array(name string) ([]field, bool) {
	av, ok := s.arrays[name]
	if !ok || av.first == nil || s.vars[name] != av.first {
		return nil, false
	}
	return av.elems, true
}

// setArgs sets the positional parameters ($0, $1…, $#, $@, $*) for code
// run with arguments (bash -c CODE ARG0 ARG1…).
func (s *state) setArgs(args []field) {
	var all []string
	known := true
	taint := stream{}
	for i, a := range args {
		name := strconv.Itoa(i)
		if a.glob {
			// What a pattern matches is not known here (under nullglob
			// it may be nothing): set -- x* rm; "$@" may run rm.
			a.known = false
			args[i] = a
		}
		if a.known && known {
			v := a.val
			s.setTainted(name, &v, a.taint)
		} else {
			// A word guard does not know may have been any number of
			// words: every parameter after it is unknown too
			// (set -- $u ok ~; rm -rf "$2" deletes ~ when u is empty).
			s.setTainted(name, nil, a.taint)
			known = false
		}
		if i > 0 {
			all = append(all, a.val)
			taint = worse(taint, a.taint)
		}
	}
	for k := range s.vars {
		// The parameters past the new ones are unset, or unknown after
		// a word guard does not know: not what they were (set -- x ok;
		// set -- $u; rm -rf "$2" was "ok").
		if n, err := strconv.Atoi(k); err == nil && isDigits(k) && n > 0 && n >= len(args) {
			delete(s.taint, k)
			if delete(s.vars, k); !known {
				s.vars[k] = nil
			}
		}
	}
	s.argv = nil
	if known && len(args) > 0 {
		s.argv = append([]field{}, args[1:]...)
	}
	var count *string
	if known {
		n := strconv.Itoa(max(len(args)-1, 0))
		count = &n
	}
	s.set("#", count)
	var j *string
	if known {
		v := strings.Join(all, " ")
		j = &v
	}
	s.setTainted("@", j, taint)
	s.setTainted("*", j, taint)
}

// setParams sets $1… (set --, shift, a function's call) and leaves $0,
// which none of them changes: f() { "$0" -c "$1"; } runs the shell.
func (s *state) setParams(params []field) {
	zero, set := s.vars["0"]
	t, bad := s.taint["0"]
	s.setArgs(append([]field{{known: true}}, params...))
	delete(s.vars, "0")
	delete(s.taint, "0")
	if set {
		s.vars["0"] = zero
	}
	if bad {
		s.taint["0"] = t
	}
}

func (b *builder) initialState() *state {
	st := &state{cwd: b.ctx.Cwd, vars: map[string]*string{}, globs: map[string]bool{}, funcs: map[string]*parse.Stmt{}, files: map[string]stream{}, links: map[string]string{}}
	for k, v := range b.ctx.Env {
		v := v
		st.vars[k] = &v
	}
	// bash sets IFS to blanks at start, whatever the environment says:
	// ${IFS} is known (rm${IFS}-rf${IFS}/ is rm -rf /).
	ifs := " \t\n"
	st.vars["IFS"] = &ifs
	if b.ctx.Home != "" {
		h := b.ctx.Home
		st.vars["HOME"] = &h
	}
	if b.ctx.Cwd != "" {
		c := b.ctx.Cwd
		st.vars["PWD"] = &c
	}
	if b.ctx.User != "" {
		u := b.ctx.User
		st.vars["USER"] = &u
	}
	return st
}

func (s *state) clone() *state {
	// vars, globs and funcs are written to in every scope; the others
	// stay nil until something sets them.
	return &state{cwd: s.cwd, files: s.files, links: s.links, argv: s.argv,
		vars: cloneMap(s.vars), globs: cloneMap(s.globs), funcs: cloneMap(s.funcs),
		hashed: maps.Clone(s.hashed), refs: maps.Clone(s.refs), ints: maps.Clone(s.ints), taint: maps.Clone(s.taint), arrays: maps.Clone(s.arrays), assocs: maps.Clone(s.assocs), assoc: maps.Clone(s.assoc), volatile: maps.Clone(s.volatile), inFds: s.inFds, cases: maps.Clone(s.cases), dirs: slices.Clone(s.dirs), shopts: s.shopts, aliases: s.aliases, pathDirs: s.pathDirs, fds: s.fds, exported: maps.Clone(s.exported), readonly: maps.Clone(s.readonly)}
}

// cloneMap is maps.Clone that never returns nil.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if c := maps.Clone(m); c != nil {
		return c
	}
	return map[K]V{}
}

// setTainted is set for a value that carries t: the variable stays
// tainted when t came from the network or from decoding.
func (s *state) setTainted(name string, v *string, t stream) {
	s.set(name, v)
	if t.tainted() {
		if s.taint == nil {
			s.taint = map[string]stream{}
		}
		s.taint[name] = t
	}
}

// taintIn is the worst taint of the variables text refers to ($x, ${x…},
// ${!x} refers to any), for expansions guard does not evaluate itself.
func (s *state) taintIn(text string) stream {
	out := stream{}
	indirect := strings.Contains(text, "${!")
	for name, t := range s.taint {
		if indirect || mentionsVar(text, name) {
			out = worse(out, t)
		}
	}
	return out
}

// mentionsVar reports whether text holds name as a whole identifier.
func mentionsVar(text, name string) bool {
	isID := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isID(text[j-1])) && (end == len(text) || !isID(text[end])) {
			return true
		}
		i = j + 1
	}
}

func (s *state) set(name string, v *string) {
	if _, ref := s.refs[name]; ref {
		// declare -n r=X; read r, printf -v r, mapfile r, for r in …,
		// unset r: every write through the reference is X's.
		if t := s.resolveRef(name); t != "" {
			name = t
		}
	}
	if base, _, _ := strings.Cut(name, "["); s.volatile[base] {
		v = nil // a trap may change it before any command (trap.go)
	} else if s.readonly[base] {
		// bash refuses the write: readonly p=~; export p=./b; rm -rf
		// $p deletes ~. Unknown rather than modelled (for, local,
		// read and x=… cmd each fail in their own way).
		v = nil
	}
	v = s.convertCase(name, v)
	if base, sub, ok := strings.Cut(name, "["); ok {
		// NAME[SUB] (read 'a[1]', printf -v, unset, getopts, a
		// reference to a[1]) changes an element of NAME: the elements
		// the line set are no longer what it knows, nor is $NAME when
		// SUB may be 0. Through a reference (declare -n r=a; read
		// 'r[1]') it is the target's; one guard cannot see may be any.
		if _, ref := s.refs[base]; ref {
			if base = s.resolveRef(base); base == "" {
				s.arrays, s.assoc = nil, nil
			}
		}
		delete(s.arrays, base)
		delete(s.assoc, base)
		if n := strings.TrimSuffix(sub, "]"); strings.Trim(n, "0123456789") != "" || strings.Trim(n, "0") == "" {
			s.vars[base] = nil
		}
	}
	s.vars[name] = v
	delete(s.taint, name)
	delete(s.globs, name)
	if name == "PWD" && v != nil {
		s.cwd = *v
	}
}

// markReadonly records readonly NAME (through a reference, its target's).
func (s *state) markReadonly(name string) {
	if _, ref := s.refs[name]; ref {
		name = s.resolveRef(name)
	}
	if name == "" {
		return
	}
	if s.readonly == nil {
		s.readonly = map[string]bool{}
	}
	s.readonly[name] = true
}

// streamKind is what flows through a pipe or comes out of a substitution.
type streamKind int

const (
	streamNone    streamKind = iota // nothing (output went to a file)
	streamText                      // known text
	streamPaths                     // file names under dir (find, ls)
	streamUnknown                   // data guard cannot see
	streamDecoded                   // decoded data (base64 -d, xxd -r)
	streamNetwork                   // bytes from the network
)

type stream struct {
	kind streamKind
	text string
	dir  string
	// near is known text that went through filters guard does not
	// compute (fmt, uniq, sort): what they print resembles it, so a
	// shell reading their output is reviewed by it too, besides being
	// code guard cannot see.
	near string
}

// tainted reports whether the data came from the network or decoding.
func (s stream) tainted() bool { return s.kind == streamDecoded || s.kind == streamNetwork }

func worse(a, b stream) stream {
	if b.kind > a.kind {
		return b
	}
	return a
}

// then is the output of a command that prints a and then b (a list, a
// group, a loop's iterations, the branches of an if or a case, which
// guard assumes may all run): known texts are joined as printed, so
// { echo ls; echo 'rm -rf ~'; } | sh reviews both lines, not the first.
// Otherwise the worse kind wins and the known text of both parts stays
// near it, for a shell that reads the whole.
func then(a, b stream) stream {
	switch {
	case a.kind == streamNone:
		return b
	case b.kind == streamNone:
		return a
	case a.kind == streamText && b.kind == streamText:
		return stream{kind: streamText, text: a.text + b.text}
	case a.kind == streamPaths && b.kind == streamPaths && a.dir != b.dir:
		// File names under two directories: neither dir describes them.
		return stream{kind: streamUnknown, near: a.near + b.near}
	}
	out := worse(a, b)
	if out.kind == streamUnknown || out.kind == streamPaths {
		out.near = knownText(a) + knownText(b)
	}
	return out
}

// knownText is the text a stream is known to hold or resemble: readers
// of code review it also when the stream holds more they cannot see.
func knownText(s stream) string {
	if s.kind == streamText {
		return s.text
	}
	return s.near
}

// text parses and profiles nested shell text (the whole line, bash -c,
// eval, a script file).
func (b *builder) text(text string, st *state, in stream, via string, sp span) stream {
	if b.depth > maxNesting {
		b.add(Effect{Cap: CapLimit, Rule: "limit.nesting", Msg: fmt.Sprintf("nested execution deeper than %d levels", maxNesting)}, sp)
		return stream{kind: streamUnknown}
	}
	lim := parse.DefaultLimits
	s, err := lim.Bash(text)
	if err != nil {
		var se *parse.SyntaxError
		var le *parse.LimitError
		switch {
		case errors.As(err, &se):
			at := sp
			if b.depth == 0 && b.anchor == nil {
				at = span{se.Pos, se.Pos}
			}
			where := ""
			if via != "" {
				where = " in the text run by " + via
			}
			b.add(Effect{Cap: CapUnparsed, Rule: "parse.error", Msg: fmt.Sprintf("does not parse%s: %v", where, se)}, at)
		case errors.As(err, &le):
			b.add(Effect{Cap: CapLimit, Rule: "limit." + le.What, Msg: "over an analysis limit: " + le.Error()}, sp)
		default:
			b.add(Effect{Cap: CapUnparsed, Rule: "parse.error", Msg: "does not parse: " + err.Error()}, sp)
		}
		return stream{kind: streamUnknown}
	}
	b.depth++
	defer func() { b.depth-- }()
	if b.depth > 1 && b.anchor == nil {
		b.anchor = &sp
		defer func() { b.anchor = nil }()
	}
	return b.script(s, st, in, via)
}

func (b *builder) script(s *parse.Script, st *state, in stream, via string) stream {
	return b.stmts(s.Stmts, st, in, via, nil)
}

// stmts reviews a sequence of statements on st. After branches that
// leave the shell in more than one state, the rest of the sequence is
// reviewed once more in each of those (branches.go). ways, when not
// nil, collects the state before each statement: the statements are
// alternatives (the branches of an if, a case, a && or || list).
func (b *builder) stmts(list []*parse.Stmt, st *state, in stream, via string, ways *[]*state) stream {
	out := stream{}
	for i, x := range list {
		if ways != nil {
			*ways = append(*ways, st.clone())
		}
		b.fork = nil
		out = then(out, b.stmt(x, st, in, via))
		f := b.fork
		b.fork = nil
		if f == nil || f.stmt != x || i == len(list)-1 {
			continue
		}
		rest := list[i+1:]
		cost := max(rest[len(rest)-1].End-rest[0].Pos, 1)
		for _, alt := range f.alts {
			if b.forks >= maxForks || b.forkBytes+cost > maxForkBytes {
				break // the merged state alone counts
			}
			b.forks++
			b.forkBytes += cost
			out = then(out, b.stmts(rest, alt, in, via, nil))
		}
	}
	return out
}

func (b *builder) stmt(s *parse.Stmt, st *state, in stream, via string) stream {
	sp := span{s.Pos, s.End}
	out, redirOut := b.stmtCmd(s, st, in, via, sp)
	if redirOut {
		// Its output went to files: nothing reaches a pipe.
		return stream{}
	}
	return out
}

// stmtCmd profiles a statement's redirections and command, and returns
// the command's output and whether a redirection took it.
func (b *builder) stmtCmd(s *parse.Stmt, st *state, in stream, via string, sp span) (out stream, redirOut bool) {
	// The >(…) of this statement (its redirections and arguments) read
	// what its command writes: its output, which for a tee or a download
	// (tee >(sh), curl -o >(sh)) is what it writes to the file too.
	mark := len(b.outProcs)
	defer func() {
		pend := b.outProcs[mark:]
		b.outProcs = b.outProcs[:mark]
		for _, p := range slices.Clone(pend) {
			b.substituteIn(p.script, p.st, out, ">(…)", p.sp)
		}
	}()
	// Descriptors a redirection fills are this command's (infd.go), or
	// the rest of the line's after a bare exec.
	if savedFds := st.inFds; !isBareExec(s) {
		// Only those: an exec inside a group, a function or a branch
		// sets them for the rest of the line.
		defer func() { st.inFds = restoreFds(st.inFds, savedFds, s.Redirs) }()
	}
	if d, ok := st.inFds["0"]; ok && in.kind == streamNone {
		in = d // exec <<<TEXT: the shell's stdin for the rest of the line
	}
	stdinSet := false
	var written []string
	marks := make([]int, len(s.Redirs))
	for i, r := range s.Redirs {
		marks[i] = len(b.outProcs)
		rin, wrote, paths := b.redirect(r, st, in, sp)
		if fin, ok := st.inFdRedirect(r, rin, in); ok {
			rin = fin
		}
		if rin.kind != streamNone {
			in = rin
			stdinSet = true
		}
		redirOut = redirOut || wrote
		if wrote {
			written = append(written, paths...)
		}
	}
	if stdinSet && isBareExec(s) {
		st.setInFd("0", in)
	}
	b.execStdin(s, st, in, sp)
	if bare := isBareExec(s); bare {
		b.execFds(s, st, marks)
	} else {
		// Where this command's output goes: a body an exec fed
		// (execfd.go), for the time of the command.
		dest, all := stdoutDest(s, st.fds)
		before := 0
		if dest != nil {
			before = dest.parts
		}
		restore := withStdout(st, dest)
		defer func() {
			restore()
			if !isLeaf(s) {
				return
			}
			switch {
			case all:
				b.feed(&fdProc{any: true}, out)
			case dest != nil && dest.parts == before:
				b.feed(dest, out)
			}
		}()
	}
	switch c := s.Cmd.(type) {
	case *parse.Call:
		out = b.call(c, st, in, via, sp)
	case *parse.Decl:
		out = b.decl(c, st, sp)
	case *parse.Block:
		inner := st
		if c.Subshell {
			inner = st.clone()
		}
		if c.Var != "" {
			out = b.loop(c, inner, in, via, sp)
			if b.fork != nil && b.fork.stmt == nil {
				b.fork.stmt = s // the loop may not have run
			}
			break
		}
		if c.Kind == "coproc" {
			// It reads what the line writes to it later (execfd.go).
			b.fdProcs = append(b.fdProcs, &fdProc{proc: outProc{script: &parse.Script{Stmts: c.Stmts}, st: inner, sp: sp}})
			break
		}
		// Alternatives leave the worse of every way through them
		// (branches.go).
		if !c.Subshell && branchy(c) {
			var ways []*state
			out = b.stmts(c.Stmts, inner, in, via, &ways)
			if cost := max(s.End-s.Pos, 1); loopy(c) && len(ways) > 0 && !sameShell(ways[0], st) && b.forkBytes+cost <= maxForkBytes {
				// A second pass, on what the first left (branches.go).
				b.forkBytes += cost
				again := st.clone()
				out = then(out, b.stmts(c.Stmts, again, in, via, nil))
				ways = append(ways, again)
			}
			b.branched(s, st, ways)
			break
		}
		out = b.stmts(c.Stmts, inner, in, via, nil)
	case *parse.Pipeline:
		cur := in
		for i, x := range c.Stmts {
			inner := st.clone()
			if i < len(c.Stmts)-1 {
				inner.fds = withoutStdout(inner.fds)
			}
			if i == len(c.Stmts)-1 && st.shopts["lastpipe"] {
				// shopt -s lastpipe: the last command runs in this shell
				// (echo 'rm -rf ~' | read c; $c).
				inner = st
			}
			cur = b.stmt(x, inner, cur, via)
		}
		out = cur
	case *parse.FuncDecl:
		st.funcs[c.Name] = c.Body
		if hookFuncs()[c.Name] {
			// The shell calls it by itself (for every unknown command, at
			// every prompt): its body is code that will run.
			b.add(Effect{Cap: CapExec, Rule: "shell.hook-function", Program: c.Name, Msg: "defines " + c.Name + ", a function the shell runs by itself"}, sp)
			b.callFunc(c.Name, c.Body, []field{staticField(c.Name, sp)}, st.clone(), stream{}, "hook "+c.Name, sp)
		}
	case *parse.Words:
		for _, w := range c.Words {
			if c.Kind == "arith" || c.Kind == "let" {
				b.arithWord(w, st, c.Kind, sp)
				if c.Kind == "let" {
					b.letSubscripts(w, st, sp)
				}
				continue
			}
			b.fields(w, st, sp)
		}
		for _, w := range c.Arith {
			b.arithWord(w, st, "[[ ]]", sp)
		}
	case *parse.Unsupported:
		b.add(Effect{Cap: CapUnsupported, Rule: "parse.unsupported", Msg: "uses a construct guard does not analyse: " + c.What}, sp)
		out = stream{kind: streamUnknown}
	default:
		b.add(Effect{Cap: CapUnsupported, Rule: "parse.unsupported", Msg: fmt.Sprintf("uses a construct guard does not analyse: %T", c)}, sp)
		out = stream{kind: streamUnknown}
	}
	for _, p := range written {
		st.wrote(p, out)
	}
	return out, redirOut
}

// wrote records what a command wrote to path, for scripts run later on
// the line: text stays reviewable, network or decoded data stays tainted.
func (s *state) wrote(path string, data stream) {
	if s.files == nil || path == "" {
		return
	}
	switch data.kind {
	case streamText, streamNetwork, streamDecoded:
		s.files[path] = data
	default:
		s.files[path] = stream{kind: streamUnknown}
	}
}

// redirect records what a redirection reads or writes. It returns the
// stdin it provides (heredoc, here-string, < file) and whether stdout
// goes to a file.
func (b *builder) redirect(r *parse.Redirect, st *state, in stream, sp span) (stream, bool, []string) {
	switch r.Op {
	case "<<", "<<-":
		if r.Heredoc == nil {
			return stream{kind: streamText}, false, nil
		}
		fs := b.fields(r.Heredoc, st, sp)
		return joinStream(fs), false, nil
	case "<<<":
		fs := b.fields(r.Target, st, sp)
		return joinStream(fs), false, nil
	case ">&", "<&":
		if r.Target != nil {
			if v, ok := r.Target.Value(); ok && (v == "-" || isDigits(v)) {
				return stream{}, false, nil
			}
		}
	}
	if r.Target == nil {
		return stream{}, false, nil
	}
	fs := b.fields(r.Target, st, sp)
	tsp := span{r.Target.Pos, r.Target.End}
	switch r.Op {
	case "<":
		for _, f := range fs {
			b.pathEffect(CapRead, "redirect.read", "", f, st, tsp, "reads")
		}
		return b.fileStream(fs, st), false, nil
	case ">", ">>", ">|", "&>", "&>>", ">&", "<>":
		var paths []string
		for _, f := range fs {
			b.pathEffect(CapWrite, "redirect.write", "", f, st, tsp, "writes")
			if f.known {
				if p, ok := b.ctx.Resolve(st.cwd, f.val); ok {
					paths = append(paths, p)
				}
			}
		}
		return stream{}, r.Fd == "" || r.Fd == "1" || strings.HasPrefix(r.Op, "&"), paths
	}
	return stream{}, false, nil
}

// fileStream is the stdin read from a file: its text when it can be read.
func (b *builder) fileStream(fs []field, st *state) stream {
	if len(fs) == 1 && fs[0].proc {
		// < <(cmd): what cmd prints, network data staying tainted.
		if t := fs[0].taint; t.kind == streamText || t.tainted() {
			return t
		}
		return stream{kind: streamUnknown}
	}
	if len(fs) != 1 || !fs[0].known || b.ctx.ReadFile == nil || b.ctx.Remote {
		return stream{kind: streamUnknown}
	}
	p, ok := b.ctx.Resolve(st.cwd, fs[0].val)
	if !ok {
		return stream{kind: streamUnknown}
	}
	if n, ok := inFdPath(p); ok {
		// A descriptor: what the line put there, never guard's own.
		return st.fdRead(n, stream{kind: streamUnknown})
	}
	if w, ok := st.files[p]; ok {
		return w
	}
	if cl := b.ctx.Classify(p); cl == ClassSecret || cl == ClassGuard {
		// Never read credentials or guard's own state to review them
		// (nor record a hash of them among the inputs).
		return stream{kind: streamUnknown}
	}
	if p == "/proc" || p == "/sys" || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/sys/") {
		// The kernel's files change between two reads: a review that
		// hashed them would not be the same twice (principle 1), and an
		// approval bound to them would never match.
		return stream{kind: streamUnknown}
	}
	data, err := b.readFile(p)
	if err != nil || len(data) > parse.DefaultLimits.MaxBytes {
		return stream{kind: streamUnknown}
	}
	return stream{kind: streamText, text: string(data)}
}

func joinStream(fs []field) stream {
	var sb strings.Builder
	out := stream{kind: streamText}
	for i, f := range fs {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if !f.known {
			out.kind = streamUnknown
		}
		if f.taint.tainted() {
			out = worse(out, f.taint)
		}
		sb.WriteString(f.val)
	}
	if out.kind == streamText {
		out.text = sb.String()
	}
	return out
}

// declOutput is what a declaration prints. declare -f, typeset -f,
// declare -p, export -p and a bare declare print shell code that
// recreates functions and variables (f() { rm -rf ~; }; declare -f f >
// x.sh; bash -c '. ./x.sh; f' runs rm): text guard does not rebuild, so
// unknown to whoever runs it. Assignments print nothing.
func declOutput(opts []string, assigns []*parse.Assign) stream {
	prints := len(assigns) == 0
	for _, o := range opts {
		if strings.HasPrefix(o, "-") && strings.ContainsAny(o, "fFp") {
			prints = true
		}
	}
	if prints {
		return stream{kind: streamUnknown}
	}
	return stream{kind: streamText}
}

func (b *builder) decl(d *parse.Decl, st *state, sp span) stream {
	var opts []string
	var optFields []field
	for _, w := range d.Opts {
		for _, f := range b.fields(w, st, sp) {
			opts = append(opts, f.val)
			optFields = append(optFields, f)
			if !f.known {
				b.add(Effect{Cap: CapDynamic, Rule: "shell.decl-dynamic", Program: d.Variant, Msg: d.Variant + " of a name that is not static"}, sp)
			}
		}
	}
	if len(d.Assigns) == 0 && (d.Variant == "export" || d.Variant == "declare" || d.Variant == "typeset") {
		// export -p, declare -p, bare declare: print variables.
		printsAll := len(opts) == 0
		for _, o := range opts {
			if strings.Contains(o, "p") || strings.Contains(o, "x") {
				printsAll = true
			}
		}
		if printsAll {
			b.add(Effect{Cap: CapRead, Rule: "env.print-all", Program: d.Variant, Msg: "prints environment variables (the sandbox does not pass secret-looking ones)"}, sp)
		}
	}
	fresh := st.declareAssoc(opts, d.Assigns)
	nameref, integer := false, false
	ro := d.Variant == "readonly"
	for _, o := range opts {
		ro = ro || strings.HasPrefix(o, "-") && strings.Contains(o, "r")
	}
	for i, o := range opts {
		if strings.HasPrefix(o, "-") && strings.Contains(o, "n") && d.Variant != "export" {
			nameref = true // export -n takes the export attribute away (exportDecl)
		}
		if strings.HasPrefix(o, "-") && strings.Contains(o, "i") {
			integer = true
		}
		if strings.HasPrefix(o, "+") && strings.Contains(o, "i") {
			for _, a := range d.Assigns {
				delete(st.ints, a.Name)
			}
		}
		st.declareCase(o, d.Assigns)
		if !strings.HasPrefix(o, "-") && !strings.HasPrefix(o, "+") {
			// A quoted NAME[SUB]=VALUE: bash evaluates SUB, and
			// assigns VALUE as NAME=VALUE would.
			b.nameCode(o, st, d.Variant+" variable name", sp)
			if !nameref {
				b.declAssign(optFields[i], st, sp)
			}
			if name, _, _ := strings.Cut(strings.SplitN(o, "=", 2)[0], "["); ro {
				st.markReadonly(strings.TrimSuffix(name, "+"))
			}
		}
	}
	for _, a := range d.Assigns {
		if nameref {
			b.nameref(a, st, sp)
			continue
		}
		if integer {
			if st.ints == nil {
				st.ints = map[string]bool{}
			}
			st.ints[a.Name] = true // bash does not evaluate a value n had before
		}
		if !a.Naked || d.Variant != "export" && d.Variant != "readonly" {
			// export x, readonly x leave the value what it was, not
			// converted by a case attribute given with them
			// (x=rm; declare -u x; $x still runs rm).
			b.assign(a, st, sp, true)
		}
		if ro {
			st.markReadonly(a.Name) // after its own value: readonly p=~ p=./b keeps ~
		}
	}
	st.initAssoc(fresh)
	st.exportDecl(d.Variant, opts, d.Assigns)
	return declOutput(opts, d.Assigns)
}

// nameref records declare -n REF=TARGET: later reads and writes of REF
// are of TARGET (so `declare -n p=PATH; p=/tmp/x` sets PATH).
func (b *builder) nameref(a *parse.Assign, st *state, sp span) {
	target := ""
	if a.Value != nil {
		fs := b.assignFields(a.Value, st, sp)
		if len(fs) == 1 && fs[0].known {
			target = fs[0].val
			// A reference to an array element: bash evaluates the
			// subscript each time the reference is used.
			b.nameCode(target, st, "a reference (declare -n)", sp)
		}
		for _, f := range fs {
			b.arithTainted(f, "a reference (declare -n)", sp)
		}
	}
	if target == "" {
		b.add(Effect{Cap: CapDynamic, Rule: "shell.nameref-dynamic", Target: a.Name, Msg: a.Name + " is made a reference to a variable whose name is not static"}, sp)
	}
	if st.refs == nil {
		st.refs = map[string]string{}
	}
	st.refs[a.Name] = target
}

// resolveRef follows namerefs; "" when a reference's target is unknown.
func (s *state) resolveRef(name string) string {
	for range 8 {
		t, ok := s.refs[name]
		if !ok {
			return name
		}
		if t == "" {
			return ""
		}
		name = t
	}
	return ""
}

// hookFuncs are functions the shell calls by itself.
var hookFuncs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"command_not_found_handle": true, "command_not_found_handler": true, "preexec": true, "precmd": true,
		"chpwd": true, "periodic": true, "zshexit": true, "zshaddhistory": true, "TRAPEXIT": true, "TRAPZERR": true,
		"TRAPERR": true, "TRAPDEBUG": true, "TRAPINT": true, "TRAPTERM": true, "TRAPHUP": true,
	}
})

// promptVars are expanded (parameters, command substitutions) each time
// the shell prints them: PS4 before every command under set -x.
var promptVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true}
})

// sensitiveVar is what setting a sensitive variable does.
type sensitiveVar struct {
	rule string
	cap  Cap
	msg  string
	code bool // the value is itself a command line
}

// sensitiveVars change what later commands run or load (built on first
// use, not at start).
var sensitiveVars = sync.OnceValue(func() map[string]sensitiveVar {
	return map[string]sensitiveVar{
		"PATH":                  {"env.path", CapEnvHijack, "changes PATH, which decides which programs later commands run", false},
		"LD_PRELOAD":            {"env.ld-preload", CapPersistence, "sets LD_PRELOAD, which loads code into every program started later", false},
		"LD_LIBRARY_PATH":       {"env.ld-library-path", CapEnvHijack, "sets LD_LIBRARY_PATH, which changes the libraries programs load", false},
		"LD_AUDIT":              {"env.ld-audit", CapPersistence, "sets LD_AUDIT, which loads code into every program started later", false},
		"BASH_ENV":              {"env.bash-env", CapPersistence, "sets BASH_ENV, a file every later bash script runs first", false},
		"ENV":                   {"env.env", CapPersistence, "sets ENV, a file every later sh runs first", false},
		"SHELL":                 {"env.shell", CapDynamic, "sets SHELL, the shell programs run the commands they are given with (script -c, tmux, fzf --preview): guard reviews those as bash", false},
		"PARALLEL_SHELL":        {"env.shell", CapDynamic, "sets PARALLEL_SHELL, the shell GNU parallel runs its commands with: guard reviews them as bash", false},
		"PROMPT_COMMAND":        {"env.prompt-command", CapPersistence, "sets PROMPT_COMMAND, code the shell runs before every prompt", true},
		"PS1":                   {"env.ps1", CapDynamic, "sets PS1, which can run command substitutions at every prompt", false},
		"GIT_SSH_COMMAND":       {"env.git-ssh-command", CapDynamic, "sets GIT_SSH_COMMAND, a command git runs", true},
		"GIT_SSH":               {"env.git-ssh", CapDynamic, "sets GIT_SSH, a program git runs", false},
		"GIT_PAGER":             {"env.git-pager", CapDynamic, "sets GIT_PAGER, a command git runs", true},
		"PAGER":                 {"env.pager", CapDynamic, "sets PAGER, a command many programs run", true},
		"GIT_EDITOR":            {"env.git-editor", CapDynamic, "sets GIT_EDITOR, a command git runs", true},
		"EDITOR":                {"env.editor", CapDynamic, "sets EDITOR, a command many programs run", true},
		"VISUAL":                {"env.visual", CapDynamic, "sets VISUAL, a command many programs run", true},
		"GIT_EXTERNAL_DIFF":     {"env.git-external-diff", CapDynamic, "sets GIT_EXTERNAL_DIFF, a program git runs", true},
		"GIT_ASKPASS":           {"env.git-askpass", CapDynamic, "sets GIT_ASKPASS, a program git runs", false},
		"SSH_ASKPASS":           {"env.ssh-askpass", CapDynamic, "sets SSH_ASKPASS, a program ssh runs", false},
		"GIT_CONFIG_GLOBAL":     {"env.git-config", CapDynamic, "points git at another config file", false},
		"GIT_CONFIG_PARAMETERS": {"env.git-config", CapDynamic, "injects git configuration", false},
		"GIT_DIR":               {"env.git-dir", CapDynamic, "points git at another repository", false},
		"PYTHONSTARTUP":         {"env.pythonstartup", CapDynamic, "sets PYTHONSTARTUP, code python runs", false},
		"NODE_OPTIONS":          {"env.node-options", CapDynamic, "sets NODE_OPTIONS, which can load code into node", false},
		"PERL5OPT":              {"env.perl5opt", CapDynamic, "sets PERL5OPT, which can load code into perl", false},
		"IFS":                   {"env.ifs", CapDynamic, "changes IFS, which changes how words split", false},
		// Code loaded into programs written in a language, whatever they
		// are asked to do (gem list, a JVM build tool), and loaders' search
		// paths for code modules.
		"JAVA_TOOL_OPTIONS":   {"env.java-options", CapDynamic, "sets JAVA_TOOL_OPTIONS, which can load code (-javaagent) into every JVM", false},
		"_JAVA_OPTIONS":       {"env.java-options", CapDynamic, "sets _JAVA_OPTIONS, which can load code (-javaagent) into every JVM", false},
		"JDK_JAVA_OPTIONS":    {"env.java-options", CapDynamic, "sets JDK_JAVA_OPTIONS, which can load code (-javaagent) into java", false},
		"RUBYOPT":             {"env.rubyopt", CapDynamic, "sets RUBYOPT, which can load code (-r) into ruby", false},
		"GCONV_PATH":          {"env.gconv-path", CapEnvHijack, "sets GCONV_PATH, a directory of modules the C library loads as code", false},
		"PYTHONPATH":          {"env.module-path", CapDynamic, "sets PYTHONPATH, where python looks for modules first (import json can load code from there)", false},
		"PYTHONHOME":          {"env.module-path", CapDynamic, "sets PYTHONHOME, where python loads its standard library from", false},
		"NODE_PATH":           {"env.module-path", CapDynamic, "sets NODE_PATH, where node looks for modules", false},
		"PERL5LIB":            {"env.module-path", CapDynamic, "sets PERL5LIB, where perl looks for modules first", false},
		"PERLLIB":             {"env.module-path", CapDynamic, "sets PERLLIB, where perl looks for modules first", false},
		"RUBYLIB":             {"env.module-path", CapDynamic, "sets RUBYLIB, where ruby looks for libraries first", false},
		"CLASSPATH":           {"env.module-path", CapDynamic, "sets CLASSPATH, where java loads classes from", false},
		"LUA_PATH":            {"env.module-path", CapDynamic, "sets LUA_PATH, where lua looks for modules", false},
		"LUA_CPATH":           {"env.module-path", CapDynamic, "sets LUA_CPATH, where lua looks for native modules", false},
		"LUA_INIT":            {"env.lua-init", CapDynamic, "sets LUA_INIT, code lua runs at start", false},
		"GIT_PROXY_COMMAND":   {"env.git-proxy-command", CapDynamic, "sets GIT_PROXY_COMMAND, a program git runs to connect", false},
		"GIT_SEQUENCE_EDITOR": {"env.git-editor", CapDynamic, "sets GIT_SEQUENCE_EDITOR, a command git rebase runs", true},
		"MANPAGER":            {"env.pager", CapDynamic, "sets MANPAGER, a command man runs", true},
		"SYSTEMD_PAGER":       {"env.pager", CapDynamic, "sets SYSTEMD_PAGER, a command systemctl and journalctl run", true},
		"FCEDIT":              {"env.editor", CapDynamic, "sets FCEDIT, a command fc runs", true},
		"BROWSER":             {"env.browser", CapDynamic, "sets BROWSER, a program xdg-open and others run", false},
		"SUDO_ASKPASS":        {"env.ssh-askpass", CapDynamic, "sets SUDO_ASKPASS, a program sudo runs", false},
		"BASH_LOADABLES_PATH": {"env.module-path", CapDynamic, "sets BASH_LOADABLES_PATH, where enable -f loads shell builtins from", false},
		// Settings that make build and documentation tools run other programs.
		"MAKEFLAGS":    {"env.makeflags", CapDynamic, "sets MAKEFLAGS, which passes variables and options (SHELL=…) to make", false},
		"MANOPT":       {"env.manopt", CapDynamic, "sets MANOPT, options man applies (a pager or a preprocessor it runs)", false},
		"GNUMAKEFLAGS": {"env.makeflags", CapDynamic, "sets GNUMAKEFLAGS, which passes variables and options (SHELL=…, --eval) to make", false},
		"MAKEFILES":    {"env.module-path", CapDynamic, "sets MAKEFILES, makefiles (code) make reads before the project's", false},
		// Libraries and configurations programs load as code.
		"OPENSSL_CONF":      {"env.module-path", CapDynamic, "sets OPENSSL_CONF, a configuration that can load engines and providers (code) into openssl and every program using it", false},
		"OPENSSL_ENGINES":   {"env.module-path", CapDynamic, "sets OPENSSL_ENGINES, where openssl loads engines (code) from", false},
		"OPENSSL_MODULES":   {"env.module-path", CapDynamic, "sets OPENSSL_MODULES, where openssl loads providers (code) from", false},
		"GTK_MODULES":       {"env.module-path", CapDynamic, "sets GTK_MODULES, libraries every GTK program loads", false},
		"GTK3_MODULES":      {"env.module-path", CapDynamic, "sets GTK3_MODULES, libraries every GTK 3 program loads", false},
		"GTK_PATH":          {"env.module-path", CapDynamic, "sets GTK_PATH, where GTK programs load modules from", false},
		"QT_PLUGIN_PATH":    {"env.module-path", CapDynamic, "sets QT_PLUGIN_PATH, where Qt programs load plugins from", false},
		"GIO_EXTRA_MODULES": {"env.module-path", CapDynamic, "sets GIO_EXTRA_MODULES, libraries GLib programs load", false},
		"GST_PLUGIN_PATH":   {"env.module-path", CapDynamic, "sets GST_PLUGIN_PATH, where GStreamer programs load plugins from", false},
		"MAILCAPS":          {"env.config-dir", CapDynamic, "sets MAILCAPS, mailcap files whose entries are commands programs run to open files", false},
		"VIMINIT":           {"env.viminit", CapDynamic, "sets VIMINIT, editor commands vim runs at start (they can run shell commands)", false},
		"EXINIT":            {"env.viminit", CapDynamic, "sets EXINIT, editor commands vi runs at start (they can run shell commands)", false},
		// Clients pointed at another daemon or cluster configuration (which
		// can name a credential command to run).
		"DOCKER_HOST": {"env.docker-host", CapDynamic, "sets DOCKER_HOST, pointing docker at another daemon", false},
		// Another configuration for the programs the line runs: a query
		// client (which gets the network) then obeys it, and configurations
		// name commands to run (kubeconfig's exec, git's credential helper,
		// aws's credential_process, gh's aliases).
		"HOME":                        {"env.config-dir", CapDynamic, "sets HOME, pointing programs at another configuration (which can name commands they run)", false},
		"XDG_CONFIG_HOME":             {"env.config-dir", CapDynamic, "sets XDG_CONFIG_HOME, pointing programs at another configuration (which can name commands they run)", false},
		"GH_CONFIG_DIR":               {"env.config-dir", CapDynamic, "sets GH_CONFIG_DIR, pointing gh at another configuration", false},
		"DOCKER_CONFIG":               {"env.config-dir", CapDynamic, "sets DOCKER_CONFIG, pointing docker at another configuration (credential helpers it runs)", false},
		"AWS_CONFIG_FILE":             {"env.config-dir", CapDynamic, "sets AWS_CONFIG_FILE, pointing aws at another configuration (a credential_process it runs)", false},
		"AWS_SHARED_CREDENTIALS_FILE": {"env.config-dir", CapDynamic, "sets AWS_SHARED_CREDENTIALS_FILE, pointing aws at other credentials", false},
		"CLOUDSDK_CONFIG":             {"env.config-dir", CapDynamic, "sets CLOUDSDK_CONFIG, pointing gcloud at another configuration", false},
		"AZURE_CONFIG_DIR":            {"env.config-dir", CapDynamic, "sets AZURE_CONFIG_DIR, pointing az at another configuration", false},
		"NPM_CONFIG_USERCONFIG":       {"env.config-dir", CapDynamic, "points npm at another user configuration (script-shell, node-options)", false},
		"npm_config_userconfig":       {"env.config-dir", CapDynamic, "points npm at another user configuration (script-shell, node-options)", false},
		"NPM_CONFIG_GLOBALCONFIG":     {"env.config-dir", CapDynamic, "points npm at another global configuration (script-shell, node-options)", false},
		"npm_config_globalconfig":     {"env.config-dir", CapDynamic, "points npm at another global configuration (script-shell, node-options)", false},
		"YARN_RC_FILENAME":            {"env.config-dir", CapDynamic, "sets YARN_RC_FILENAME, the yarn configuration yarn reads (its yarnPath and plugins are code)", false},
		"PIP_CONFIG_FILE":             {"env.config-dir", CapDynamic, "sets PIP_CONFIG_FILE, pointing pip at another configuration (where it installs from and to)", false},
		"WGETRC":                      {"env.config-dir", CapDynamic, "sets WGETRC, a wgetrc whose commands choose where wget writes and what it runs", false},
		"CURL_HOME":                   {"env.config-dir", CapDynamic, "sets CURL_HOME, whose .curlrc holds options curl obeys (where it writes)", false},
		"GNUPGHOME":                   {"env.config-dir", CapDynamic, "sets GNUPGHOME, pointing gpg at another home (its gpg.conf names programs it runs)", false},
		"PSQLRC":                      {"env.config-dir", CapDynamic, "sets PSQLRC, a file psql runs at start (\\! runs shell commands)", false},
		"TCLLIBPATH":                  {"env.module-path", CapDynamic, "sets TCLLIBPATH, where tclsh and expect load packages (code) from", false},
		"NODE_REPL_EXTERNAL_MODULE":   {"env.module-path", CapDynamic, "sets NODE_REPL_EXTERNAL_MODULE, a module node loads in place of its REPL", false},
		"R_PROFILE":                   {"env.module-path", CapDynamic, "sets R_PROFILE, R code run at start", false},
		"R_ENVIRON":                   {"env.module-path", CapDynamic, "sets R_ENVIRON, a file of variables R sets at start (R_PROFILE_USER among them)", false},
		"R_ENVIRON_USER":              {"env.module-path", CapDynamic, "sets R_ENVIRON_USER, a file of variables R sets at start (R_PROFILE_USER among them)", false},
		// Where toolchains and language runtimes load code from: a path
		// outside the workspace is code the line does not show (as
		// PYTHONPATH=/elsewhere is); inside it, the workspace's own.
		"DOTNET_STARTUP_HOOKS":  {"env.module-path", CapDynamic, "sets DOTNET_STARTUP_HOOKS, assemblies dotnet loads into every program", false},
		"CORECLR_PROFILER_PATH": {"env.module-path", CapDynamic, "sets CORECLR_PROFILER_PATH, a library dotnet loads", false},
		"R_PROFILE_USER":        {"env.module-path", CapDynamic, "sets R_PROFILE_USER, R code run at start", false},
		"JULIA_LOAD_PATH":       {"env.module-path", CapDynamic, "sets JULIA_LOAD_PATH, where julia loads modules from", false},
		"GEM_PATH":              {"env.module-path", CapDynamic, "sets GEM_PATH, where ruby loads gems from", false},
		"BUNDLE_GEMFILE":        {"env.module-path", CapDynamic, "sets BUNDLE_GEMFILE, the Gemfile bundler runs", false},
		"CARGO_HOME":            {"env.module-path", CapDynamic, "sets CARGO_HOME, whose config can name programs cargo runs", false},
		"RUSTUP_TOOLCHAIN":      {"env.module-path", CapDynamic, "sets RUSTUP_TOOLCHAIN, the compiler cargo runs (a path is used as it is)", false},
		"GOENV":                 {"env.module-path", CapDynamic, "sets GOENV, a go env file (GOFLAGS=-toolexec there makes go run a program)", false},
		"GOROOT":                {"env.module-path", CapDynamic, "sets GOROOT, the Go toolchain go runs", false},
		"PKG_CONFIG_PATH":       {"env.module-path", CapDynamic, "sets PKG_CONFIG_PATH, where builds take compiler flags from", false},
		"CMAKE_TOOLCHAIN_FILE":  {"env.module-path", CapDynamic, "sets CMAKE_TOOLCHAIN_FILE, a CMake script cmake runs", false},
		"PYTHONBREAKPOINT":      {"env.code-hook", CapDynamic, "sets PYTHONBREAKPOINT, a function python imports and calls at breakpoint()", false},
		"PYTHONUSERBASE":        {"env.module-path", CapDynamic, "sets PYTHONUSERBASE, whose site-packages python loads at start (its .pth files run code)", false},
		"PYTHONPYCACHEPREFIX":   {"env.module-path", CapDynamic, "sets PYTHONPYCACHEPREFIX, where python takes compiled modules from (a planted one runs in place of the source)", false},
		"VIRTUAL_ENV":           {"env.module-path", CapDynamic, "sets VIRTUAL_ENV, the environment whose python uv, poetry and pip run", false},
		"UV_PYTHON":             {"env.module-path", CapDynamic, "sets UV_PYTHON, the python interpreter uv runs (a path is used as it is)", false},
		"JULIA_DEPOT_PATH":      {"env.module-path", CapDynamic, "sets JULIA_DEPOT_PATH, where julia loads packages and its startup.jl from", false},
		"GEM_HOME":              {"env.module-path", CapDynamic, "sets GEM_HOME, where ruby loads gems from", false},
		"RUBYGEMS_GEMDEPS":      {"env.module-path", CapDynamic, "sets RUBYGEMS_GEMDEPS, a Gemfile (ruby code) ruby loads at start", false},
		"DENO_DIR":              {"env.module-path", CapDynamic, "sets DENO_DIR, the cache deno loads remote modules from without fetching them", false},
		"HGRCPATH":              {"env.config-dir", CapDynamic, "sets HGRCPATH, pointing hg at another configuration (its hooks and aliases run commands)", false},
		"NVIM_APPNAME":          {"env.config-dir", CapDynamic, "sets NVIM_APPNAME, pointing nvim at another configuration (code it runs at start)", false},
		"JAVA_HOME":             {"env.module-path", CapDynamic, "sets JAVA_HOME, the JDK whose java build tools run", false},
		"RUSTUP_HOME":           {"env.module-path", CapDynamic, "sets RUSTUP_HOME, where cargo and rustc are taken from", false},
		"DOTNET_ROOT":           {"env.module-path", CapDynamic, "sets DOTNET_ROOT, the runtime dotnet programs load", false},
		"PYENV_ROOT":            {"env.module-path", CapDynamic, "sets PYENV_ROOT, where pyenv's python and its shims come from", false},
		"GOMODCACHE":            {"env.module-path", CapDynamic, "sets GOMODCACHE, the module cache go builds from without checking it again", false},
		"GOPATH":                {"env.module-path", CapDynamic, "sets GOPATH, whose module cache go builds from without checking it again", false},
		"VIMRUNTIME":            {"env.module-path", CapDynamic, "sets VIMRUNTIME, where vim loads its runtime scripts from", false},
		"VIM":                   {"env.module-path", CapDynamic, "sets VIM, where vim looks for its runtime scripts", false},
		"EMACSLOADPATH":         {"env.module-path", CapDynamic, "sets EMACSLOADPATH, where emacs loads lisp code from", false},
		"PHPRC":                 {"env.module-path", CapDynamic, "sets PHPRC, the php.ini php reads (auto_prepend_file runs code)", false},
		"PHP_INI_SCAN_DIR":      {"env.module-path", CapDynamic, "sets PHP_INI_SCAN_DIR, where php reads more ini files (auto_prepend_file runs code)", false},
		"RIPGREP_CONFIG_PATH":   {"env.tool-options", CapDynamic, "sets RIPGREP_CONFIG_PATH, options rg applies (--pre runs a program)", false},
		"BAT_CONFIG_PATH":       {"env.tool-options", CapDynamic, "sets BAT_CONFIG_PATH, options bat applies (--pager runs a command)", false},
		"ZIPOPT":                {"env.tool-options", CapDynamic, "sets ZIPOPT, options zip applies (-TT runs a command)", false},
		"PARALLEL":              {"env.tool-options", CapDynamic, "sets PARALLEL, options parallel applies", false},
		"ERL_AFLAGS":            {"env.tool-options", CapDynamic, "sets ERL_AFLAGS, options every Erlang VM applies (-eval runs code)", false},
		"ERL_ZFLAGS":            {"env.tool-options", CapDynamic, "sets ERL_ZFLAGS, options every Erlang VM applies (-eval runs code)", false},
		"ERL_FLAGS":             {"env.tool-options", CapDynamic, "sets ERL_FLAGS, options every Erlang VM applies (-eval runs code)", false},
		"ELIXIR_ERL_OPTIONS":    {"env.tool-options", CapDynamic, "sets ELIXIR_ERL_OPTIONS, options the Erlang VM under elixir applies (-eval runs code)", false},
		"SCREENRC":              {"env.tool-options", CapDynamic, "sets SCREENRC, a configuration screen reads (its commands can run programs)", false},
		"LESSKEY":               {"env.tool-options", CapDynamic, "sets LESSKEY, a key file less reads (its #env section can set LESSOPEN, a command less runs)", false},
		"LESSKEYIN":             {"env.tool-options", CapDynamic, "sets LESSKEYIN, a key file less reads (its #env section can set LESSOPEN, a command less runs)", false},
		"LESSKEY_SYSTEM":        {"env.tool-options", CapDynamic, "sets LESSKEY_SYSTEM, a key file less reads (its #env section can set LESSOPEN, a command less runs)", false},
		"LESSKEYIN_SYSTEM":      {"env.tool-options", CapDynamic, "sets LESSKEYIN_SYSTEM, a key file less reads (its #env section can set LESSOPEN, a command less runs)", false},
		// Options and startup files that make a program run commands.
		"TAR_OPTIONS": {"env.tool-options", CapDynamic, "sets TAR_OPTIONS, options every tar applies (--to-command, --use-compress-program run programs)", false},
		"ZDOTDIR":     {"env.startup-dir", CapDynamic, "sets ZDOTDIR, where zsh reads its startup files (code it runs)", false},
		"PERL5DB":     {"env.perl5db", CapDynamic, "sets PERL5DB, perl code the debugger loads", false},
		// A proxy named on the line carries the command's traffic (a read-only
		// query's, with its credential); trust in other certificates lets
		// such a proxy read it.
		"HTTPS_PROXY":                  {"env.proxy", CapDynamic, "sets HTTPS_PROXY, sending the command's network traffic through a proxy named on the line", false},
		"https_proxy":                  {"env.proxy", CapDynamic, "sets https_proxy, sending the command's network traffic through a proxy named on the line", false},
		"HTTP_PROXY":                   {"env.proxy", CapDynamic, "sets HTTP_PROXY, sending the command's network traffic through a proxy named on the line", false},
		"http_proxy":                   {"env.proxy", CapDynamic, "sets http_proxy, sending the command's network traffic through a proxy named on the line", false},
		"ALL_PROXY":                    {"env.proxy", CapDynamic, "sets ALL_PROXY, sending the command's network traffic through a proxy named on the line", false},
		"all_proxy":                    {"env.proxy", CapDynamic, "sets all_proxy, sending the command's network traffic through a proxy named on the line", false},
		"SSL_CERT_FILE":                {"env.tls-trust", CapDynamic, "sets SSL_CERT_FILE, changing which certificates the command trusts (a proxy could then read its traffic, credentials included)", false},
		"SSL_CERT_DIR":                 {"env.tls-trust", CapDynamic, "sets SSL_CERT_DIR, changing which certificates the command trusts", false},
		"REQUESTS_CA_BUNDLE":           {"env.tls-trust", CapDynamic, "sets REQUESTS_CA_BUNDLE, changing which certificates python requests trusts", false},
		"CURL_CA_BUNDLE":               {"env.tls-trust", CapDynamic, "sets CURL_CA_BUNDLE, changing which certificates curl trusts", false},
		"NODE_EXTRA_CA_CERTS":          {"env.tls-trust", CapDynamic, "sets NODE_EXTRA_CA_CERTS, adding certificates node trusts", false},
		"NODE_TLS_REJECT_UNAUTHORIZED": {"env.tls-trust", CapDynamic, "sets NODE_TLS_REJECT_UNAUTHORIZED, which can turn off node's certificate checks", false},
		"GIT_SSL_NO_VERIFY":            {"env.tls-trust", CapDynamic, "sets GIT_SSL_NO_VERIFY, turning off git's certificate checks", false},
		"GIT_SSL_CAINFO":               {"env.tls-trust", CapDynamic, "sets GIT_SSL_CAINFO, changing which certificates git trusts", false},
		"GIT_SSL_CAPATH":               {"env.tls-trust", CapDynamic, "sets GIT_SSL_CAPATH, changing which certificates git trusts", false},
		"KUBECONFIG":                   {"env.kubeconfig", CapDynamic, "sets KUBECONFIG, pointing kubectl at another configuration (which can run credential commands)", false},
	}
})

// assign evaluates NAME=VALUE. persist is true when it changes the shell
// (a bare assignment or a declaration), false for a prefix to a command.
func (b *builder) assign(a *parse.Assign, st *state, sp span, persist bool) {
	name := a.Name
	if _, ok := st.refs[name]; ok {
		if name = st.resolveRef(name); name == "" {
			b.add(Effect{Cap: CapDynamic, Rule: "shell.nameref-dynamic", Target: a.Name, Msg: "assigns through " + a.Name + ", a reference to a variable whose name is not static"}, sp)
			return
		}
	}
	var val *string
	taint := stream{}
	if a.Append {
		taint = st.taint[name]
	}
	prevAssoc, hadAssoc := st.assocElems(name)
	// Any assignment changes what the array's elements were known to be.
	delete(st.arrays, name)
	var elems []field
	elemsKnown := a.IsArray && !a.Append && len(a.Index) == 0
	delete(st.assoc, name)
	isAssoc := st.assocs[name]
	elemsKnown = elemsKnown && !isAssoc // declare -A a=(k v): keys and values, not elements
	var valFields []field
	var wordFields [][]field
	old, wasSet := st.vars[name]
	if a.Value != nil {
		fs := b.assignFields(a.Value, st, sp)
		valFields = fs
		for _, f := range fs {
			taint = worse(taint, f.taint)
		}
		if len(fs) == 1 && fs[0].known {
			v := *st.convertCase(name, &fs[0].val)
			switch old := st.vars[name]; {
			case !a.Append:
				val = &v
			case old != nil:
				v = *old + v
				val = &v
			}
			// NAME+=VALUE onto a value guard does not know is unknown,
			// and still reviewed below (PROMPT_COMMAND+=…, LD_PRELOAD+=…).
		}
		if st.isInt(name) {
			// Declared -i: bash evaluates the value (declare -i n; n='a[$(cmd)]').
			if val != nil {
				b.arithCode(*val, st, name+"=", sp)
				if v := *val; v == "" || strings.Trim(v, "0123456789") != "" {
					val = nil // bash stores what it evaluates to (x='' is 0)
				}
			} else if len(fs) == 1 && fs[0].known {
				// n+=TEXT onto a value guard does not know: bash adds
				// TEXT, evaluated, all the same.
				b.arithCode(fs[0].val, st, name+"+=", sp)
			}
			for _, f := range fs {
				b.arithTainted(f, name+"=", sp)
			}
		}
		b.varEffects(indexedName(name, a.Index), val, fs, st, span{a.Pos, a.Value.End})
		if len(a.Index) > 0 {
			// NAME[INDEX]=VALUE: $NAME is element 0, so only NAME[0]
			// sets it; another static index leaves it as it was, and an
			// index that is not static could be 0.
			idx, static := a.Index[0].Value()
			digits := static && idx != "" && strings.Trim(idx, "0123456789") == ""
			switch {
			case len(a.Index) != 1 || !digits:
				val = nil
			case strings.Trim(idx, "0") != "":
				val, taint = old, st.taint[name]
			}
		}
	} else if a.IsArray {
		// NAME=(…): $NAME is the first element; with keys ([i]=v) or
		// appended to a value guard does not know, it is unknown.
		values := a.Array[:len(a.Array)-len(a.Index)]
		var first []field
		for i, w := range values {
			fs := b.fields(w, st, sp)
			wordFields = append(wordFields, fs)
			if i == 0 {
				first = fs
			}
			for _, f := range fs {
				taint = worse(taint, f.taint)
				elemsKnown = elemsKnown && f.known && !f.glob
			}
			elems = append(elems, fs...)
		}
		switch {
		case a.Append && wasSet:
			val = old
		case len(a.Index) == 0 && len(first) > 0 && first[0].known && !first[0].glob:
			v := first[0].val
			val = &v
		case len(a.Index) == 0 && len(values) == 0:
			v := ""
			val = &v
		}
		if sv, ok := sensitiveVars()[name]; ok {
			b.add(Effect{Cap: sv.cap, Rule: sv.rule, Target: name, Msg: sv.msg}, sp)
			if sv.code {
				b.add(Effect{Cap: CapDynamic, Rule: "env.code-dynamic", Target: name, Msg: name + " is set to an array of commands (bash runs each)"}, sp)
			}
		}
		b.arrayTable(a, name, elems, st, sp)
	} else if a.Naked {
		// A name without a value (declare x, local x) is unset, not
		// empty, in a function (a new local) and keeps what it had
		// outside one: unknown here. declare x; rm -rf ${x-~} deletes
		// your home. (export x and readonly x do not come here: decl.)
		val = nil
	} else {
		v := "" // NAME=
		val = &v
	}
	rest := a.Array
	if a.IsArray {
		rest = a.Array[len(a.Array)-len(a.Index):] // the values are done above
	}
	for _, w := range rest {
		b.fields(w, st, sp)
	}
	for _, w := range a.Index {
		// NAME[INDEX]=…: bash evaluates INDEX.
		b.arithWord(w, st, name+"[…]=", sp)
	}
	if persist {
		st.setTainted(name, val, taint)
		if elemsKnown && val != nil && !taint.tainted() {
			if st.arrays == nil {
				st.arrays = map[string]arrayVal{}
			}
			st.arrays[name] = arrayVal{first: val, elems: elems}
		}
		if isAssoc && !taint.tainted() {
			st.setAssoc(a, name, prevAssoc, hadAssoc, valFields, wordFields)
		}
	}
}

// hGetopts: getopts OPTSTRING NAME sets NAME to the option it finds (a
// value guard does not know), as read NAME does.
func hGetopts(b *builder, c *call) stream {
	if len(c.a.ops) > 1 {
		b.builtinSet(c, c.a.ops[1], nil, stream{})
	}
	return stream{}
}

// builtinSet records a builtin's assignment (read, printf -v) of val
// (nil: unknown, from data in): a name that is not static could be any
// variable (PATH, PROMPT_COMMAND), and a variable declared -i evaluates
// the value as arithmetic.
func (b *builder) builtinSet(c *call, name field, val *string, in stream) {
	if !name.known {
		b.add(Effect{Cap: CapDynamic, Rule: "shell.decl-dynamic", Program: c.prog, Target: name.display(), Msg: c.prog + " assigns a variable whose name is not static"}, c.sp)
		return
	}
	if n, _, _ := strings.Cut(name.val, "["); c.st.isInt(n) {
		if val != nil {
			b.arithCode(*val, c.st, c.prog+" "+n, c.sp)
		}
		b.arithTainted(field{raw: "(input)", taint: in}, c.prog+" "+n, c.sp)
	}
	// read PS4, printf -v BASH_ENV, mapfile PROMPT_COMMAND set what
	// NAME=VALUE would.
	from := field{raw: "(input)", known: val != nil, taint: in, pos: name.pos, end: name.end}
	if val != nil {
		from.val = *val
	}
	b.varEffects(name.val, val, []field{from}, c.st, c.sp)
	c.st.setTainted(name.val, val, in)
}

// promptText reviews a prompt string as the shell expands it: variables,
// command substitutions and arithmetic, as in an unquoted heredoc.
func (b *builder) promptText(val string, st *state, at span) {
	if !strings.ContainsAny(val, "$`") {
		return
	}
	const eof = "GUARD_PROMPT_EOF"
	b.text(": <<"+eof+"\n"+val+"\n"+eof+"\n", st.clone(), stream{}, "prompt", at)
}

// add records an effect once, at the anchor when inside nested text.
func (b *builder) add(e Effect, sp span) {
	if b.anchor != nil {
		sp = *b.anchor
	}
	e.Pos, e.End = sp.pos, sp.end
	b.net = b.net || netCap(e.Cap)
	key := string(e.Cap) + "|" + e.Rule + "|" + e.Target + "|" + string(e.Class) + "|" + strconv.Itoa(e.Pos)
	if b.seen[key] {
		return
	}
	b.seen[key] = true
	b.prof.Effects = append(b.prof.Effects, e)
}

func (b *builder) finish() {
	sort.SliceStable(b.prof.Effects, func(i, j int) bool { return b.prof.Effects[i].Pos < b.prof.Effects[j].Pos })
	for p, sum := range b.inputs {
		b.prof.Inputs = append(b.prof.Inputs, Input{Path: p, Sum: sum})
	}
	sort.Slice(b.prof.Inputs, func(i, j int) bool { return b.prof.Inputs[i].Path < b.prof.Inputs[j].Path })
}

// readFile reads a file the review depends on and records it, with the
// SHA-256 of what was read, among the profile's inputs.
//
// It never reads the kernel's files: /dev/fd/N, /proc/self/… and the
// like are guard's own descriptors and process, not the command's
// (/dev//fd/3 is not guard's business to open), and they change from
// one read to the next.
func (b *builder) readFile(p string) ([]byte, error) {
	switch cp := path.Clean(p); {
	case cp == "/dev/null":
		return nil, nil
	case cp == "/dev" || cp == "/proc" || cp == "/sys" || strings.HasPrefix(cp, "/dev/") || strings.HasPrefix(cp, "/proc/") || strings.HasPrefix(cp, "/sys/"):
		return nil, fs.ErrPermission
	}
	data, err := b.ctx.ReadFile(p)
	b.recordInput(p, data, err)
	return data, err
}

func (b *builder) recordInput(p string, data []byte, err error) {
	sum := "absent"
	if err == nil {
		h := sha256.Sum256(data)
		sum = hex.EncodeToString(h[:])
	}
	if b.inputs == nil {
		b.inputs = map[string]string{}
	}
	b.inputs[p] = sum
}

// pathEffect records cap on the path a field names.
func (b *builder) pathEffect(c Cap, rule, prog string, f field, st *state, sp span, verb string) {
	target, class := b.classify(f, st)
	if class == ClassWorkspace && !f.glob && target == path.Clean(b.ctx.Workspace) {
		// The workspace itself, not something in it: deleting it is broad.
		class = ClassWSRoot
	}
	if (c == CapDelete || c == CapWrite && (rule == "fs.move" || rule == "fs.link")) && !f.glob {
		switch class {
		case ClassWorkspace, ClassSensitive, ClassOutside, ClassTemp:
			// A directory that holds protected paths or guard's files:
			// moving, replacing or deleting it does that to them; a
			// tree moved or linked into a workspace command directory
			// may plant a credential shadow there.
			held := b.ctx.HeldClass(target)
			if c == CapWrite {
				held = b.ctx.writeHeldClass(target)
			}
			if held != "" {
				class = held
			}
		}
	}
	if (c == CapDelete || c == CapWrite && rule == "fs.move") && f.glob {
		switch class {
		case ClassWorkspace, ClassSensitive, ClassOutside, ClassTemp:
			// A glob that could name such a directory (.?it for .git).
			if held := b.globHolds(f, st); held != "" {
				class = held
			}
		}
	}
	if c == CapWrite && rule == "fs.move" && class == ClassHome {
		// Moving the home directory itself away removes it from under
		// everything, as deleting it would.
		c = CapDelete
	}
	if c == CapRead && !f.glob && isSensitive(path.Base(target)) && (class == ClassOutside || class == ClassTemp || class == ClassSystem) {
		// Reading a .env or key file may reveal secrets wherever it is
		// (writes and deletes keep the price of where it is).
		class = ClassSensitive
	}
	e := Effect{Cap: c, Rule: rule, Program: prog, Target: target, Class: class}
	e.Msg = fmt.Sprintf("%s %s", verb, describeTarget(target, class))
	b.add(e, sp)
	if c == CapWrite {
		b.markWrite(rule, f, st)
	}
}

// classify resolves a field to a path and its class. Globs class by their
// directory; unknown words are unknown.
func (b *builder) classify(f field, st *state) (string, Class) {
	if b.ctx.Remote {
		return f.display(), ClassRemote
	}
	if f.proc {
		return "a process substitution", ClassNull
	}
	if f.glob || !f.known {
		// Principle 10: what a pattern could name, it names.
		if t, cl, ok := b.worstCase(f, st); ok {
			return t, cl
		}
	}
	if !f.known {
		return f.display(), ClassUnknown
	}
	p := f.val
	if f.glob {
		p = globDir(f.val)
	}
	abs, ok := b.ctx.Resolve(st.cwd, p)
	if !ok {
		// A relative path after cd to a place guard does not know
		// (cd "$X" && cat .ssh/id_rsa) lies under some directory: what it
		// could name there, it names, as $X/.ssh/id_rsa would.
		if t, class, ok := b.worstCase(f, st); ok {
			return t, class
		}
		return f.display(), ClassUnknown
	}
	if abs = st.follow(abs); strings.HasPrefix(abs, anyParts) {
		// Through a link to a place guard does not know: what the rest
		// of the path could name, it names.
		if t, class, ok := b.worstCase(field{val: abs, raw: f.display()}, st); ok {
			return t, class
		}
		return f.display(), ClassUnknown
	}
	class := b.ctx.Classify(abs)
	shown := abs
	if f.glob {
		// The pattern from its first directory with a pattern
		// character on (~/.local/lib/python3*/site-packages/x.pth,
		// not ~/.local/lib/x.pth).
		rest := f.val
		if i := strings.IndexAny(rest, "*?["); i >= 0 {
			rest = rest[strings.LastIndex(rest[:i], "/")+1:]
		}
		shown = anyDirsShown.Replace(path.Join(abs, rest))
		if globDir(f.val) == f.val || strings.HasSuffix(f.val, "/") {
			shown = abs
		}
		// A glob that matches everything in a directory is as broad as
		// the directory.
		if class == ClassWorkspace && abs == path.Clean(b.ctx.Workspace) {
			class = ClassWorkspace
		}
	}
	return shown, class
}

// globDir is the directory part of a glob pattern before the first
// pattern character.
func globDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	d := path.Dir(p[:i] + "x")
	return d
}

func describeTarget(target string, c Class) string {
	switch c {
	case ClassUnknown:
		return fmt.Sprintf("%s, a path guard cannot resolve", target)
	case ClassWorkspace:
		return fmt.Sprintf("%s in the workspace", target)
	case ClassWSRoot:
		return fmt.Sprintf("%s, the whole workspace", target)
	case ClassTemp:
		return fmt.Sprintf("%s in a temporary directory", target)
	case ClassHome:
		return fmt.Sprintf("%s, your whole home directory", target)
	case ClassRoot:
		return "/, the whole file system"
	case ClassSystem:
		return fmt.Sprintf("%s, a system location", target)
	case ClassSecret:
		return fmt.Sprintf("%s, which holds credentials", target)
	case ClassSensitive:
		return fmt.Sprintf("%s, which may hold secrets", target)
	case ClassGuard:
		return fmt.Sprintf("%s, guard's own files", target)
	case ClassPersistence:
		if what := guardProjectFiles[path.Base(target)]; what != "" {
			return fmt.Sprintf("%s, %s", target, what)
		}
		return fmt.Sprintf("%s, which runs code later (startup file, hook or config)", target)
	case ClassTTY:
		return fmt.Sprintf("%s, another terminal", target)
	case ClassDevice:
		return fmt.Sprintf("%s, a device", target)
	case ClassRemote:
		return fmt.Sprintf("%s on the remote machine", target)
	case ClassOutside:
		return fmt.Sprintf("%s outside the workspace", target)
	}
	return target
}

// guardProjectFiles are guard's files in a workspace (workspacePersist),
// by what they are to the user.
var guardProjectFiles = map[string]string{
	".guard.toml":  "guard's policy for this project (it sets how commands here are reviewed)",
	".guardignore": "the list of files guard's scan skips",
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// call profiles a simple command: prefix assignments, then the program.
func (b *builder) call(c *parse.Call, st *state, in stream, via string, sp span) stream {
	c = keywordCall(c, st)
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			b.assign(a, st, sp, true)
		}
		return stream{}
	}
	// VAR=x cmd: the assignment is only in cmd's environment (and that
	// of what cmd runs), and $VAR in cmd's arguments still expands to the
	// old value.
	var argv []field
	for _, w := range c.Args {
		argv = append(argv, b.fields(w, st, sp)...)
	}
	if len(c.Assigns) == 0 {
		return b.shellExec(argv, st, in, via, sp)
	}
	env := st.clone() // assigned for real: this copy is the command's environment
	names := make([]string, 0, len(c.Assigns))
	for _, a := range c.Assigns {
		b.assign(a, env, sp, true)
		names = append(names, a.Name)
	}
	return b.inEnv(st, env, names, func() stream { return b.shellExec(argv, st, in, via, sp) })
}

// shellExec is exec of a simple command the shell itself runs: only
// there does the command word name an alias, a function or a hashed
// path. A program that runs another (env, timeout, xargs, find -exec,
// sudo, nohup) and the builtins command and exec find the program on
// PATH: rm() { :; }; env rm -rf ~ runs rm.
func (b *builder) shellExec(argv []field, st *state, in stream, via string, sp span) stream {
	b.shellWord = true
	return b.exec(argv, st, in, via, sp)
}

// inEnv runs run with the variables names set as env holds them in the
// environment of the program run starts. Every way a line puts a
// variable in one program's environment comes through here (NAME=V cmd,
// env NAME=V cmd), so the program's own lookups (getenv: GOBIN,
// GIT_PAGER, npm_config_script_shell) and what it runs as shell (bash -c,
// a function, eval, a builtin) see the same values and taint; the shell
// has its own back after.
func (b *builder) inEnv(st, env *state, names []string, run func() stream) stream {
	prev := b.env
	b.env = maps.Clone(prev)
	if b.env == nil {
		b.env = map[string]*string{}
	}
	for _, n := range names {
		b.env[n] = env.vars[n]
	}
	defer func() { b.env = prev }()
	defer st.shadow(env, names)()
	exported := st.exported
	st.setExported(names, true) // what the program starts inherits them
	defer func() { st.exported = exported }()
	if env.pathDirs != nil {
		st.pathDirs = env.pathDirs // PATH=DIR cmd: cmd is looked up there (kept after: the worse)
	}
	return run()
}

// shadow gives s the values (and taint) env holds for the names assigned,
// and returns what restores s's own.
func (s *state) shadow(env *state, names []string) func() {
	type saved struct {
		v              *string
		set, glob, bad bool
		t              stream
	}
	keep := map[string]saved{}
	for _, n := range names {
		if _, ok := keep[n]; ok {
			continue
		}
		v, set := s.vars[n]
		t, bad := s.taint[n]
		keep[n] = saved{v: v, set: set, glob: s.globs[n], bad: bad, t: t}
		// Not set: PWD=x cmd does not move the shell.
		s.vars[n] = env.vars[n]
		delete(s.globs, n)
		delete(s.taint, n)
		if t := env.taint[n]; t.tainted() {
			if s.taint == nil {
				s.taint = map[string]stream{}
			}
			s.taint[n] = t
		}
	}
	return func() {
		for n, k := range keep {
			delete(s.vars, n)
			delete(s.taint, n)
			delete(s.globs, n)
			if k.set {
				s.vars[n] = k.v
			}
			if k.glob {
				s.globs[n] = true
			}
			if k.bad {
				s.taint[n] = k.t
			}
		}
	}
}

// getenv is a variable as the running program sees it: set by a prefix
// assignment on its command (or an enclosing one), else by the shell.
func (b *builder) getenv(st *state, name string) (*string, bool) {
	if v, ok := b.env[name]; ok {
		return v, true
	}
	v, ok := st.vars[name]
	return v, ok
}

// maxLoopItems bounds how many values of a for loop are analysed one by
// one; with more, the variable is unknown.
const maxLoopItems = 16

// loop profiles for/select: the body once per item the list expands to,
// so `for d in build ~; do rm -rf $d; done` sees both targets.
func (b *builder) loop(c *parse.Block, st *state, in stream, via string, sp span) stream {
	var items []field
	body := c.Stmts
	if len(body) > 0 {
		if w, ok := body[0].Cmd.(*parse.Words); ok && w.Kind == "for-list" {
			for _, x := range w.Words {
				items = append(items, b.fields(x, st, sp)...)
			}
			body = body[1:]
		}
	}
	usable := len(items) > 0 && len(items) <= maxLoopItems
	all := stream{}
	globbed := false
	for _, it := range items {
		if !it.known {
			usable = false
		}
		globbed = globbed || it.glob
		all = worse(all, it.taint)
	}
	if !usable {
		items = []field{{taint: all}}
	}
	if !usable || globbed {
		// Items guard does not know (a glob's names among them) may be
		// none or many: the loop may leave the shell as it found it,
		// or run again on what a pass left (branches.go).
		before := st.clone()
		defer func() {
			ways := []*state{before}
			if cost := max(sp.end-sp.pos, 1); !sameShell(before, st) && b.forkBytes+cost <= maxForkBytes {
				// As many items as it may have: a second pass, on what
				// the first left (branches.go).
				b.forkBytes += cost
				again := st.clone()
				for _, x := range body {
					b.stmt(x, again, in, via)
				}
				ways = append(ways, again)
			}
			b.branched(nil, st, ways)
		}()
	}
	out := stream{}
	for _, it := range items {
		// The loop assigns its variable as NAME=ITEM would: for
		// GIT_PAGER in 'rm -rf ~' sets a command git runs.
		if usable {
			v := it.val
			b.varEffects(c.Var, &v, []field{it}, st, sp)
		} else {
			b.varEffects(c.Var, nil, []field{it}, st, sp)
		}
		if st.isInt(c.Var) {
			// for n in 'a[$(cmd)]' with n declared -i (or OPTIND) runs cmd.
			if usable {
				b.arithCode(it.val, st, c.Var+"=", sp)
			}
			b.arithTainted(it, c.Var+"=", sp)
		}
		if usable {
			v := it.val
			st.setTainted(c.Var, &v, it.taint)
			if it.glob {
				st.globs[c.Var] = true
			}
		} else {
			st.setTainted(c.Var, nil, it.taint)
		}
		for _, x := range body {
			out = then(out, b.stmt(x, st, in, via))
		}
	}
	return out
}
