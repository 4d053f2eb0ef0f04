package scan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const fixture = "../testdata/scanrepo"

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./scan -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test ./scan -update and review the diff):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fixtureSnippets extracts every file of the fixture repository.
func fixtureSnippets(t *testing.T) (map[string][]byte, []Snippet, map[string]error) {
	t.Helper()
	files, err := Files(fixture, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string][]byte{}
	errs := map[string]error{}
	var all []Snippet
	for _, f := range files {
		src, err := os.ReadFile(f.OSPath)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f.Path] = src
		sn, err := Extract(f.Path, src)
		if err != nil {
			errs[f.Path] = err
		}
		all = append(all, sn...)
	}
	return srcs, all, errs
}

// dump shows a snippet line by line, each line with the file position its
// first byte maps to.
func dump(s Snippet) string {
	var b strings.Builder
	p := s.Start()
	argv := ""
	if s.Argv {
		argv = " argv"
	}
	fmt.Fprintf(&b, "== %s:%d:%d %s dir=%s%s\n", s.Path, p.Line, p.Col, s.Kind, s.Dir, argv)
	off := 0
	for _, l := range strings.SplitAfter(s.Text, "\n") {
		if l == "" {
			continue
		}
		p := s.Pos(off)
		fmt.Fprintf(&b, "%4d:%-3d| %s\n", p.Line, p.Col, strings.TrimSuffix(l, "\n"))
		off += len(l)
	}
	return b.String()
}

func TestExtractGolden(t *testing.T) {
	_, all, errs := fixtureSnippets(t)
	var b strings.Builder
	for _, s := range all {
		b.WriteString(dump(s))
	}
	for _, p := range []string{".github/workflows/broken.yml"} {
		fmt.Fprintf(&b, "== error: %v\n", errs[p])
	}
	if len(errs) != 1 {
		t.Errorf("syntax errors in %d files, want 1 (broken.yml): %v", len(errs), errs)
	}
	golden(t, "extract.golden", b.String())
}

// TestExtractExactBytes checks the mapping on every snippet of the
// fixture: each byte copied from the file maps back to that same byte.
func TestExtractExactBytes(t *testing.T) {
	srcs, all, _ := fixtureSnippets(t)
	checkExact(t, srcs, all)
}

func checkExact(t *testing.T, srcs map[string][]byte, all []Snippet) {
	t.Helper()
	for _, s := range all {
		src := srcs[s.Path]
		for i, g := range s.segs {
			end := len(s.Text)
			if i+1 < len(s.segs) {
				end = s.segs[i+1].off
			}
			if g.off >= end && len(s.Text) > 0 {
				t.Errorf("%s: empty or unordered segment %d in %q", s.Path, i, s.Text)
			}
			if !g.exact {
				continue
			}
			for off := g.off; off < end; off++ {
				at := s.srcOffset(off)
				if at >= len(src) || src[at] != s.Text[off] {
					t.Fatalf("%s: text[%d]=%q maps to offset %d, which is not that byte\n%s", s.Path, off, s.Text[off], at, dump(s))
				}
			}
		}
	}
}

// TestExtractKnownPositions pins the positions a user would check by hand.
func TestExtractKnownPositions(t *testing.T) {
	_, all, _ := fixtureSnippets(t)
	find := func(path, needle string) Position {
		t.Helper()
		for _, s := range all {
			if s.Path == path {
				if i := strings.Index(s.Text, needle); i >= 0 {
					return s.Pos(i)
				}
			}
		}
		t.Fatalf("%s: %q not found", path, needle)
		return Position{}
	}
	tests := []struct {
		path, needle string
		want         Position
	}{
		{".github/workflows/ci.yml", "curl -fsSL https://get.example.com | bash", Position{12, 11}},
		{".github/workflows/ci.yml", "ls ./bin", Position{14, 11}},
		{".github/workflows/ci.yml", "make test", Position{8, 14}},
		{".github/workflows/ci.yml", "build", Position{23, 11}}, // folded onto the rm line
		{".github/workflows/ci.yml", "rm -rf /", Position{25, 63}},
		{".github/actions/setup/action.yml", "rm -rf /", Position{7, 42}},
		{".gitlab-ci.yml", "curl -fsSL", Position{3, 5}},
		{".gitlab-ci.yml", "rm -rf /", Position{11, 7}},
		{".gitlab-ci.yml", "git push --force", Position{15, 11}},
		{"Makefile", "test ./...", Position{8, 9}},
		{"Makefile", "echo $HOME", Position{10, 4}},
		{"Makefile", "HOME", Position{10, 11}},
		{"Makefile", "rm -rf /", Position{12, 10}},
		{"Makefile", "git push", Position{19, 3}},
		{"Dockerfile", "ca-certificates", Position{6, 7}},
		{"Dockerfile", "rm -rf /", Position{7, 46}},
		{"Dockerfile", "rm -rf build", Position{11, 1}},
		{"web/package.json", "rm -rf dist", Position{6, 15}},
		{"web/package.json", "| sh", Position{7, 55}},
		{"scripts/deploy.sh", "curl", Position{6, 1}},
	}
	for _, tt := range tests {
		if got := find(tt.path, tt.needle); got != tt.want {
			t.Errorf("%s: %q at %d:%d, want %d:%d", tt.path, tt.needle, got.Line, got.Col, tt.want.Line, tt.want.Col)
		}
	}
}
