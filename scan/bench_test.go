package scan

import (
	"fmt"
	"sync"
	"testing"

	"github.com/guard-sh/guard/review"
	"github.com/guard-sh/guard/scan/scantest"
)

// corpus is a generated repository of about 20 MB (see scantest).
var corpus = sync.OnceValue(func() []File {
	var files []File
	for _, f := range scantest.Corpus(20 << 20) {
		files = append(files, File{Path: f.Path, Src: f.Src})
	}
	return files
})

func corpusBytes(files []File) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.Src))
	}
	return n
}

// BenchmarkExtract measures finding the shell alone, on one core: over the
// whole corpus and per kind of file.
func BenchmarkExtract(b *testing.B) {
	byKind := map[Kind][]File{"all": corpus()}
	for _, f := range corpus() {
		k := KindOf(f.Path)
		if k == "" {
			k = Script
		}
		byKind[k] = append(byKind[k], f)
	}
	for _, k := range []Kind{"all", Script, Workflow, GitLab, Makefile, Dockerfile, NPM} {
		files := byKind[k]
		b.Run(string(k), func(b *testing.B) {
			b.SetBytes(corpusBytes(files))
			for b.Loop() {
				for _, f := range files {
					if _, err := Extract(f.Path, f.Src); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkScan measures a whole scan (parallel extraction, allowances,
// position mapping, sorting) with a reviewer that does nothing, so it
// bounds what scan itself costs. cmd/guard's BenchmarkScan measures the
// product: the same corpus through the real engine, next to parsing it.
func BenchmarkScan(b *testing.B) {
	files := corpus()
	b.SetBytes(corpusBytes(files))
	nop := func(text, ws, cwd string) (Review, error) {
		return Review{Verdict: review.Verdict{Level: review.A, Reasons: []review.Reason{{Rule: "nop", Level: review.A, Pos: len(text) / 2}}}}, nil
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(Options{Root: "/repo", Review: nop}, files); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCorpusExtracts keeps the benchmark honest: every generated file
// yields shell and maps back exactly.
func TestCorpusExtracts(t *testing.T) {
	if testing.Short() {
		t.Skip("large corpus")
	}
	files := corpus()[:40]
	for _, f := range files {
		sn, err := Extract(f.Path, f.Src)
		if err != nil || len(sn) == 0 {
			t.Fatalf("%s: %d snippets, %v", f.Path, len(sn), err)
		}
		checkExact(t, map[string][]byte{f.Path: f.Src}, sn)
	}
}

// BenchmarkIncluded measures finding what Makefiles include, in a tree of
// 500 Makefiles four directories deep, each including three plain names
// and one glob, among 20000 files.
func BenchmarkIncluded(b *testing.B) {
	var files []File
	for i := range 500 {
		dir := fmt.Sprintf("a%d/b/c/d", i)
		src := fmt.Sprintf("include defs%d\n-include ../local.rules\ninclude common/x.conf\ninclude rules/*.inc\n", i)
		files = append(files, File{Path: dir + "/Makefile", Src: []byte(src)})
	}
	for i := range 19500 {
		files = append(files, File{Path: fmt.Sprintf("a%d/b/c/d/defs%d", i%500, i), Src: []byte("x\n")})
	}
	b.ResetTimer()
	for range b.N {
		included("", files, Makefile, makeIncludes)
	}
}
