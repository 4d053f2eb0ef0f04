package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/guard-sh/guard/internal/rootdir"
	"golang.org/x/sys/unix"
)

// Op is what undo does to one path.
type Op string

const (
	OpRestore Op = "restore" // bring back the content from before
	OpRemove  Op = "remove"  // the command created it: delete it
	OpMkdir   Op = "mkdir"   // recreate a directory the command removed
)

// Action is one step of an undo.
type Action struct {
	Op   Op
	Path string // workspace-relative
	// Conflict says why the path is no longer as the command left it;
	// "" when it is. A conflicting action runs only with force.
	Conflict string
}

// Conflicts that even force does not override.
const (
	conflictBackup  = "its backup is missing or was changed"
	conflictSymlink = "it or a directory above it is a symlink now (never followed)"
)

// forced reports whether a conflicting action may run with force.
func (a Action) forced() bool { return a.Conflict != conflictBackup && a.Conflict != conflictSymlink }

// runs reports whether Apply carries out a.
func (a Action) runs(force bool) bool { return a.Conflict == "" || (force && a.forced()) }

// beforeChange, when set (tests), runs just before Apply changes the
// workspace for an action, after its last check.
var beforeChange func(Action)

// Plan is what undoing a checkpoint would do. It changes nothing.
type Plan struct {
	cp      *Checkpoint
	Actions []Action // sorted by path
}

// Checkpoint is the checkpoint the plan undoes.
func (p *Plan) Checkpoint() *Checkpoint { return p.cp }

// Conflicts counts the actions with a conflict.
func (p *Plan) Conflicts() int {
	n := 0
	for _, a := range p.Actions {
		if a.Conflict != "" {
			n++
		}
	}
	return n
}

// PlanUndo computes the undo of cp: every path the command changed goes
// back to its state before, where it is still as the command left it.
func PlanUndo(stateDir string, cp *Checkpoint) (*Plan, error) {
	if !cp.Finished {
		return nil, fmt.Errorf("checkpoint %s has no after state (the command did not finish under guard)", cp.ID)
	}
	if cp.Undone != nil {
		return nil, fmt.Errorf("checkpoint %s was already undone at %s", cp.ID, cp.Undone.Format(time.RFC3339))
	}
	p := &Plan{cp: cp}
	if cp.GitDir != "" {
		r, err := openRepo(cp.Workspace)
		if err != nil || r.gitDir != cp.GitDir {
			return nil, fmt.Errorf("workspace %s is no longer the git work tree of %s", cp.Workspace, cp.GitDir)
		}
		now, err := r.snapshot(stateDir, nil, r.protect)
		if err != nil {
			return nil, fmt.Errorf("read the workspace now: %w", err)
		}
		// The trees the diffs below read, checked first (verify.go): a
		// tree a command rewrote in .git/objects could hide a change
		// made since (undo would overwrite it) or name paths to remove.
		if err := r.verifyTrees(cp.Before, cp.After, now.tree); err != nil {
			return nil, fmt.Errorf("nothing can be undone: %w", err)
		}
		since, err := r.diff(cp.After, now.tree)
		if err != nil {
			return nil, err
		}
		changedSince := map[string]bool{}
		for _, c := range since {
			changedSince[c.path] = true
		}
		cs, err := r.diff(cp.Before, cp.After)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			a := Action{Op: OpRestore, Path: c.path}
			if c.status == 'A' {
				a.Op = OpRemove
			}
			if changedSince[c.path] {
				a.Conflict = "changed since the command ran"
			}
			p.Actions = append(p.Actions, a)
		}
	}
	var area *os.Root
	var areaBase string
	if cp.BackupDir != "" {
		// A backup area that cannot be opened as it was leaves every
		// backup "missing or changed" below.
		if area, areaBase, _ = cp.backupArea(); area != nil {
			defer area.Close()
		}
	}
	for _, e := range cp.Backups {
		if !e.Gone {
			continue
		}
		a := Action{Op: OpRestore, Path: e.Rel}
		if _, err := os.Lstat(cp.abs(e.Rel)); err == nil {
			a.Conflict = "created again since the command ran"
		}
		if e.Link == "" {
			var st os.FileInfo
			err := errors.New("no backup area")
			if area != nil {
				st, err = area.Lstat(filepath.Join(areaBase, filepath.FromSlash(e.Rel)))
			}
			if err != nil || !st.Mode().IsRegular() || st.Size() != e.Size || st.ModTime().UnixNano() != e.MTime || !sameChange(st, e) {
				a.Conflict = conflictBackup
			}
		}
		p.Actions = append(p.Actions, a)
	}
	for _, e := range cp.Dirs {
		if !e.Gone {
			continue
		}
		a := Action{Op: OpMkdir, Path: e.Rel}
		if st, err := os.Lstat(cp.abs(e.Rel)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			a.Conflict = conflictSymlink
		} else if err == nil && !st.IsDir() {
			a.Conflict = "a file is there now"
		}
		p.Actions = append(p.Actions, a)
	}
	for i, a := range p.Actions {
		if symlinkAbove(cp.Workspace, a.Path) {
			p.Actions[i].Conflict = conflictSymlink
		}
	}
	sort.SliceStable(p.Actions, func(i, j int) bool { return p.Actions[i].Path < p.Actions[j].Path })
	return p, nil
}

