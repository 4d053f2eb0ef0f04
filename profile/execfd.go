package profile

import (
	"maps"
	"path"
	"strings"

	"github.com/guard-sh/guard/parse"
)

// exec with only redirections changes the shell's own file descriptors
// for the rest of the line. When one of them goes to a >(…) body (exec >
// >(sh), exec 2> >(python3), exec 3> >(bash)), every later command that
// writes to it feeds that body: echo 'rm -rf ~' after exec > >(sh) runs
// rm -rf ~. Such a body is reviewed once, at the end of the line, with
// everything the line wrote to its descriptor (fdProc), as { …; } >
// >(sh) would be.
//
// Which descriptor a command's output reaches is followed through the
// state: fds maps a descriptor to the body it feeds. A pipe, a command
// substitution or a redirection to a file takes a command's standard
// output away from it; >&N gives it to N's body; a descriptor guard
// cannot read (>&$fd) may be any of them.

// fdProc is a >(…) body that an exec made a descriptor of the shell.
type fdProc struct {
	proc outProc
	// data is what the line wrote to it; parts counts the writes, so a
	// command whose inner commands wrote (bash -c, a function) is not
	// counted twice.
	data  stream
	parts int
	// any is a descriptor guard cannot follow (exec 3>&$fd): it may
	// feed every body.
	any bool
}

// feed appends a command's output to the body, or to every body for a
// descriptor that may be any of them.
func (b *builder) feed(p *fdProc, out stream) {
	p.parts++
	if !p.any {
		p.data = then(p.data, out)
		return
	}
	for _, q := range b.fdProcs {
		q.data = then(q.data, out)
	}
}

// execFds handles a bare exec's redirections that make a descriptor
// feed a >(…) body, or stop feeding one. It is called with the >(…)
// bodies each redirection registered (the outProcs past marks[i]) and
// removes the ones it keeps for the end of the line.
func (b *builder) execFds(s *parse.Stmt, st *state, marks []int) {
	c, ok := s.Cmd.(*parse.Call)
	if !ok || !bareExec(c.Args) {
		return
	}
	taken := map[int]bool{}
	for i, r := range s.Redirs {
		fds := outFds(r)
		if fds == nil {
			continue
		}
		end := len(b.outProcs)
		if i+1 < len(marks) {
			end = marks[i+1]
		}
		var p *fdProc
		switch {
		case end-marks[i] == 1 && isProcTarget(r.Target):
			p = &fdProc{proc: b.outProcs[marks[i]]}
			p.proc.st = p.proc.st.clone() // the state at the exec
			taken[marks[i]] = true
			if fds[0] != "1" {
				// What other descriptors carry (errors, xtrace) is not
				// modelled: unknown, besides what the line sends there.
				p.data = stream{kind: streamUnknown}
			}
			b.fdProcs = append(b.fdProcs, p)
		case r.Op == ">&" && r.Target != nil:
			v, ok := r.Target.Value()
			switch {
			case !ok:
				p = &fdProc{any: true} // exec 3>&${COPROC[1]}
			case isDigits(v):
				p = st.fds[v]
			}
		case r.Target != nil:
			// exec 4>/dev/stdout: descriptor 4 is descriptor 1.
			if v, ok := r.Target.Value(); ok && fdPathNum(v) != "" {
				p = st.fds[fdPathNum(v)]
			}
		}
		st.fds = maps.Clone(st.fds)
		if st.fds == nil {
			st.fds = map[string]*fdProc{}
		}
		for _, fd := range fds {
			if p == nil {
				delete(st.fds, fd)
			} else {
				st.fds[fd] = p
			}
		}
	}
	if len(taken) == 0 {
		return
	}
	rest := b.outProcs[:0:0]
	for i, p := range b.outProcs {
		if !taken[i] {
			rest = append(rest, p)
		}
	}
	b.outProcs = rest
}

// outFds are the descriptors an output redirection sets: 1 by default,
// both 1 and 2 for &> and &>>, {NAME} for a descriptor bash picks and
// stores in NAME (a target >&$NAME guard cannot read reaches it, as any
// other); nil for input redirections.
func outFds(r *parse.Redirect) []string {
	switch r.Op {
	case ">", ">>", ">|", ">&", "<>":
	case "&>", "&>>":
		return []string{"1", "2"}
	default:
		return nil
	}
	fd := r.Fd
	if fd == "" {
		fd = "1"
	}
	if !isDigits(fd) && !strings.HasPrefix(fd, "{") {
		return nil
	}
	return []string{fd}
}

