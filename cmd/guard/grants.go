package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Grant scopes: what `guard approve ID --grant DURATION --scope S` allows
// without asking until it expires, always in the request's workspace only.
const (
	scopeExact   = "exact"   // this exact command text
	scopeCommand = "command" // this program, with any arguments, on paths in the workspace
	scopeRule    = "rule"    // what this review flagged (its capabilities), on paths in the workspace
)

// maxGrant bounds --grant: a standing grant is for a working day, not for
// ever.
const maxGrant = 7 * 24 * time.Hour

// grantPlan is a grant worked out from a request, shown before the user
// confirms it.
type grantPlan struct {
	grant policy.Grant
	// what says in words what it allows.
	what string
}

// planGrant works out the grant for request r: it reviews the command
// again (a command that reviews differently now is refused: the user would
// grant something they did not see) and builds the allow rule for scope.
// Level C can be granted for its exact text only.
func planGrant(e *decision.Engine, r approval.Request, scope string, d time.Duration) (grantPlan, error) {
	switch {
	case d <= 0 || d > maxGrant:
		return grantPlan{}, usagef("use --grant 8h, for example (at most 7 days)", "--grant must be between 0 and %s", shortDuration(maxGrant))
	case !slices.Contains([]string{scopeExact, scopeCommand, scopeRule}, scope):
		return grantPlan{}, usagef("use --scope exact, command or rule", "unknown --scope %q", scope)
	case r.Level == review.C && scope != scopeExact:
		return grantPlan{}, usagef("grant a level C command with --scope exact (its exact text) only", "level C cannot be widened to --scope %s", scope)
	}
	a, err := e.Assess(r.Command, decision.Options{Cwd: r.Cwd, Workspace: r.Workspace})
	if err != nil {
		return grantPlan{}, err
	}
	if a.Verdict.Digest != r.Digest {
		return grantPlan{}, failf([]string{"ask the agent to run the command again; approve the new request"}, "request %s reviews differently now (its files changed): it cannot be granted", r.ID)
	}
	var caps []profile.Cap
	for _, ef := range a.Profile.Effects {
		if review.EffectLevel(ef) >= review.B && !slices.Contains(caps, ef.Cap) {
			caps = append(caps, ef.Cap)
		}
	}
	if len(caps) == 0 {
		return grantPlan{}, failf(nil, "request %s: guard cannot tell which effects a grant would cover", r.ID)
	}
	capNames := make([]string, len(caps))
	for i, c := range caps {
		capNames[i] = string(c)
	}
	ws := a.Ctx.Workspace
	g := policy.Grant{
		ID: policy.GrantPrefix + r.ID, Workspace: ws, Expires: e.Env().Now().Add(d),
		Caps: caps, Examples: []string{r.Command},
		Description: fmt.Sprintf("granted with 'guard approve %s --grant %s --scope %s'", r.ID, shortDuration(d), scope),
	}
	var what string
	switch scope {
	case scopeExact:
		g.Regex = "^" + regexp.QuoteMeta(r.Command) + "$"
		what = "exactly this command: " + printable(r.Command, false)
	case scopeCommand:
		if len(a.Profile.Commands) != 1 {
			return grantPlan{}, usagef("grant a line of several commands with --scope exact", "--scope command needs a single command; %q runs %d", r.Command, len(a.Profile.Commands))
		}
		name := a.Profile.Commands[0].Name
		g.Command = strings.NewReplacer("*", `\*`, "?", `\?`, "[", `\[`).Replace(name) + " *"
		g.Paths = []string{ws + "/**"}
		what = fmt.Sprintf("%s with any arguments (%s) on paths in the workspace", name, strings.Join(capNames, ", "))
	case scopeRule:
		g.Paths = []string{ws + "/**"}
		what = fmt.Sprintf("any command that does only this (%s) on paths in the workspace", strings.Join(capNames, ", "))
	}
	return grantPlan{grant: g, what: what}, nil
}

// showGrant says on t what the grant will allow, before the question.
func (p grantPlan) show(t *terminal) {
	t.say("  grant:     %s\n", p.what)
	t.say("             in %s, until %s (your policy, rule %s)\n", printable(p.grant.Workspace, false), clock(p.grant.Expires), p.grant.ID)
}

// writeGrant adds the grant to the user's policy file (never a project's),
// checks that the file still loads and that its example holds, and audits
// it. No audit record, no grant.
func writeGrant(s *streams, opts *approvalsOptions, e *decision.Engine, r approval.Request, p grantPlan) error {
	path := e.Dirs().UserPolicy()
	data, err := safefile.Read(path, policy.MaxFileSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failf([]string{"make " + path + " a readable regular file"}, "read policy %s: %v", path, err)
	}
	out, err := policy.AppendGrant(path, data, p.grant)
	if err != nil {
		return decision.PolicyError(err, true)
	}
	ctx, err := e.Context(r.Cwd, r.Workspace)
	if err != nil {
		return err
	}
	if _, err := policy.Load(ctx, policy.Source{Path: path, Data: out, Scope: policy.User}); err != nil {
		return decision.PolicyError(err, true)
	}
	if err := opts.recordQueueDecision(r, audit.Granted, fmt.Sprintf("grant %s: %s, in %s, until %s", p.grant.ID, p.what, p.grant.Workspace, p.grant.Expires.UTC().Format(time.RFC3339))); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return failf(nil, "create %s: %v", filepath.Dir(path), err)
	}
	if err := writeFileAtomic(path, out, 0o600); err != nil {
		return failf(nil, "write %s: %v", path, err)
	}
	fmt.Fprintf(s.err, "guard: granted %s until %s: %s\n", p.grant.ID, clock(p.grant.Expires), p.what)
	fmt.Fprintf(s.err, "guard: hint: 'guard approvals' lists your grants; 'guard revoke %s' removes it\n", r.ID)
	return nil
}

