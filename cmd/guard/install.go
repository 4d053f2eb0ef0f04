package main

import "github.com/spf13/cobra"

// newInstallCmd groups the installers; each integration adds a
// subcommand (pre-commit today; agent hooks and the shell shim later).
func newInstallCmd(s *streams) *cobra.Command {
	c := &cobra.Command{Use: "install", Short: "Install guard into git hooks and agents", Args: cobra.NoArgs}
	c.AddCommand(newInstallPreCommitCmd(s))
	c.AddCommand(newInstallAgentCmds(s)...)
	return c
}

func newUninstallCmd(s *streams) *cobra.Command {
	c := &cobra.Command{Use: "uninstall", Short: "Undo what guard install did", Args: cobra.NoArgs}
	c.AddCommand(newUninstallPreCommitCmd(s))
	c.AddCommand(newUninstallAgentCmds(s)...)
	return c
}
