package main

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/docs"
)

// topicsLine lists the help topics for hints.
func topicsLine() string { return strings.Join(docs.Topics(), ", ") }

// newHelpCmd replaces cobra's help command: `guard help COMMAND` is the
// command's usage as before, `guard help TOPIC` prints a page of the
// documentation embedded in the binary.
func newHelpCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND|TOPIC]",
		Short: "Help about a command, or a documentation topic",
		Long: `guard help COMMAND prints the usage of a command. guard help TOPIC prints a
page of guard's documentation, from the text built into the binary, so an
installed guard explains itself away from its source tree.

Topics: ` + topicsLine() + `.`,
		Example: `  guard help check
  guard help levels
  guard help ci`,
		ValidArgsFunction: completeHelpTopics,
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			if len(args) == 0 {
				if err := root.Help(); err != nil {
					return err
				}
				fmt.Fprintf(s.out, "\nHelp topics (guard help TOPIC): %s\n", topicsLine())
				return nil
			}
			if len(args) == 1 && !isCommand(root, args[0]) {
				return printTopic(s, root, args[0])
			}
			target, _, err := root.Find(args)
			if err != nil || target == root {
				return unknownTopic(root, args[0])
			}
			return target.Help()
		},
	}
}

// newDocsCmd prints a documentation topic, or lists them.
func newDocsCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:               "docs [TOPIC]",
		Short:             "Print a page of the documentation built into guard",
		Long:              "guard docs TOPIC is guard help TOPIC. Without TOPIC it lists the topics.\n\nTopics: " + topicsLine() + ".",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeTopicsOnly,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				for _, t := range docs.Topics() {
					fmt.Fprintln(s.out, t)
				}
				return nil
			}
			return printTopic(s, c.Root(), args[0])
		},
	}
}

func printTopic(s *streams, root *cobra.Command, topic string) error {
	page, err := docs.Page(topic)
	if err != nil {
		return unknownTopic(root, topic)
	}
	_, err = fmt.Fprint(s.out, page)
	return err
}

func unknownTopic(root *cobra.Command, topic string) error {
	hints := []string{"topics: " + topicsLine() + "; commands: run 'guard help'"}
	if m := closest(topic, append(docs.Topics(), commandNames(root)...)); m != "" {
		hints = append([]string{"did you mean " + m + "?"}, hints...)
	}
	return &exitError{code: exitGuardFailed, err: fmt.Errorf("unknown help topic %q", topic), hints: hints}
}

func isCommand(root *cobra.Command, name string) bool {
	for _, c := range root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return true
		}
	}
	return false
}

// closest is the candidate within two edits of s (or that s starts), or "".
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), c)
		if len(s) >= 2 && strings.HasPrefix(c, strings.ToLower(s)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance (cobra's suggestions use the
// same measure).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// mistypedCommand decides whether the first word of `guard WORD …`
// (written without `--`) is a mistyped subcommand rather than a program
// to run: it is when no program of that name is found (a path, or a name
// on PATH) and it is within two edits of a subcommand, or a prefix of one.
// `guard rm -rf build` runs rm even though rm is two edits from run;
// `guard chek ls` is refused. A program named like a subcommand, or one
// not installed yet, is run with `guard -- NAME`.
func mistypedCommand(root *cobra.Command, word string) error {
	if word == "" || strings.ContainsRune(word, '/') || strings.HasPrefix(word, "-") {
		return nil
	}
	if _, err := exec.LookPath(word); err == nil {
		return nil
	}
	m := closest(word, commandNames(root))
	if m == "" {
		return nil
	}
	return &exitError{code: exitGuardFailed, err: fmt.Errorf("unknown command %q", word), hints: []string{
		"did you mean " + m + "?",
		fmt.Sprintf("to run a program named %s, write 'guard -- %s'", word, word),
	}}
}

// commandNames are the subcommands help lists, and help.
func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return names
}

// newManCmd writes the man pages of the command tree (section 1) into a
// directory, for installs that did not build from source.
func newManCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write guard's man pages into a directory",
		Long: `guard man DIR writes one man page (section 1) per command into DIR,
creating it if needed: guard.1, guard-check.1, guard-scan.1, …

    guard man ~/.local/share/man/man1 && man guard-scan`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			n, err := writeManPages(c.Root(), args[0])
			if err != nil {
				return failf([]string{"give a directory you can write to, such as ~/.local/share/man/man1"}, "man: %v", err)
			}
			fmt.Fprintf(s.err, "guard: wrote %d man pages to %s\n", n, args[0])
			return nil
		},
	}
}

// manDate is the date on every page, so that pages are reproducible.
var manDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func completeHelpTopics(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return append(docs.Topics(), commandNames(c.Root())...), cobra.ShellCompDirectiveNoFileComp
}

func completeTopicsOnly(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return docs.Topics(), cobra.ShellCompDirectiveNoFileComp
}
