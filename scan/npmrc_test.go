package scan

import (
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestExtractNpmrc: a project's .npmrc names programs npm runs for every
// script (script-shell) and code it loads into every node it starts
// (node-options). They were not read (both cases with commands failed
// before); a program on PATH and other settings give nothing.
func TestExtractNpmrc(t *testing.T) {
	checkExtract(t, ".npmrc", []struct {
		name, src string
		want      []extracted
	}{
		{"script-shell and node-options", "registry=https://registry.npmjs.org/\nscript-shell = ./tools/sh\nnode-options=\"--require ./hook.js\"\n", []extracted{{"./tools/sh", "2:16"}, {"export NODE_OPTIONS='--require ./hook.js'", "3:15"}}},
		{"git by path", "; comment\ngit=/tmp/x/git\n", []extracted{{"/tmp/x/git", "2:5"}}},
		{"programs on PATH and other settings", "script-shell=bash\nshell=zsh\nsave-exact=true\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", nil},
		// zsh runs the scripts guard reviews as bash (*(e:'…':) is code there).
		{"a script shell of another syntax", "script-shell=zsh\n", []extracted{{"npm test --script-shell=zsh", "1:14"}}},
		// A value with a NUL byte cannot be quoted for review: it was
		// dropped, and is reported.
		{"a value guard cannot quote", "node-options=--require ./a.js\x00\n", []extracted{{"scan-unreviewed-code node-options:", "1:14"}}},
	})
	if KindOf(".npmrc") != NPMRC || KindOf("sub/.npmrc") != NPMRC || KindOf("npmrc") != "" {
		t.Error("KindOf: .npmrc is npm's configuration, at any depth")
	}
}

// TestYarnrcUnreviewed: a project's Yarn configuration makes every yarn
// command run a JavaScript file of the repository (yarnPath, classic
// yarn-path) or load a plugin's: scan reports each (scan-unreviewed-code,
// B), and an allowance can cover it. Neither file was read on 17c6cc7
// (no findings).
func TestYarnrcUnreviewed(t *testing.T) {
	checkExtract(t, ".yarnrc.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"yarnPath and plugins", "nodeLinker: pnp\nyarnPath: .yarn/releases/yarn-4.cjs\nplugins:\n  - .yarn/plugins/a.cjs\n  - path: .yarn/plugins/b.cjs\n    spec: b\n", []extracted{{"scan-unreviewed-code yarnPath .yarn/releases/yarn-4.cjs:", "2:11"}, {"scan-unreviewed-code plugin .yarn/plugins/a.cjs:", "4:5"}, {"scan-unreviewed-code plugin .yarn/plugins/b.cjs:", "5:5"}}},
		{"other settings", "nodeLinker: node-modules\nenableTelemetry: false\n", nil},
	})
	checkExtract(t, ".yarnrc", []struct {
		name, src string
		want      []extracted
	}{
		{"classic yarn-path", "# yarn lockfile v1\nyarn-path \".yarn/releases/yarn-1.22.js\"\n", []extracted{{"scan-unreviewed-code yarn-path .yarn/releases/yarn-1.22.js:", "2:1"}}},
	})
	src := []byte("yarnPath: .yarn/releases/x.cjs\n")
	r, err := Run(Options{Root: t.TempDir(), Review: fakeReview}, []File{{Path: ".yarnrc.yml", Src: src}})
	if err != nil || len(r.Findings) != 1 || r.Findings[0].Rule != RuleUnreviewed || r.Findings[0].Level != review.B || r.Findings[0].Line != 1 {
		t.Fatalf("Run = %+v, %v; want one B %s finding on line 1", r, err, RuleUnreviewed)
	}
	allowed := []byte("# guard:allow scan-unreviewed-code -- the Yarn release we vendor\nyarnPath: .yarn/releases/x.cjs\n")
	r, err = Run(Options{Root: t.TempDir(), Review: fakeReview}, []File{{Path: ".yarnrc.yml", Src: allowed}})
	if err != nil || len(r.Findings) != 1 || r.Findings[0].Suppressed == nil {
		t.Fatalf("Run = %+v, %v; want the finding allowed", r, err)
	}
}
