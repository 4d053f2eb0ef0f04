package profile

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// shellSyntax is the one table that says which shells read the syntax
// guard reviews (true: bash and the POSIX shells it extends) and which
// read another (false). Every path that hands code to a shell asks it:
// SHELL -c TEXT and SHELL reading its input (otherSyntax), a package
// manager's script shell (scriptShell), the shim's real shell and scan's
// .npmrc check (BashSyntax). A shell of shellNames that is not here reads
// another syntax.
//
// guard reviews an other-syntax shell's code as bash (what bash would see
// there still counts) but cannot see what only that shell reads as code:
// zsh runs the code in a glob qualifier, echo *(e:'rm -rf ~':), which
// bash reads as a pattern, and evaluates ${(e)var}; fish runs (cmd); csh
// expands history and modifiers; ksh93 runs a discipline function when
// its variable is read (function x.get { …; }; echo $x: bash defines a
// function named x.get and never calls it), and the ksh family and yash
// expand aliases in scripts. Their inline code is priced as another
// interpreter's (interp.inline-code, interp.stdin-code); a script file of
// theirs is, as any interpreter's script is, run in the sandbox.
var shellSyntax = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"bash": true, "rbash": true, "sh": true, "dash": true, "ash": true, "posh": true, "hush": true,
		"zsh": false, "fish": false, "csh": false, "tcsh": false,
		"ksh": false, "ksh93": false, "mksh": false, "lksh": false, "pdksh": false, "oksh": false, "yash": false, "msh": false,
	}
})

// otherSyntax prices the code an other-syntax shell reads from its -c
// operand or from its input (not a script file it is given).
func (b *builder) otherSyntax(c *call) {
	prog := path.Base(c.prog)
	if BashSyntax(prog) {
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

// hOtherLangShell is the handler of a shell of another language (nu,
// xonsh, elvish, cmd.exe…): its inline code is code guard does not
// review (hInterp), and, as for any program, code that reads as a shell
// command line is reviewed as one too (nu -c 'rm -r ~' runs rm).
func hOtherLangShell(codeFlags string) handler {
	interp := hInterp(codeFlags)
	return func(b *builder, c *call) stream {
		out := interp(b, c)
		for _, f := range c.a.values(strings.Fields(codeFlags)...) {
			if f.known {
				b.argumentCode(c.prog, f.val, f, c.st, c.sp)
			}
		}
		return out
	}
}

// hCmdExe: cmd.exe /c CMD… (or /k) runs the rest of its words as a
// Windows command line, from WSL: code guard does not review.
func hCmdExe(b *builder, c *call) stream {
	for i, f := range c.fs {
		if !f.known || !strings.EqualFold(f.val, "/c") && !strings.EqualFold(f.val, "/k") {
			continue
		}
		if i+1 == len(c.fs) {
			break
		}
		code := c.fs[i+1]
		b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: c.prog, Target: shorten(code.display()), Msg: "runs a Windows command line, which guard does not review"}, c.sp)
		if code.known {
			b.argumentCode(c.prog, code.val, code, c.st, c.sp)
		}
		return stream{kind: streamUnknown}
	}
	return hInterp("")(b, c) // an interactive cmd.exe, or a script
}

// BashSyntax reports whether the shell named name (a program name, not a
// path) reads the syntax guard reviews: bash and the POSIX shells it
// extends. The shim's real shell, guard run's --shell and a run's SHELL
// must be one.
func BashSyntax(name string) bool {
	return shellSyntax()[name]
}

// scriptShell prices a shell the line gives a package manager for its
// scripts (npm's and pnpm's --script-shell, npm_config_script_shell):
// guard reviews package.json's scripts as bash, and that shell runs
// them (zsh runs *(e:'…':) as code; /tmp/x is any program).
func (b *builder) scriptShell(c *call) {
	for _, f := range b.npmConfig(c, "script-shell") {
		if f.known && BashSyntax(path.Base(f.val)) {
			continue
		}
		b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-shell", Program: c.prog, Target: f.display(),
			Msg: "runs the package's scripts with " + f.display() + ", not a shell whose syntax guard reviews them in"}, c.sp)
	}
	for _, k := range npmCodeKeys() {
		for _, f := range b.npmConfig(c, k.key) {
			b.add(Effect{Cap: CapDynamic, Rule: k.rule, Program: c.prog, Target: f.display(), Msg: k.msg}, c.sp)
		}
	}
}

// npmCodeKeys are the settings of npm (and pnpm) other than script-shell
// that decide what code its scripts run: node-options loads code into
// every node a script starts, and another user or global configuration
// can set either.
var npmCodeKeys = sync.OnceValue(func() []struct{ key, rule, msg string } {
	return []struct{ key, rule, msg string }{
		{"node-options", "env.node-options", "runs the package's scripts with node options, which can load code into node"},
		{"userconfig", "env.config-dir", "points npm at another user configuration (script-shell, node-options)"},
		{"globalconfig", "env.config-dir", "points npm at another global configuration (script-shell, node-options)"},
	}
})

// npmConfig returns the values the line gives npm's setting key: as an
// option (--key=VALUE, --key VALUE; before the subcommand too), or in
// its environment (npm_config_key, any case, - or _).
func (b *builder) npmConfig(c *call, key string) []field {
	words := c.args // those before the subcommand too (npm --script-shell=zsh run x)
	if len(words) == 0 {
		words = c.fs
	}
	var out []field
	for i, f := range words {
		if f.known && f.val == "--" {
			break // the script's own arguments follow
		}
		switch {
		case !f.known:
		case strings.HasPrefix(f.val, "--"+key+"="):
			g := f
			g.val = strings.TrimPrefix(f.val, "--"+key+"=")
			out = append(out, g)
		case f.val == "--"+key && i+1 < len(words):
			out = append(out, words[i+1])
		}
	}
	env := strings.ReplaceAll(key, "-", "_")
	for _, k := range []string{"npm_config_" + env, "NPM_CONFIG_" + strings.ToUpper(env)} {
		if v, ok := b.getenv(c.st, k); ok {
			if v == nil {
				out = append(out, field{val: "$" + k})
			} else {
				out = append(out, staticField(*v, c.sp))
			}
		}
	}
	return out
}
