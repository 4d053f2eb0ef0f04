package profile

import (
	"strings"
	"sync"
)

// unpackers are the programs that decompress a file in place, and the
// options that make them do it ("" for always).
var unpackers = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"gunzip": nil, "bunzip2": nil, "unxz": nil, "unlzma": nil, "unzstd": nil, "unlz4": nil, "uncompress": nil,
		"gzip": {"-d", "--decompress", "--uncompress"}, "bzip2": {"-d", "--decompress"}, "xz": {"-d", "--decompress", "--uncompress"},
		"lzma": {"-d", "--decompress", "--uncompress"}, "zstd": {"-d", "--decompress", "--uncompress"}, "brotli": {"-d", "--decompress"},
		"lz4": {"-d", "--decompress", "--uncompress"},
	}
})

// unpackSuffixes are the suffixes they take off (.tgz becomes .tar).
func unpackSuffixes() []string {
	return []string{".gz", ".tgz", ".z", ".Z", "-gz", "-z", "_z", ".bz2", ".tbz2", ".tbz", ".xz", ".txz", ".lzma", ".zst", ".lz4", ".br"}
}

func extendUnpackNames(t map[string]*spec) {
	for name, flags := range unpackers() {
		if s := t[name]; s != nil {
			s.val += " -S --suffix -o --output"
			// An -o it takes as a value is a write to price (unzstd -o
			// ~/.bashrc x.zst), whether or not the program's own row
			// names it: the value is no operand any more.
			s.rows = append(s.rows, row{"fs.output", CapWrite, "", "-o|--output", "writes"})
			s.fn = chain(s.fn, hUnpackNames(flags...))
		}
	}
}

// hUnpackNames: decompressing FILE.gz in place writes FILE (gunzip
// ~/.bashrc.gz writes ~/.bashrc, a start-up file): the name without its
// suffix (-S's, or the known ones) is priced as the write it is.
func hUnpackNames(flags ...string) handler {
	return func(b *builder, c *call) stream {
		if c.a.has("-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list", "-o", "--output") || len(flags) > 0 && !c.a.has(flags...) {
			return stream{}
		}
		if strings.HasSuffix(c.prog, "lz4") && len(c.a.ops) > 1 {
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
