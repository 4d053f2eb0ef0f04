package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
)

func newPolicyCmd(s *streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Show and check the policy files",
		Long: `guard reads two policy files: yours, $XDG_CONFIG_HOME/guard/policy.toml
(default ~/.config/guard/policy.toml), which may raise, deny, lower and grant,
and a project's, .guard.toml at the workspace root, which may only raise and
deny. See 'guard help policy'.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return usagef("run 'guard policy show' or 'guard policy check [FILE]'", "policy needs a subcommand")
		},
	}
	c.AddCommand(newPolicyShowCmd(s), newPolicyCheckCmd(s))
	return c
}

type policyShowOptions struct {
	workspace string
}

func newPolicyShowCmd(s *streams) *cobra.Command {
	opts := &policyShowOptions{}
	c := &cobra.Command{
		Use:   "show",
		Short: "Print the effective policy, each rule with the file and line it comes from",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runPolicyShow(s, opts)
		},
	}
	c.Flags().StringVar(&opts.workspace, "workspace", "", "workspace `DIR` whose .guard.toml applies (default: the git top-level of the cwd, else the cwd)")
	return c
}

func runPolicyShow(s *streams, opts *policyShowOptions) error {
	e, err := newEngine()
	if err != nil {
		return err
	}
	ctx, err := e.Context("", opts.workspace)
	if err != nil {
		return err
	}
	pol, err := e.Policy(ctx)
	if err != nil {
		return err
	}
	writePolicyWarnings(s.err, pol.Warnings())
	user, project := e.PolicyFiles(ctx)
	fmt.Fprintln(s.out, "Rules apply in this order; deny beats require beats allow, and the highest level wins.")
	for _, f := range pol.Files {
		writePolicyFile(s.out, f)
	}
	for _, missing := range []struct{ what, path string }{{"user", user}, {"project", project}} {
		if missing.path == "" || loadedFile(pol, missing.path) {
			continue
		}
		fmt.Fprintf(s.out, "\n%s policy %s: none\n", missing.what, missing.path)
	}
	return nil
}

func loadedFile(pol *policy.Policy, path string) bool {
	for _, f := range pol.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// writePolicyFile prints one file's floor and rules.
func writePolicyFile(w io.Writer, f *policy.File) {
	switch f.Scope {
	case policy.Builtin:
		fmt.Fprintf(w, "\nbuiltin defaults:")
	case policy.Project:
		fmt.Fprintf(w, "\nproject policy %s (may only tighten):", f.Path)
	default:
		fmt.Fprintf(w, "\nuser policy %s:", f.Path)
	}
	if f.MinLevel == 0 && len(f.Rules) == 0 {
		fmt.Fprintln(w, " no rules")
		return
	}
	fmt.Fprintln(w)
	if f.MinLevel != 0 {
		o := policy.Origin{Scope: f.Scope, Path: f.Path, Line: f.MinLevelLine}
		fmt.Fprintf(w, "  min_level %s (%s)\n", f.MinLevel, o)
	}
	for _, r := range f.Rules {
		fmt.Fprintf(w, "  rule %s (%s)\n", r.ID, r.Origin)
		if r.Description != "" {
			fmt.Fprintf(w, "    %s\n", r.Description)
		}
		fmt.Fprintf(w, "    match: %s\n", describeMatch(r))
		for _, e := range describeEffect(r) {
			fmt.Fprintf(w, "    %s\n", e)
		}
		if n := len(r.Examples) + len(r.NotExamples); n > 0 {
			fmt.Fprintf(w, "    self-tests: examples %d, not_examples %d (all pass)\n", len(r.Examples), len(r.NotExamples))
		}
	}
}

func describeMatch(r *policy.Rule) string {
	var parts []string
	if r.Command != "" {
		parts = append(parts, "command "+strconv.Quote(r.Command))
	}
	if r.Regex != "" {
		parts = append(parts, "regex "+strconv.Quote(r.Regex))
	}
	if len(r.Paths) > 0 {
		parts = append(parts, "paths "+quoteList(r.Paths))
	}
	if len(r.Caps) > 0 {
		cs := make([]string, len(r.Caps))
		for i, c := range r.Caps {
			cs[i] = string(c)
		}
		parts = append(parts, "caps "+strings.Join(cs, ", "))
	}
	return strings.Join(parts, " and ")
}

func describeEffect(r *policy.Rule) []string {
	ignored := ""
	if r.Origin.Scope == policy.Project {
		ignored = " (ignored: a project policy cannot loosen guard)"
	}
	var out []string
	switch {
	case r.Deny:
		out = append(out, "deny")
	case r.Require != 0:
		out = append(out, "require "+r.Require.String())
	case r.Allow:
		out = append(out, "allow: lower to A"+ignored)
	}
	if len(r.GrantWrite) > 0 {
		out = append(out, "grant_write "+quoteList(r.GrantWrite)+ignored)
	}
	if r.GrantNet {
		n := "grant_net: network"
		if r.NetPorts != nil {
			ps := make([]string, len(r.NetPorts))
			for i, p := range r.NetPorts {
				ps[i] = strconv.Itoa(p)
			}
			n += " (ports " + strings.Join(ps, ", ") + ")"
		}
		out = append(out, n+ignored)
	}
	if len(r.KeepEnv) > 0 {
		out = append(out, "keep_env "+strings.Join(r.KeepEnv, ", ")+ignored)
	}
	if r.Message != "" {
		out = append(out, "message: "+r.Message)
	}
	return out
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

type policyCheckOptions struct {
	file      string
	workspace string
}

func newPolicyCheckCmd(s *streams) *cobra.Command {
	opts := &policyCheckOptions{}
	c := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Validate policy files and run their examples",
		Long: `Validate a policy file and run every rule's examples and not_examples.
Without FILE, check the files guard would use here: yours, the
workspace's .guard.toml, and your config.toml (settings: 'guard help
config'). A file named .guard.toml is checked as a project policy (its
allow rules and grants are reported as ignored), one named config.toml as
settings, any other as a user policy.

