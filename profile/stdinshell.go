package profile

import (
	"fmt"

	"github.com/guard-sh/guard/parse"
)

// A shell that reads its commands from its stdin (TEXT | bash, sh <<<
// TEXT, bash -s) reads them one at a time from file descriptor 0. exec
// with only redirections can give it another stdin: exec < FILE, exec
// <<< TEXT, exec <&3. The shell then reads the rest of its commands from
// there, so that is code it runs (printf 'exec < x.sh\n' | bash runs
// x.sh).

// shellStdin profiles the text a shell reads from its stdin as its
// commands, in a state that knows it (see execStdin).
func (b *builder) shellStdin(c *call, via string) stream {
	if c.in.kind != streamText {
		return b.stdinCode(c, via)
	}
	return b.newShell(c.prog, c.st, c.in.text, func(st *state) stream {
		st.stdinShell = true
		return b.text(c.in.text, st, stream{}, via, c.sp)
	})
}

// execStdin reviews what a shell reading its commands from stdin reads
// next, after exec gives it a new stdin; in is the stdin the statement's
// redirections made.
func (b *builder) execStdin(s *parse.Stmt, st *state, in stream, sp span) {
	if !st.stdinShell {
		return
	}
	c, ok := s.Cmd.(*parse.Call)
	if !ok || !bareExec(c.Args) {
		return
	}
	var last *parse.Redirect
	for _, r := range s.Redirs {
		switch r.Op {
		case "<", "<<", "<<-", "<<<", "<&", "<>":
			if r.Fd == "" || r.Fd == "0" {
				last = r
			}
		}
	}
	if last == nil {
		return
	}
	if v, ok := last.Target.Value(); ok && last.Op == "<" && v == "/dev/null" {
		return // nothing more to read: the shell stops
	}
	switch last.Op {
	case "<&":
		if v, ok := last.Target.Value(); ok && v == "-" {
			return // stdin closed: the shell reads no more
		}
		in = stream{kind: streamUnknown}
	case "<>":
		in = b.fileStream(b.fields(last.Target, st, sp), st)
	}
	via := "the commands the shell reads after exec gives it a new stdin"
	switch in.kind {
	case streamText:
		b.text(in.text, st, stream{}, via, sp)
	case streamNetwork, streamDecoded:
		b.add(Effect{Cap: CapNetCode, Rule: "exec.pipe-to-shell", Program: "exec", Msg: "makes the shell read the rest of its commands from data from the network or from decoding, which nobody has reviewed"}, sp)
	default:
		b.add(Effect{Cap: CapDynamic, Rule: "exec.stdin-code", Program: "exec", Msg: fmt.Sprintf("makes the shell read the rest of its commands from %s, which guard cannot see", redirDisplay(last))}, sp)
	}
}

// bareExec: exec with no command, also as command exec or builtin exec.
func bareExec(args []*parse.Word) bool {
	var words []string
	for _, w := range args {
		v, ok := w.Value()
		if !ok {
			return false
		}
		words = append(words, v)
	}
	switch len(words) {
	case 1:
		return words[0] == "exec"
	case 2:
		return (words[0] == "command" || words[0] == "builtin") && words[1] == "exec"
	}
	return false
}

// redirDisplay is a redirection's target as the line spells it.
func redirDisplay(r *parse.Redirect) string {
	if r.Target != nil {
		if v, ok := r.Target.Value(); ok {
			return r.Op + v
		}
	}
	return "a new stdin"
}
