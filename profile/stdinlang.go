package profile

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Programs that read commands from their input in a language of their
// own, with a shell escape in it: ftp's, sftp's and smbclient's !CMD,
// dc's !CMD, a debugger's shell CMD, an editor's :!CMD. A command piped
// or redirected into one of them runs on this machine, so it is reviewed
// as the command line it is (principle 2), as ed's ! already was.
// Commands guard cannot see there are code it does not review (B); from
// the network or decoding they are C, as text piped into a shell is.

// stdinLang is what guard knows about one such language.
type stdinLang struct {
	// command reviews one line of the language.
	command func(b *builder, c *call, line field)
	// reads reports whether the program reads its commands from its
	// input (dc with no program given, an editor not reading a buffer).
	reads func(a args) bool
	// opts are options whose values are commands (lftp -c, smbclient
	// -c, dc -e), files are options whose values name files of
	// commands (lftp -f, dc -f); opsAreFiles: so are the operands (dc).
	opts, files []string
	opsAreFiles bool
	// sep splits a line into commands besides newlines (smbclient's ;).
	sep string
	// when, if set, says whether the escape is on at all (groff -U).
	when func(a args) bool
}

var (
	bangLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*!(.*)$`) })
	// dc's ! runs the rest of the line, which in a macro ([…]) ends at
	// the bracket; !<, !> and != are comparisons.
	dcBang = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!([^<>=\]\n][^\]\n]*)`) })
	// roff's requests that run a shell command: .sy CMD, .pso CMD (any
	// control character, blanks after it).
	roffShell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[.'][ \t]*(?:sy|pso)[ \t]+(.+)$`) })
)

// stdinLangs is built on first use (a package variable set from it would
// be an initialisation cycle: the table builds through these handlers).
var (
	stdinLangsOnce sync.Once
	stdinLangsMap  map[string]stdinLang
)

func stdinLangs() map[string]stdinLang {
	stdinLangsOnce.Do(func() { stdinLangsMap = buildStdinLangs() })
	return stdinLangsMap
}

func buildStdinLangs() map[string]stdinLang {
	bang := func(b *builder, c *call, line field) {
		if m := bangLine().FindStringSubmatch(line.val); m != nil {
			b.escapeCommand(c, m[1], line)
		}
	}
	always := func(args) bool { return true }
	debugger := stdinLang{command: func(b *builder, c *call, line field) { b.debuggerCommand(line, c) }, reads: always}
	// An editor with input that is not a buffer (vim -) reads its
	// keys or, in Ex mode, its commands from it.
	editor := stdinLang{command: func(b *builder, c *call, line field) { b.vimCommand(line, c) }, reads: func(a args) bool {
		for _, f := range a.ops {
			if f.known && f.val == "-" {
				return false
			}
		}
		return true
	}}
	// File-transfer clients: !CMD, and put/get/mirror/lcd (ftpcmds.go).
	transfer := func(b *builder, c *call, line field) {
		bang(b, c, line)
		b.transferCommand(c, line)
	}
	// roff in unsafe mode (-U): .sy CMD and .pso CMD run CMD through the
	// shell; its files are read as its input is.
	roff := stdinLang{command: func(b *builder, c *call, line field) {
		if m := roffShell().FindStringSubmatch(line.val); m != nil {
			b.escapeCommand(c, m[1], line)
		}
	}, reads: func(a args) bool { return len(a.ops) == 0 }, opsAreFiles: true, when: func(a args) bool { return a.has("-U") }}
	return map[string]stdinLang{
		"groff": roff, "troff": roff, "nroff": roff,
		"ftp":       {command: transfer, reads: always},
		"sftp":      {command: transfer, reads: always, files: []string{"-b"}},
		"lftp":      {command: transfer, reads: func(a args) bool { return !a.has("-c") }, opts: []string{"-c", "-e"}, files: []string{"-f"}, sep: ";"},
		"smbclient": {command: transfer, reads: func(a args) bool { return !a.has("-c", "--command") }, opts: []string{"-c", "--command"}, sep: ";"},
		"dc": {command: func(b *builder, c *call, line field) {
			for _, m := range dcBang().FindAllStringSubmatch(line.val, -1) {
				b.escapeCommand(c, m[1], line)
			}
		}, reads: func(a args) bool { return !a.has("-e", "--expression", "-f", "--file") && len(a.ops) == 0 },
			opts: []string{"-e", "--expression"}, files: []string{"-f", "--file"}, opsAreFiles: true},
		"gdb": debugger, "lldb": debugger,
		"vim": editor, "nvim": editor, "vi": editor, "ex": editor, "view": editor, "gvim": editor, "rvim": editor, "vimdiff": editor,
	}
}

// escapeCommand reviews the command line a language's shell escape runs.
func (b *builder) escapeCommand(c *call, cmd string, at field) {
	b.text(cmd, c.st.clone(), stream{}, c.prog+" !", span{at.pos, at.end})
}

// hStdinLang reviews the commands a program of stdinLangs reads: from its
// input, from options that hold commands, and from files of commands.
func hStdinLang(b *builder, c *call) stream {
	l, ok := stdinLangs()[c.prog]
	if !ok || l.when != nil && !l.when(c.a) {
		return stream{}
	}
	lines := func(text string, at field) {
		for _, s := range strings.Split(text, "\n") {
			parts := []string{s}
			if l.sep != "" {
				parts = strings.Split(s, l.sep)
			}
			for _, p := range parts {
				if strings.TrimSpace(p) != "" {
					f := at
					f.val, f.known = p, true
					l.command(b, c, f)
				}
			}
		}
	}
	for _, f := range c.a.values(l.opts...) {
		if f.known {
			lines(f.val, f)
		} else {
			b.dynamicCode(f, c, c.prog+" commands")
		}
	}
	files := c.a.values(l.files...)
	if l.opsAreFiles {
		files = append(files, c.a.ops...)
	}
	for _, f := range files {
		if f.known && f.val == "-" {
			continue // its input, read below
		}
		if s := b.fileStream([]field{f}, c.st); s.kind == streamText {
			lines(s.text, f)
		} else {
			b.unseenCommands(c, s, fmt.Sprintf("runs %s commands from %s, which guard cannot read (they can run shell commands)", c.prog, f.display()))
		}
	}
	if l.reads(c.a) {
		switch c.in.kind {
		case streamNone:
		case streamText:
			lines(c.in.text, staticField("", c.sp))
		default:
			b.unseenCommands(c, c.in, fmt.Sprintf("runs %s commands that it reads from its input, which guard cannot see (they can run shell commands)", c.prog))
			if c.in.near != "" {
				lines(c.in.near, staticField("", c.sp))
			}
		}
	}
	return stream{}
}

// unseenCommands prices commands guard cannot read: code it does not
// review, or code from the network or decoding when in is tainted.
func (b *builder) unseenCommands(c *call, in stream, msg string) {
	if in.tainted() {
		b.add(Effect{Cap: CapNetCode, Rule: "exec.pipe-to-shell", Program: c.prog, Msg: fmt.Sprintf("runs %s commands from the network or from decoding (they can run shell commands)", c.prog)}, c.sp)
		return
	}
	b.add(Effect{Cap: CapDynamic, Rule: "exec.stdin-code", Program: c.prog, Msg: msg}, c.sp)
}

// extendStdinLangs hands the programs of stdinLangs that the table has to
// hStdinLang, after their own handlers.
func extendStdinLangs(t map[string]*spec) {
	for name := range stdinLangs() {
		if s := t[name]; s != nil {
			s.fn = chain(s.fn, hStdinLang)
		}
	}
}
