package profile

import (
	"fmt"
	"path"
	"slices"
	"sync"
)

// otherSyntaxShells read their code in a syntax that is not bash's. guard
// reviews their code as bash (what bash would see there still counts),
// but cannot see what only they read as code: zsh runs the code in a glob
// qualifier, echo *(e:'rm -rf ~':), which bash reads as a pattern, and
// evaluates ${(e)var}; fish runs (cmd); csh expands history and
// modifiers. Their inline code is priced as another interpreter's
// (interp.inline-code, interp.stdin-code); a script file of theirs is,
// as any interpreter's script is, run in the sandbox.
var otherSyntaxShells = sync.OnceValue(func() []string {
	return []string{"zsh", "fish", "csh", "tcsh"}
})

// otherSyntax prices the code an other-syntax shell reads from its -c
// operand or from its input (not a script file it is given).
func (b *builder) otherSyntax(c *call) {
	prog := path.Base(c.prog)
	if !slices.Contains(otherSyntaxShells(), prog) {
		return
	}
	rule, what := "interp.stdin-code", prog+" code read from its input"
	target := ""
	switch {
	case c.a.has("-c"):
		if len(c.a.rest) == 0 {
			return
		}
		rule, what, target = "interp.inline-code", "inline "+prog+" code", shorten(c.a.rest[0].display())
	case len(c.a.rest) > 0 && !c.a.has("-s"):
		return // a script file
	}
	b.add(Effect{Cap: CapDynamic, Rule: rule, Program: prog, Target: target,
		Msg: fmt.Sprintf("runs %s, which guard reviews as bash: what only %s reads as code, guard does not see", what, prog)}, c.sp)
}
