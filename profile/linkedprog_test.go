package profile_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/guard-sh/guard/profile"
)

// TestProgramThroughLink: a program started by a path that is a symlink
// to another program is that program (the kernel runs the target), and
// may also read the name it was started under (busybox, zsh as sh): both
// are reviewed. A repository's tools/bash -> /usr/bin/zsh had its -c text
// reviewed as bash (A), and zsh runs the glob qualifier's code.
func TestProgramThroughLink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{filepath.Join(ws, "tools"), filepath.Join(home, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(ws, "tools", "bash"): "/usr/bin/zsh",
		filepath.Join(ws, "tools", "sh"):   "/usr/bin/dash",
		filepath.Join(home, "bin", "bash"): "zsh",
		filepath.Join(ws, "tools", "ls"):   "/bin/rm",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	ctx := &profile.Context{Cwd: ws, Workspace: ws, Home: home, User: "u",
		EvalSymlinks: filepath.EvalSymlinks, Readlink: os.Readlink}
	for _, tc := range []struct {
		text string
		want []string // rule ids that must be among the effects
		not  []string // and must not
	}{
		{`./tools/bash -c "echo *(e:'rm -rf ~':)"`, []string{"interp.inline-code"}, nil},
		{`~/bin/bash -c 'echo hi'`, []string{"interp.inline-code"}, nil},
		{`./tools/ls -rf ~`, []string{"fs.delete"}, nil}, // a harmless name, rm the target
		// bash runs a path as it is: a function of the name does not stand in.
		{`ls() { :; }; rm() { :; }; ./tools/ls -rf ~`, []string{"fs.delete"}, nil},
		{`./tools/sh -c 'echo hi'`, nil, []string{"interp.inline-code"}}, // dash reads bash syntax
	} {
		p := profile.Build(tc.text, ctx)
		var rules []string
		for _, e := range p.Effects {
			rules = append(rules, e.Rule)
		}
		for _, r := range tc.want {
			if !slices.Contains(rules, r) {
				t.Errorf("%s: rules %v, want %s among them", tc.text, rules, r)
			}
		}
		for _, r := range tc.not {
			if slices.Contains(rules, r) {
				t.Errorf("%s: rules %v, want no %s", tc.text, rules, r)
			}
		}
	}
}