// sameChange reports whether the backup st still has the change time and
// inode Finish recorded for e (a checkpoint from before they were
// recorded has neither).
func sameChange(st fs.FileInfo, e entry) bool {
	if e.CTime == 0 {
		return true
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Ino == e.Ino && time.Unix(sys.Ctim.Unix()).UnixNano() == e.CTime
}

// symlinkAbove reports whether a directory between ws and rel is a
// symlink (or cannot be read): undo never writes or removes through one,
// which could reach outside the workspace.
func symlinkAbove(ws, rel string) bool {
	p := ws
	parts := strings.Split(rel, "/")
	for _, c := range parts[:len(parts)-1] {
		p = filepath.Join(p, c)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false // created as a directory on the way
		}
		if err != nil || st.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

func (cp *Checkpoint) abs(rel string) string {
	return filepath.Join(cp.Workspace, filepath.FromSlash(rel))
}

// Apply carries out the plan: the actions without a conflict, and with
// force the conflicting ones too, except a backup that is missing or was
// changed (its old content is gone) and a path below a symlink. It returns the actions it did and,
// when it did them all, marks the checkpoint undone.
func (p *Plan) Apply(stateDir string, force bool, now time.Time) ([]Action, error) {
	cp := p.cp
	// Every change undo makes itself goes through the workspace as an
	// os.Root: each name is resolved beneath it, one component at a
	// time, so a directory swapped for a symlink to elsewhere between
	// the check below and the write (a command of another guard run,
	// still running) is refused instead of followed.
	root, err := rootdir.Open(cp.Workspace)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	if err := p.verifyObjects(force); err != nil {
		return nil, err
	}
	// Checked again here: the workspace may have changed since the plan.
	runs := func(a Action) bool {
		ok := a.runs(force) && !symlinkAbove(cp.Workspace, a.Path)
		if ok && beforeChange != nil {
			beforeChange(a)
		}
		return ok
	}
	var done, restore []Action
	var removedDirs []string
	// Directories first, then removals, then restores: a file the
	// command replaced by a directory (or the reverse) comes back.
	for _, a := range p.Actions {
		if a.Op == OpMkdir && runs(a) {
			if err := mkdirMode(root, cp, a.Path); err != nil {
				return done, err
			}
			done = append(done, a)
		}
	}
	for _, a := range p.Actions {
		if a.Op != OpRemove || !runs(a) {
			continue
		}
		if err := root.RemoveAll(filepath.FromSlash(a.Path)); err != nil {
			return done, fmt.Errorf("remove %s: %w", a.Path, err)
		}
		removedDirs = append(removedDirs, pathDir(a.Path))
		done = append(done, a)
	}
	backups := map[string]entry{}
	for _, e := range cp.Backups {
		backups[e.Rel] = e
	}
	var area *os.Root
	var areaBase string
	if cp.BackupDir != "" {
		area, areaBase, err = cp.backupArea()
		if err != nil {
			return done, fmt.Errorf("open the backups: %w", err)
		}
		defer area.Close()
	}
	var fromGit []string
	for _, a := range p.Actions {
		if a.Op != OpRestore || !runs(a) {
			continue
		}
		if e, ok := backups[a.Path]; ok {
			if err := restoreBackup(root, area, areaBase, e); err != nil {
				return done, err
			}
			done = append(done, a)
			continue
		}
		fromGit = append(fromGit, a.Path)
		restore = append(restore, a)
	}
	if len(fromGit) > 0 {
		r, err := openRepo(cp.Workspace)
		if err != nil {
			return done, fmt.Errorf("open repository: %w", err)
		}
		// The permissions git does not record: a deleted file's as Begin
		// found them (checkpoint.Modes), a file restored in place keeps
		// its own (restore writes a new file), never more than Begin
		// found: a 0600 key the command deleted and made again as 0644
		// comes back 0600.
		modes, raw := map[string]fs.FileMode{}, map[string]bool{}
		for _, e := range cp.Modes {
			modes[e.Rel], raw[e.Rel] = e.Mode.Perm(), true
		}
		for _, p := range fromGit {
			st, err := root.Lstat(filepath.FromSlash(p))
			switch {
			case err != nil:
			case st.IsDir():
				// A file is not renamed over a directory.
				if err := root.RemoveAll(filepath.FromSlash(p)); err != nil {
					return done, err
				}
			case st.Mode().IsRegular():
				if m, ok := modes[p]; ok {
					modes[p] = m & st.Mode().Perm()
				} else {
					modes[p] = st.Mode().Perm()
				}
			}
		}
		if err := r.restore(root, cp.Before, fromGit, modes, raw); err != nil {
			return done, fmt.Errorf("restore from checkpoint: %w", err)
		}
		done = append(done, restore...)
		if err := removeCreatedDirs(root, r, cp, removedDirs); err != nil {
			return done, err
		}
	} else if len(removedDirs) > 0 && cp.GitDir != "" {
		if r, err := openRepo(cp.Workspace); err == nil {
			if err := removeCreatedDirs(root, r, cp, removedDirs); err != nil {
				return done, err
			}
		}
	}
	if len(done) < len(p.Actions) {
		// Paths were kept: a later forced undo may still take them back.
		return done, nil
	}
	t := now.UTC()
	cp.Undone = &t
	return done, cp.save(stateDir)
}

// verifyObjects checks, before Apply changes anything, the objects of
// the repository that the paths it restores from git come from (see
// verify.go): a store that does not match the checkpoint's before tree
// restores nothing.
func (p *Plan) verifyObjects(force bool) error {
	cp := p.cp
	if cp.GitDir == "" {
		return nil
	}
	backedUp := map[string]bool{}
	for _, e := range cp.Backups {
		backedUp[e.Rel] = true
	}
	var paths []string
	for _, a := range p.Actions {
		if a.Op == OpRestore && a.runs(force) && !backedUp[a.Path] {
			paths = append(paths, a.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	r, err := openRepo(cp.Workspace)
	if err != nil {
		return fmt.Errorf("open repository: %w", err)
	}
	if err := r.verify(cp.Before, paths); err != nil {
		return fmt.Errorf("nothing was undone: %w", err)
	}
	return nil
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// removeCreatedDirs removes the now-empty directories the command created
// (absent from the before tree and not recorded as removed dirs).
func removeCreatedDirs(root *os.Root, r *repo, cp *Checkpoint, dirs []string) error {
	before, err := r.dirs(cp.Before)
	if err != nil {
		return err
	}
	for _, d := range cp.Dirs {
		before[d.Rel] = true
	}
	for _, d := range dirs {
		for ; d != ""; d = pathDir(d) {
			if before[d] {
				break
			}
			if err := root.Remove(filepath.FromSlash(d)); err != nil {
				break // not empty, or gone: leave it
			}
		}
	}
	return nil
}

// mkdirMode recreates a removed directory with its old permissions; a
// file in its place (forced) goes. Its parents are not symlinks
// (symlinkAbove), and neither is it.
func mkdirMode(root *os.Root, cp *Checkpoint, rel string) error {
	p := filepath.FromSlash(rel)
	if st, err := root.Lstat(p); err == nil && st.Mode().IsRegular() {
		if err := root.Remove(p); err != nil {
			return fmt.Errorf("recreate %s: %w", rel, err)
		}
	}
	for _, e := range cp.Dirs {
		if e.Rel == rel {
			if err := root.MkdirAll(p, 0o755); err != nil {
				return fmt.Errorf("recreate %s: %w", rel, err)
			}
			if st, err := root.Lstat(p); err != nil || !st.IsDir() {
				return fmt.Errorf("recreate %s: not a directory", rel)
			}
			return root.Chmod(p, e.Mode.Perm())
		}
	}
	return nil
}

// restoreBackup links a backed-up file back into the workspace, through
// root: the link is made in the directory root resolves, never in one a
// symlink leads to outside the workspace.
func restoreBackup(root, area *os.Root, areaBase string, e entry) error {
	to := filepath.FromSlash(e.Rel)
	parent := filepath.Dir(to)
	if err := root.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", e.Rel, err)
	}
	if err := root.RemoveAll(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w", e.Rel, err)
	}
	d, err := root.Open(parent)
	if err != nil {
		return fmt.Errorf("restore %s: %w", e.Rel, err)
	}
	defer d.Close()
	if st, err := d.Stat(); err != nil || !st.IsDir() {
		return fmt.Errorf("restore %s: %s is not a directory", e.Rel, parent)
	}
	base := filepath.Base(to)
	if e.Link != "" {
		err = unix.Symlinkat(e.Link, int(d.Fd()), base)
	} else {
		var from *os.File
		if area == nil {
			err = errors.New("no backup area")
		} else if from, err = dirAt(area, filepath.Join(areaBase, parent)); err == nil {
			err = linkAt(from, base, d)
			from.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", e.Rel, err)
	}
	return nil
}
