package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/checkpoint"
	"github.com/guard-sh/guard/sandbox"
)

// objectsHints follow checkpoint.ErrObjects: undo changed nothing.
var objectsHints = []string{
	"a command changed the repository's object store (.git/objects) since the checkpoint: what guard would restore is not what it recorded",
	"'git fsck' shows the damaged objects; restore the files from another clone or a backup",
}

// undoOptions are the flags of `guard undo` and `guard checkpoints`.
type undoOptions struct {
	id        string
	yes       bool
	force     bool
	list      bool
	prune     bool
	all       bool
	workspace string
}

// exitConflicts: guard undo restored what it could and kept paths that
// changed since the command ran.
const exitConflicts = 1

// undoListShown is how many changed paths --list shows per checkpoint.
const undoListShown = 5

func newUndoCmd(s *streams) *cobra.Command {
	o := &undoOptions{}
	c := &cobra.Command{
		Use:   "undo [ID]",
		Short: "Take back what a command did to the workspace",
		Long: `Before a command that may write the workspace, guard records the workspace;
after it, the workspace again. 'guard undo' puts back exactly the paths the
command changed: deleted files come back (content and executable bit),
modified ones revert, created ones go. A path changed since the command ran
is a conflict and is kept, unless --force. Without ID, the newest checkpoint
of this workspace not yet undone.

It shows what it will do and asks on the terminal (--yes for scripts).
Exit status: 0 done; 1 done, but conflicting paths were kept; 126 not
confirmed; 125 error (no terminal to ask on without --yes, too). 'guard docs undo' says what is and is not covered.`,
		Example: `  guard undo --list
  guard undo
  guard undo 3f2a9c0d11e4b7a5 --yes
  guard undo --prune`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.id = args[0]
			}
			return runUndo(s, o)
		},
	}
	c.Flags().BoolVarP(&o.yes, "yes", "y", false, "do not ask on the terminal")
	c.Flags().BoolVar(&o.force, "force", false, "also overwrite paths changed since the command ran")
	c.Flags().BoolVar(&o.list, "list", false, "list recent checkpoints and what each command changed")
	c.Flags().BoolVar(&o.prune, "prune", false, "delete checkpoints beyond [undo] keep and days in config.toml, and the cache layer")
	c.Flags().BoolVar(&o.all, "all", false, "with --list: every workspace, not only this one")
	c.Flags().StringVar(&o.workspace, "workspace", "", "the workspace (default: the git top level of the current directory, else it)")
	return c
}

// newCheckpointsCmd is `guard checkpoints`, the same as `guard undo --list`.
func newCheckpointsCmd(s *streams) *cobra.Command {
	o := &undoOptions{list: true}
	c := &cobra.Command{
		Use:   "checkpoints",
		Short: "List recent checkpoints (guard undo --list)",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runUndo(s, o) },
	}
	c.Flags().BoolVar(&o.all, "all", false, "every workspace, not only this one")
	c.Flags().StringVar(&o.workspace, "workspace", "", "the workspace (default: the git top level of the current directory, else it)")
	return c
}

