package profile

import "strings"

// hPatch: a patch names its own files, which the line does not show: with
// no file operand, patch writes whatever the patch names under -d DIR or
// the current directory. By principle 10 that may be any name there, so
// into ~ it may be .bashrc (as an archive may, see extractAny). A file operand
// names the one file patched; the table rows price it.
func hPatch(b *builder, c *call) stream {
	if len(c.a.ops) > 0 {
		return stream{}
	}
	dir := staticField(".", c.sp)
	if ds := c.a.values("-d", "--directory"); len(ds) > 0 {
		dir = ds[len(ds)-1]
	}
	b.writeAnyName(c, dir, "fs.patch", "may patch any name in")
	return stream{}
}

// hSplit: split and csplit write files named PREFIX followed by a suffix
// the line only partly shows (split -a 1 gives one letter, csplit -b
// 'rc%.0d' gives "rc"): by principle 10 the names are PREFIX*, so
// split -a 1 -b 1 f ~/.bashr writes ~/.bashrc among others. split
// --filter=COMMAND runs COMMAND through the shell for every chunk instead.
func hSplit(b *builder, c *call) stream {
	if c.prog == "split" {
		if fs := c.a.values("--filter"); len(fs) > 0 {
			for _, f := range fs {
				b.commandText(f, c, "split --filter")
			}
			return stream{}
		}
	}
	var prefix field
	switch {
	case c.prog == "csplit":
		prefix = staticField("xx", c.sp) // its default prefix, in the cwd
		if ps := c.a.values("-f", "--prefix"); len(ps) > 0 {
			prefix = ps[len(ps)-1]
		}
	case len(c.a.ops) > 1:
		prefix = c.a.ops[1]
	default:
		prefix = staticField("x", c.sp) // split's default prefix, in the cwd
	}
	if !prefix.known {
		return stream{}
	}
	names := prefix
	names.val += "*"
	names.glob = true
	b.pathEffect(CapWrite, "fs.output", c.prog, names, c.st, c.sp, "writes files whose names start with")
	return stream{}
}

// hCopyLinks: cp -s and cp -l make links, as ln -s and ln do, so a later
// write through the copy writes the original (cp -s ~/.bashrc x; echo >>
// x); then the copy's own review.
func hCopyLinks(b *builder, c *call) stream {
	if c.a.has("-s", "--symbolic-link", "-l", "--link") {
		hLn(b, c)
	}
	return hCopy(b, c)
}

// hSocat: socat's file addresses open local files, the other end being
// the network or a program: FILE:, OPEN: and GOPEN: read the file (and
// write it with creat, append, trunc or wronly), CREATE: writes it. So
// socat TCP-LISTEN:80 FILE:~/.ssh/id_rsa serves a secret.
func hSocat(b *builder, c *call) stream {
	for _, f := range c.a.ops {
		if !f.known {
			continue
		}
		typ, rest, ok := strings.Cut(f.val, ":")
		if !ok {
			continue
		}
		name, opts, _ := strings.Cut(rest, ",")
		target := field{val: name, known: true, pos: f.pos, end: f.end}
		switch strings.ToUpper(typ) {
		case "FILE", "OPEN", "GOPEN":
			b.pathEffect(CapRead, "fs.read", c.prog, target, c.st, c.sp, "opens")
			if re(`(^|,)(creat|append|trunc|wronly)\b`).MatchString(opts) {
				b.pathEffect(CapWrite, "fs.write", c.prog, target, c.st, c.sp, "writes")
			}
		case "CREATE", "CREAT":
			b.pathEffect(CapWrite, "fs.write", c.prog, target, c.st, c.sp, "writes")
		}
	}
	return stream{kind: streamNetwork}
}

// hGitApply: outside a repository git apply patches the files the patch
// names under the current directory, like patch; in a repository whose
// work tree is the home directory (a dotfiles repository) it does too.
// The table rows price the repository write.
func hGitApply(b *builder, c *call) stream {
	if c.a.has("--check", "--stat", "--numstat", "--summary") && !c.a.has("--apply") || c.a.has("--cached") {
		return stream{} // reports, or changes only the index
	}
	b.writeAnyName(c, staticField(".", c.sp), "fs.patch", "may patch any name in")
	return stream{}
}
