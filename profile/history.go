package profile

import "strings"

// hFc: fc -e EDITOR runs EDITOR as shell text (bash runs "EDITOR FILE"
// through its parser), then the commands it leaves; "fc -e -" re-runs
// without an editor. The table rows price the history it re-runs.
func hFc(b *builder, c *call) stream {
	for _, f := range c.a.values("-e") {
		if f.known && f.val == "-" {
			continue
		}
		b.commandText(f, c, "fc -e")
	}
	return stream{}
}

// hRead: read NAME… assigns from its input. When the input is text the
// line shows (read x <<< 'a b'), the names get its first line split as
// read splits it, so what they hold is reviewed where they are used
// (read c <<< 'rm -rf ~'; $c); otherwise the values are unknown, tainted
// by what the input was.
func hRead(b *builder, c *call) stream {
	names := append(c.a.values("-a"), c.a.ops...)
	vals := readValues(c, len(names))
	for i, f := range names {
		var v *string
		if vals != nil {
			v = &vals[i]
		}
		b.builtinSet(c, f, v, c.in)
	}
	return stream{}
}

// readValues splits the first line of read's input for n names as read
// does with the default IFS: a word each, the rest of the line to the
// last (without -r, backslashes removed first; an escaped blank is not
// kept apart, so such a line splits into more words than read makes).
// nil when that is not known: input that is not text, options that
// change how read reads (-a -d -n -N -u), or an IFS the line changed.
func readValues(c *call, n int) []string {
	if n == 0 || c.in.kind != streamText || c.in.tainted() || c.a.has("-a", "-d", "-n", "-N", "-u") {
		return nil
	}
	if ifs := c.st.vars["IFS"]; ifs == nil || *ifs != " \t\n" {
		return nil
	}
	line, _, _ := strings.Cut(c.in.text, "\n")
	if !c.a.has("-r") && strings.Contains(line, `\`) {
		// Without -r a backslash quotes the next character (and one at
		// the end of a line joins the next line).
		var out strings.Builder
		text := c.in.text
		for i := 0; i < len(text) && text[i] != '\n'; i++ {
			if text[i] == '\\' && i+1 < len(text) {
				i++
				if text[i] == '\n' {
					continue
				}
			}
			out.WriteByte(text[i])
		}
		line = out.String()
	}
	vals := make([]string, n)
	rest := strings.Trim(line, " \t")
	for i := 0; i < n-1; i++ {
		var w, r string
		if j := strings.IndexAny(rest, " \t"); j >= 0 {
			w, r = rest[:j], rest[j+1:]
		} else {
			w, r = rest, ""
		}
		vals[i], rest = w, strings.TrimLeft(r, " \t")
	}
	vals[n-1] = strings.TrimRight(rest, " \t")
	return vals
}

// hSendEmail: git send-email runs its --to-cmd, --cc-cmd, --header-cmd
// and --sendmail-cmd through the shell (with the patch file after them),
// and an --smtp-server that is an absolute path as the sendmail program.
func hSendEmail(b *builder, c *call) stream {
	for _, f := range c.a.values("--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd") {
		b.commandText(f, c, "git send-email")
	}
	for _, f := range c.a.values("--smtp-server") {
		if !f.known || strings.HasPrefix(f.val, "/") {
			b.exec([]field{f}, c.st.clone(), stream{}, "git send-email --smtp-server", c.sp)
		}
	}
	return stream{}
}

// hHistory: history -s ARGS puts ARGS, joined by blanks, in the history
// as one entry, for fc -s or fc -e - to run: it is code that may run.
func hHistory(b *builder, c *call) stream {
	if !c.a.has("-s") || len(c.a.ops) == 0 {
		return stream{}
	}
	vals := make([]string, 0, len(c.a.ops))
	for _, f := range c.a.ops {
		if !f.known {
			b.dynamicCode(f, c, "history -s")
			return stream{}
		}
		vals = append(vals, f.val)
	}
	first, last := c.a.ops[0], c.a.ops[len(c.a.ops)-1]
	b.text(strings.Join(vals, " "), c.st.clone(), stream{}, "history -s", span{first.pos, last.end})
	return stream{}
}
