package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Man pages are written here from the command tree, in plain roff (man(7)),
// rather than through cobra/doc: that package converts markdown with
// blackfriday, whose package initialisation then runs in every guard
// process, agent hooks included, for the sake of one rarely used command.

// writeManPages writes one page per available command of root's tree into
// dir and returns how many it wrote. make man (internal/mangen) runs
// `guard man`.
func writeManPages(root *cobra.Command, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	root.InitDefaultCompletionCmd()
	n := 0
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if c != root && (!c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand()) {
			return nil
		}
		if err := writeManPage(c, filepath.Join(dir, manName(c)+".1")); err != nil {
			return err
		}
		n++
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return n, walk(root)
}

// manName is a command's page name: "guard-install-pre-commit".
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

func writeManPage(c *cobra.Command, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	renderMan(w, c)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// renderMan writes c's page: name, synopsis, description, options,
// examples and related commands.
func renderMan(w io.Writer, c *cobra.Command) {
	name := manName(c)
	fmt.Fprintf(w, ".TH %q \"1\" %q %q %q\n", strings.ToUpper(name), manDate.Format("Jan 2006"), "guard "+version, "guard manual")
	fmt.Fprintf(w, ".SH NAME\n%s - %s\n", roffText(name), roffText(c.Short))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B %s\n", roffText(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	fmt.Fprintf(w, ".SH DESCRIPTION\n%s\n", roffParagraphs(desc))
	if opts := manFlags(c.NonInheritedFlags()); opts != "" {
		fmt.Fprintf(w, ".SH OPTIONS\n%s", opts)
	}
	if opts := manFlags(c.InheritedFlags()); opts != "" {
		fmt.Fprintf(w, ".SH OPTIONS INHERITED FROM PARENT COMMANDS\n%s", opts)
	}
	if c.Example != "" {
		fmt.Fprintf(w, ".SH EXAMPLE\n.EX\n%s\n.EE\n", roffLines(c.Example))
	}
	var see []string
	if p := c.Parent(); p != nil {
		see = append(see, `\fB`+roffText(manName(p))+`\fR(1)`)
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, `\fB`+roffText(manName(sub))+`\fR(1)`)
		}
	}
	if len(see) > 0 {
		fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
}

// manFlags lists flags as tagged paragraphs.
func manFlags(fs *pflag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		varName, usage := pflag.UnquoteUsage(f)
		if varName != "" {
			name += " " + varName
		}
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s", roffText(name), roffText(usage))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			fmt.Fprintf(&b, " (default %s)", roffText(f.DefValue))
		}
		b.WriteString("\n")
	})
	return b.String()
}

// roffText escapes text for one roff line.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffLines escapes each line of a block, keeping the lines.
func roffLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, `\`, `\e`)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// roffParagraphs keeps a text's paragraphs (blank lines) and its indented
// lines (examples inside the description) as they are.
func roffParagraphs(s string) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if strings.HasPrefix(para, "  ") || strings.Contains(para, "\n  ") {
			out = append(out, ".nf\n"+roffLines(para)+"\n.fi")
			continue
		}
		out = append(out, roffLines(para))
	}
	return strings.Join(out, "\n.PP\n")
}
