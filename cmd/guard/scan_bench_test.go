package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/scan"
	"github.com/guard-sh/guard/scan/scantest"
	"mvdan.cc/sh/v3/syntax"
)

// benchRepo writes the generated corpus (about 20 MB, see scantest) into a
// temporary repository once per benchmark and returns its root, the files
// to scan and the snippets they hold. HOME and the XDG directories point
// into the temp dir, so no real policy is read.
func benchRepo(b *testing.B) (root string, files []scan.File, snippets []scan.Snippet, fileBytes, snippetBytes int64) {
	b.Helper()
	dir := b.TempDir()
	home := filepath.Join(dir, "home")
	root = filepath.Join(dir, "repo")
	for _, d := range []string{home, root, filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	corpus := scantest.Corpus(20 << 20)
	if err := scantest.Write(root, corpus); err != nil {
		b.Fatal(err)
	}
	for _, f := range corpus {
		files = append(files, scan.File{Path: f.Path})
		sn, err := scan.Extract(f.Path, f.Src)
		if err != nil {
			b.Fatal(err)
		}
		snippets = append(snippets, sn...)
		fileBytes += int64(len(f.Src))
	}
	for _, s := range snippets {
		snippetBytes += int64(len(s.Text))
	}
	return root, files, snippets, fileBytes, snippetBytes
}

// BenchmarkScan measures guard scan with the real engine (parse, profile,
// review, policy) over the generated corpus read from disk, next to what
// parsing the same snippets costs, in the same run:
//
//   - scan: guard scan's engine and scan.Run; MB/s of file bytes, and
//     snippet-MB/s of the shell text found in them.
//   - parse: parse.Bash (mvdan.cc/sh plus guard's IR) over every snippet,
//     on as many goroutines as scan uses; MB/s of snippet bytes.
//   - syntax: mvdan.cc/sh's parser alone, the same way.
//
// Each also reports cpu-MB/s: bytes per second of CPU time the process
// used (user and system, GC included), which a busy machine disturbs less
// than wall time. Run with -cpu 1 to compare one core with one core.
func BenchmarkScan(b *testing.B) {
	root, files, snippets, fileBytes, snippetBytes := benchRepo(b)
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(fileBytes)
		cpu := cpuTime()
		for b.Loop() {
			eng, err := newScanEngine()
			if err != nil {
				b.Fatal(err)
			}
			known, err := eng.knownRule(root, true)
			if err != nil {
				b.Fatal(err)
			}
			rep, err := scan.Run(scan.Options{Root: root, Review: eng.review, KnownRule: known}, files)
			if err != nil {
				b.Fatal(err)
			}
			if rep.Commands == 0 {
				b.Fatal("no commands")
			}
		}
		reportCPU(b, cpu, fileBytes)
		b.ReportMetric(float64(snippetBytes)/1e6/(b.Elapsed().Seconds()/float64(b.N)), "snippet-MB/s")
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(snippetBytes)
		cpu := cpuTime()
		for b.Loop() {
			parallel(len(snippets), func(i int) { parse.Bash(snippets[i].Text) })
		}
		reportCPU(b, cpu, snippetBytes)
	})
	b.Run("syntax", func(b *testing.B) {
		b.SetBytes(snippetBytes)
		cpu := cpuTime()
		for b.Loop() {
			parallel(len(snippets), func(i int) {
				p := syntax.NewParser(syntax.Variant(syntax.LangBash))
				p.Parse(strings.NewReader(snippets[i].Text), "")
			})
		}
		reportCPU(b, cpu, snippetBytes)
	})
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports bytes per second of CPU time used since start.
func reportCPU(b *testing.B, start time.Duration, bytes int64) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/1e6/used.Seconds(), "cpu-MB/s")
	}
}

// parallel runs f(0..n-1) on GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
