package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/guard-sh/guard/scan"
	"github.com/spf13/cobra"
)

// newInstallPreCommitCmd is `guard install pre-commit`: a git pre-commit
// hook that runs `guard scan --staged`, chaining a hook already there.
func newInstallPreCommitCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "pre-commit",
		Short: "Review the shell each commit adds, in a git pre-commit hook",
		Long: `Writes a git pre-commit hook that runs 'guard scan --staged': a commit that
adds or changes a command above level B is refused, with the findings shown.
A pre-commit hook that is already there is kept as pre-commit.guard-chained
and runs first. Running it again updates guard's hook.

With the pre-commit framework, use the guard-scan hook from guard's
.pre-commit-hooks.yaml instead.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, err := hooksDir()
			if err != nil {
				return err
			}
			ch, err := scan.InstallPreCommit(dir)
			if err != nil {
				return failf(nil, "%v", err)
			}
			verb := "installed"
			if ch.Updated {
				verb = "updated"
			}
			fmt.Fprintf(s.err, "guard: %s the pre-commit hook %s\n", verb, displayPath(ch.Hook))
			if ch.Chained != "" {
				fmt.Fprintf(s.err, "guard: the hook that was there runs first: %s\n", displayPath(ch.Chained))
			}
			return nil
		},
	}
}

// newUninstallPreCommitCmd is `guard uninstall pre-commit`: removes
// guard's hook and puts back the one it chained.
func newUninstallPreCommitCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "pre-commit",
		Short: "Remove guard's git pre-commit hook",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, err := hooksDir()
			if err != nil {
				return err
			}
			ch, err := scan.UninstallPreCommit(dir)
			switch {
			case errors.Is(err, scan.ErrNoHook):
				fmt.Fprintf(s.err, "guard: no guard pre-commit hook in %s; nothing to do\n", displayPath(dir))
				return nil
			case err != nil:
				return failf([]string{"remove or edit the hook by hand if it is no longer wanted"}, "%v", err)
			}
			fmt.Fprintf(s.err, "guard: removed the pre-commit hook %s\n", displayPath(ch.Hook))
			if ch.Chained != "" {
				fmt.Fprintf(s.err, "guard: restored the hook that was there before\n")
			}
			return nil
		},
	}
}

func hooksDir() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", failf(nil, "%v", err)
	}
	dir, err := scan.HooksDir(cwd)
	if err != nil {
		return "", failf([]string{"run it inside a git repository"}, "find the git hooks directory: %v", err)
	}
	return dir, nil
}

// displayPath shows p relative to the working directory when it is below it.
func displayPath(p string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(cwd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}
