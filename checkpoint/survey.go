package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/guard-sh/guard/profile"
)

// Target is a path a command may delete, as the profile resolved it.
type Target struct {
	// Path is absolute. A path with glob characters stands for
	// everything under the directory before the first one.
	Path string
	// InPlace: the content may change before it goes (truncate, a write
	// earlier on the same line, code the line runs), so a hard link would not keep the
	// old bytes; only git's object store can cover it.
	InPlace bool
	// Written: the line writes or moves this path without deleting it.
	// It is covered when it does not exist or git holds all of it; when
	// it is not, the line could move what git does not hold into a
	// delete target, and Cover covers nothing.
	Written bool
	// MayLink: the write may put a symlink there (cp, mv, ln, tar, …:
	// any write not in contentRules). Inside a delete target that is
	// never covered: rm -rf src/*/ and find -L follow the link.
	MayLink bool
}

// contentRules are the write rules that only write bytes into a file or
// make a directory (a redirect, touch, sed -i, dd, mkdir): they cannot
// make a symlink that a delete then follows.
var contentRules = map[string]bool{"redirect.write": true, "fs.create": true, "sed.in-place": true, "dd.write": true, "fs.mkdir": true}

// unlinkRules are the delete rules that only remove names (rm, rmdir,
// unlink, find -delete, git clean, git rm): a hard link keeps the bytes.
// Any other delete (truncate, …) may rewrite the file first.
var unlinkRules = map[string]bool{"fs.delete": true, "find.delete": true, "git.clean": true, "git.rm": true}

// Targets are the profile's deletes inside the workspace, as
// checkpoint targets, with the paths the line writes (which must not hold
// what the checkpoint cannot restore). A target the same line also
// writes, or one not in unlinkRules, may change in place before it goes:
// only git can cover it. So may every target of a line that runs code or
// writes where the profile does not say (make && rm -rf build: the
// compiler rewrites build/out.o through the inode the backup shares).
func Targets(p *profile.Profile) []Target {
	var written []string
	anywhere := false
	for _, e := range p.Effects {
		switch {
		case e.Cap == profile.CapWrite && e.Target != "":
			written = append(written, e.Target)
		case e.Cap == profile.CapWrite, e.Cap == profile.CapExec, e.Cap == profile.CapDynamic:
			anywhere = true
		}
	}
	var ts []Target
	for _, e := range p.Effects {
		if e.Cap == profile.CapWrite && e.Target != "" && (e.Class == profile.ClassWorkspace || e.Class == profile.ClassWSRoot) {
			ts = append(ts, Target{Path: e.Target, Written: true, MayLink: !contentRules[e.Rule]})
		}
		if e.Cap != profile.CapDelete || e.Class != profile.ClassWorkspace || e.Target == "" {
			continue
		}
		inPlace := anywhere || !unlinkRules[e.Rule]
		for _, w := range written {
			if overlaps(w, e.Target) {
				inPlace = true
			}
		}
		ts = append(ts, Target{Path: e.Target, InPlace: inPlace})
	}
	return ts
}

// Budget bounds the hard-link backups of one checkpoint. Over budget,
// the targets that need backups are not covered.
type Budget struct {
	MaxFiles int
	MaxBytes int64
}

// DefaultBudget is the budget when config.toml says nothing.
var DefaultBudget = Budget{MaxFiles: 20000, MaxBytes: 2 << 30}

