package profile

import (
	"strings"
	"sync"
)

// inPlaceUnpack is a program that decompresses a file in place: the
// options that make it do it (none: always), and whether a second
// operand names its output instead (lz4 -d IN OUT, which a row prices).
type inPlaceUnpack struct {
	flags     []string
	outputOp2 bool
}

// unpackers are those programs.
var unpackers = sync.OnceValue(func() map[string]inPlaceUnpack {
	d := []string{"-d", "--decompress", "--uncompress"}
	return map[string]inPlaceUnpack{
		"gunzip": {}, "bunzip2": {}, "unxz": {}, "unlzma": {}, "unzstd": {}, "unlz4": {outputOp2: true}, "uncompress": {},
		"gzip": {flags: d}, "bzip2": {flags: d[:2]}, "xz": {flags: d}, "lzma": {flags: d}, "zstd": {flags: d}, "brotli": {flags: d[:2]},
		"lz4": {flags: d, outputOp2: true},
	}
})

// unpackSuffixes are the suffixes they take off (.tgz becomes .tar).
func unpackSuffixes() []string {
	return []string{".gz", ".tgz", ".z", ".Z", "-gz", "-z", "_z", ".bz2", ".tbz2", ".tbz", ".xz", ".txz", ".lzma", ".zst", ".lz4", ".br"}
}

func extendUnpackNames(t map[string]*spec) {
	for name, u := range unpackers() {
		if s := t[name]; s != nil {
			s.val += " -S --suffix -o --output"
			// An -o it takes as a value is a write to price (unzstd -o
			// ~/.bashrc x.zst), whether or not the program's own row
			// names it: the value is no operand any more.
			s.rows = append(s.rows, row{"fs.output", CapWrite, "", "-o|--output", "writes"})
			s.fn = chain(s.fn, hUnpackNames(u))
		}
	}
}

// hUnpackNames: decompressing FILE.gz in place writes FILE (gunzip
// ~/.bashrc.gz writes ~/.bashrc, a start-up file): the name without its
// suffix (-S's, or the known ones) is priced as the write it is.
func hUnpackNames(u inPlaceUnpack) handler {
	return func(b *builder, c *call) stream {
		if c.a.has("-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list", "-o", "--output") || len(u.flags) > 0 && !c.a.has(u.flags...) {
			return stream{}
		}
		if u.outputOp2 && len(c.a.ops) > 1 {
			return stream{} // lz4 -d IN OUT names its output (a row)
		}
		// -S adds a suffix: gzip and xz still take the known ones off
		// (gunzip -S .foo ~/.bashrc.gz writes ~/.bashrc).
		suffixes := unpackSuffixes()
		if s := c.a.values("-S", "--suffix"); len(s) > 0 && s[0].known && s[0].val != "" {
			suffixes = append([]string{s[0].val}, suffixes...)
		}
		for _, f := range c.a.ops {
			if !f.known || f.val == "-" {
				continue
			}
			for _, suf := range suffixes {
				if base, ok := strings.CutSuffix(f.val, suf); ok && base != "" && !strings.HasSuffix(base, "/") {
					if strings.HasPrefix(suf, ".t") {
						base += ".tar"
					}
					g := f
					g.val = base
					b.pathEffect(CapWrite, "fs.decompress", c.prog, g, c.st, c.sp, "decompresses into")
					break
				}
			}
		}
		return stream{}
	}
}
