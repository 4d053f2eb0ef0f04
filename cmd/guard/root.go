package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// run is main without the os.Exit: argv includes the program name (so a
// guard-sh link can behave as `guard shell`), and the return value is the
// exit code. Tests and testscript call it directly.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		// A panic is a bug. It never decides anything: report it and fail
		// closed. Nothing has run at this point unless the child already
		// started, in which case its status was lost and 125 is honest.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "guard: error: internal error: %v\n", r)
			fmt.Fprintf(stderr, "guard: hint: this is a bug in guard; please report it with the output of 'guard version'\n")
			if debugEnabled() {
				stderr.Write(debug.Stack())
			}
			code = exitGuardFailed
		}
	}()
	s := &streams{in: stdin, out: stdout, err: stderr}
	args := argv[1:]
	// guard-sh, or -guard-sh as login shells are started, is guard shell.
	if len(argv) > 0 && strings.TrimPrefix(filepath.Base(argv[0]), "-") == "guard-sh" {
		args = append([]string{"shell"}, args...)
	}
	if code, ok := direct(s, args); ok {
		return code
	}
	// A decision per call (check, hook, run, shell: what agents and hooks
	// start for every command) builds only its own subcommand; everything
	// else, typos and completion included, gets the whole tree.
	only := ""
	if len(args) > 0 && (hotCommand(args[0]) || args[0] == "--") {
		only = args[0] // "--": guard -- CMD needs no subcommand at all
	}
	return executeTree(s, newRootCmdFor(s, only), args)
}

// executeTree runs args through the command tree root.
func executeTree(s *streams, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	return report(s.err, root.Execute())
}

// direct answers, without cobra, the calls started once per reviewed
// command in their plain form: 'guard hook AGENT' (an agent's hook, for
// every tool call), 'guard check TEXT' with no flags (TEXT not a flag, or
// "-" for stdin) and 'guard version'. What they do is what their
// subcommands do with no flags given (the same functions), and
// TestHotPathsSameAsTree holds them to the tree's answers; any other form
// (flags, extra words, help) goes to cobra.
func direct(s *streams, args []string) (code int, ok bool) {
	switch {
	case len(args) == 1 && args[0] == "version":
		return report(s.err, printVersion(s)), true
	case len(args) == 2 && args[0] == "hook" && agentNamed(args[1]) != nil:
		return runHook(s, args[1:], defaultHookEnv()), true
	case len(args) == 2 && args[0] == "check" && (args[1] == "-" || !strings.HasPrefix(args[1], "-")):
		opts := &checkOptions{reviewFlags: reviewFlags{provenance: defaultProvenance}, command: args[1]}
		return report(s.err, runCheck(s, opts)), true
	}
	return 0, false
}

// subcommands are guard's subcommands by name, in help order.
var subcommands = []struct {
	name string
	make func(*streams) *cobra.Command
}{
	{"check", newCheckCmd}, {"run", newRunCmd}, {"version", newVersionCmd}, {"log", newLogCmd},
	{"policy", newPolicyCmd}, {"scan", newScanCmd}, {"install", newInstallCmd}, {"uninstall", newUninstallCmd},
	{"pin", newPinCmd}, {"approvals", newApprovalsCmd}, {"approve", newApproveCmd}, {"deny", newDenyCmd},
	{"revoke", newRevokeCmd}, {"review", newReviewCmd}, {"doctor", newDoctorCmd}, {"hook", newHookCmd},
	{"shell", newShellCmd}, {"init", newInitCmd}, {"docs", newDocsCmd}, {"man", newManCmd},
	{"undo", newUndoCmd}, {"checkpoints", newCheckpointsCmd},
}

// hotCommand reports the subcommands started once per reviewed command;
// they get a tree of their own (see run).
func hotCommand(name string) bool {
	switch name {
	case "check", "hook", "run", "shell", "version":
		return true
	}
	return false
}

func newRootCmd(s *streams) *cobra.Command { return newRootCmdFor(s, "") }

// newRootCmdFor builds the command tree: every subcommand, or only the one
// named only.
func newRootCmdFor(s *streams, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "guard [flags] -- COMMAND [ARG...]",
		Short: "Review shell commands, then run them in a Landlock sandbox",
		Long: `guard stands between a coding agent and your machine. Every command is
parsed, profiled (what it would read, write, delete, send and run) and given a
review level: A runs at once, B asks for your consent, C asks for consent and
your PIN. Approved commands run under a Landlock sandbox derived from the same
profile, and every decision is written to a tamper-evident audit log.

'guard COMMAND [ARG...]' runs COMMAND when it is not a subcommand. A word
that names no program and is close to a subcommand ('guard chek') is taken
for a typo and refused; after '--' the word is always a program
('guard -- check'). 'guard help TOPIC' prints the documentation built into
guard: TOPICS.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "%v", err)
	})
	if only != "" && only != "--" {
		// The command line starts with the subcommand's name: the root's
		// own flags (guard's run flags, --version) are never parsed, so
		// they are not built.
		root.Long = ""
		root.CompletionOptions.DisableDefaultCmd = true
		for _, sc := range subcommands {
			if sc.name == only {
				root.AddCommand(sc.make(s))
			}
		}
		return root
	}
	root.Version = versionString()
	root.SetVersionTemplate("guard {{.Version}}\n")
	// guard [flags] -- COMMAND is guard run.
	runOpts := &runOptions{}
	runOpts.register(root)
	root.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 && runOpts.command == "" {
			if c.ArgsLenAtDash() == 0 {
				// guard -- with nothing after it: a run without a command.
				return usagef("put the command after --: guard -- make test", "no command to run")
			}
			return c.Help()
		}
		// A first word written without -- that names no program and is
		// close to a subcommand is a typo, not a command to run.
		if len(args) > 0 && runOpts.command == "" && c.ArgsLenAtDash() != 0 {
			if err := mistypedCommand(c, args[0]); err != nil {
				return err
			}
		}
		runOpts.argv = args
		return runRun(s, runOpts)
	}
	root.SetVersionTemplate("guard {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "%v", err)
	})
	for _, sc := range subcommands {
		if only == "" || sc.name == only {
			root.AddCommand(sc.make(s))
		}
	}
	if only != "" {
		// A decision per call: no help topics, completions or completion
		// command to build (guard --help, guard help and __complete are
		// not hot, so they get all of it).
		root.Long = ""
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	root.Long = strings.Replace(root.Long, "TOPICS", topicsLine(), 1)
	root.SetHelpCommand(newHelpCmd(s))
	registerCompletions(root)
	root.InitDefaultCompletionCmd()
	requireSubcommands(root)
	return root
}

// requireSubcommands makes every command that only groups others (guard
// install, guard completion) refuse a word that names none of them, as
// guard pin does: cobra would print the help and exit 0, and a script
// that ran 'guard install claud' would take it for done.
func requireSubcommands(c *cobra.Command) {
	for _, sc := range c.Commands() {
		requireSubcommands(sc)
	}
	if c.HasSubCommands() && !c.Runnable() {
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef(fmt.Sprintf("run '%s --help' to list its subcommands", c.CommandPath()), "unknown command %q for %q", args[0], c.CommandPath())
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}