// entry is one file or directory under a delete target.
type entry struct {
	Rel   string      `json:"path"` // workspace-relative, slash-separated
	Mode  fs.FileMode `json:"mode"`
	Size  int64       `json:"size,omitempty"`
	MTime int64       `json:"mtime_ns,omitempty"` // to see a backup changed in place
	// CTime and Ino are the backup's change time and inode once the
	// command deleted the file (Finish): a backup written in place since
	// has another change time, whatever size and mtime it was left with.
	CTime int64  `json:"ctime_ns,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
	Link  string `json:"link,omitempty"` // a symlink's target
	Gone  bool   `json:"gone,omitempty"` // absent after the command

	foreign bool // owned by another user
}

// survey is what a set of delete targets holds and how much of it
// guard can restore.
type survey struct {
	dirs      []entry                // directories under the targets
	backup    []entry                // files git does not cover: hard-link backups
	bytes     int64                  // their total size
	uncovered map[string]string      // target path → why it is not covered
	needs     map[string]bool        // targets that need a backup
	backupOf  map[string][]entry     // and the files each needs backed up
	inGit     map[string][]string    // target path → the files git holds (not ignored)
	modes     map[string]fs.FileMode // their permissions, by path (not symlinks')
}

// globChars start the part of a target that is a pattern.
const globChars = "*?[\\"

// base is the directory (or path) a target stands for.
func base(p string) string {
	if i := strings.IndexAny(p, globChars); i >= 0 {
		return filepath.Dir(p[:i] + "x")
	}
	return filepath.Clean(p)
}

// relIn returns p relative to ws, or "" when p is ws itself or outside.
func relIn(ws, p string) string {
	if !strings.HasPrefix(p, ws+"/") {
		return ""
	}
	return p[len(ws)+1:]
}

// surveyTargets walks every target. r is nil outside git; then every file
// needs a backup. Without git a workspace's targets are walked the same.
func surveyTargets(ws string, r *repo, targets []Target) *survey {
	s := &survey{uncovered: map[string]string{}, needs: map[string]bool{}, backupOf: map[string][]entry{}, inGit: map[string][]string{}, modes: map[string]fs.FileMode{}}
	files := map[string][]entry{} // by target path
	var rels []string
	seenDir := map[string]bool{}
	var deleted []string // the delete targets' bases
	for _, t := range targets {
		if !t.Written {
			deleted = append(deleted, base(t.Path))
		}
	}
	for _, t := range targets {
		b := base(t.Path)
		rel := relIn(ws, b)
		switch {
		case rel == "":
			s.uncovered[t.Path] = "not inside the workspace, or the whole workspace"
			continue
		case hasGitComponent(rel):
			s.uncovered[t.Path] = "inside a .git directory"
			continue
		case t.MayLink && overlapsAny(b, deleted):
			// It may become a symlink to a directory elsewhere, which a
			// pattern (rm -rf src/*/) or find -L follows.
			s.uncovered[t.Path] = "may become a symlink inside a delete target"
			continue
		}
		rb, err := filepath.EvalSymlinks(b)
		if err != nil {
			rb = b
		}
		err = filepath.WalkDir(b, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == b {
					if t.Written {
						return fs.SkipAll // nothing there: nothing to lose
					}
					// A delete of what is not there yet: the line may
					// fill it from elsewhere first.
					return errors.New("does not exist before the command")
				}
				return err
			}
			if d.Name() == ".git" {
				return errors.New("holds a git repository")
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			e := entry{Rel: filepath.ToSlash(p[len(ws)+1:]), Mode: info.Mode()}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && os.Geteuid() != 0 {
				e.foreign = true // the kernel may refuse to hard-link it
			}
			switch {
			case d.IsDir():
				if !seenDir[e.Rel] {
					seenDir[e.Rel] = true
					s.dirs = append(s.dirs, e)
				}
			case info.Mode().IsRegular():
				e.Size, e.MTime = info.Size(), info.ModTime().UnixNano()
				files[t.Path] = append(files[t.Path], e)
			case info.Mode()&fs.ModeSymlink != 0:
				l, err := os.Readlink(p)
				if err != nil {
					return err
				}
				if escapes(p, rb) {
					return errors.New("holds a symlink to a directory outside it, which a pattern or find -L may follow")
				}
				e.Link = l
				files[t.Path] = append(files[t.Path], e)
			default:
				return errors.New("holds a special file")
			}
			return nil
		})
		if err != nil {
			s.uncovered[t.Path] = err.Error()
			continue
		}
		rels = append(rels, rel)
	}
	ignored := map[string]bool{}
	if r != nil && len(rels) > 0 {
		var err error
		if ignored, err = r.ignored(rels); err != nil {
			for _, t := range targets {
				s.uncovered[t.Path] = err.Error()
			}
			return s
		}
	}
	seen := map[string]bool{}
	var held []string // regular files git holds, for converted
	heldBy := map[string][]string{}
	for _, t := range targets {
		if _, bad := s.uncovered[t.Path]; bad {
			continue
		}
		for _, e := range files[t.Path] {
			if r != nil && !ignored[e.Rel] {
				s.inGit[t.Path] = append(s.inGit[t.Path], e.Rel)
				if e.Link == "" {
					s.modes[e.Rel] = e.Mode.Perm()
					if len(heldBy[e.Rel]) == 0 {
						held = append(held, e.Rel)
					}
					heldBy[e.Rel] = append(heldBy[e.Rel], t.Path)
				}
				continue // in git's tree
			}
			if t.InPlace || t.Written {
				s.uncovered[t.Path] = "may be changed in place, and git does not hold it"
				break
			}
			if e.foreign {
				s.uncovered[t.Path] = "holds files of another user, and git does not hold them"
				break
			}
			s.needs[t.Path] = true
			s.backupOf[t.Path] = append(s.backupOf[t.Path], e)
			if !seen[e.Rel] {
				seen[e.Rel] = true
				s.backup = append(s.backup, e)
				s.bytes += e.Size
			}
		}
	}
	// What git would store or check out otherwise than it is, undo would
	// not bring back byte for byte (convert.go).
	if len(held) > 0 {
		conv, err := r.converted(held)
		for _, rel := range held {
			if err != nil || conv[rel] {
				for _, t := range heldBy[rel] {
					s.uncovered[t] = errConverts.Error()
				}
			}
		}
	}
	return s
}

// escapes reports whether the symlink p resolves to a directory outside
// root: rm -rf src/*/, rm -rf src/*/* or find -L src -delete go through
// it, though the target names only root (a dangling link, or one to a
// file, deletes nothing through it).
func escapes(p, root string) bool {
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return false
	}
	dest, err := filepath.EvalSymlinks(p)
	return err != nil || !strings.HasPrefix(dest+"/", root+"/")
}

// overlaps reports whether a and b are the same path or one holds the
// other.
func overlaps(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

func overlapsAny(p string, ps []string) bool {
	for _, q := range ps {
		if overlaps(p, q) {
			return true
		}
	}
	return false
}

// hasGitComponent reports whether a relative path goes through .git.
func hasGitComponent(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if c == ".git" {
			return true
		}
	}
	return false
}

// backupRoot is where hard-link backups of workspace ws go: under the
// state directory when it is on the same filesystem, else inside the
// repository's git dir; "" when neither is (no backups possible).
func backupRoot(stateDir, ws string, r *repo) string {
	dev := func(p string) (uint64, bool) {
		for ; ; p = filepath.Dir(p) {
			var st syscall.Stat_t
			if err := syscall.Stat(p, &st); err == nil {
				return uint64(st.Dev), true
			}
			if p == filepath.Dir(p) {
				return 0, false
			}
		}
	}
	wd, ok := dev(ws)
	if !ok {
		return ""
	}
	if d, ok := dev(stateDir); ok && d == wd {
		return filepath.Join(stateDir, "checkpoints")
	}
	if r != nil {
		if d, ok := dev(r.gitDir); ok && d == wd {
			return filepath.Join(r.gitDir, "guard-checkpoints")
		}
	}
	return ""
}

// Cover reports which of the delete targets guard's checkpoint will
// restore in workspace ws: the target exists, and every file under it is
// in git's tree (tracked, or untracked and not ignored) or gets a
// hard-link backup within budget on the workspace's filesystem. Written
// targets are never returned; when one holds what git does not, nothing
// is covered.
func Cover(stateDir, ws string, targets []Target, b Budget) []string {
	r, err := openRepo(ws)
	if err != nil && !errors.Is(err, errNoRepo) {
		return nil
	}
	s := surveyTargets(ws, r, targets)
	return s.covered(targets, b, backupRoot(stateDir, ws, r) != "")
}

// covered is Cover's decision on a survey: the delete targets restored
// by git's tree or by backups within budget (haveRoot: backups have a
// place on the workspace's filesystem).
func (s *survey) covered(targets []Target, b Budget, haveRoot bool) []string {
	for _, t := range targets {
		if _, bad := s.uncovered[t.Path]; bad && t.Written {
			return nil
		}
	}
	overBudget := len(s.backup) > b.MaxFiles || s.bytes > b.MaxBytes
	var out []string
	for _, t := range targets {
		if _, bad := s.uncovered[t.Path]; bad || t.Written {
			continue
		}
		if s.needs[t.Path] && (overBudget || !haveRoot) {
			continue
		}
		out = append(out, t.Path)
	}
	return out
}

// inTree keeps of the covered targets those whose files git holds are
// all in the before tree, each with its object whole (verify.go: every
// tree on the way and the blob hash to their ids), as undo will need
// them. What git ls-files said comes from the user's index, and what
// guard's index and record say of the objects from before the command
// that ran since: any command that may write the workspace may write
// both .git/index and .git/objects (a pack removed, an object
// rewritten), and the delete was covered by objects undo could not
// restore (TestCoverAsksTheSnapshot, TestCoverNeedsObjects). If guard
// cannot check, nothing is covered.
func (s *survey) inTree(r *repo, tree string, covered []string) []string {
	if r == nil || len(covered) == 0 {
		return covered
	}
	v, done, err := r.verifier()
	if err != nil {
		return nil
	}
	defer done()
	var out []string
	for _, t := range covered {
		if v.blobs(tree, s.inGit[t]) == nil {
			out = append(out, t)
		}
	}
	return out
}
