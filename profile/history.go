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
