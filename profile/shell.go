package profile

import (
	"path"
	"strings"
)

// The shell's own hooks are code (principle 10): trap bodies, hash -p,
// command -v output that is not static, mktemp paths.

// hTrap: trap BODY SIGNAL… sets code the shell runs later; the body is
// reviewed now. trap - SIG, trap ” SIG, trap -p and trap -l set nothing.
func hTrap(b *builder, c *call) stream {
	ops := c.a.ops
	if c.a.has("-p", "-l", "-P") || len(ops) < 2 {
		return stream{kind: streamText}
	}
	body := ops[0]
	if !body.known {
		b.add(Effect{Cap: CapDynamic, Rule: "shell.trap", Program: "trap", Target: body.display(), Msg: "sets a trap whose code is not static: code the shell runs later on a signal or exit"}, c.sp)
		return stream{}
	}
	if body.val == "-" || body.val == "" {
		return stream{}
	}
	b.add(Effect{Cap: CapExec, Rule: "shell.trap-body", Program: "trap", Target: shorten(body.val), Msg: "sets a trap: code the shell runs later on a signal or exit"}, c.sp)
	alt := c.st.clone()
	b.text(body.val, alt, stream{}, "trap", span{body.pos, body.end})
	c.st.afterTrap(alt)
	return stream{}
}

// hHash: hash -p PATH NAME makes NAME run PATH for the rest of the line.
func hHash(b *builder, c *call) stream {
	ps := c.a.values("-p")
	if len(ps) == 0 {
		return stream{kind: streamText}
	}
	if c.st.hashed == nil {
		c.st.hashed = map[string]string{}
	}
	p := ps[0]
	for _, n := range c.a.ops {
		if !n.known {
			b.add(Effect{Cap: CapDynamic, Rule: "shell.hash", Program: "hash", Target: n.display(), Msg: "points a command name that is not static at another program (hash -p)"}, c.sp)
			continue
		}
		target := ""
		if p.known {
			target = p.val
		}
		c.st.hashed[n.val] = target
		b.add(Effect{Cap: CapEnvHijack, Rule: "shell.hash", Program: "hash", Target: n.val, Msg: "makes the command " + n.val + " run " + p.display() + " (hash -p)"}, c.sp)
	}
	return stream{}
}

// hCommand: command CMD runs CMD skipping functions; command -v/-V
// prints where a command is, which guard does not know (so
// `$(command -v rm)` is a name that is not static).
func hCommand(b *builder, c *call) stream {
	if c.a.has("-v", "-V") {
		return stream{kind: streamUnknown}
	}
	return wrap(0)(b, c)
}

// hMktemp: mktemp prints a new path in the temp dir (or, for a template
// without -t/-p/--tmpdir, in the current directory). The name is random,
// so guard uses the template; what matters is where it is.
func hMktemp(b *builder, c *call) stream {
	tmpl := "tmp.XXXXXXXXXX"
	if len(c.a.ops) > 0 {
		if !c.a.ops[0].known {
			return stream{kind: streamUnknown}
		}
		tmpl = c.a.ops[0].val
	}
	dir := "/tmp"
	if v := c.st.vars["TMPDIR"]; v != nil && *v != "" {
		dir = *v
	}
	if ds := c.a.values("-p", "--tmpdir"); len(ds) > 0 {
		if !ds[0].known {
			return stream{kind: streamUnknown}
		}
		if ds[0].val != "" {
			dir = ds[0].val
		}
	} else if len(c.a.ops) > 0 && !c.a.has("-t") {
		// A template without -t/-p/--tmpdir is relative to the cwd.
		if c.st.cwd == "" && !strings.HasPrefix(tmpl, "/") {
			return stream{kind: streamUnknown}
		}
		dir = c.st.cwd
	}
	p := tmpl
	if !strings.HasPrefix(tmpl, "/") {
		p = path.Join(dir, tmpl)
	}
	if c.a.has("-u", "--dry-run") {
		return stream{kind: streamText, text: p + "\n"}
	}
	kind := "creates"
	if c.a.has("-d", "--directory") {
		kind = "creates the directory"
	}
	b.pathEffect(CapWrite, "fs.create", "mktemp", staticField(p, c.sp), c.st, c.sp, kind)
	return stream{kind: streamText, text: p + "\n"}
}
