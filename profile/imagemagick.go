package profile

import "strings"

// ImageMagick reads a file name for more than a file: |COMMAND is a pipe
// it opens through the shell (convert '|sh x' out.png runs sh), a coder
// prefix says how to read or write it — text:FILE and label:@FILE, or an
// @FILE list, read any file into the image; ephemeral:FILE deletes FILE
// once read; msl:FILE runs an ImageMagick script, which can read and
// write any file — and -write FILE writes one more output.

// imageMagick is the entry of an ImageMagick tool; output says its last
// operand is the file it writes.
func imageMagick(output bool) *spec {
	s := &spec{val: "-write -script -size -density -resize -quality -format -define -font -pointsize -geometry -gravity -fill -stroke -depth -colorspace -type -compose -rotate -crop -extent -background -annotate -draw", fn: hImageMagick}
	if output {
		s.rows = []row{{"fs.output", CapWrite, "", "last", "writes"}}
	}
	return s
}

// imCoders are the coder prefixes (any case: ImageMagick takes TEXT: as
// text:) that read, delete or run the file they name, with the effect
// each has on it.
var imCoders = [...]struct {
	prefix string
	cap    Cap
	rule   string
	what   string
}{
	{"text:", CapRead, "fs.read", "reads"},
	{"label:@", CapRead, "fs.read", "reads"},
	{"caption:@", CapRead, "fs.read", "reads"},
	{"@", CapRead, "fs.read", "reads the file list in"},
	{"msl:", CapDynamic, "exec.dynamic-code", "runs the ImageMagick script"},
	{"ephemeral:", CapDelete, "fs.delete", "deletes"},
}

func hImageMagick(b *builder, c *call) stream {
	for _, f := range c.a.values("-write") {
		b.imageName(f, c)
		if f.known && !strings.HasPrefix(f.val, "|") {
			b.pathEffect(CapWrite, "fs.output", c.prog, f, c.st, c.sp, "writes")
		}
	}
	for _, f := range c.a.values("-script") {
		g := f
		g.val = "msl:" + f.val // a script, as an msl: name is
		b.imageName(g, c)
	}
	for _, f := range c.a.ops {
		b.imageName(f, c)
	}
	return stream{}
}

// imageName prices what a file name given to ImageMagick does besides
// naming a file. A name guard cannot see may be any of those (a |pipe
// runs a shell command): code guard cannot see.
func (b *builder) imageName(f field, c *call) {
	if !f.known {
		b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Msg: "gives ImageMagick a file name guard cannot see: a |COMMAND name runs that command, a coder such as msl: runs a script"}, span{f.pos, f.end})
		return
	}
	if cmd, ok := strings.CutPrefix(f.val, "|"); ok {
		// A pipe: ImageMagick runs the rest through the shell.
		b.text(cmd, c.st.clone(), stream{}, c.prog+" |pipe", span{f.pos, f.end})
		return
	}
	for _, ic := range imCoders {
		if len(f.val) <= len(ic.prefix) || !strings.EqualFold(f.val[:len(ic.prefix)], ic.prefix) {
			continue
		}
		g := f
		g.val = f.val[len(ic.prefix):]
		if ic.cap == CapDynamic {
			b.add(Effect{Cap: CapDynamic, Rule: ic.rule, Program: c.prog, Target: g.val, Msg: ic.what + " " + g.val + ", which can read and write any file"}, c.sp)
			continue
		}
		b.pathEffect(ic.cap, ic.rule, c.prog, g, c.st, c.sp, ic.what)
	}
}
