package scan

import "testing"

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
	})
	if KindOf(".npmrc") != NPMRC || KindOf("sub/.npmrc") != NPMRC || KindOf("npmrc") != "" {
		t.Error("KindOf: .npmrc is npm's configuration, at any depth")
	}
}
