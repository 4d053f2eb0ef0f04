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
	s := &spec{val: "-write -size -density -resize -quality -format -define -font -pointsize -geometry -gravity -fill -stroke -depth -colorspace -type -compose -rotate -crop -extent -background -annotate -draw", fn: hImageMagick}
	if output {
		s.rows = []row{{"fs.output", CapWrite, "", "last", "writes"}}
	}
	return s
}

// imCoders are the coder prefixes that read the file they name as text
// or a list of files, by what they do with it.
var imCoders = [...]struct{ prefix, what string }{
	{"text:", "reads"}, {"label:@", "reads"}, {"caption:@", "reads"}, {"@", "reads the file list in"},
	{"msl:", "runs the ImageMagick script"}, {"ephemeral:", "deletes"},
}

func hImageMagick(b *builder, c *call) stream {
	for _, f := range c.a.values("-write") {
		b.imageName(f, c)
		if f.known && !strings.HasPrefix(f.val, "|") {
			b.pathEffect(CapWrite, "fs.output", c.prog, f, c.st, c.sp, "writes")
		}
	}
	for _, f := range c.a.ops {
		b.imageName(f, c)
	}
	return stream{}
}

// imageName prices what a file name given to ImageMagick does besides
// naming a file.
func (b *builder) imageName(f field, c *call) {
	if !f.known {
		return
	}
	if cmd, ok := strings.CutPrefix(f.val, "|"); ok {
		// A pipe: ImageMagick runs the rest through the shell.
		b.text(cmd, c.st.clone(), stream{}, c.prog+" |pipe", span{f.pos, f.end})
		return
	}
	for _, ic := range imCoders {
		prefix, what := ic.prefix, ic.what
		p, ok := strings.CutPrefix(f.val, prefix)
		if !ok || p == "" {
			continue
		}
		g := f
		g.val = p
		switch what {
		case "deletes":
			b.pathEffect(CapDelete, "fs.delete", c.prog, g, c.st, c.sp, what)
		case "runs the ImageMagick script":
			b.add(Effect{Cap: CapDynamic, Rule: "exec.dynamic-code", Program: c.prog, Target: p, Msg: "runs the ImageMagick script " + p + ", which can read and write any file"}, c.sp)
		default:
			b.pathEffect(CapRead, "fs.read", c.prog, g, c.st, c.sp, what)
		}
	}
}
