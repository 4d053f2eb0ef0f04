package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// maxCommandText bounds what guard reads from stdin for one command; more
// is over the analysis limit anyway.
const maxCommandText = 4 << 20

// defaultProvenance is where reviewed text comes from unless --provenance
// says otherwise.
const defaultProvenance = "agent"

// reviewFlags are the flags every reviewing command shares.
type reviewFlags struct {
	workspace  string
	provenance string
	minLevel   string
}

func (f *reviewFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.workspace, "workspace", "", "workspace `DIR` (default: the git top-level of the cwd, else the cwd)")
	c.Flags().StringVar(&f.provenance, "provenance", defaultProvenance, "where the text came from: user, agent or untrusted")
	c.Flags().StringVar(&f.minLevel, "min-level", "", "a floor for the level: A, B or C (can only raise it)")
}

func (f *reviewFlags) options() (assessOptions, error) {
	o := assessOptions{Workspace: f.workspace}
	p, err := review.ParseProvenance(f.provenance)
	if err != nil {
		return o, usagef("use --provenance user, agent or untrusted", "%v", err)
	}
	o.Provenance = p
	if f.minLevel != "" {
		l, err := review.ParseLevel(f.minLevel)
		if err != nil || l == review.Deny {
			return o, usagef("use --min-level A, B or C", "bad --min-level %q", f.minLevel)
		}
		o.MinLevel = l
	}
	return o, nil
}

type checkOptions struct {
	reviewFlags
	json    bool
	explain bool
	command string
}

func newCheckCmd(s *streams) *cobra.Command {
	opts := &checkOptions{}
	c := &cobra.Command{
		Use:   "check [flags] COMMAND",
		Short: "Review a command without running it",
		Long: `Review shell text and print its level (A, B or C), the reasons and a
plain-English explanation, without running anything. COMMAND is one argument
holding the shell text; '-' reads it from stdin.

Exit status: 0 for A, 1 for B, 2 for C, 3 when a policy denies it, 125 on errors.`,
		Example: `  guard check 'git status && git diff --stat'
  guard check --json 'rm -rf build'
  echo 'curl -fsSL https://example.com/x | sh' | guard check -`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("quote the whole command as one argument: guard check 'rm -rf build'", "check takes exactly one COMMAND argument (got %d)", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.command = args[0]
			return runCheck(s, opts)
		},
	}
	// Flags come before COMMAND: an unquoted `guard check rm -rf x` is an
	// argument-count error, not a puzzle about flags named -r and -f.
	c.Flags().SetInterspersed(false)
	opts.reviewFlags.register(c)
	c.Flags().BoolVar(&opts.json, "json", false, "print the verdict as JSON on stdout")
	c.Flags().BoolVar(&opts.explain, "explain", false, "also show every effect and the rule that priced it")
	return c
}

func runCheck(s *streams, opts *checkOptions) error {
	text := opts.command
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(s.in, maxCommandText+1))
		if err != nil {
			return failf(nil, "read command from stdin: %v", err)
		}
		text = strings.TrimSuffix(string(b), "\n")
	}
	o, err := opts.options()
	if err != nil {
		return err
	}
	e, err := newEngine()
	if err != nil {
		return err
	}
	a, err := e.Assess(text, o)
	if err != nil {
		return err
	}
	a, _ = coverDeletes(e, a, o) // the level guard run would give
	writePolicyWarnings(s.err, a.Warnings)
	if opts.json {
		if err := writeVerdictJSON(s.out, a); err != nil {
			return err
		}
	} else {
		writeVerdictText(s.out, a, opts.explain)
	}
	return exitCode(checkExit(a.Verdict.Level))
}

func checkExit(l review.Level) int {
	switch l {
	case review.A:
		return exitCheckA
	case review.B:
		return exitCheckB
	case review.Deny:
		return exitCheckDenied
	}
	return exitCheckC
}

// jsonVersion is the schema version of guard's JSON outputs (check
// --json, log --json; scan.JSONVersion for scan --format json), documented
// in docs/json.md: it changes only when a field changes meaning or goes
// away.
const jsonVersion = 1

// verdictJSON is the machine form of a review.
type verdictJSON struct {
	Version     int               `json:"version"`
	Level       review.Level      `json:"level"`
	Reasons     []review.Reason   `json:"reasons"`
	Explanation string            `json:"explanation"`
	Sandbox     review.Sandbox    `json:"sandbox"`
	Digest      string            `json:"digest"`
	Profile     *profile.Profile  `json:"profile"`
	Command     string            `json:"command"`
	Cwd         string            `json:"cwd"`
	Workspace   string            `json:"workspace"`
	Provenance  string            `json:"provenance"`
	Policy      []policyMatchJSON `json:"policy,omitempty"`
}

// policyMatchJSON is one policy rule that matched, and what it did.
type policyMatchJSON struct {
	Rule   string       `json:"rule"`
	Origin string       `json:"origin"`
	Effect string       `json:"effect"`
	From   review.Level `json:"from"`
	To     review.Level `json:"to"`
	Grants []string     `json:"grants,omitempty"`
}

func writeVerdictJSON(w io.Writer, a *assessment) error {
	v := a.Verdict
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	var pm []policyMatchJSON
	for _, m := range a.Matches {
		pm = append(pm, policyMatchJSON{Rule: m.Rule, Origin: m.Origin.String(), Effect: m.Effect, From: m.From, To: m.To, Grants: m.Grants})
	}
	return enc.Encode(verdictJSON{
		Version: jsonVersion, Level: v.Level, Reasons: v.Reasons, Explanation: v.Explanation, Sandbox: v.Sandbox, Digest: v.Digest,
		Profile: a.Profile, Command: a.Text, Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Provenance: string(a.Input.Provenance),
		Policy: pm,
	})
}

// writeVerdictText writes the verdict for people. The command's text, and
// targets taken from it, are shown with control characters escaped: an
// escape sequence in a command must not rewrite the verdict on screen
// (\e[1A\e[2K\rLevel A).
func writeVerdictText(w io.Writer, a *assessment, explain bool) {
	var b strings.Builder
	writeVerdictRaw(&b, a, explain)
	io.WriteString(w, printable(b.String(), true))
}

func writeVerdictRaw(w io.Writer, a *assessment, explain bool) {
	v := a.Verdict
	fmt.Fprintf(w, "%s  %s\n", v.Level, oneLine(a.Text))
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "   %s %s: %s\n", r.Level, r.Rule, r.Message)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, v.Explanation)
	if explain {
		fmt.Fprintln(w, "\nEffects:")
		for _, e := range a.Profile.Effects {
			fmt.Fprintf(w, "  %s %-10s %-24s %s\n", review.EffectLevel(e), e.Cap, e.Rule, e.Msg)
		}
		if len(a.Profile.Effects) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		if len(a.Matches) > 0 {
			fmt.Fprintln(w)
		}
		for _, m := range a.Matches {
			fmt.Fprintf(w, "Policy: %s\n", m)
		}
	}
}

// writePolicyWarnings says which parts of the policy files are ignored.
func writePolicyWarnings(w io.Writer, ws []policy.Warning) {
	for _, x := range ws {
		fmt.Fprintf(w, "guard: warning: %s\n", x)
	}
}

// oneLine shortens multi-line text for a heading.
func oneLine(s string) string {
	first, rest, found := strings.Cut(s, "\n")
	if found {
		n := strings.Count(rest, "\n") + 1
		return fmt.Sprintf("%s … (%d more lines)", first, n)
	}
	return s
}
