package scan

import (
	"bytes"
	"strings"
)

// justfile reads the shell of a justfile (just, the command runner):
//
//   - each line of a recipe body (the indented lines after a "name:"
//     line), which just runs with the shell, continuation lines joined;
//     its @ and - prefixes are just's and are dropped, and {{ expr }}
//     interpolations become shell parameters (unknown values);
//   - a recipe whose body starts with a sh or bash #! line is one script;
//     another interpreter's is not shell and is skipped;
//   - `backticks` and shell('…') calls outside bodies (in assignments and
//     parameter defaults), which just runs when it loads the file, for
//     any recipe, even `just --list`.
func (x *extractor) justfile() {
	n := len(x.lines.starts)
	inRecipe, first := false, false
	shebang := "" // "" none, "sh" a shell script body, "other" skipped
	var script builder
	flush := func() {
		if shebang == "sh" {
			x.emitJust(&script)
		}
		script, shebang = builder{}, ""
	}
	for ln := 1; ln <= n; ln++ {
		line := trimCR(x.lines.line(ln))
		ls := x.lines.lineStart(ln)
		if len(bytes.TrimSpace(line)) == 0 {
			if shebang == "sh" {
				script.copy(x.src, ls, ls+len(line))
				script.put("\n", ls+len(line))
			}
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if !inRecipe {
				x.justBackticks(ln)
				continue
			}
			from := ls + len(line) - len(bytes.TrimLeft(line, " \t"))
			if first {
				first = false
				if bytes.HasPrefix(x.src[from:], []byte("#!")) {
					shebang = "other"
					if isShebangShell(x.src[from : ls+len(line)]) {
						shebang = "sh"
					}
				}
			}
			if shebang != "" {
				if shebang == "sh" {
					script.copy(x.src, from, ls+len(line))
					script.put("\n", ls+len(line))
				}
				continue
			}
			for from < ls+len(line) && (x.src[from] == '@' || x.src[from] == '-') {
				from++
			}
			var b builder
			for {
				l := trimCR(x.lines.line(ln))
				end := x.lines.lineStart(ln) + len(l)
				b.copy(x.src, from, end)
				if !trailingBackslash(l) || ln >= n {
					break
				}
				b.put("\n", end)
				ln++
				l = trimCR(x.lines.line(ln))
				from = x.lines.lineStart(ln) + len(l) - len(bytes.TrimLeft(l, " \t"))
			}
			x.emitJust(&b)
			continue
		}
		// A line at the margin ends a body.
		flush()
		inRecipe = false
		t := string(line)
		if t[0] == '#' || t[0] == '[' {
			continue // a comment or a recipe attribute
		}
		x.justBackticks(ln)
		if justRecipeHeader(t) {
			inRecipe, first = true, true
		}
	}
	flush()
}

// justRecipeHeader reports whether a line at the margin starts a recipe:
// "name params: deps", not an assignment (:=), setting, alias, import or
// module.
func justRecipeHeader(t string) bool {
	switch firstWord([]byte(t)) {
	case "set", "alias", "import", "mod", "export", "unexport":
		return false
	}
	i := strings.IndexByte(t, ':')
	if i <= 0 || strings.HasPrefix(t[i:], ":=") {
		return false
	}
	return !strings.Contains(t[:i], "=") || strings.Contains(t[:i], " ")
}

// justBackticks emits the `backtick` commands and shell('…') calls of
// line ln.
func (x *extractor) justBackticks(ln int) {
	line := trimCR(x.lines.line(ln))
	ls := x.lines.lineStart(ln)
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '`':
			j := bytes.IndexByte(line[i+1:], '`')
			if j < 0 {
				return
			}
			var b builder
			b.copy(x.src, ls+i+1, ls+i+1+j)
			x.emitJust(&b)
			i += j + 1
		case bytes.HasPrefix(line[i:], []byte("shell(")) && i+6 < len(line) && (line[i+6] == '\'' || line[i+6] == '"'):
			q := line[i+6]
			j := bytes.IndexByte(line[i+7:], q)
			if j < 0 {
				return
			}
			var b builder
			b.copy(x.src, ls+i+7, ls+i+7+j)
			x.emitJust(&b)
			i += 7 + j
		}
	}
}

// emitJust emits a snippet with its {{ expr }} interpolations turned into
// shell parameters ({{{{ is a literal {{).
func (x *extractor) emitJust(b *builder) {
	s := b.snippet(x.name, Just, x.dir, x.lines)
	var edits []edit
	t := s.Text
	for i := 0; i+1 < len(t); i++ {
		if t[i] != '{' || t[i+1] != '{' {
			continue
		}
		if strings.HasPrefix(t[i:], "{{{{") {
			edits = append(edits, edit{from: i, to: i + 4, with: "{{"})
			i += 3
			continue
		}
		j := strings.Index(t[i+2:], "}}")
		if j < 0 {
			break
		}
		edits = append(edits, edit{from: i, to: i + 2 + j + 2, with: placeholder("just_" + strings.TrimSpace(t[i+2:i+2+j]))})
		i += 2 + j + 1
	}
	s.rewrite(edits)
	if strings.TrimSpace(s.Text) != "" {
		x.out = append(x.out, s)
	}
}

// procfile reads a Procfile (Heroku, foreman, honcho): each "name: command"
// line is a command the platform runs with the shell.
func (x *extractor) procfile() {
	for ln := 1; ln <= len(x.lines.starts); ln++ {
		line := trimCR(x.lines.line(ln))
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			continue
		}
		from := x.lines.lineStart(ln) + i + 1
		var b builder
		b.copy(x.src, from, x.lines.lineStart(ln)+len(line))
		x.emit(Procfile, ".", &b)
	}
}
