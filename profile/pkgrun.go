package profile

import (
	"path"
	"strings"
)

// hPackageCommand: a package runner (npx, npm exec, bunx, uvx, pipx run,
// pnpm dlx) runs the package's program with the words after it. A
// package named like a program guard knows (npx prettier --write F, uvx
// black F) is reviewed as that program too: the downloaded code does at
// least what the words ask of it. Other names stay code guard cannot see.
func hPackageCommand(b *builder, c *call) stream {
	if len(c.a.ops) == 0 || !c.a.ops[0].known {
		return stream{kind: streamUnknown}
	}
	op := c.a.ops[0] // after the runner's verb (pipx run, pnpm dlx): its entry is the verb's
	name := op.val
	if at := strings.LastIndexByte(name, '@'); at > 0 {
		name = name[:at] // prettier@3, @scope/pkg@1
	}
	name = path.Base(name) // @scope/pkg: its program is usually pkg
	if name == "" || specFor(name) == nil {
		return stream{kind: streamUnknown}
	}
	rest := c.fs[indexOf(c.fs, op)+1:]
	if len(rest) > 0 && rest[0].known && rest[0].val == "--" {
		rest = rest[1:] // npm exec PKG -- ARGS: the runner's own end of options
	}
	argv := append([]field{staticField(name, c.sp)}, rest...)
	return b.exec(argv, c.st.clone(), c.in, c.prog+" "+name, c.sp)
}
