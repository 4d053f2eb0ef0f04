package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/guard-sh/guard/internal/rootdir"
	"golang.org/x/sys/unix"
)

// Checkpoint is the record of one command: the workspace before and after
// it ran. It is stored as STATE/checkpoints/ID/meta.json.
type Checkpoint struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Command   string    `json:"command"`
	Workspace string    `json:"workspace"`
	// GitDir is the repository whose object store holds Before and After
	// (trees); "" for a workspace outside git.
	GitDir string `json:"git_dir,omitempty"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Dirs are the directories under the delete targets (git does not
	// keep empty ones); Backups the files git does not hold, hard-linked
	// under BackupDir.
	Dirs      []entry `json:"dirs,omitempty"`
	Backups   []entry `json:"backups,omitempty"`
	BackupDir string  `json:"backup_dir,omitempty"`
	// Covered are the delete targets this checkpoint restores.
	Covered []string `json:"covered,omitempty"`
	// Modes are the permissions of the files git holds under Covered:
	// git records only the executable bit, and a private file (a key
	// at 0600) would come back readable by all. Their blobs are their
	// bytes (Begin checked that git converts none of them): undo writes
	// them as they are, whatever the attributes say then.
	Modes []entry `json:"modes,omitempty"`
	// Changes are what the command changed, set by Finish.
	Changes []Change `json:"changes,omitempty"`
	// Repos are the git repositories inside the workspace whose code
	// the command may have changed, set by Finish (see RepoChange).
	Repos []RepoChange `json:"repos,omitempty"`
	// Finished: the after state is recorded. Undone: guard undo ran.
	Finished bool       `json:"finished"`
	Undone   *time.Time `json:"undone,omitempty"`

	// before is the snapshot Before came from: its index entries are
	// what Finish compares with (nil entries: git diff-tree compares the
	// trees), and, when the index is unchanged, Finish's own.
	before snapshotResult
	// common is the repository's common directory when Begin opened it;
	// gitPath and path the git it found (reopenRepo).
	common, gitPath, path string
}

// Change is one path a command added, modified or deleted.
type Change struct {
	Kind string `json:"kind"` // "added", "modified", "deleted"
	Path string `json:"path"` // workspace-relative
}

// Options say what to checkpoint.
type Options struct {
	StateDir  string // guard's state directory
	Workspace string // absolute, symlinks resolved
	ID        string // the audit request id
	Command   string
	Time      time.Time
	Deletes   []Target // the profile's delete targets inside the workspace
	Budget    Budget
}

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{8,64}$`) })

func dir(stateDir, id string) string { return filepath.Join(stateDir, "checkpoints", id) }

// Begin records the workspace before a command: in git, the tree of
// guard's own index of the repository, brought up to date (scan.go) and
// kept under refs/guard/index/H; hard-link backups of delete targets git
// does not hold. The returned checkpoint lists in Covered the delete
// targets it restores. An error means no checkpoint exists.
func Begin(o Options) (*Checkpoint, error) {
	if !idPattern().MatchString(o.ID) {
		return nil, fmt.Errorf("bad checkpoint id %q", o.ID)
	}
	cp := &Checkpoint{ID: o.ID, Time: o.Time.UTC(), Command: o.Command, Workspace: o.Workspace}
	ok := false
	defer func() {
		if !ok {
			cp.remove(o.StateDir)
		}
	}()
	r, err := openRepo(o.Workspace)
	if err != nil && !errors.Is(err, errNoRepo) {
		return nil, err
	}
	if r != nil {
		cp.GitDir, cp.common, cp.gitPath, cp.path = r.gitDir, r.commonDir(), r.gitPath, r.path
		// The before tree is guard's index's: its ref keeps it from git
		// gc while the command runs; Finish names it for this checkpoint
		// if the command changes anything.
		res, err := r.snapshot(o.StateDir, nil, r.protect)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		cp.Before, cp.before = res.tree, res
	}
	s := surveyTargets(o.Workspace, r, o.Deletes)
	cp.Dirs = s.dirs
	root := ""
	if len(o.Deletes) > 0 {
		root = backupRoot(o.StateDir, o.Workspace, r)
	}
	cp.Covered = s.inTree(r, cp.Before, s.covered(o.Deletes, o.Budget, root != ""))
	for _, t := range cp.Covered {
		for _, rel := range s.inGit[t] {
			if m, ok := s.modes[rel]; ok {
				cp.Modes = append(cp.Modes, entry{Rel: rel, Mode: m})
				delete(s.modes, rel) // once, for overlapping targets
			}
		}
	}
	// Backups only for covered targets: over budget, or with no place for
	// them, the delete is not covered and git's trees are still kept.
	covered := map[string]bool{}
	for _, t := range cp.Covered {
		covered[t] = true
	}
	seen := map[string]bool{}
	for _, t := range o.Deletes {
		if !covered[t.Path] || !s.needs[t.Path] {
			continue
		}
		for _, e := range s.backupOf[t.Path] {
			if !seen[e.Rel] {
				seen[e.Rel] = true
				cp.Backups = append(cp.Backups, e)
			}
		}
	}
	if len(cp.Backups) > 0 {
		cp.BackupDir = filepath.Join(root, o.ID, "files")
		if err := link(o.Workspace, cp); err != nil {
			return nil, err
		}
		// Written now so that Prune finds the backups if the command
		// never finishes; otherwise Finish writes the record (a
		// checkpoint without one leaves nothing behind).
		if err := cp.save(o.StateDir); err != nil {
			return nil, err
		}
	}
	ok = true
	return cp, nil
}