// fdPathNum is the descriptor a path names (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N): writing it writes that descriptor. ""
// for any other path.
//
// The path is taken as the kernel takes it: /dev//fd/3, /dev/fd/./03
// and /proc/self/../self/fd/3 are descriptor 3 too.
func fdPathNum(p string) string {
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	}
	switch p {
	case "/dev/stdout":
		return "1"
	case "/dev/stderr":
		return "2"
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok && isDigits(n) {
			if t := strings.TrimLeft(n, "0"); t != "" {
				return t
			}
			return "0"
		}
	}
	return ""
}

// targetValue is a redirection target's static value.
func targetValue(w *parse.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	return w.Value()
}

// isProcTarget reports whether a redirection's target is a single >(…).
func isProcTarget(w *parse.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	return w.Parts[0].Kind == parse.ProcSubst && w.Parts[0].Out
}

// stdoutDest is where a statement's standard output goes after its
// redirections, given the shell's descriptors: nil for a file, a pipe
// closed or a descriptor that feeds no body; all is set when the
// target is a descriptor guard cannot read.
func stdoutDest(s *parse.Stmt, fds map[string]*fdProc) (dest *fdProc, all bool) {
	dest = fds["1"]
	for _, r := range s.Redirs {
		fd := r.Fd
		if fd == "" {
			fd = "1"
		}
		switch r.Op {
		case "&>", "&>>":
			dest, all = nil, false
		case ">", ">>", ">|", "<>":
			if fd != "1" {
				continue
			}
			// > /dev/stdout, /dev/fd/N, /proc/self/fd/N: the descriptor
			// itself, as >&N.
			switch v, ok := targetValue(r.Target); {
			case !ok:
				dest, all = nil, true // a path guard cannot read may be one
			case fdPathNum(v) != "":
				dest, all = fds[fdPathNum(v)], false
			default:
				dest, all = nil, false
			}
		case ">&":
			if fd != "1" || r.Target == nil {
				continue
			}
			v, ok := r.Target.Value()
			switch {
			case !ok:
				dest, all = nil, true
			case isDigits(v):
				dest, all = fds[v], false
			case v == "-":
				dest, all = nil, false
			default:
				dest, all = nil, false // >&FILE writes FILE
			}
		}
	}
	return dest, all
}

// withStdout sets the statement's standard output in st for the time
// of its command and returns the function that puts the shell's back.
func withStdout(st *state, dest *fdProc) func() {
	if st.fds["1"] == dest {
		return func() {}
	}
	saved := st.fds
	st.fds = maps.Clone(st.fds)
	if st.fds == nil {
		st.fds = map[string]*fdProc{}
	}
	if dest == nil {
		delete(st.fds, "1")
	} else {
		st.fds["1"] = dest
	}
	return func() { st.fds = saved }
}

// withoutStdout is fds with standard output taken by a pipe or a
// capture.
func withoutStdout(fds map[string]*fdProc) map[string]*fdProc {
	if fds["1"] == nil {
		return fds
	}
	fds = maps.Clone(fds)
	delete(fds, "1")
	return fds
}

// isBareExec reports whether a statement is exec with only redirections.
func isBareExec(s *parse.Stmt) bool {
	c, ok := s.Cmd.(*parse.Call)
	return ok && len(c.Args) > 0 && bareExec(c.Args)
}

// isLeaf reports whether a statement is a simple command, whose output
// is its own (a group's is its commands').
func isLeaf(s *parse.Stmt) bool {
	switch s.Cmd.(type) {
	case *parse.Call, *parse.Decl:
		return true
	}
	return false
}

// flushFds reviews every body an exec fed, with all it was given.
func (b *builder) flushFds() {
	for len(b.fdProcs) > 0 {
		p := b.fdProcs[0]
		b.fdProcs = b.fdProcs[1:]
		in := p.data
		if in.kind == streamNone {
			// Nothing the line shows wrote to it: still a shell fed
			// from the line's descriptor.
			in = stream{kind: streamUnknown}
		}
		b.substituteIn(p.proc.script, p.proc.st, in, ">(…)", p.proc.sp)
	}
}