func runUndo(s *streams, o *undoOptions) error {
	e, err := newEngine()
	if err != nil {
		return err
	}
	state := e.Dirs().State
	st, err := loadSettings()
	if err != nil {
		return err
	}
	if o.prune {
		removed, err := checkpoint.Prune(state, st.undo.retention, time.Now())
		if err != nil {
			return failf(nil, "%v", err)
		}
		fmt.Fprintf(s.err, "guard: pruned %d checkpoints\n", len(removed))
		// And the layer sandboxed runs wrote ~/.cache into (sandbox/layer.go):
		// only a cache, the next runs' builds warm it again.
		switch n, err := sandbox.DropLayer(filepath.Join(state, "layers")); {
		case errors.Is(err, sandbox.ErrLayerInUse):
			fmt.Fprintln(s.err, "guard: the cache layer is in use by a running command; kept")
		case err != nil:
			return failf(nil, "drop the cache layer: %v", err)
		case n > 0:
			fmt.Fprintf(s.err, "guard: dropped the cache layer (%s sandboxed runs wrote to ~/.cache)\n", byteSize(n))
		}
		return nil
	}
	ctx, err := e.Context("", o.workspace)
	if err != nil {
		return err
	}
	ws := ctx.Workspace
	if o.list {
		if o.all {
			ws = ""
		}
		cps, err := checkpoint.List(state, ws)
		if err != nil {
			return failf(nil, "%v", err)
		}
		if len(cps) == 0 {
			// Said to people, on stderr: stdout stays a list (empty).
			where := "for " + ws
			if ws == "" {
				where = "anywhere"
			}
			fmt.Fprintf(s.err, "guard: no checkpoints %s (guard takes one before each command that may change the workspace)\n", where)
			return nil
		}
		listCheckpoints(s.out, cps)
		return nil
	}
	cp, err := pickCheckpoint(state, o.id, ws)
	if err != nil {
		return err
	}
	plan, err := checkpoint.PlanUndo(state, cp)
	if errors.Is(err, checkpoint.ErrObjects) {
		return failf(objectsHints, "undo %s: %v", cp.ID, err)
	}
	if err != nil {
		return failf([]string{"run 'guard undo --list' to see the checkpoints"}, "%v", err)
	}
	fmt.Fprintf(s.err, "guard: undo %s: %s (%s)\n", cp.ID, audit.Mask(printable(cp.Command, false)), clock(cp.Time))
	if len(plan.Actions) == 0 {
		fmt.Fprintf(s.err, "guard: nothing to undo\n")
		return nil
	}
	for _, a := range plan.Actions {
		if a.Conflict != "" {
			fmt.Fprintf(s.err, "  conflict %s: %s (kept; --force overwrites)\n", printable(a.Path, false), a.Conflict)
			continue
		}
		fmt.Fprintf(s.err, "  %-8s %s\n", a.Op, printable(a.Path, false))
	}
	if !o.yes {
		if err := confirmUndo(); err != nil {
			return err
		}
	}
	// No audit record, no undo: the log must be writable before anything
	// is put back.
	log, err := openAudit(state)
	if err != nil {
		return err
	}
	defer log.Close()
	done, err := plan.Apply(state, o.force, time.Now())
	kept := len(plan.Actions) - len(done)
	note := fmt.Sprintf("checkpoint %s of %q: %d paths put back, %d kept", cp.ID, cp.Command, len(done), kept)
	rec := audit.Record{ID: audit.NewID(), Session: audit.Session(os.Getenv("GUARD_SESSION"), os.Getppid()), Provenance: "user",
		Cwd: ctx.Cwd, Workspace: cp.Workspace, Command: "guard undo " + cp.ID, Decision: audit.Undone, Note: note}
	if err != nil {
		rec.Decision, rec.Note = audit.Failed, note+": "+err.Error()
	}
	if rerr := appendAudit(log, rec); rerr != nil {
		fmt.Fprintf(s.err, "guard: error: %v\n", rerr)
	}
	if errors.Is(err, checkpoint.ErrObjects) {
		return failf(objectsHints, "undo %s: %v", cp.ID, err)
	}
	if err != nil {
		return failf([]string{"what was put back stays; run 'guard undo --list' to see the checkpoint"}, "undo %s: %v", cp.ID, err)
	}
	fmt.Fprintf(s.err, "guard: undone %s: %d paths put back\n", cp.ID, len(done))
	if kept > 0 {
		fmt.Fprintf(s.err, "guard: warning: %d paths changed since the command ran were kept\n", kept)
		fmt.Fprintf(s.err, "guard: hint: 'guard undo %s --force' puts them back too, overwriting what changed since\n", cp.ID)
		return exitCode(exitConflicts)
	}
	return nil
}

// pickCheckpoint loads checkpoint id, or the newest of ws not undone.
func pickCheckpoint(state, id, ws string) (*checkpoint.Checkpoint, error) {
	hint := []string{"run 'guard undo --list' to see the checkpoints"}
	if id != "" {
		cp, err := checkpoint.Load(state, id)
		if err != nil {
			return nil, failf(hint, "%v", err)
		}
		return cp, nil
	}
	cps, err := checkpoint.List(state, ws)
	if err != nil {
		return nil, failf(nil, "%v", err)
	}
	for _, cp := range cps {
		if cp.Undone == nil {
			return cp, nil
		}
	}
	return nil, failf(hint, "no checkpoint to undo in %s", ws)
}

// confirmUndo asks y/N on the terminal.
func confirmUndo() error {
	t, err := openTerminal()
	if err != nil {
		return noTerminalError(err, "run 'guard undo' in a terminal, or pass --yes")
	}
	defer t.Close()
	ans, err := t.readLine("Undo this? [y/N] ", true, defaultAnswerTimeout)
	if err != nil && !errors.Is(err, io.EOF) {
		return &exitError{code: exitNotRun, err: fmt.Errorf("not undone: %v", err)}
	}
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
		return &exitError{code: exitNotRun, err: errors.New("not undone")}
	}
	return nil
}

// listCheckpoints prints checkpoints, newest first, with what changed.
func listCheckpoints(w io.Writer, cps []*checkpoint.Checkpoint) {
	for _, cp := range cps {
		state := ""
		if cp.Undone != nil {
			state = " (undone)"
		}
		fmt.Fprintf(w, "%s  %s  %s%s\n", cp.ID, clock(cp.Time), audit.Mask(printable(cp.Command, false)), state)
		counts := map[string]int{}
		for _, c := range cp.Changes {
			counts[c.Kind]++
		}
		var parts []string
		for _, k := range []string{"deleted", "modified", "added"} {
			if counts[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
			}
		}
		fmt.Fprintf(w, "    %s in %s\n", strings.Join(parts, ", "), cp.Workspace)
		for i, c := range cp.Changes {
			if i == undoListShown {
				fmt.Fprintf(w, "    … and %d more\n", len(cp.Changes)-i)
				break
			}
			fmt.Fprintf(w, "    %-8s %s\n", c.Kind, printable(c.Path, false))
		}
	}
}
