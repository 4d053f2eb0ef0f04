package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/checkpoint"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/review"
)

// undoConfig is the [undo] table of config.toml.
type undoConfig struct {
	Enabled        *bool  `toml:"enabled"`
	Keep           *int   `toml:"keep"`
	Days           *int   `toml:"days"`
	MaxBackupFiles *int   `toml:"max_backup_files"`
	MaxBackupMB    *int64 `toml:"max_backup_mb"`
}

// undoSettings are the checkpoint budget and retention in force.
type undoSettings struct {
	disabled  bool // no checkpoints: workspace deletes stay B
	budget    checkpoint.Budget
	retention checkpoint.Retention
}

func defaultUndoSettings() undoSettings {
	return undoSettings{budget: checkpoint.DefaultBudget, retention: checkpoint.DefaultRetention}
}

// settings checks [undo] and applies it over the defaults.
func (c undoConfig) settings(path string) (undoSettings, error) {
	u := defaultUndoSettings()
	u.disabled = c.Enabled != nil && !*c.Enabled
	bad := func(key string) error {
		return failf([]string{"write a whole number of at least 0"}, "%s: bad [undo] %s", path, key)
	}
	if c.Keep != nil {
		if *c.Keep < 0 {
			return u, bad("keep")
		}
		u.retention.Keep = *c.Keep
	}
	if c.Days != nil {
		if *c.Days < 0 {
			return u, bad("days")
		}
		u.retention.MaxAge = time.Duration(*c.Days) * 24 * time.Hour
	}
	if c.MaxBackupFiles != nil {
		if *c.MaxBackupFiles < 0 {
			return u, bad("max_backup_files")
		}
		u.budget.MaxFiles = *c.MaxBackupFiles
	}
	if c.MaxBackupMB != nil {
		if *c.MaxBackupMB < 0 {
			return u, bad("max_backup_mb")
		}
		u.budget.MaxBytes = *c.MaxBackupMB << 20
	}
	return u, nil
}

// coverDeletes reviews a again with the delete targets guard's checkpoint
// will restore (review.Input.Recoverable). It returns the new assessment
// and, when its level differs, the one without the checkpoint: the run
// falls back to it if the checkpoint cannot be taken.
func coverDeletes(e *decision.Engine, a *assessment, o assessOptions) (*assessment, *assessment) {
	ts := checkpoint.Targets(a.Profile)
	deletes := 0
	for _, t := range ts {
		if !t.Written {
			deletes++
		}
	}
	if deletes == 0 || !a.Ctx.WorkspaceUsable() {
		return a, nil
	}
	st, err := loadSettings()
	if err != nil || st.undo.disabled {
		return a, nil
	}
	o.Recoverable = checkpoint.Cover(e.Dirs().State, a.Ctx.Workspace, ts, st.undo.budget)
	if len(o.Recoverable) == 0 {
		return a, nil
	}
	covered := decision.AssessIn(a.Text, a.Ctx, a.Policy, o)
	if covered.Verdict.Level == a.Verdict.Level {
		return covered, nil
	}
	return covered, a
}

// decideCheckpointed is decideRun, then the checkpoint before a command
// whose sandbox may write the workspace. When the verdict relied on the
// checkpoint (uncovered is not nil) and it cannot be taken, or it does
// not cover what review counted on, the line is decided again as it
// stands without it.
func decideCheckpointed(s *streams, e *decision.Engine, a, uncovered *assessment, log *audit.Log, how runDecide, id string) (*assessment, *checkpoint.Checkpoint, audit.Decision, error) {
	decided, err := decideRunWith(s, e, a, log, how)
	if err != nil || !takesCheckpoint(a) {
		return a, nil, decided, err
	}
	cp, cerr := beginCheckpoint(e, a, id)
	if cerr == nil && !coversAll(cp, a.Input.Recoverable) {
		cerr = fmt.Errorf("the workspace changed since the review")
	}
	if cerr == nil || uncovered == nil {
		if cerr != nil && len(a.Input.Recoverable) > 0 {
			fmt.Fprintf(s.err, "guard: warning: no checkpoint, this command cannot be undone: %s\n", printable(cerr.Error(), false))
		}
		return a, cp, decided, nil
	}
	fmt.Fprintf(s.err, "guard: warning: no checkpoint (%s): the delete cannot be undone, so it needs your consent\n", printable(cerr.Error(), false))
	if cp != nil {
		cp.Discard(e.Dirs().State)
	}
	decided, err = decideRunWith(s, e, uncovered, log, how)
	if err != nil {
		return uncovered, nil, decided, err
	}
	cp, _ = beginCheckpoint(e, uncovered, id)
	return uncovered, cp, decided, nil
}