Exit status: 0 when every file is valid and every example passes, 125 otherwise.`,
		Example: `  guard policy check
  guard policy check ~/.config/guard/policy.toml
  guard policy check .guard.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.file = args[0]
			}
			return runPolicyCheck(s, opts)
		},
	}
	c.Flags().StringVar(&opts.workspace, "workspace", "", "workspace `DIR` for the examples and for .guard.toml (default: the git top-level of the cwd, else the cwd)")
	return c
}

func runPolicyCheck(s *streams, opts *policyCheckOptions) error {
	e, err := newEngine()
	if err != nil {
		return err
	}
	ctx, err := e.Context("", opts.workspace)
	if err != nil {
		return err
	}
	if opts.file != "" {
		if filepath.Base(opts.file) == "config.toml" {
			return checkConfigFile(s, opts.file)
		}
		return checkPolicyFile(s, ctx, opts.file)
	}
	if cfg := e.Dirs().ConfigFile(); fileExists(cfg) {
		if err := checkConfigFile(s, cfg); err != nil {
			return err
		}
	}
	pol, err := e.Policy(ctx)
	if err != nil {
		return err
	}
	writePolicyWarnings(s.err, pol.Warnings())
	n := 0
	for _, f := range pol.Files {
		if f.Scope == policy.Builtin {
			continue
		}
		n++
		writeCheckOK(s.out, f)
	}
	if n == 0 {
		fmt.Fprintln(s.out, "no policy files: guard uses its built-in defaults (no rules)")
	}
	return nil
}

func checkPolicyFile(s *streams, ctx *profile.Context, file string) error {
	scope := policy.User
	if filepath.Base(file) == ".guard.toml" {
		scope = policy.Project
	}
	data, err := safefile.Read(file, policy.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return usagef("pass the path of a policy file", "read policy %s: no such file", file)
	}
	if err != nil {
		return failf([]string{"make the policy file a readable regular file"}, "read policy %s: %v", file, err)
	}
	f, err := policy.Parse(file, data, scope)
	if err != nil {
		return decision.PolicyError(err, false)
	}
	if _, err := f.Check(ctx); err != nil {
		return decision.PolicyError(err, false)
	}
	writePolicyWarnings(s.err, f.Warnings)
	writeCheckOK(s.out, f)
	return nil
}

// checkConfigFile checks a config.toml: unknown keys and bad values are
// errors with their line.
func checkConfigFile(s *streams, path string) error {
	data, err := safefile.Read(path, maxConfigFile)
	if err != nil {
		return usagef("pass the path of a config.toml", "read %s: %v", path, err)
	}
	if _, err := parseSettings(path, data); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "ok: %s (settings)\n", path)
	return nil
}

func writeCheckOK(w io.Writer, f *policy.File) {
	ex := 0
	for _, r := range f.Rules {
		ex += len(r.Examples) + len(r.NotExamples)
	}
	fmt.Fprintf(w, "ok: %s (%s policy): %d rules, %d examples passed\n", f.Path, f.Scope, len(f.Rules), ex)
}

// fileExists reports whether something exists at p.
func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