// beforeLink, when set (tests), runs as link begins: after the survey
// chose the files to back up.
var beforeLink func()

// link hard-links every backup of cp from ws into cp.BackupDir
// (symlinks are copied as symlinks), through os.Root on both sides
// (backupdir.go).
func link(ws string, cp *Checkpoint) error {
	if beforeLink != nil {
		beforeLink()
	}
	src, err := rootdir.Open(ws)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer src.Close()
	// The holder of the backup root: guard's state dir (made on a first
	// run) or the git dir, which exists.
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(filepath.Dir(cp.BackupDir))), 0o700); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	dst, base, err := cp.backupArea()
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer dst.Close()
	// The directory last opened on each side: backups come a
	// directory at a time.
	var from, to *os.File
	var fromName, toName string
	defer func() {
		for _, f := range []*os.File{from, to} {
			if f != nil {
				f.Close()
			}
		}
	}()
	open := func(root *os.Root, f **os.File, cur *string, name string) error {
		if *f != nil && *cur == name {
			return nil
		}
		if *f != nil {
			(*f).Close()
			*f = nil
		}
		d, err := dirAt(root, name)
		if err != nil {
			return err
		}
		*f, *cur = d, name
		return nil
	}
	for _, e := range cp.Backups {
		rel := filepath.FromSlash(e.Rel)
		dir, name := filepath.Join(base, filepath.Dir(rel)), filepath.Base(rel)
		if err := dst.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if err := open(dst, &to, &toName, dir); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if e.Link != "" {
			err = unix.Symlinkat(e.Link, int(to.Fd()), name)
		} else if err = open(src, &from, &fromName, filepath.Dir(rel)); err == nil {
			err = linkAt(from, name, to)
		}
		if err != nil {
			return fmt.Errorf("backup %s: %w", e.Rel, err)
		}
	}
	return nil
}