// coversAll reports whether the checkpoint covers every target review
// counted on.
func coversAll(cp *checkpoint.Checkpoint, targets []string) bool {
	have := map[string]bool{}
	for _, t := range cp.Covered {
		have[t] = true
	}
	for _, t := range targets {
		if !have[t] {
			return false
		}
	}
	return true
}

func beginCheckpoint(e *decision.Engine, a *assessment, id string) (*checkpoint.Checkpoint, error) {
	st, err := loadSettings()
	if err != nil {
		return nil, err
	}
	if st.undo.disabled {
		return nil, errors.New("checkpoints are off ([undo] enabled = false)")
	}
	return checkpoint.Begin(checkpoint.Options{
		StateDir: e.Dirs().State, Workspace: a.Ctx.Workspace, ID: id, Command: a.Text,
		Time: time.Now(), Deletes: checkpoint.Targets(a.Profile), Budget: st.undo.budget,
	})
}

// storeViolation starts the run's violation line for a repository whose
// object store or refs a command swapped for a symlink, or that it moved
// (checkpoint.ErrStoreLink, ErrRepoMoved): guard's git would write
// through it, so no checkpoint was taken.
const storeViolation = "the command swapped or moved the repository's store, so guard took no checkpoint: "

// finishCheckpoint records the workspace after the command, takes out
// the code the command gave other git repositories in the workspace
// (disarmRepos; it returns what it moved aside, for the run's record),
// says how to undo a delete that ran without asking because of the
// checkpoint, and prunes old checkpoints.
func finishCheckpoint(s *streams, e *decision.Engine, a *assessment, cp *checkpoint.Checkpoint) []string {
	if cp == nil {
		return nil
	}
	changed, err := cp.Finish(e.Dirs().State)
	// The repositories are checked all the same (Finish fills Repos,
	// failed or not).
	lines := disarmRepos(cp.Workspace, cp.Repos)
	switch {
	case errors.Is(err, checkpoint.ErrStoreLink) || errors.Is(err, checkpoint.ErrRepoMoved):
		// Not a checkpoint that merely failed: a violation of its own.
		return append(lines, storeViolation+printable(err.Error(), false))
	case err != nil:
		fmt.Fprintf(s.err, "guard: warning: checkpoint %s: %s\n", cp.ID, printable(err.Error(), false))
		return lines
	}
	if changed && len(a.Input.Recoverable) > 0 && a.Verdict.Level == review.A {
		fmt.Fprintf(s.err, "guard: note: 'guard undo %s' takes this command back\n", cp.ID)
	}
	if st, err := loadSettings(); err == nil {
		checkpoint.Prune(e.Dirs().State, st.undo.retention, time.Now())
	}
	return lines
}

// doctorCheckpoints is guard doctor's line about checkpoints: how many
// there are and what their backups hold (add it to doctorFiles).
func doctorCheckpoints(stateDir string) doctorCheck {
	c := doctorCheck{Name: "checkpoints"}
	u, err := checkpoint.Measure(stateDir)
	switch {
	case err != nil:
		c.Detail = err.Error()
	case u.Checkpoints == 0:
		c.OK, c.Detail = true, "none yet ('guard undo --list')"
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%d since %s; hard-link backups: %d files, %s ('guard undo --prune' drops old ones)", u.Checkpoints, clock(u.Oldest), u.BackupFiles, byteSize(u.BackupBytes))
	}
	return c
}

// byteSize writes n bytes for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
