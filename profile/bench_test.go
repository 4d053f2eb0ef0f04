package profile

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// BenchmarkTable is the cost of building the command table, paid once per
// guard process that reviews a command.
func BenchmarkTable(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if len(table()) == 0 {
			b.Fatal("empty table")
		}
	}
}

// BenchmarkArithFanout is an expression whose variables each name the
// one below twenty times, eight levels deep: each is followed once.
func BenchmarkArithFanout(b *testing.B) {
	ctx := &Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	line := "v0=1"
	for i := 1; i <= 8; i++ {
		line += fmt.Sprintf("; v%d='%s'", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("v%d+", i-1), 20), "+"))
	}
	line += "; echo $((v8))"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Build(line, ctx)
	}
}

// BenchmarkBuildFirst is one review in a fresh process: the tables of
// the programs it names built, and one short command profiled.
// A fresh context each time, the per-home tables dropped: what a new
// process pays (a command that names no path builds no home tables).
func BenchmarkBuildFirst(b *testing.B) {
	for _, text := range []string{"git status", "git status && ls -la | grep x", "cat ~/notes.txt"} {
		b.Run(text, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tablesOnce, tablesBuilt = [numTables]sync.Once{}, [numTables]map[string]*spec{}
				gitEntryOnce = sync.Once{}
				homeTables.Clear()
				candCache.Clear()
				Build(text, &Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"})
			}
		})
	}
}
