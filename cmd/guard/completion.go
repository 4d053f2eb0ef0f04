package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/scan"
)

// Completion values, one place: what shells offer for arguments and flag
// values that are not commands (cobra completes those itself).
var (
	// hookAgents are the protocols guard hook answers.
	hookAgents = []string{"claude\tClaude Code PreToolUse", "codex\tCodex PreToolUse", "gemini\tGemini CLI BeforeTool"}
	// thresholds are the levels a threshold flag takes.
	thresholds = []string{"A\truns at once", "B\tneeds consent", "C\tneeds consent and the PIN"}
	// logLevels are the levels guard log --level filters on.
	logLevels = []string{"A", "B", "C", "deny"}
	// provenances are what check --provenance takes.
	provenances = []string{"user", "agent", "untrusted"}
)

// flagValues maps "command path/flag" to its values.
func flagValues() map[string][]string {
	var decisions []string
	for _, d := range audit.Decisions() {
		decisions = append(decisions, string(d))
	}
	return map[string][]string{
		"guard scan/format":       scan.Formats,
		"guard scan/max-level":    thresholds,
		"guard scan/report-level": thresholds,
		"guard check/min-level":   thresholds,
		"guard check/provenance":  provenances,
		"guard log/level":         logLevels,
		"guard log/decision":      decisions,
		"guard run/shell":         {"bash", "sh"},
	}
}

// registerCompletions attaches the completion functions to the tree built
// by newRootCmd. It returns the flags of flagValues that the tree lacks
// (TestCompletionFlagsExist keeps that empty); it never fails, since the
// same tree answers agent hooks.
func registerCompletions(root *cobra.Command) (missing []string) {
	for key, values := range flagValues() {
		path, flag, _ := strings.Cut(key, "/")
		c := findCommand(root, path)
		if c == nil || c.Flags().Lookup(flag) == nil {
			missing = append(missing, key)
			continue
		}
		vals := values
		_ = c.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if c := findCommand(root, "guard hook"); c != nil {
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return hookAgents, cobra.ShellCompDirectiveNoFileComp
		}
	}
	// approve takes one pending id, deny any number.
	if c := findCommand(root, "guard approve"); c != nil {
		c.ValidArgsFunction = completePending(1)
	}
	if c := findCommand(root, "guard deny"); c != nil {
		c.ValidArgsFunction = completePending(-1)
	}
	return missing
}

// completePending offers the ids of pending requests, with the level and
// the command as the description; max > 0 stops after that many args.
func completePending(max int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		d, err := guardDirs()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		reqs, err := approval.List(d.Approvals(), time.Now)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		now := time.Now()
		for _, r := range reqs {
			if r.StateAt(now) != approval.Pending || contains(args, r.ID) {
				continue
			}
			out = append(out, fmt.Sprintf("%s\t%s %s", r.ID, r.Level, oneLine(r.Command)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// findCommand finds a command by its full path ("guard log summary").
func findCommand(root *cobra.Command, path string) *cobra.Command {
	words := strings.Fields(path)
	if len(words) == 0 || words[0] != root.Name() {
		return nil
	}
	c := root
	for _, w := range words[1:] {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == w {
				next = sub
				break
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}
