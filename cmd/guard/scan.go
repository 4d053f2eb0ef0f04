package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/guard-sh/guard/review"
	"github.com/guard-sh/guard/scan"
	"github.com/spf13/cobra"
)

// exitScanFindings: guard scan found a command above --max-level that no
// allowance covers (the check-style "1": the caller must not proceed).
const exitScanFindings = 1

// guardURI is where SARIF readers send people for the tool.
const guardURI = "https://github.com/guard-sh/guard"

// knownRule checks the rule ids named in guard:allow comments. nil accepts
// any id: profile and review do not export their rule ids yet.
var knownRule func(id string) bool

type scanOptions struct {
	paths    []string
	maxLevel string
	report   string
	format   string
	staged   bool
}

func newScanCmd(s *streams) *cobra.Command {
	opts := &scanOptions{}
	cmd := &cobra.Command{
		Use:   "scan [flags] [PATH...]",
		Short: "Review the shell in a repository, for pre-commit hooks and CI",
		Long: `guard scan finds the shell in a repository and reviews every command with
the same rules as 'guard check', as text read from a file: shell scripts (by
extension or shebang), GitHub Actions run steps, .gitlab-ci.yml scripts,
Makefile recipes, Dockerfile RUN instructions and package.json scripts.

Without PATH it scans the repository the current directory is in (the git
top level, else the current directory); a PATH that names a file is scanned
as named. With --staged it scans what the next commit would record.

It exits 1 when a command is above --max-level (default B: any C fails),
0 otherwise, and 125 on usage errors. A reviewed exception is written in the
code, on the line of the finding or the line above:

    # guard:allow <rule-id> -- <why this is safe>`,
		Example: `  guard scan
  guard scan --staged
  guard scan --format sarif > guard.sarif
  guard scan --max-level A scripts/deploy.sh`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.paths = args
			return runScan(s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.maxLevel, "max-level", "B", "highest level that passes: `A|B|C`")
	f.StringVar(&opts.report, "report-level", "B", "lowest level reported: `A|B|C`")
	f.StringVar(&opts.format, "format", "text", "output format: `text|json|sarif|github`")
	f.BoolVar(&opts.staged, "staged", false, "scan the staged content of the files the next commit changes")
	return cmd
}

func runScan(s *streams, opts *scanOptions) error {
	maxLevel, err := scanLevel("--max-level", opts.maxLevel)
	if err != nil {
		return err
	}
	reportLevel, err := scanLevel("--report-level", opts.report)
	if err != nil {
		return err
	}
	if !contains(scan.Formats, opts.format) {
		return usagef("--format is one of "+strings.Join(scan.Formats, ", "), "unknown format %q", opts.format)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return failf(nil, "scan: %v", err)
	}
	root := scan.Toplevel(cwd)
	inGit := root != ""
	if !inGit {
		root = cwd
	}
	var files []scan.File
	if opts.staged {
		if !inGit {
			return usagef("run it inside a git repository, or drop --staged", "--staged: %s is not in a git repository", cwd)
		}
		files, err = scan.Staged(root, opts.paths)
	} else {
		files, err = scan.Files(root, opts.paths, inGit)
	}
	if err != nil {
		return usagef("", "%v", err)
	}
	rep, err := scan.Run(scan.Options{
		Root: root,
		Review: func(text, workspace, dir string) (review.Verdict, error) {
			return reviewText(text, workspace, dir, "file")
		},
		KnownRule: knownRule,
	}, files)
	if err != nil {
		return failf(nil, "scan: %v", err)
	}
	wo := scan.WriteOptions{Report: reportLevel, Max: maxLevel,
		Tool: scan.Tool{Name: "guard", Version: version, InformationURI: guardURI}}
	if err := scan.Write(s.out, rep, opts.format, wo); err != nil {
		return failf(nil, "scan: write %s: %v", opts.format, err)
	}
	if len(rep.Problems) > 0 {
		for _, p := range rep.Problems {
			fmt.Fprintf(s.err, "guard: error: %v\n", p)
		}
		fmt.Fprintf(s.err, "guard: hint: %s\n", rep.Problems[0].Hint)
		return exitCode(exitGuardFailed)
	}
	if over := rep.Exceeding(maxLevel); len(over) > 0 {
		what := "finding"
		if len(over) > 1 {
			what = "findings"
		}
		fmt.Fprintf(s.err, "guard: error: %d %s above --max-level %s\n", len(over), what, maxLevel)
		if opts.staged {
			fmt.Fprintf(s.err, "guard: hint: the commit was not made; fix the commands above and stage them again\n")
		}
		fmt.Fprintf(s.err, "guard: hint: if a command is safe here, say why in the code: '# guard:allow <rule-id> -- <reason>' on its line or the line above\n")
		return exitCode(exitScanFindings)
	}
	return nil
}

// scanLevel reads a threshold flag: A, B or C (deny is not a threshold).
func scanLevel(flag, v string) (review.Level, error) {
	l, err := review.ParseLevel(v)
	if err != nil || l == review.Deny {
		return 0, usagef(flag+" is one of A, B, C", "%s: unknown level %q", flag, v)
	}
	return l, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