// Finish records the workspace after the command and what it changed.
// A command that changed nothing leaves no checkpoint (changed is false).
func (cp *Checkpoint) Finish(stateDir string) (changed bool, err error) {
	var area *os.Root
	var areaBase string
	if len(cp.Backups) > 0 {
		if area, areaBase, err = cp.backupArea(); err != nil {
			return false, fmt.Errorf("checkpoint after: backups: %w", err)
		}
		defer area.Close()
	}
	for i, e := range cp.Backups {
		if _, err := os.Lstat(filepath.Join(cp.Workspace, filepath.FromSlash(e.Rel))); errors.Is(err, fs.ErrNotExist) {
			cp.Backups[i].Gone = true
			cp.Changes = append(cp.Changes, Change{Kind: "deleted", Path: e.Rel})
			// The backup's change time now, after the delete (which
			// changed its link count): a backup a later command writes
			// in place, whatever size and mtime it leaves, changes it.
			if e.Link == "" {
				if st, err := area.Lstat(filepath.Join(areaBase, filepath.FromSlash(e.Rel))); err == nil {
					if sys, ok := st.Sys().(*syscall.Stat_t); ok {
						cp.Backups[i].CTime = time.Unix(sys.Ctim.Unix()).UnixNano()
						cp.Backups[i].Ino = sys.Ino
					}
				}
			}
		}
	}
	for i, e := range cp.Dirs {
		if _, err := os.Lstat(filepath.Join(cp.Workspace, filepath.FromSlash(e.Rel))); errors.Is(err, fs.ErrNotExist) {
			cp.Dirs[i].Gone = true
		}
	}
	if cp.GitDir != "" {
		// A snapshot that fails (one the command made fail: a symlink in
		// the object store) still leaves the workspace's repositories
		// checked for the code the command gave them.
		failed := func(err error) (bool, error) {
			cp.Repos = repoChanges(cp.Workspace, cp.before.entries, snapshotResult{entries: cp.before.entries}, cp.Time.Add(-repoSlack))
			return false, fmt.Errorf("checkpoint after: %w", err)
		}
		r, err := reopenRepo(cp.Workspace, cp.gitPath, cp.path)
		if err != nil {
			return failed(err)
		}
		if r.gitDir != cp.GitDir || r.commonDir() != cp.common {
			return failed(fmt.Errorf("%w: its git directory is now %s (common %s), was %s (common %s)", ErrRepoMoved, r.gitDir, r.commonDir(), cp.GitDir, cp.common))
		}
		var cs []change
		res, err := r.snapshot(stateDir, &cp.before, func(res snapshotResult) error {
			var err error
			if cp.before.entries != nil && res.entries != nil {
				cs = diffEntries(cp.before.entries, res.entries)
			} else if cs, err = r.diff(cp.Before, res.tree); err != nil {
				return err
			}
			if len(cs) == 0 && len(cp.Changes) == 0 && !anyGone(cp.Dirs) {
				return r.protect(res) // no checkpoint: the same tree as before
			}
			// Kept: its trees are named for it (undo reads them).
			return r.keep(cp.ID, cp.Before, res.tree, res)
		})
		if err != nil {
			return failed(err)
		}
		cp.After = res.tree
		cp.Repos = repoChanges(cp.Workspace, cp.before.entries, res, cp.Time.Add(-repoSlack))
		for _, c := range cs {
			cp.Changes = append(cp.Changes, Change{Kind: kindOf(c.status), Path: c.path})
		}
	}
	cp.Finished = true
	if len(cp.Changes) == 0 && !anyGone(cp.Dirs) {
		return false, cp.remove(stateDir)
	}
	sort.Slice(cp.Changes, func(i, j int) bool { return cp.Changes[i].Path < cp.Changes[j].Path })
	return true, cp.save(stateDir)
}

func anyGone(es []entry) bool {
	for _, e := range es {
		if e.Gone {
			return true
		}
	}
	return false
}

// seedIndex is guard's own index of repository r: the work tree as the
// last snapshot found it (the record of what else it knows is next to
// it, see scan.go).
func seedIndex(stateDir string, r *repo) string {
	h := sha256.Sum256([]byte(r.gitDir))
	return filepath.Join(stateDir, "checkpoints", "index-"+hex.EncodeToString(h[:8]))
}

func kindOf(st byte) string {
	switch st {
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	}
	return "modified"
}

