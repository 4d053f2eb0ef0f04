package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackDownloadCaches: a command without the network plants code
// in the caches that builds outside guard trust — a Go module's source
// (go build compiles what is in ~/go/pkg/mod; go.sum is checked only
// when a module is downloaded), a crate's build.rs, a package npx runs.
// Only a download writes them, so only a run with the network may.
func TestAttackDownloadCaches(t *testing.T) {
	f := newFixture(t)
	targets := map[string]string{
		"home/go/pkg/mod/example.com/m@v1.0.0/m.go":                      "package m\n",
		"home/.cargo/registry/src/index.crates.io-1/c-1.0.0/build.rs":    "fn main() {}\n",
		"home/.npm/_npx/0a1b/node_modules/cowsay/index.js":               "module.exports = 1\n",
		"home/.cargo/git/checkouts/dep-1/abc/src/lib.rs":                 "pub fn f() {}\n",
		"home/go/pkg/mod/cache/download/example.com/m/@v/v1.0.0.ziphash": "h1:x\n",
		"home/.npm/_cacache/index-v5/00/11/entry":                        "{}\n",
		"home/.cargo/registry/index/index.crates.io-1/.cache/c/c":        "x\n",
		"home/go/pkg/mod/example.com/m@v1.0.0/internal/x/x.go":           "package x\n",
		"home/.cargo/registry/src/index.crates.io-1/c-1.0.0/src/lib.rs":  "pub fn g() {}\n",
		"home/.npm/_npx/0a1b/node_modules/cowsay/package.json":           "{}\n",
		"home/go/pkg/mod/cache/download/example.com/m/@v/v1.0.0.mod":     "module example.com/m\n",
		"home/.cargo/git/db/dep-1/config":                                "[core]\n",
		"home/.npm/_npx/0a1b/package.json":                               "{}\n",
		"home/go/pkg/mod/example.com/m@v1.0.0/go.mod":                    "module example.com/m\n",
		"home/.cargo/registry/cache/index.crates.io-1/c-1.0.0.crate":     "crate\n",
		"home/go/pkg/mod/cache/download/example.com/m/@v/list":           "v1.0.0\n",
		"home/.npm/_npx/0a1b/node_modules/.package-lock.json":            "{}\n",
		"home/.cargo/registry/src/index.crates.io-1/c-1.0.0/Cargo.toml":  "[package]\n",
		"home/go/pkg/mod/cache/download/example.com/m/@v/v1.0.0.info":    "{}\n",
		"home/.cargo/git/checkouts/dep-1/abc/Cargo.toml":                 "[package]\n",
	}
	for rel, content := range targets {
		p := f.p(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := f.spec()
	for rel, content := range targets {
		p := f.p(rel)
		// Go makes its module cache read-only; a command of the same
		// user makes it writable again first.
		o := f.sh(t, spec, "exec", "sh", "-c", `chmod u+w "$1" "$(dirname "$1")"; echo 'injected' >> "$1"`, "sh", p)
		if o.err != nil {
			t.Fatalf("%s: %v", rel, o)
		}
		wantContent(t, p, content)
		o = f.sh(t, spec, "exec", "sh", "-c", `echo 'package m; func init() { panic(1) }' > "$(dirname "$1")/zz_planted.go"`, "sh", p)
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "zz_planted.go")); err == nil {
			t.Errorf("%s: planted a file beside it: %v", rel, o)
		}
	}

	// Control: a download (the network grant, B and approved) writes them.
	withNet := f.spec()
	withNet.Net = true
	p := f.p("home/go/pkg/mod/cache/download/example.com/m/@v/list")
	mustSucceed(t, f.sh(t, withNet, "exec", "sh", "-c", `echo v1.1.0 >> "$1"`, "sh", p))
	wantContent(t, p, "v1.0.0\nv1.1.0\n")
}

// TestAttackCodeCaches: ~/.cache is writable for builds, but some of
// it is code your tools run later outside guard: pre-commit's hook
// environments (your next git commit runs them), corepack's package
// managers, the browsers test runners start. A command without the
// network cannot change them; the rest of ~/.cache stays writable.
func TestAttackCodeCaches(t *testing.T) {
	if err := sandbox.ProbeUserns(); err != nil {
		t.Skipf("no user namespaces here (%v): code caches stay writable, as guard doctor says", err)
	}
	f := newFixture(t)
	files := map[string]string{
		"home/.cache/pre-commit/repo1a2b/py_env-python3/lib/python3.11/site-packages/hook.py": "def main(): pass\n",
		"home/.cache/node/corepack/pnpm/9.0.0/bin/pnpm.cjs":                                   "// pnpm\n",
		"home/.cache/ms-playwright/chromium-1/chrome-linux/chrome":                            "#!/bin/sh\n",
	}
	for rel, content := range files {
		if err := os.MkdirAll(filepath.Dir(f.p(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.p(rel), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := f.spec()
	for rel, content := range files {
		p := f.p(rel)
		f.sh(t, spec, "append", p)
		wantContent(t, p, content)
		// A .pth file beside it runs at every start of that Python.
		planted := filepath.Join(filepath.Dir(p), "zz.pth")
		f.sh(t, spec, "write", planted)
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("planted %s", planted)
		}
		f.sh(t, spec, "remove", p)
		wantContent(t, p, content)
	}
	// The rest of ~/.cache is the build's.
	mustSucceed(t, f.sh(t, spec, "write", f.p("home/.cache/tool/cache.db")))
	// An install (the network grant, B and approved) writes them.
	withNet := f.spec()
	withNet.Net = true
	p := f.p("home/.cache/node/corepack/pnpm/9.0.0/bin/pnpm.cjs")
	mustSucceed(t, f.sh(t, withNet, "append", p))
	wantContent(t, p, "// pnpm\npwned\n")
}

// TestFirstCacheRun: a build's first run makes its cache under ~/.cache
// (go test: ~/.cache/go-build). A secret location under ~/.cache that is
// not there (~/.cache/huggingface/token) must not take that away, and
// one that is there stays unreadable.
func TestFirstCacheRun(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Hide = append(spec.Hide, f.p("home/.cache/huggingface/token"))
	mustSucceed(t, f.sh(t, spec, "exec", "sh", "-c", `mkdir -p "$1/go-build/00" && echo x > "$1/go-build/00/a"`, "sh", f.p("home/.cache")))
	wantContent(t, f.p("home/.cache/go-build/00/a"), "x\n")

	if err := os.MkdirAll(f.p("home/.cache/huggingface"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.p("home/.cache/huggingface/token"), []byte("hf_SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := f.sh(t, spec, "exec", "cat", f.p("home/.cache/huggingface/token"))
	mustFail(t, o)
	mustSucceed(t, f.sh(t, spec, "exec", "sh", "-c", `echo y > "$1/go-build/00/b"`, "sh", f.p("home/.cache")))
}
