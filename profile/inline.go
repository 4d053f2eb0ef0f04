package profile

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
)

// Inline interpreter code (python -c, perl -e, node -e, ruby -e, php -r,
// lua -e …) is code guard does not review (B). Where it hands a command
// line it spells out to the shell or to a program — os.system("…"),
// subprocess.run([…]), system("…"), `…`, execSync("…"), os.execute("…")
// — that command line runs too, and is reviewed as one (principle 2:
// the highest of anything the line would run): the level never drops
// below the B of the code itself.

var (
	// shellCall finds a call that runs its string argument through the
	// shell, with that argument a string literal.
	shellCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:os\.system|os\.popen|popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|system|exec|execSync|shell_exec|passthru|proc_open|os\.execute|io\.popen|spawn|spawnSync|execFile|execFileSync|Runtime\.getRuntime\(\)\.exec)\s*\(\s*(\[\s*)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`(?:[^`\\\\]|\\\\.)*`" + `)`)
	})
	// backtickCall finds perl's, ruby's and php's `…`, qx{…} and %x{…}.
	backtickCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`([^`]*)`|\\bqx\\s*\\{([^}]*)\\}|%x\\{([^}]*)\\}|\\bqx\\s*\\(([^)]*)\\)")
	})
	// listRest reads the further string literals of a list argument.
	listItem = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*,\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`)
	})
)

// backtickLangs are the interpreters whose `…` runs a shell command (in
// JavaScript it is a template string, in Python nothing).
var backtickLangs = map[string]bool{"perl": true, "ruby": true, "php": true, "raku": true, "rakudo": true, "perl6": true}

// unquoteLit decodes a string literal of the common languages: "…" with
// backslash escapes, '…' and `…` with \' and \\ only. false when it
// holds an interpolation guard cannot compute (${…}, #{…}, $var).
func unquoteLit(lit string) (string, bool) {
	if len(lit) < 2 {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	switch lit[0] {
	case '"':
		if strings.Contains(body, "#{") || strings.Contains(body, "${") {
			return "", false
		}
		if s, err := strconv.Unquote(lit); err == nil {
			return s, true
		}
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(body), true
	case '`':
		if strings.Contains(body, "${") {
			return "", false
		}
	}
	return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(body), true
}

// inlineShellCalls reviews the command lines a piece of interpreter code
// spells out for the shell or as an argument list.
func (b *builder) inlineShellCalls(code string, c *call) {
	via := c.prog + " inline code"
	for _, m := range shellCall().FindAllStringSubmatchIndex(code, -1) {
		lit := code[m[4]:m[5]]
		first, ok := unquoteLit(lit)
		if !ok {
			continue
		}
		if m[2] < 0 {
			// A string: a command line the shell runs (for
			// subprocess without shell=True, the program's name).
			// Text that is not shell (python's exec("print(1)")) is
			// left to the code's own B.
			if _, err := parse.Bash(first); err == nil {
				b.text(first, c.st.clone(), stream{}, via, c.sp)
			}
			continue
		}
		// A list: the program and its arguments, no shell between.
		argv := []field{staticField(first, c.sp)}
		rest := code[m[5]:]
		for {
			n := listItem().FindStringSubmatchIndex(rest)
			if n == nil {
				break
			}
			v, ok := unquoteLit(rest[n[2]:n[3]])
			if !ok {
				argv = append(argv, field{raw: rest[n[2]:n[3]], pos: c.sp.pos, end: c.sp.end})
			} else {
				argv = append(argv, staticField(v, c.sp))
			}
			rest = rest[n[1]:]
		}
		b.exec(argv, c.st.clone(), stream{}, via, c.sp)
	}
	if backtickLangs[c.prog] {
		for _, m := range backtickCall().FindAllStringSubmatch(code, -1) {
			for _, g := range m[1:] {
				if _, err := parse.Bash(g); g != "" && !strings.Contains(g, "$") && err == nil {
					b.text(g, c.st.clone(), stream{}, via, c.sp)
				}
			}
		}
	}
}
