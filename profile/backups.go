package profile

import (
	"path"
	"strings"
)

// Backup names. Programs that replace or edit a file can keep the old
// one under a name made from the file's and a suffix or pattern the line
// chooses: cp -b -S rc x ~/.bash keeps the old ~/.bash as ~/.bashrc, sed
// -i'../.bash*' s/a/a/ rc copies rc to ../.bashrc, patch -B ../ puts a
// copy of each patched file in the parent directory. The backup is a
// write of that name, priced as one (fs.backup): a start-up file or a
// program in your bin directories among them is C as writing it is.

// backupName is FILE's backup under suffix: each * in it stands for FILE
// (sed -i, perl -i), else the suffix is appended (FILE~, FILE.bak).
func backupName(file, suffix string) string {
	if strings.Contains(suffix, "*") {
		return strings.ReplaceAll(suffix, "*", file)
	}
	return file + suffix
}

// backupOf prices the backup of file f under suffix s; a suffix guard
// cannot see may make any name that starts with f's.
func (b *builder) backupOf(c *call, f, s field) {
	if !f.known || s.known && s.val == "" {
		return
	}
	if !s.known {
		b.backupAt(c, f, f.val+"*")
		return
	}
	b.backupAt(c, f, backupName(f.val, s.val))
}

// backupAt prices a backup written to name (at f's place in the line).
func (b *builder) backupAt(c *call, f field, name string) {
	g := f
	g.val, g.known = name, true
	g.glob = strings.ContainsAny(name, "*?[")
	b.pathEffect(CapWrite, "fs.backup", c.prog, g, c.st, c.sp, "keeps a backup copy as")
}

// inPlaceSuffix is the backup suffix of an -i option that takes the rest
// of its word as one (sed -i.bak, sed -ni'*.orig', perl -pi.bak), or of
// long, a --in-place=SUFFIX. stop are the letters whose value is the rest
// of the word or the next one: a cluster ends there. ok is false when no
// suffix is given (no backup).
func inPlaceSuffix(c *call, stop, long string) (suffix field, ok bool) {
	for _, f := range c.args {
		if !f.known || f.val == "--" {
			if f.val == "--" {
				break
			}
			continue
		}
		if long != "" && strings.HasPrefix(f.val, "--") {
			name, v, eq := strings.Cut(f.val, "=")
			if eq && len(name) >= minAbbrev && strings.HasPrefix(long, name) && v != "" {
				suffix, ok = field{val: v, known: true, pos: f.pos, end: f.end}, true
			}
			continue
		}
		if !strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "--") {
			continue
		}
		for j := 1; j < len(f.val); j++ {
			if f.val[j] == 'i' {
				if j+1 < len(f.val) {
					suffix, ok = field{val: f.val[j+1:], known: true, pos: f.pos, end: f.end}, true
				}
				break
			}
			if strings.IndexByte(stop, f.val[j]) >= 0 {
				break
			}
		}
	}
	return suffix, ok
}

// hBackups: cp, mv, install and ln with -b, --backup or a suffix (-S,
// --suffix, SIMPLE_BACKUP_SUFFIX) keep each file they replace as its
// name plus the suffix.
func hBackups(b *builder, c *call) stream {
	suffix, on := backupSuffix(c, "-S", "--suffix")
	if !on && !c.a.has("-b", "--backup") {
		return stream{}
	}
	for _, d := range replacedFiles(c) {
		b.backupOf(c, d, suffix)
	}
	return stream{}
}

// backupSuffix is the suffix opts give, else SIMPLE_BACKUP_SUFFIX's
// value, else ~; given says whether an option named it.
func backupSuffix(c *call, opts ...string) (suffix field, given bool) {
	if vs := c.a.values(opts...); len(vs) > 0 {
		return vs[len(vs)-1], true
	}
	if v, set := c.st.vars["SIMPLE_BACKUP_SUFFIX"]; set {
		if v == nil {
			return field{}, false
		}
		return field{val: *v, known: true}, false
	}
	return field{val: "~", known: true}, false
}

// replacedFiles are the files a copy, move, install or link may replace:
// DIR/NAME for -t DIR, else the last operand and, when it is a directory,
// the sources' names in it.
func replacedFiles(c *call) []field {
	ops := c.a.ops
	into := func(d field, srcs []field) []field {
		var out []field
		for _, s := range srcs {
			if d.known && s.known && !s.glob {
				g := d
				g.val = path.Join(d.val, path.Base(s.val))
				out = append(out, g)
			}
		}
		return out
	}
	if ts := c.a.values("-t", "--target-directory"); len(ts) > 0 {
		return into(ts[0], ops)
	}
	if len(ops) < 2 {
		return ops
	}
	last := ops[len(ops)-1]
	return append([]field{last}, into(last, ops[:len(ops)-1])...)
}

// hRsyncBackups: rsync -b keeps each file it replaces in the destination
// as its name plus --suffix (any file there: a pattern), and
// --backup-dir puts them in that directory under their own names.
func hRsyncBackups(b *builder, c *call) stream {
	if !c.a.has("-b", "--backup") && !c.a.has("--backup-dir") {
		return stream{}
	}
	for _, d := range c.a.values("--backup-dir") {
		b.pathEffect(CapWrite, "fs.backup", c.prog, d, c.st, c.sp, "keeps backup copies in")
		b.writeAnyName(c, d, "fs.backup", "may keep a backup of any name in")
	}
	suffix, given := backupSuffix(c, "--suffix")
	if n := len(c.a.ops); n >= 2 && given && !c.a.has("--backup-dir") {
		dest := c.a.ops[n-1]
		b.backupOf(c, dest, suffix)
		if dest.known {
			g := dest
			g.val, g.glob = path.Join(dest.val, "*"), true
			b.backupOf(c, g, suffix)
		}
	}
	return stream{}
}

// hPatchBackups: patch keeps the file it patches (always with -b, and by
// default when a hunk does not apply exactly) as -B PREFIX + FILE,
// DIR/-Y PREFIX + NAME or FILE + -z SUFFIX. The files are the operand
// or, named by the patch, any.
func hPatchBackups(b *builder, c *call) stream {
	pre, base := c.a.values("-B", "--prefix"), c.a.values("-Y", "--basename-prefix")
	suffix, given := backupSuffix(c, "-z", "--suffix")
	if len(pre) == 0 && len(base) == 0 && !given {
		return stream{}
	}
	file := staticField("*", c.sp) // named by the patch: any
	if len(c.a.ops) > 0 {
		file = c.a.ops[0]
	}
	if !file.known {
		file.val = "*"
	}
	for _, p := range append(pre, base...) {
		if !p.known {
			// A prefix guard cannot see may be any directory: the
			// backup may land anywhere.
			b.pathEffect(CapWrite, "fs.backup", c.prog, p, c.st, c.sp, "keeps a backup copy as")
		}
	}
	for _, p := range pre {
		if p.known {
			b.backupAt(c, p, p.val+file.val)
		}
	}
	for _, p := range base {
		if p.known {
			b.backupAt(c, p, path.Join(path.Dir(file.val), p.val+path.Base(file.val)))
		}
	}
	if given {
		b.backupOf(c, staticField(file.val, c.sp), suffix)
	}
	return stream{}
}
