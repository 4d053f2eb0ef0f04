// Package scantest generates the repository guard scan is benchmarked on:
// shell scripts, GitHub workflows, GitLab CI files, Makefiles, Dockerfiles
// and package.json files in the proportions a large monorepo might have.
// It is shared by scan's own benchmarks (extraction, a reviewer that does
// nothing) and cmd/guard's (the real engine), so their numbers are over the
// same bytes.
package scantest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// File is one generated file: a slash-separated path relative to the
// repository root and its content.
type File struct {
	Path string
	Src  []byte
}

// Commands are the lines the scripts are made of: everyday build steps,
// loops and tests, with a few that guard reviews as B or C.
var Commands = []string{
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

// Corpus returns about size bytes of files. The same size gives the same
// files, byte for byte.
func Corpus(size int) []File {
	rng := rand.New(rand.NewPCG(1, 2))
	line := func() string { return Commands[rng.IntN(len(Commands))] }
	first := func() string { return strings.Split(line(), "\n")[0] }
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
				fmt.Fprintf(&b, "      - run: %q\n", "echo ${{ github.sha }} && "+first())
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
				fmt.Fprintf(&b, "    - %q\n", first())
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
				fmt.Fprintf(&b, "\t@%s\n", strings.ReplaceAll(first(), "$", "$$"))
			}
			b.WriteString("\t$(GO) build -o $@ ./cmd/... && \\\n\t  echo done\n\n")
		}
		return b.String()
	}
	dockerfile := func(n int) string {
		var b strings.Builder
		b.WriteString("# syntax=docker/dockerfile:1\nFROM debian:bookworm\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "RUN --mount=type=cache,target=/var/cache/apt %s && \\\n    %s\n", first(), first())
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
			fmt.Fprintf(&b, "    \"s%d\": %q", j, first())
		}
		b.WriteString("\n  },\n  \"dependencies\": {\"left-pad\": \"1.0.0\"}\n}\n")
		return b.String()
	}
	var files []File
	total := 0
	for i := 0; total < size; i++ {
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
}

// Size is the total length of files.
func Size(files []File) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.Src))
	}
	return n
}

// Write writes files under dir, creating directories as needed.
func Write(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
