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

// inlineRes are the patterns that find the command lines inline code
// spells out, compiled together on first use (one value at init, not
// one per pattern).
var inlineRes = sync.OnceValue(func() (r struct{ shellCall, backtickCall, listItem, tclCall, appleShell, appleType, deleteCall, homeRef, pathLit, dynamicCall, anyLit *regexp.Regexp }) {
	// deleteCall finds the languages' calls that delete files, and the
	// calls that reach a function by a name built at run time (which
	// may be any of them, or system): getattr(os, "sys"+"tem"), Ruby's
	// send and method, JavaScript's globalThis[…] and Reflect, eval.
	// A name inside a string ("rm" handed to a program) is not a call.
	r.deleteCall = regexp.MustCompile(`(?:^|[^"'\w])(?:rmtree|remove_tree|rm_rf|rm_r|rm_f|rm|rmdir|remove_dir|remove_entry(?:_secure)?|rmSync|rmdirSync|unlinkSync|unlink|rimraf|remove|removedirs|delete|truncate|getattr|__import__|import_module|send|public_send|__send__|method|instance_method|globalThis|Reflect|Function|eval|exec|compile)\b\s*[\[\(\s:]`)
	// homeRef finds the languages' names for the home directory.
	r.homeRef = regexp.MustCompile(`os\.homedir\s*\(|Dir\.home\b|\$ENV\s*\{\s*['"]?HOME['"]?\s*\}|ENV\s*\[\s*['"]HOME['"]\s*\]|environ(?:\.get)?\s*[\[\(]\s*['"]HOME['"]|getenv\s*\(\s*['"]HOME['"]|expanduser\s*\(|Path\.home\s*\(|env\.HOME\b|env\s*\[\s*['"]HOME['"]\s*\]|File\.expand_path\s*\(\s*['"]~|\bhomedir\b`)
	// pathLit finds string literals that are absolute or ~ paths.
	r.pathLit = regexp.MustCompile(`["'](~[^"'\s]*|/[^"'\s]*)["']`)
	// dynamicCall finds a call of a function by a name built at run
	// time; anyLit any string literal.
	r.dynamicCall = regexp.MustCompile(`\b(?:getattr|__import__|import_module|send|public_send|__send__|method|instance_method|globalThis|Reflect|Function|eval|exec|compile)\b\s*[\[\(\s:]`)
	r.anyLit = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	r.appleShell = regexp.MustCompile(`(?i)\bdo\s+shell\s+script\s+("(?:[^"\\]|\\.)*")`)
	r.appleType = regexp.MustCompile(`(?i)\b(do\s+script|write\s+text|keystroke|key\s+code)\b`)
	// shellCall finds a call that runs its string argument through the
	// shell, with that argument a string literal.
	r.shellCall = regexp.MustCompile(`\b(?:os\.system|os\.popen|popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|system|exec|execSync|shell_exec|passthru|proc_open|os\.execute|io\.popen|spawn|spawnSync|execFile|execFileSync|Runtime\.getRuntime\(\)\.exec)\s*\(\s*(\[\s*)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`(?:[^`\\\\]|\\\\.)*`" + `)`)
	// backtickCall finds perl's, ruby's and php's `…`, qx{…} and %x{…}.
	r.backtickCall = regexp.MustCompile("`([^`]*)`|\\bqx\\s*\\{([^}]*)\\}|%x\\{([^}]*)\\}|\\bqx\\s*\\(([^)]*)\\)")
	// listItem reads the further string literals of a list argument.
	r.listItem = regexp.MustCompile(`^\s*,\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`)
	// tclCall finds a Tcl command that starts a program (exec, spawn)
	// or a shell (system), at the start of a command: a line, or after
	// ; [ {.
	r.tclCall = regexp.MustCompile(`(?m)(?:^|[;\[{])[ \t]*(exec|spawn|system)[ \t]+([^;\]\n}]+)`)
	return r
})

// codeLang is what guard knows of the language of an interpreter's
// inline code, for the commands it spells out.
type codeLang struct {
	// tcl: the code is Tcl — `exec PROG ARGS` runs a program, and so
	// does expect's `spawn PROG ARGS` (a terminal for it: expect -c
	// 'spawn guard approve ID' answers guard's own prompt); expect's
	// `system TEXT` runs TEXT through /bin/sh.
	tcl bool
	// backtick: `…` runs a shell command (in JavaScript it is a
	// template string, in Python nothing).
	backtick bool
	// appleScript: osascript's language (appleScript).
	appleScript bool
}

// codeLangs is the one table of interpreters by language (a switch:
// nothing is built at start).
func codeLangs(prog string) codeLang {
	switch prog {
	case "expect", "tclsh", "wish", "jimsh":
		return codeLang{tcl: true}
	case "perl", "ruby", "php", "raku", "rakudo", "perl6":
		return codeLang{backtick: true}
	case "osascript":
		return codeLang{appleScript: true}
	}
	return codeLang{}
}

// tclWords splits a Tcl command's words as far as guard can compute them:
// bare words and "…" or {…} without substitution; ok is false for a
// word with $ or [ (a variable or a command's result).
func tclWords(s string) (words []string, ok bool) {
	for _, w := range strings.Fields(s) {
		if strings.ContainsAny(w, "$[") {
			return nil, false
		}
		if len(w) >= 2 && (w[0] == '"' && w[len(w)-1] == '"' || w[0] == '{' && w[len(w)-1] == '}') {
			w = w[1 : len(w)-1]
		}
		words = append(words, w)
	}
	return words, len(words) > 0
}

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

// parseOK reports whether text is a command line bash would parse.
func parseOK(text string) bool {
	_, err := parse.Bash(text)
	return err == nil
}

// inlineShellCalls reviews the command lines a piece of interpreter code
// spells out for the shell or as an argument list.
func (b *builder) inlineShellCalls(code string, c *call) {
	via := c.prog + " inline code"
	for _, m := range inlineRes().shellCall.FindAllStringSubmatchIndex(code, -1) {
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
			n := inlineRes().listItem.FindStringSubmatchIndex(rest)
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
	if codeLangs(c.prog).tcl {
		for _, m := range inlineRes().tclCall.FindAllStringSubmatch(code, -1) {
			words, ok := tclWords(m[2])
			if !ok {
				continue // a word guard cannot compute: the code's own B
			}
			if m[1] == "system" {
				if text := strings.Join(words, " "); parseOK(text) {
					b.text(text, c.st.clone(), stream{}, via, c.sp)
				}
				continue
			}
			// exec's and spawn's own options come first.
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
			if len(words) == 0 {
				continue
			}
			argv := make([]field, len(words))
			for i, w := range words {
				argv[i] = staticField(w, c.sp)
			}
			b.exec(argv, c.st.clone(), stream{}, via, c.sp)
		}
	}
	if codeLangs(c.prog).backtick {
		for _, m := range inlineRes().backtickCall.FindAllStringSubmatch(code, -1) {
			for _, g := range m[1:] {
				if _, err := parse.Bash(g); g != "" && !strings.Contains(g, "$") && err == nil {
					b.text(g, c.st.clone(), stream{}, via, c.sp)
				}
			}
		}
	}
	if codeLangs(c.prog).appleScript {
		b.appleScript(code, c, via)
	}
	b.inlineTargets(code, c)
}

// inlineTargets: inline code that deletes files (shutil.rmtree, unlink,
// FileUtils.rm_rf, fs.rmSync …) or calls a function by a name built
// at run time is, for the paths it names (string literals, the home
// directory by any of the languages' names), a program guard cannot
// see given those paths: each is a target it may delete (principle 10,
// as for `$X -rf ~`). perl -e 'unlink glob "~/*"' is C; code that
// names no such path keeps the code's own B.
//
// A function called by a name built at run time may be the language's
// system: each string literal of such code that is a shell command line
// is reviewed as one (getattr(os, "sys"+"tem")("rm -rf ~") is C).
func (b *builder) inlineTargets(code string, c *call) {
	if !inlineRes().deleteCall.MatchString(code) {
		return
	}
	if inlineRes().dynamicCall.MatchString(code) {
		for _, lit := range inlineRes().anyLit.FindAllString(code, 32) {
			if s, ok := unquoteLit(lit); ok && strings.ContainsAny(s, " \t;|&") && parseOK(s) {
				b.text(s, c.st.clone(), stream{}, c.prog+" inline code", c.sp)
			}
		}
	}
	var targets []string
	if inlineRes().homeRef.MatchString(code) && b.ctx.Home != "" {
		targets = append(targets, b.ctx.Home)
	}
	for _, m := range inlineRes().pathLit.FindAllStringSubmatch(code, 16) {
		p := m[1]
		if rest, ok := strings.CutPrefix(p, "~"); ok {
			if b.ctx.Home == "" || rest != "" && rest[0] != '/' || !strings.Contains(code, "glob") && !strings.Contains(code, "expand") {
				// ~user, or a ~ nothing expands (python's
				// shutil.rmtree("~") names ./~): not the home here.
				continue
			}
			p = b.ctx.Home + rest
		}
		targets = append(targets, p)
	}
	for _, t := range targets {
		f := staticField(t, c.sp)
		f.glob = strings.ContainsAny(t, "*?[")
		b.pathEffect(CapDelete, "exec.dynamic-target", c.prog, f, c.st, c.sp, "may delete")
	}
}

// appleScript: `do shell script "CMD"` runs CMD through sh; `do script`,
// `write text` and `keystroke` type into a terminal or another program
// (Terminal, iTerm, System Events): terminal injection.
func (b *builder) appleScript(code string, c *call, via string) {
	for _, m := range inlineRes().appleShell.FindAllStringSubmatch(code, -1) {
		if text, ok := unquoteLit(m[1]); ok && parseOK(text) {
			b.text(text, c.st.clone(), stream{}, via, c.sp)
		}
	}
	if inlineRes().appleType.MatchString(code) {
		b.add(Effect{Cap: CapInject, Rule: "inject.terminal", Program: c.prog, Msg: "types text or runs a command in a terminal or another application (AppleScript do script, write text, keystroke), outside guard's sandbox"}, c.sp)
	}
}
