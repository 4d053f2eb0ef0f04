package profile

import (
	"slices"
	"testing"
)

// TestShellSyntaxOneTable: for every shell guard knows, SHELL -c TEXT and
// npm --script-shell=SHELL agree on whether the shell reads bash syntax
// (one table, shellSyntax, decides both). ksh -c passed as bash while
// --script-shell=ksh was priced as another syntax.
func TestShellSyntaxOneTable(t *testing.T) {
	ctx := &Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	rules := func(text string) []string {
		var out []string
		for _, e := range Build(text, ctx).Effects {
			out = append(out, e.Rule)
		}
		return out
	}
	for _, sh := range shellNames() {
		if _, ok := shellSyntax()[sh]; !ok {
			t.Errorf("%s: not in shellSyntax", sh)
		}
		inline := slices.Contains(rules(sh+" -c 'echo hi'"), "interp.inline-code")
		script := slices.Contains(rules("npm --script-shell="+sh+" test"), "pkg.script-shell")
		if inline != script || inline == BashSyntax(sh) {
			t.Errorf("%s: -c code priced as another syntax %v, as npm's script shell %v, BashSyntax %v", sh, inline, script, BashSyntax(sh))
		}
	}
	for _, sh := range []string{"ksh", "ksh93", "mksh", "yash", "zsh"} {
		if BashSyntax(sh) {
			t.Errorf("%s: BashSyntax true, want false", sh)
		}
	}
}
