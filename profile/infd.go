package profile

import (
	"maps"
	"path"
	"strings"

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
//
// Any other opening of descriptor N makes what /dev/fd/N reads unknown:
// on Linux opening /dev/fd/N opens anew the file N refers to, so
// exec 3<>x or exec 3>x; . /dev/fd/3 runs x. N>&M copies M as N<&M
// does (bash dup2s both), N<&M- moves it, and N<&0 copies the stdin
// in.
func (s *state) inFdRedirect(r *parse.Redirect, data, in stream) (stdin stream, handled bool) {
	fd := r.Fd
	switch r.Op {
	case "<", "<<", "<<-", "<<<":
		if fd == "" || fd == "0" {
			return stream{}, false
		}
		s.setInFd(fd, data)
		return stream{}, true
	case "<&", ">&":
		n, ok := targetValue(r.Target)
		n = strings.TrimSuffix(n, "-")
		if !ok || !isDigits(n) || (r.Op == ">&" && (fd == "" || fd == "1" || fd == "2")) {
			break
		}
		from, have := s.inFds[n]
		switch {
		case n == "0" && fd != "" && fd != "0":
			from = in
			if from.kind == streamNone {
				from = stream{kind: streamUnknown}
			}
		case n == "0":
			return stream{}, false
		case !have:
			from = stream{kind: streamUnknown}
		}
		if fd == "" || fd == "0" {
			return from, true
		}
		s.setInFd(fd, from)
		return stream{}, true
	}
	if isDigits(fd) && fd != "0" {
		s.setInFd(fd, stream{kind: streamUnknown})
	}
	return stream{}, false
}

// restoreFds is the descriptors after a command that is not a bare
// exec: those its own redirections name are what they were before
// (saved), as bash restores them; the others are what its body left
// (cur): { exec 3<<<'rm -rf ~'; }; . /dev/fd/3 reads rm.
func restoreFds(cur, saved map[string]stream, redirs []*parse.Redirect) map[string]stream {
	var m map[string]stream
	for _, r := range redirs {
		fd := r.Fd
		if fd == "" {
			fd = "0"
			if len(r.Op) == 0 || r.Op[0] != '<' {
				continue // an output descriptor
			}
		}
		d, was := saved[fd]
		if now, ok := cur[fd]; ok == was && now == d {
			continue
		}
		if m == nil {
			m = cloneMap(cur)
		}
		if was {
			m[fd] = d
		} else {
			delete(m, fd)
		}
	}
	if m == nil {
		return cur
	}
	return m
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
	if strings.HasPrefix(p, "/") && path.Clean(p) == "/dev/stdin" {
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
