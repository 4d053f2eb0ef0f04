package profile

import (
	"path"
	"strings"
	"sync"
)

// Arguments that may be options. A word guard cannot see whose start is
// not literal ($X, "$(cmd)", an item of xargs' input) may begin with a
// dash, and so may a glob that matches a file the line made with such a
// name: the program then reads it as an option. For the programs below,
// some options run a command or a program (tar --to-command='rm -rf ~',
// find -exec, zip -TT, sort --compress-program, man -P, make SHELL=…), so
// such a word is code guard cannot see (B), the way tar cf a.tar * runs
// a command after touch -- '--checkpoint-action=exec=sh x.sh'. A word
// whose start is literal (-j$(nproc), ./$f, src/*) cannot be an option
// other than the one it spells, and one after -- is an operand.

// optionCode names, by program, the options that make it run a command.
var optionCode = sync.OnceValue(func() map[string]string {
	m := map[string]string{
		"tar": "--to-command, --use-compress-program or --checkpoint-action", "gtar": "--to-command, --use-compress-program or --checkpoint-action",
		"bsdtar": "--use-compress-program", "cpio": "--rsh-command", "find": "-exec, -execdir, -ok or -delete",
		"zip": "-TT (--unzip-command)", "sort": "--compress-program", "less": "+!COMMAND", "man": "-P or -H (a pager or browser it runs)",
		"make": "--eval, -f or SHELL=", "gmake": "--eval, -f or SHELL=", "rsync": "-e or --rsync-path", "scp": "-S or -o ProxyCommand",
		"sftp": "-S or -o ProxyCommand", "gdb": "-ex", "sqlite3": "-cmd", "fzf": "--preview or --bind", "rg": "--pre", "fd": "-x or -X",
		"bat": "--pager", "cargo": "--config", "npm": "--script-shell or --node-options", "ssh": "-o ProxyCommand",
	}
	for _, cc := range compilerDrivers {
		m[cc] = "-wrapper, -fplugin=, -B, -specs= or @FILE"
	}
	return m
})

// unseenOption records a word of c that may be one of those options. A
// glob that may pass an option counts as a word guard cannot see for
// every program (the rows that hold when such a word may be an option
// apply: touch -- -o; sort * writes a file named by the next word).
func (b *builder) unseenOption(c *call) {
	if c.sub != "" || b.ctx.Remote {
		return
	}
	for _, f := range optionPositions(c) {
		if !b.mayBeOption(f, c.st) {
			continue
		}
		if f.known {
			c.a.dyn = true
		}
		if opts, ok := optionCode()[c.prog]; ok {
			b.add(Effect{Cap: CapDynamic, Rule: "exec.unseen-option", Program: c.prog, Target: f.display(),
				Msg: "is given " + f.display() + ", which guard cannot see and which may be an option that makes it run a command (" + opts + ")"}, c.sp)
		}
		return
	}
}

// optionPositions are the words of c where an option may stand: its
// operands before any --, not the values its options take (tar -C "$D"),
// and for find the start paths and the words after a primary that takes
// no value (find . -name "$X" is a pattern, find . -print $X may be
// -delete).
func optionPositions(c *call) []field {
	end := -1
	for _, f := range c.fs {
		if f.known && !f.glob && f.val == "--" {
			end = f.pos
			break
		}
	}
	var out []field
	if c.prog == "find" {
		prev := ""
		for _, f := range c.fs {
			if end >= 0 && f.pos >= end {
				break
			}
			if prev == "" || !strings.HasPrefix(prev, "-") || findNoValue()[prev] {
				out = append(out, f)
			}
			prev = ""
			if f.known {
				prev = f.val
			}
		}
		return out
	}
	values := map[int]bool{}
	if k := tarKeyValues(c); k > 0 {
		// tar xf "$F": the letters of an old-style key that take a
		// value take the words after it, in order.
		for _, f := range c.fs[1:min(1+k, len(c.fs))] {
			values[f.pos] = true
		}
	}
	for _, f := range c.a.ops {
		if (end < 0 || f.pos < end) && !values[f.pos] {
			out = append(out, f)
		}
	}
	return out
}

// tarKeyValues is how many words tar's old-style first word (xf, czvf)
// takes as the values of its letters.
func tarKeyValues(c *call) int {
	if (c.prog != "tar" && c.prog != "gtar") || len(c.fs) == 0 || !c.fs[0].known || strings.HasPrefix(c.fs[0].val, "-") {
		return 0
	}
	n := 0
	for _, r := range c.fs[0].val {
		if strings.ContainsRune("fbCTXgKLNV", r) {
			n++
		}
	}
	return n
}

// findNoValue are find's primaries and operators that take no value.
var findNoValue = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-print": true, "-print0": true, "-delete": true, "-depth": true, "-prune": true, "-quit": true, "-ls": true, "-empty": true,
		"-true": true, "-false": true, "-xdev": true, "-mount": true, "-follow": true, "-not": true, "-a": true, "-o": true, "-and": true,
		"-or": true, "-nouser": true, "-nogroup": true, "-readable": true, "-writable": true, "-executable": true, "-d": true,
		"-ignore_readdir_race": true, "-noleaf": true, "-daystart": true, "-H": true, "-L": true, "-P": true,
	}
})

// mayBeOption: f's start is not literal, or f is a glob that matches a
// file the line made whose name starts with a dash.
func (b *builder) mayBeOption(f field, st *state) bool {
	if f.proc {
		return false // /dev/fd/N
	}
	if !f.known {
		return f.val == "" || strings.HasPrefix(f.val, "$") || strings.HasPrefix(f.val, "`") || strings.HasPrefix(f.val, anyParts)
	}
	if !f.glob || f.val == "" || !strings.ContainsAny(f.val[:1], "*?[") || st.files == nil {
		return false
	}
	dir := path.Dir(f.val)
	if strings.ContainsAny(dir, "*?[") {
		return false // a file in a directory the glob names is ./DIR/…, not a dash
	}
	abs, ok := b.ctx.Resolve(st.cwd, dir)
	if !ok {
		return false
	}
	for p := range st.files {
		if path.Dir(p) != abs {
			continue
		}
		if name := path.Base(p); strings.HasPrefix(name, "-") {
			if m, _ := path.Match(bashBrackets(path.Base(f.val)), name); m {
				return true
			}
		}
	}
	return false
}
