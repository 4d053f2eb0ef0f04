package profile

import (
	"maps"

	"github.com/guard-sh/guard/parse"
)

// Input descriptors other than stdin. N<<<TEXT, N<<EOF, N<FILE and
// N< <(cmd) give descriptor N what they hold, for the command they are
// on, or, on a bare exec, for the rest of the line; /dev/fd/N and
// /proc/self/fd/N read it. A script run or sourced from such a path
// (. /dev/fd/3 3<<<'rm -rf ~', exec 3<<<…; bash /dev/fd/3) is that text,
// and one whose descriptor the line does not show is code guard cannot
// see. guard never reads a descriptor path on its own machine: it would
// read guard's own descriptors, not the command's. Such a redirection
// no longer stands for the command's stdin either.

// inFdRedirect handles a redirection of an input descriptor other than
// 0, given what it reads (data): it records it and reports true. <&N and
// M<&N copy a descriptor the line filled.
func (s *state) inFdRedirect(r *parse.Redirect, data stream) (stdin stream, handled bool) {
	fd := r.Fd
	switch r.Op {
	case "<", "<<", "<<-", "<<<":
		if fd == "" || fd == "0" {
			return stream{}, false
		}
		s.setInFd(fd, data)
		return stream{}, true
	case "<&":
		n, ok := targetValue(r.Target)
		if !ok || !isDigits(n) || n == "0" {
			return stream{}, false
		}
		from, have := s.inFds[n]
		if !have {
			from = stream{kind: streamUnknown}
		}
		if fd == "" || fd == "0" {
			return from, true
		}
		s.setInFd(fd, from)
		return stream{}, true
	}
	return stream{}, false
}

func (s *state) setInFd(fd string, data stream) {
	m := maps.Clone(s.inFds)
	if m == nil {
		m = map[string]stream{}
	}
	if data.kind == streamNone {
		data = stream{kind: streamText} // an empty here-document
	}
	m[fd] = data
	s.inFds = m
}

// inFdPath is the input descriptor a path names: "0" for /dev/stdin,
// N for /dev/fd/N, /proc/self/fd/N and /proc/thread-self/fd/N.
func inFdPath(p string) (string, bool) {
	if p == "/dev/stdin" {
		return "0", true
	}
	if n := fdPathNum(p); isDigits(n) {
		return n, true
	}
	return "", false
}

// fdRead is what reading descriptor n gives (unknown when the line does
// not show it); stdin is the command's input.
func (s *state) fdRead(n string, stdin stream) stream {
	if n == "0" {
		return stdin
	}
	if d, ok := s.inFds[n]; ok {
		return d
	}
	return stream{kind: streamUnknown}
}

// fdCode reviews code a shell or source reads from descriptor n: in
// this shell when sourced.
func (b *builder) fdCode(n string, c *call, via string, source bool) stream {
	inner := c.st
	if !source {
		inner = c.st.clone()
	}
	if n == "0" {
		return b.codeIn(c, c.in, inner, via, "piped into "+c.prog, "its input")
	}
	return b.codeIn(c, c.st.fdRead(n, c.in), inner, via, "read from descriptor "+n, "descriptor "+n)
}