// standingGrants are the grants in the user's policy, in file order.
func standingGrants(path string) ([]*policy.Rule, error) {
	data, err := safefile.Read(path, policy.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, failf(nil, "read policy %s: %v", path, err)
	}
	f, err := policy.Parse(path, data, policy.User)
	if err != nil {
		return nil, decision.PolicyError(err, true)
	}
	var out []*policy.Rule
	for _, r := range f.Rules {
		if strings.HasPrefix(r.ID, policy.GrantPrefix) {
			out = append(out, r)
		}
	}
	return out, nil
}

// listGrants prints the standing grants under the approvals table.
func listGrants(s *streams, path string, now time.Time) error {
	grants, err := standingGrants(path)
	if err != nil || len(grants) == 0 {
		return err
	}
	fmt.Fprintln(s.out)
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GRANT\tSTATE\tWORKSPACE\tALLOWS")
	for _, g := range grants {
		st := "expired"
		if g.InForce(now, g.Workspace) {
			st = fmt.Sprintf("active (%s left)", shortDuration(g.Expires.Sub(now)))
		}
		allows := g.Command
		if allows == "" {
			allows = strings.Join(g.Examples, "; ")
			if g.Regex == "" {
				allows = "caps " + capsText(g.Caps)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", g.ID, st, printable(g.Workspace, false), printable(allows, false))
	}
	return tw.Flush()
}

func capsText(caps []profile.Cap) string {
	var out []string
	for _, c := range caps {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}

// removeGrant removes grant-ID from the user's policy file at path, after
// its audit record (r is the grant's approval, when the queue still has
// it; note says why). found is false when the file holds no such grant.
func removeGrant(s *streams, opts *approvalsOptions, path string, r approval.Request, id, note string) (found bool, err error) {
	data, err := safefile.Read(path, policy.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read policy %s: %v", path, err)
	}
	out, found, err := policy.RemoveRule(path, data, policy.GrantPrefix+id)
	if err != nil {
		return false, decision.PolicyError(err, true)
	}
	if !found {
		return false, nil
	}
	if r.ID == "" {
		r = approval.Request{ID: id}
	}
	if err := opts.recordQueueDecision(r, audit.Revoked, note); err != nil {
		return false, err
	}
	if err := writeFileAtomic(path, out, 0o600); err != nil {
		return false, fmt.Errorf("write %s: %v", path, err)
	}
	fmt.Fprintf(s.err, "guard: revoked grant %s%s\n", policy.GrantPrefix, id)
	return true, nil
}

// newRevokeCmd is `guard revoke ID...`: withdraw a standing grant or an
// approval not used yet.
func newRevokeCmd(s *streams) *cobra.Command {
	opts := newApprovalsOptions()
	return &cobra.Command{
		Use:   "revoke ID...",
		Short: "Withdraw a standing grant or an approval not used yet",
		Long: `Removes the grant 'guard approve ID --grant' wrote to your policy (give the
approval's ID or the grant's rule id, grant-ID), and withdraws approval ID if it
has not been used yet, so it never runs. Each is recorded in the audit log.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := opts.resolve(); err != nil {
				return err
			}
			var errs []error
			for _, id := range args {
				if err := revoke(s, opts, strings.TrimPrefix(id, policy.GrantPrefix)); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) > 0 {
				return failf([]string{"run 'guard approvals' to list approvals and grants"}, "%v", errors.Join(errs...))
			}
			return nil
		},
	}
}

// revoke withdraws grant-ID from the user's policy and approval ID from the
// queue, whichever exist.
func revoke(s *streams, opts *approvalsOptions, id string) error {
	if !approval.ValidID(id) {
		return fmt.Errorf("%q is not an approval or grant id", id)
	}
	d, err := guardDirs()
	if err != nil {
		return err
	}
	r, err := approval.Get(opts.dir, id)
	if err != nil && !errors.Is(err, approval.ErrNotFound) {
		return err
	}
	done, err := removeGrant(s, opts, d.UserPolicy(), r, id, "grant "+policy.GrantPrefix+id+" revoked")
	if err != nil {
		return err
	}
	if r.Command != "" {
		if st := r.StateAt(opts.now()); st == approval.Approved || st == approval.Pending {
			if err := opts.recordQueueDecision(r, audit.Revoked, "approval "+id+" revoked"); err != nil {
				return err
			}
			if _, err := approval.Revoke(opts.dir, id, opts.now); err != nil {
				return err
			}
			fmt.Fprintf(s.err, "guard: revoked approval %s; it will not run\n", id)
			done = true
		} else if !done {
			return &approval.StateError{ID: id, State: st}
		}
	}
	if !done {
		return fmt.Errorf("no approval or grant %s", id)
	}
	return nil
}