func (cp *Checkpoint) save(stateDir string) error {
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	d := dir(stateDir, cp.ID)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	p := filepath.Join(d, "meta.json")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// Discard deletes a checkpoint that will not be used.
func (cp *Checkpoint) Discard(stateDir string) error { return cp.remove(stateDir) }

// remove deletes a checkpoint: its record, backups and private ref.
func (cp *Checkpoint) remove(stateDir string) error {
	// Refs name the trees of a checkpoint Finish kept (and, from older
	// versions, of unfinished ones); one that changed nothing has none.
	if cp.GitDir != "" && (!cp.Finished || len(cp.Changes) > 0 || anyGone(cp.Dirs)) {
		if r, err := openRepo(cp.Workspace); err == nil && r.gitDir == cp.GitDir {
			r.drop(cp.ID)
		}
	}
	if cp.BackupDir != "" {
		if root, rel, err := cp.backupArea(); err == nil {
			root.RemoveAll(filepath.Dir(rel))
			root.Close()
		}
	}
	return os.RemoveAll(dir(stateDir, cp.ID))
}

// Load reads checkpoint id.
func Load(stateDir, id string) (*Checkpoint, error) {
	if !idPattern().MatchString(id) {
		return nil, fmt.Errorf("no checkpoint %q", id)
	}
	data, err := os.ReadFile(filepath.Join(dir(stateDir, id), "meta.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no checkpoint %s", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", id, err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", id, err)
	}
	if cp.ID != id {
		return nil, fmt.Errorf("read checkpoint %s: it names itself %q", id, cp.ID)
	}
	return &cp, nil
}

// List returns the finished checkpoints, newest first; workspace "" means
// all workspaces.
func List(stateDir, workspace string) ([]*Checkpoint, error) {
	ents, err := os.ReadDir(filepath.Join(stateDir, "checkpoints"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var out []*Checkpoint
	for _, e := range ents {
		if !e.IsDir() || !idPattern().MatchString(e.Name()) {
			continue
		}
		cp, err := Load(stateDir, e.Name())
		if err != nil || !cp.Finished {
			continue
		}
		if workspace == "" || cp.Workspace == workspace {
			out = append(out, cp)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// Retention says which checkpoints Prune keeps: the newest Keep, and
// none older than MaxAge (0 = no age limit).
type Retention struct {
	Keep   int
	MaxAge time.Duration
}

// DefaultRetention is the retention when config.toml says nothing.
var DefaultRetention = Retention{Keep: 50, MaxAge: 7 * 24 * time.Hour}

// Prune deletes checkpoints beyond the retention (across workspaces) and
// unfinished ones older than a day, and returns the ids it removed.
func Prune(stateDir string, keep Retention, now time.Time) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(stateDir, "checkpoints"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prune checkpoints: %w", err)
	}
	if !mayPrune(stateDir, ents, keep, now) {
		return nil, nil
	}
	var all []*Checkpoint
	for _, e := range ents {
		if !e.IsDir() || !idPattern().MatchString(e.Name()) {
			continue
		}
		cp, err := Load(stateDir, e.Name())
		if err != nil {
			continue
		}
		all = append(all, cp)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
	var removed []string
	kept := 0
	for _, cp := range all {
		age := now.Sub(cp.Time)
		drop := !cp.Finished && age > 24*time.Hour
		if cp.Finished {
			drop = kept >= keep.Keep || (keep.MaxAge > 0 && age > keep.MaxAge)
			if !drop {
				kept++
			}
		}
		if drop {
			if err := cp.remove(stateDir); err != nil {
				return removed, err
			}
			removed = append(removed, cp.ID)
		}
	}
	return removed, nil
}

// mayPrune is Prune's quick look, so that pruning after every command
// does not read every record: within the count and with every record
// written recently enough, there is nothing to drop (an unfinished
// checkpoint, whose record is written when it begins, ages out too).
func mayPrune(stateDir string, ents []fs.DirEntry, keep Retention, now time.Time) bool {
	n := 0
	for _, e := range ents {
		if !e.IsDir() || !idPattern().MatchString(e.Name()) {
			continue
		}
		n++
		st, err := os.Stat(filepath.Join(stateDir, "checkpoints", e.Name(), "meta.json"))
		if err != nil {
			return true
		}
		age := now.Sub(st.ModTime())
		if age > 24*time.Hour || (keep.MaxAge > 0 && age > keep.MaxAge) {
			return true
		}
	}
	return n > keep.Keep
}

// Usage is what checkpoints take, for guard doctor.
type Usage struct {
	Checkpoints int
	BackupFiles int
	// BackupBytes is the size of the backed-up files: hard links share
	// the workspace's blocks until the workspace copy is deleted.
	BackupBytes int64
	Oldest      time.Time
}

// Measure sums the checkpoints under stateDir.
func Measure(stateDir string) (Usage, error) {
	cps, err := List(stateDir, "")
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	for _, cp := range cps {
		u.Checkpoints++
		u.BackupFiles += len(cp.Backups)
		for _, b := range cp.Backups {
			u.BackupBytes += b.Size
		}
		if u.Oldest.IsZero() || cp.Time.Before(u.Oldest) {
			u.Oldest = cp.Time
		}
	}
	return u, nil
}
