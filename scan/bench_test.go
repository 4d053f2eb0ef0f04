package scan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/guard-sh/guard/review"
)

// corpus is a generated repository of about 20 MB: mostly shell scripts,
// with workflows, GitLab CI files, Makefiles, Dockerfiles and package.json
// files in the proportions a large monorepo might have. Deterministic.
var corpus = sync.OnceValue(func() []File {
	rng := rand.New(rand.NewPCG(1, 2))
	cmds := []string{
		`echo "building $TARGET for ${GOOS:-linux}"`,
		`go test ./... 2>&1 | tail -20`,
		`if [ -f "$HOME/.cache/x" ]; then rm -rf "$HOME/.cache/x"; fi`,
		`for f in ./dist/*.tar.gz; do sha256sum "$f" >> SHA256SUMS; done`,
		`curl -fsSL https://example.com/install.sh | sh`,
		`docker build -t "registry.example.com/app:${VERSION}" .`,
		`find . -name '*.o' -delete`,
		`git push --force origin "HEAD:refs/heads/release-$(date +%Y%m%d)"`,
		`case "$1" in start) run_start ;; stop) run_stop ;; *) usage; exit 2 ;; esac`,
		`awk -F: '{ print $1 }' /etc/passwd | sort | uniq -c | sort -rn | head`,
		`cat <<'EOF' > config.yaml` + "\nkey: value\nother: [1, 2, 3]\nEOF",
		`npm ci && npm run build -- --mode=production`,
		`sudo apt-get install -y jq`,
		`x=$(( $(wc -l < file.txt) * 2 )); printf '%d\n' "$x"`,
	}
	line := func() string { return cmds[rng.IntN(len(cmds))] }
	script := func(n int) string {
		var b strings.Builder
		b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n\n")
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				fmt.Fprintf(&b, "\nstep_%d() {\n  # step %d of the build\n", i, i)
			}
			b.WriteString("  " + line() + "\n")
			if i%10 == 9 {
				b.WriteString("}\n")
			}
		}
		b.WriteString("}\n")
		return b.String()
	}
	workflow := func(n int) string {
		var b strings.Builder
		b.WriteString("name: ci\non: [push, pull_request]\njobs:\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "  job%d:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n", j)
			for s := 0; s < 4; s++ {
				fmt.Fprintf(&b, "      - name: step %d\n        run: |\n", s)
				for k := 0; k < 5; k++ {
					b.WriteString("          " + strings.ReplaceAll(line(), "\n", "\n          ") + "\n")
				}
				fmt.Fprintf(&b, "      - run: %q\n", "echo ${{ github.sha }} && "+strings.Split(line(), "\n")[0])
			}
		}
		return b.String()
	}
	gitlab := func(n int) string {
		var b strings.Builder
		b.WriteString("stages: [build, test]\ndefault:\n  before_script:\n    - echo start\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "job%d:\n  stage: build\n  script:\n", j)
			for k := 0; k < 6; k++ {
				fmt.Fprintf(&b, "    - %q\n", strings.Split(line(), "\n")[0])
			}
		}
		return b.String()
	}
	makefile := func(n int) string {
		var b strings.Builder
		b.WriteString("GO ?= go\nBUILD := build\n.PHONY: all\nall: build\n\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "target%d: $(BUILD)/dep%d\n", j, j)
			for k := 0; k < 4; k++ {
				fmt.Fprintf(&b, "\t@%s\n", strings.ReplaceAll(strings.Split(line(), "\n")[0], "$", "$$"))
			}
			b.WriteString("\t$(GO) build -o $@ ./cmd/... && \\\n\t  echo done\n\n")
		}
		return b.String()
	}
	dockerfile := func(n int) string {
		var b strings.Builder
		b.WriteString("# syntax=docker/dockerfile:1\nFROM debian:bookworm\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "RUN --mount=type=cache,target=/var/cache/apt %s && \\\n    %s\n", strings.Split(line(), "\n")[0], strings.Split(line(), "\n")[0])
			b.WriteString("COPY . /src\nENV A=1\n")
		}
		return b.String()
	}
	npm := func(n int) string {
		var b strings.Builder
		b.WriteString("{\n  \"name\": \"pkg\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\n")
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "    \"s%d\": %q", j, strings.Split(line(), "\n")[0])
		}
		b.WriteString("\n  },\n  \"dependencies\": {\"left-pad\": \"1.0.0\"}\n}\n")
		return b.String()
	}
	var files []File
	total := 0
	for i := 0; total < 20<<20; i++ {
		var name, src string
		switch i % 20 {
		case 0:
			name, src = fmt.Sprintf("pkg%d/.github/workflows/ci.yml", i), workflow(6)
		case 1:
			name, src = fmt.Sprintf("pkg%d/.gitlab-ci.yml", i), gitlab(20)
		case 2:
			name, src = fmt.Sprintf("pkg%d/Makefile", i), makefile(20)
		case 3:
			name, src = fmt.Sprintf("pkg%d/Dockerfile", i), dockerfile(15)
		case 4:
			name, src = fmt.Sprintf("pkg%d/package.json", i), npm(30)
		case 5:
			name, src = fmt.Sprintf("pkg%d/bin/tool", i), script(150)
		default:
			name, src = fmt.Sprintf("pkg%d/scripts/build.sh", i), script(20+rng.IntN(300))
		}
		files = append(files, File{Path: name, Src: []byte(src)})
		total += len(src)
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
// bounds what scan itself costs. Swap in the real engine to measure the
// product.
func BenchmarkScan(b *testing.B) {
	files := corpus()
	b.SetBytes(corpusBytes(files))
	nop := func(text, ws, cwd string) (review.Verdict, error) {
		return review.Verdict{Level: review.A, Reasons: []review.Reason{{Rule: "nop", Level: review.A, Pos: len(text) / 2}}}, nil
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
