package checkpoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guard-sh/guard/internal/safefile"
	"golang.org/x/sys/unix"
)

// This file is the fast way to a checkpoint tree. guard keeps its own
// index of each repository (STATE/checkpoints/index-H, written only by
// git) and, next to it, what it knows of the work tree beyond the index
// (index-H.json): the tree the index writes, every directory git would
// look into for untracked files with its stat data, the ignored names in
// them, and the files that decide what is ignored. A snapshot compares
// the work tree with both by lstat, as git status does, and runs git
// only for what changed:
//
//   - nothing changed: no git at all, the recorded tree is the snapshot;
//   - files changed, appeared or went: one `git update-index` for exactly
//     those paths (git hashes them, with its clean filters) and one `git
//     write-tree`;
//   - a directory changed: guard reads it, and asks one `git check-ignore`
//     about the names it does not know;
//   - a .gitignore, info/exclude, the excludes file or a git config file
//     changed, or there is no record: every directory is read again.
//
// Whatever it cannot be sure of (an index git wrote in a format guard
// does not read, a SHA-256 repository, core.ignoreCase), or any error,
// falls back to `git add -A` through the same index, as before. Not
// watched: config files a git config includes (include.path), and a
// change made while guard reads a directory in the same clock tick (as
// with git's own untracked cache).

// stateVersion changes when wtState does, or what its tree promises:
// an older record is rebuilt. 2: the record's tree was written with
// every tree below it by guard (trees.go), which writes again only the
// trees of changed directories. 3: Packs names packs, not the stat data
// of their directory.
const stateVersion = 3

// wtState is what guard knows of a work tree beyond its index.
type wtState struct {
	Version int    `json:"version"`
	GitDir  string `json:"git_dir"`
	Work    string `json:"work"`
	// Tree is the tree of the index; "" when not yet written.
	Tree string `json:"tree,omitempty"`
	// Dirs are the directories git reads for untracked files (not
	// ignored, not in a nested repository), with their stat data.
	Dirs []dirStat `json:"dirs"`
	// Ignored are the ignored names in Dirs, by directory ("name/" for
	// a directory).
	Ignored map[string][]string `json:"ignored,omitempty"`
	// Sources are the files that decide what is ignored.
	Sources []dirStat `json:"sources"`
	// Index is the stat data of guard's index when the record was
	// written: another index (a crash between git and the record) makes
	// the record worthless.
	Index statData `json:"index"`
	// Pending: git is recording ids in guard's index whose objects guard
	// has not written yet (writeSnapshot). A record still pending when
	// read is a snapshot that stopped there: its index may name objects
	// that do not exist, and is dropped (git seeds it again from the
	// user's).
	Pending bool `json:"pending,omitempty"`
	// Packs are the packs (file names in objects/pack) the record
	// vouches for: those there when the snapshot began and those guard
	// wrote in it (and any there at its end). One of them gone (a gc, or
	// a command, maybe another guard's, that deleted guard's pack, even
	// while this snapshot wrote) makes the next snapshot check that the
	// objects guard's refs name are still there (checkRefs). Packs added
	// take nothing away.
	Packs []string `json:"packs"`
	// Repos are the repositories of their own the scans found among the
	// untracked directories (no commit: git leaves them out of the
	// index), checked after every command (repoChanges). A scan reads
	// only the directories that changed, and a command that gives such
	// a repository code by writing in its .git changes none of them.
	Repos []string `json:"repos,omitempty"`
}

// packsGone reports whether a pack in was is not in now.
func packsGone(was, now []string) bool {
	for _, p := range was {
		if !slices.Contains(now, p) {
			return true
		}
	}
	return false
}

// dirStat is a path and its stat data (Missing: it was absent).
type dirStat struct {
	Rel     string   `json:"p"`
	St      statData `json:"s"`
	Missing bool     `json:"m,omitempty"`
}

// counters count the git processes guard starts and the snapshots that
// fell back to git add -A (read by the tests and benchmarks).
var counters struct{ gitRuns, fallbacks atomic.Int64 }

// errFallback: the fast path cannot be sure; git add -A decides.
var errFallback = errors.New("fall back to git add -A")

// lstatData is the stat data of p as git keeps it; ok is false when p
// cannot be read.
func lstatData(p string) (statData, uint32, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return statData{}, 0, false
	}
	return toStat(&st), st.Mode, true
}

func toStat(st *unix.Stat_t) statData {
	return statData{
		CtimeS: uint32(st.Ctim.Sec), CtimeNs: uint32(st.Ctim.Nsec),
		MtimeS: uint32(st.Mtim.Sec), MtimeNs: uint32(st.Mtim.Nsec),
		Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid, Size: uint32(st.Size),
	}
}

func (a statData) withoutNs() statData {
	a.CtimeNs, a.MtimeNs = 0, 0
	return a
}

// newerOrSame reports whether a's mtime is at or after ref: a change in
// the same clock tick as ref's write may not show in the stat data
// ("racily clean", as git calls it), so such a path is read again.
func (a statData) newerOrSame(ref statData) bool {
	return a.MtimeS > ref.MtimeS || (a.MtimeS == ref.MtimeS && a.MtimeNs >= ref.MtimeNs)
}

// gitConfig is what guard needs to know of the repository's config.
type gitConfig struct {
	excludesFile string
	ignoreCase   bool
	objectFormat string
}

// config reads the keys that decide whether the fast path applies and
// where the excludes file is.
func (r *repo) config() (gitConfig, error) {
	var c gitConfig
	out, err := r.git("", nil, nil, "config", "-z", "--type=path", "--get-regexp", `^(core\.(excludesfile|ignorecase)|extensions\.objectformat)$`)
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.code == 1) { // 1: no such key
		return c, err
	}
	for _, kv := range strings.Split(string(out), "\x00") {
		k, v, _ := strings.Cut(kv, "\n")
		switch strings.ToLower(k) {
		case "core.excludesfile":
			c.excludesFile = v
			if v != "" && !filepath.IsAbs(v) {
				c.excludesFile = filepath.Join(r.work, v) // git runs there
			}
		case "core.ignorecase":
			c.ignoreCase = v == "true" || v == "yes" || v == "on" || v == "1"
		case "extensions.objectformat":
			c.objectFormat = strings.ToLower(v)
		}
	}
	if c.excludesFile == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			c.excludesFile = filepath.Join(x, "git", "ignore")
		} else if h := os.Getenv("HOME"); h != "" {
			c.excludesFile = filepath.Join(h, ".config", "git", "ignore")
		}
	}
	return c, nil
}

// sourceFiles are the files outside the work tree that decide what git
// ignores: info/exclude, the excludes file, and the config files that
// name it.
func (r *repo) sourceFiles(c gitConfig) []string {
	common := r.commonDir()
	fs := []string{filepath.Join(common, "info", "exclude"), filepath.Join(common, "config"), filepath.Join(r.gitDir, "config.worktree"), "/etc/gitconfig"}
	if c.excludesFile != "" {
		fs = append(fs, c.excludesFile)
	}
	if h := os.Getenv("HOME"); h != "" {
		fs = append(fs, filepath.Join(h, ".gitconfig"), filepath.Join(h, ".config", "git", "config"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		fs = append(fs, filepath.Join(x, "git", "config"))
	}
	return fs
}

// commonDir is the repository's common directory, as read when it was
// opened (readCommonDir).
func (r *repo) commonDir() string {
	if r.common == "" {
		return r.gitDir
	}
	return r.common
}

// readCommonDir is the common directory of the git directory gitDir: a
// linked worktree's git dir names it in commondir, else it is gitDir.
func readCommonDir(gitDir string) string {
	if data, err := safefile.Read(filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
		d := strings.TrimSpace(string(data))
		if !filepath.IsAbs(d) {
			d = filepath.Join(gitDir, d)
		}
		return filepath.Clean(d)
	}
	return gitDir
}

// statSource is a source's stat data, through symlinks (a ~/.gitconfig
// that links into a dotfiles repository changes there).
func statSource(p string) dirStat {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return dirStat{Rel: p, Missing: true}
	}
	return dirStat{Rel: p, St: toStat(&st)}
}

// sourcesChanged reports whether a file that decides what is ignored
// changed since the record was written (at ref).
func sourcesChanged(srcs []dirStat, ref statData) bool {
	for _, s := range srcs {
		now := statSource(s.Rel)
		if now != s || (!s.Missing && s.St.newerOrSame(ref)) {
			return true
		}
	}
	return false
}

// snapshotResult is a snapshot: the tree, the index entries it was
// written from (nil when git add -A made it), and whether git wrote the
// tree just now (the caller then keeps it from git gc).
type snapshotResult struct {
	tree    string
	entries []ientry
	written bool
	index   statData // guard's index file's, when entries were read
	ref     string   // the ref that keeps the tree (indexRef)
	// repos are the repositories of their own that the scan found among
	// the untracked directories it read (scanned: it read them).
	repos   []string
	scanned bool
	// loose: git write-tree wrote the trees (a shape guard does not
	// build), as loose objects the pack stamp does not watch.
	loose bool
	// state is guard's record as the snapshot left it, and stateStat
	// its file's stat data: a later snapshot of this process (Finish
	// after Begin) uses it again while the file is unchanged.
	state     *wtState
	stateStat statData
}

// snapshot writes (or finds) the tree of the work tree's tracked and
// untracked-but-not-ignored files, through guard's own index of the
// repository under stateDir. Only one guard at a time updates it, and
// then (when not nil) runs before the next may: it names the trees it
// keeps (refs), so that the index's ref always names its tree. prev, when not nil, is an earlier snapshot of this process: its
// entries are used again if the index file did not change since.
func (r *repo) snapshot(stateDir string, prev *snapshotResult, then func(snapshotResult) error) (snapshotResult, error) {
	if err := r.realStore(); err != nil {
		return snapshotResult{}, err
	}
	idx := seedIndex(stateDir, r)
	if err := os.MkdirAll(filepath.Dir(idx), 0o700); err != nil {
		return snapshotResult{}, err
	}
	lock, err := os.OpenFile(idx+".guard-lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return snapshotResult{}, fmt.Errorf("lock guard's index: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return snapshotResult{}, fmt.Errorf("lock guard's index: %w", err)
	}
	res, err := r.fastSnapshot(idx, prev)
	if errors.Is(err, errGitTimeout) {
		return snapshotResult{}, err
	}
	if err != nil {
		// Not sure, or an error: git add -A decides, and the record,
		// which may no longer match the index, goes; so does an index
		// guard cannot read, or one that may name objects guard did not
		// write (git writes it anew from the user's).
		counters.fallbacks.Add(1)
		if s, _ := loadState(idx+".json", r); errors.Is(err, errIndexFormat) || (s != nil && s.Pending) {
			os.Remove(idx)
		}
		os.Remove(idx + ".json")
		tree, err := r.addAll(idx)
		if err != nil {
			return snapshotResult{}, err
		}
		// git add -A takes the objects of the entries it does not hash
		// again on trust, and no record says they are all there (a
		// command may have deleted guard's packs): a tree that reaches a
		// missing one is made again from a fresh seed.
		if missing, err := r.reachesMissing([]string{tree}); err != nil {
			return snapshotResult{}, err
		} else if missing {
			if err := os.Remove(idx); err != nil {
				return snapshotResult{}, err
			}
			if tree, err = r.addAll(idx); err != nil {
				return snapshotResult{}, err
			}
		}
		res = snapshotResult{tree: tree, written: true}
	}
	res.ref = indexRef(idx)
	if then != nil {
		if err := then(res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// protect is snapshot's then when nothing else is named: a tree git just
// wrote is named by the index's ref.
func (r *repo) protect(res snapshotResult) error {
	if !res.written {
		return nil
	}
	return r.keep("", "", "", res)
}

// writeTree is how guard runs git write-tree: --missing-ok, because it
// only names what guard's index holds, whose blobs git wrote for it
// (update-index, add) or the trees of the refs that keep them hold. The
// check it skips looks up every entry of each directory that changed in
// the object store: with 100 files changed in 100 directories of a
// 10,000-file workspace whose objects are loose, 10,000 lookups, and
// 20 ms of a 50 ms write-tree here (measured side by side); in a
// partial clone it could even fetch missing blobs from the network.
var writeTree = []string{"write-tree", "--missing-ok"}

// addAll is the slow way: git add -A through index (seeded from the
// user's index when missing), then git write-tree.
func (r *repo) addAll(index string) (string, error) {
	if err := seedFromUser(r, index); err != nil {
		return "", err
	}
	args := []string{"add", "-A", "--", ":/"}
	for range 16 {
		_, err := r.git(index, nil, nil, args...)
		if err == nil {
			break
		}
		// A repository without a commit: left out, as the scan does.
		m := noCommitRE().FindAllStringSubmatch(err.Error(), -1)
		if len(m) == 0 {
			return "", err
		}
		for _, x := range m {
			args = append(args, ":(exclude,literal)"+x[1])
		}
	}
	out, err := r.git(index, nil, nil, writeTree...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// noCommitRE finds git add's refusal of a repository without a commit.
var noCommitRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`error: '([^'\n]+)/' does not have a commit checked out`)
})

// committed reports whether the repository at dir has a commit checked
// out, which git add needs of a repository it adds as a submodule. It
// reads files only: running git in a repository a command made would run
// what its config says. A form it does not read (a gitdir: file,
// reftable) is left to git.
func committed(dir string) bool {
	gd := filepath.Join(dir, ".git")
	fi, err := os.Lstat(gd)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	head, err := safefile.Read(filepath.Join(gd, "HEAD"), 4096)
	if err != nil {
		return false
	}
	h := strings.TrimSpace(string(head))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return len(h) >= 40
	}
	if _, err := os.Stat(filepath.Join(gd, filepath.FromSlash(ref))); err == nil {
		return true
	}
	if _, err := os.Stat(filepath.Join(gd, "reftable")); err == nil {
		return true
	}
	packed, _ := safefile.Read(filepath.Join(gd, "packed-refs"), 64<<20)
	return bytes.Contains(packed, []byte(" "+ref+"\n"))
}

// seedFromUser copies the user's index to a missing index, so that
// files git hashed already are not hashed again. A repository without an
// index leaves it missing: git starts from an empty one.
func seedFromUser(r *repo, index string) error {
	if _, err := os.Stat(index); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return copyIndex(filepath.Join(r.gitDir, "index"), index)
}

// sameIndex reports whether guard's index at idx is the one record s
// was written with.
func sameIndex(idx string, s *wtState) bool {
	st, _, ok := lstatData(idx)
	return ok && st == s.Index
}

// fastSnapshot compares the work tree with guard's index and record, and
// brings them up to date with as little git as it can.
func (r *repo) fastSnapshot(idx string, prev *snapshotResult) (snapshotResult, error) {
	stPath := idx + ".json"
	var old *wtState
	var stRef statData
	if st, _, ok := lstatData(stPath); ok && prev != nil && prev.state != nil && st == prev.stateStat {
		old, stRef = prev.state, st // read only below
	} else {
		old, stRef = loadState(stPath, r)
	}
	if old != nil && (old.Pending || !sameIndex(idx, old)) {
		old = nil
	}
	packs := r.packNames()
	switch {
	case old == nil:
		// No record says which packs guard's refs were whole with (the
		// first snapshot here, a crash, state cleared): a pack may have
		// gone since, and a ref reaching a missing object breaks the
		// user's git gc.
		if _, err := r.checkRefs(""); err != nil {
			return snapshotResult{}, err
		}
	case packsGone(old.Packs, packs):
		whole, err := r.checkRefs(old.Tree)
		if err != nil {
			return snapshotResult{}, err
		}
		if !whole {
			old = nil // the index's tree is gone, and objects its entries name
		}
	}
	full := old == nil
	if !full && sourcesChanged(old.Sources, stRef) {
		full = true
	}
	var cfg gitConfig
	haveCfg := false
	loadCfg := func() error {
		if haveCfg {
			return nil
		}
		c, err := r.config()
		if err != nil {
			return err
		}
		if c.ignoreCase || (c.objectFormat != "" && c.objectFormat != "sha1") {
			return errFallback
		}
		cfg, haveCfg = c, true
		return nil
	}
	if full {
		if err := loadCfg(); err != nil {
			return snapshotResult{}, err
		}
	}
	if old == nil {
		// guard's index is used only with the record that says it is
		// whole: without one (a snapshot stopped half-way, state
		// cleared, a tree gone, the index changed) its entries may name
		// objects that are gone, and it starts again from the user's.
		if err := os.Remove(idx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return snapshotResult{}, err
		}
	}
	if err := seedFromUser(r, idx); err != nil {
		return snapshotResult{}, err
	}
	es, idxStat, err := readIndex(idx, prev)
	if err != nil {
		return snapshotResult{}, err
	}
	scan, err := dirtyEntries(r.work, es, idxStat)
	if err != nil {
		return snapshotResult{}, err
	}
	dirty, drop := scan.dirty, scan.drop
	for _, p := range append(drop, dirty...) {
		if pathBase(p) == ".gitignore" {
			full = true // what is ignored may have changed anywhere
		}
	}
	if full {
		if err := loadCfg(); err != nil {
			return snapshotResult{}, err
		}
	}
	w := newWalker(r, idx, es)
	w.seen = scan.dirs
	defer w.close()
	walked, err := w.run(old, stRef, full, scan.nowDirs)
	if errors.Is(err, errRescan) {
		// A new .gitignore: read every directory again.
		if err := loadCfg(); err != nil {
			return snapshotResult{}, err
		}
		w.reset()
		walked, err = w.run(old, stRef, true, nil)
		full = true
	}
	if err != nil {
		return snapshotResult{}, err
	}
	w.close()
	st := &wtState{Version: stateVersion, GitDir: r.gitDir, Work: r.work, Dirs: w.dirs, Ignored: w.ignored}
	if full {
		for _, p := range r.sourceFiles(cfg) {
			st.Sources = append(st.Sources, statSource(p))
		}
		for _, g := range w.gitignores {
			st.Sources = append(st.Sources, statSource(filepath.Join(r.work, filepath.FromSlash(g))))
		}
	} else {
		st.Sources = old.Sources
	}
	repos := w.repos
	if old != nil {
		for _, rel := range old.Repos {
			if slices.Contains(repos, rel) || !realDirs(r.work, rel) {
				continue
			}
			if _, _, ok := lstatData(filepath.Join(r.work, filepath.FromSlash(rel), ".git")); ok {
				repos = append(repos, rel)
			}
		}
	}
	sort.Strings(repos)
	st.Repos = repos
	paths := append(dirty, w.newFiles...)
	res := snapshotResult{entries: es, index: idxStat, repos: repos, scanned: true}
	if len(paths) == 0 && len(drop) == 0 && old != nil && old.Tree != "" {
		res.tree = old.Tree
	} else {
		if len(drop) > 0 {
			in := strings.NewReader(strings.Join(drop, "\x00") + "\x00")
			if _, err := r.git(idx, nil, in, "update-index", "--force-remove", "-z", "--stdin"); err != nil {
				return snapshotResult{}, err
			}
		}
		// Only the trees of directories that hold a change are new, when
		// git has every tree of the index before: the record's tree,
		// written with all of them (by induction from a first snapshot
		// that writes them all).
		var changed map[string]bool
		if old != nil && old.Tree != "" {
			changed = changedDirs(paths, drop)
		}
		sort.Strings(paths)
		if len(paths) > 0 {
			if err := saveState(stPath, &wtState{Version: stateVersion, GitDir: r.gitDir, Work: r.work, Pending: true}); err != nil {
				return snapshotResult{}, err
			}
		}
		snap, err := r.writeSnapshot(idx, paths, len(drop) > 0, es, changed)
		if err != nil {
			return snapshotResult{}, err
		}
		if snap.entries != nil {
			res.entries, res.index = snap.entries, snap.index
		}
		res.tree, res.written, res.loose = snap.tree, true, snap.loose
	}
	st.Tree = res.tree
	if res.loose {
		// The record's tree promises that every tree below it is in
		// git, watched through the packs (wtState.Packs): loose trees
		// are not, so the next snapshot builds every tree again.
		st.Tree = ""
	}
	st.Packs = packs
	if res.written {
		for _, p := range append(r.wrote, r.packNames()...) {
			if !slices.Contains(st.Packs, p) {
				st.Packs = append(st.Packs, p)
			}
		}
		sort.Strings(st.Packs)
	}
	if res.written || walked || full || (old != nil && !slices.Equal(old.Packs, st.Packs)) {
		if st.Index, _, _ = lstatData(idx); res.written && len(paths) == 0 && len(drop) == 0 {
			res.index = st.Index // write-tree may have written the index
		}
		if err := saveState(stPath, st); err != nil {
			return snapshotResult{}, err
		}
		if saved, _, ok := lstatData(stPath); ok {
			res.state, res.stateStat = st, saved
		}
		return res, nil
	}
	res.state, res.stateStat = old, stRef
	return res, nil
}

// writeSnapshot hashes paths (changed, new or gone; sorted) into
// guard's index at idx and writes the objects of the index's tree: git
// records the paths' ids without writing them, guard packs their blobs
// with the new trees (trees.go), and git writes what guard does not
// have. read: the index changed even without paths (entries were
// removed). before are the entries before; changed the directories
// whose trees may be new (nil: all). The result has the index's entries
// (when read) and its tree.
func (r *repo) writeSnapshot(idx string, paths []string, read bool, before []ientry, changed map[string]bool) (snapshotResult, error) {
	var res snapshotResult
	if err := r.updateIndex(idx, paths); err != nil {
		return res, err
	}
	es := before
	if len(paths) > 0 || read {
		var err error
		if es, res.index, err = readIndex(idx, nil); err != nil {
			return res, err
		}
		res.entries = es
	}
	if afterHash != nil {
		afterHash()
	}
	blobs, rest := readBlobs(r.work, es, paths)
	if err := r.writeBlobs(es, rest); err != nil {
		return res, err
	}
	var err error
	res.tree, err = r.writeTrees(es, changed, blobs)
	if errors.Is(err, errTreeShape) {
		// What guard does not build a tree of, git does (or refuses),
		// from the blobs guard read, written first: git update-index
		// does not write the object of an entry whose stat data it just
		// recorded.
		if err = r.writePack(blobs); err == nil {
			var out []byte
			if out, err = r.git(idx, nil, nil, writeTree...); err == nil {
				res.tree, res.loose = strings.TrimSpace(string(out)), true
			}
		}
	}
	return res, err
}

// afterHash, when set (tests), runs once git has hashed a snapshot's
// changed paths into guard's index, before guard reads them.
var afterHash func()

// updateIndex has git hash paths (sorted, workspace-relative) into
// guard's index at idx: added, updated, or removed when gone. git
// records their ids without writing the objects (--info-only): guard
// stores them (trees.go, blobs.go).
func (r *repo) updateIndex(idx string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := r.git(idx, nil, strings.NewReader(strings.Join(paths, "\x00")+"\x00"), "update-index", "--add", "--remove", "--replace", "--info-only", "-z", "--stdin")
	return err
}

// readIndex reads and parses the index at p, with its stat data (for
// racily clean entries); prev's entries when its index had the same stat
// data (git writes a new file each time).
func readIndex(p string, prev *snapshotResult) ([]ientry, statData, error) {
	if prev != nil && prev.entries != nil {
		if st, _, ok := lstatData(p); ok && st == prev.index {
			return prev.entries, st, nil
		}
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, statData{}, nil // a repository without an index yet
	}
	if err != nil {
		return nil, statData{}, err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, statData{}, err
	}
	data := make([]byte, st.Size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, statData{}, fmt.Errorf("%w: %v", errIndexFormat, err)
	}
	es, err := parseIndex(data, 20)
	return es, toStat(&st), err
}

func loadState(p string, r *repo) (*wtState, statData) {
	f, err := os.Open(p)
	if err != nil {
		return nil, statData{}
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, statData{}
	}
	var s wtState
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&s); err != nil || s.Version != stateVersion || s.GitDir != r.gitDir || s.Work != r.work {
		return nil, statData{}
	}
	return &s, toStat(&st)
}

func saveState(p string, s *wtState) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("save guard's index record: %w", err)
	}
	return os.Rename(tmp, p)
}

func pathBase(rel string) string { return rel[strings.LastIndexByte(rel, '/')+1:] }

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dirtyEntries returns the paths of the index entries that git must look
// at again: changed stat data, gone, racily clean, unmerged, intent to
// add, and submodules (whose commit guard does not read). Skip-worktree
// entries stay as they are, as git add -A leaves them. drop are the
// entries to remove from the index first: those under a directory that
// is no longer one (a symlink now, a file, or absent: lstat would follow
// a symlink there, and update-index refuses the path), and changed ones
// whose stat data differ only below the second (git would not hash them
// again: removed, they are added anew). nowDirs are the entries (not
// submodules) that are directories now: their parents must be read.
//
// Each run of entries of one directory (at most scanChunk long) is one
// piece of work, taken by the next free worker: the directory is opened
// beneath the workspace through no symlink (one lookup of its path
// relative to the workspace, in place of an lstat of every directory
// on the way and an open by absolute path), its stat data kept for the
// walker (entryScan.dirs), and each entry lstat'ed by name through it.
// A directory that cannot be opened as one (absent, a file, a symlink on
// the way, no search permission) has every entry under it gone; any
// other failure (out of descriptors) is an error: git add -A decides.
func dirtyEntries(ws string, es []ientry, idxStat statData) (entryScan, error) {
	var res entryScan
	if len(es) == 0 {
		return res, nil
	}
	root, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return res, fmt.Errorf("open the workspace: %w", err)
	}
	defer unix.Close(root)
	var chunks []entryChunk
	for i := 0; i < len(es); {
		d := pathDir(es[i].path)
		j := i + 1
		for j < len(es) && j-i < scanChunk && pathDir(es[j].path) == d {
			j++
		}
		chunks = append(chunks, entryChunk{dir: d, lo: i, hi: j})
		i = j
	}
	n := min(runtime.GOMAXPROCS(0)*2, 8, max(len(chunks), 1))
	state := make([]uint8, len(es))
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1)) - 1
				if c >= len(chunks) {
					return
				}
				if errs[w] = scanEntries(root, es, &chunks[c], state, idxStat); errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	res.dirs = make(map[string]statData, len(chunks))
	for _, c := range chunks {
		if _, ok := res.dirs[c.dir]; c.opened && !ok {
			res.dirs[c.dir] = c.st
		}
	}
	var gone []string
	for i, st := range state {
		p := es[i].path
		switch {
		case st == entryNowDir:
			res.dirty = append(res.dirty, p)
			res.nowDirs = append(res.nowDirs, p)
		case (st == entryChanged || st == entrySubsecond) && (len(res.dirty) == 0 || res.dirty[len(res.dirty)-1] != p):
			res.dirty = append(res.dirty, p)
			if st == entrySubsecond {
				res.drop = append(res.drop, p)
			}
		case st == entryBeyond && (len(gone) == 0 || gone[len(gone)-1] != p):
			gone = append(gone, p)
			res.drop = append(res.drop, p)
		}
	}
	return res, nil
}

// entryScan is what dirtyEntries found. dirs is the stat data of the
// directories holding entries, taken through the descriptor the scan
// opened them with (beneath the workspace, through no symlink) before
// it looked at their entries, and so before the walker reads any of
// them: the walker's own, without an lstat of each again.
type entryScan struct {
	dirty, drop, nowDirs []string
	dirs                 map[string]statData
}

// scanChunk is the most entries of one directory one worker takes at a
// time (a directory of 10,000 files is still shared out).
const scanChunk = 256

// entryChunk is the entries es[lo:hi] of directory dir; st is dir's stat
// data when it was opened (opened).
type entryChunk struct {
	dir    string
	lo, hi int
	st     statData
	opened bool
}

// What dirtyEntries found of each entry.
const (
	entryClean = iota
	entryChanged
	entrySubsecond // changed in what git does not compare
	entryBeyond    // under a directory that is no longer one
	entryNowDir    // a file or symlink replaced by a directory
)

// scanEntries looks at the entries of chunk c through their directory,
// opened beneath root, and sets their state.
func scanEntries(root int, es []ientry, c *entryChunk, state []uint8, idxStat statData) error {
	fd := root
	if c.dir != "" {
		var err error
		fd, err = openDirBeneath(root, c.dir)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EACCES) {
			for i := c.lo; i < c.hi; i++ {
				if !es[i].skip {
					state[i] = entryBeyond
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", c.dir, err)
		}
		defer unix.Close(fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", c.dir, err)
	}
	c.st, c.opened = toStat(&st), true
	skip := 0
	if c.dir != "" {
		skip = len(c.dir) + 1
	}
	for i := c.lo; i < c.hi; i++ {
		e := &es[i]
		if e.skip {
			continue
		}
		if e.stage != 0 || e.ita || e.mode == modeGitlink {
			state[i] = entryChanged
			continue
		}
		err := unix.Fstatat(fd, e.path[skip:], &st, unix.AT_SYMLINK_NOFOLLOW)
		now := toStat(&st)
		racy := e.stat.newerOrSame(idxStat)
		switch {
		case err != nil:
			state[i] = entryChanged
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			state[i] = entryNowDir
		case !sameType(e.mode, st.Mode):
			state[i] = entryChanged
		case now == e.stat && !racy:
		case now == e.stat:
			state[i] = entryChanged // git compares the content
		case now.withoutNs() == e.stat.withoutNs() && e.stat.MtimeS < idxStat.MtimeS:
			// git (built without USE_NSEC) compares seconds only, and
			// looks at the content only of entries as new as its
			// index's second: it would keep the old content.
			state[i] = entrySubsecond
		default:
			state[i] = entryChanged
		}
	}
	return nil
}

// openDirBeneath opens directory rel (workspace-relative, slash
// separated) beneath root for lookups (O_PATH), through no symlink: a
// directory on the way that is a symlink now is no directory here
// (ELOOP).
func openDirBeneath(root int, rel string) (int, error) {
	for try := 0; ; try++ {
		fd, err := unix.Openat2(root, rel, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		// EAGAIN: a rename raced the lookup (RESOLVE_BENEATH).
		if (err == unix.EAGAIN || err == unix.EINTR) && try < 8 {
			continue
		}
		return fd, err
	}
}

// sameType reports whether an index mode and an lstat mode are the same
// kind of file with the same executable bit.
func sameType(imode, mode uint32) bool {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		if mode&0o100 != 0 {
			return imode == modeExec
		}
		return imode == modeFile
	case unix.S_IFLNK:
		return imode == modeSymlink
	}
	return false
}

// errRescan: a new .gitignore appeared; every directory is read again.
var errRescan = errors.New("a new .gitignore")

// walker finds the untracked files that are not ignored, reading only the
// directories whose stat data changed (or all of them).
type walker struct {
	r          *repo
	index      string
	es         []ientry
	files      map[string]bool // index entries
	gitlinks   map[string]bool // the submodules among them
	tdirs      map[string]bool // directories holding index entries
	ci         *ignoreCheck
	dirs       []dirStat
	ignored    map[string][]string
	newFiles   []string
	repos      []string        // repositories of their own among the untracked directories
	gitignores []string        // every .gitignore in the directories read (full)
	sources    map[string]bool // the recorded sources
	// seen is the stat data of the directories the entry scan opened
	// (entryScan.dirs), taken before this walk reads any directory.
	seen map[string]statData
}

// statDir is the stat data of directory rel: the entry scan's when it
// opened rel, else an lstat; ok is false when rel is no directory.
func (w *walker) statDir(rel string) (statData, bool) {
	if st, ok := w.seen[rel]; ok {
		return st, true
	}
	st, mode, ok := lstatData(filepath.Join(w.r.work, filepath.FromSlash(rel)))
	return st, ok && mode&unix.S_IFMT == unix.S_IFDIR
}

func newWalker(r *repo, index string, es []ientry) *walker {
	return &walker{r: r, index: index, es: es, ignored: map[string][]string{}}
}

func (w *walker) reset() {
	w.dirs, w.ignored, w.newFiles, w.repos, w.gitignores = nil, map[string][]string{}, nil, nil, nil
}

func (w *walker) close() {
	if w.ci != nil {
		w.ci.close()
		w.ci = nil
	}
}

// lookups builds the index's path sets the first time a directory is
// read.
func (w *walker) lookups() {
	if w.files != nil {
		return
	}
	w.files = make(map[string]bool, len(w.es))
	w.tdirs = map[string]bool{"": true}
	w.gitlinks = map[string]bool{}
	for _, e := range w.es {
		w.files[e.path] = true
		if e.mode == modeGitlink {
			w.gitlinks[e.path] = true
		}
		for d := pathDir(e.path); d != "" && !w.tdirs[d]; d = pathDir(d) {
			w.tdirs[d] = true
		}
	}
}

// run checks the recorded directories (every directory when full) and
// reads the changed ones. It reports whether it read any.
func (w *walker) run(old *wtState, ref statData, full bool, nowDirs []string) (bool, error) {
	recorded := map[string]bool{}
	var queue []dirStat
	// The parents of entries that are directories now are read: the
	// directory's files are new.
	parents := map[string]bool{}
	for _, p := range nowDirs {
		parents[pathDir(p)] = true
	}
	if full || old == nil {
		st, ok := w.statDir("")
		if !ok {
			return false, errFallback
		}
		queue = append(queue, dirStat{Rel: "", St: st})
	} else {
		for _, d := range old.Dirs {
			recorded[d.Rel] = true
		}
		w.sources = map[string]bool{}
		for _, s := range old.Sources {
			w.sources[s.Rel] = true
		}
		for _, d := range old.Dirs {
			st, ok := w.statDir(d.Rel)
			switch {
			case !ok:
				// Gone: what it held shows as deleted entries.
			case st != d.St || st.newerOrSame(ref) || parents[d.Rel]:
				queue = append(queue, dirStat{Rel: d.Rel, St: st})
			default:
				w.dirs = append(w.dirs, d)
				if ig := old.Ignored[d.Rel]; len(ig) > 0 {
					w.ignored[d.Rel] = ig
				}
			}
		}
	}
	if len(queue) == 0 {
		return false, nil
	}
	w.lookups()
	var known map[string][]string
	if !full && old != nil {
		known = old.Ignored
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		more, err := w.read(d, recorded, known, full)
		if err != nil {
			return true, err
		}
		queue = append(queue, more...)
	}
	return true, nil
}

// read reads directory d: names the index holds are the entries' to
// check; known ignored names stay ignored (the rules did not change);
// git is asked about the others. It returns the directories to read next.
func (w *walker) read(d dirStat, recorded map[string]bool, known map[string][]string, full bool) ([]dirStat, error) {
	abs := filepath.Join(w.r.work, filepath.FromSlash(d.Rel))
	// O_DIRECTORY: never a FIFO the command left where a directory was.
	f, err := os.OpenFile(abs, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil // gone since: its entries show as deleted
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	w.dirs = append(w.dirs, d)
	wasIgnored := map[string]bool{}
	for _, n := range known[d.Rel] {
		wasIgnored[n] = true
	}
	type cand struct {
		rel string
		dir bool
	}
	var cands []cand
	var next []dirStat
	for _, e := range ents {
		name := e.Name()
		if name == ".git" {
			continue // git never looks at it
		}
		rel := joinRel(d.Rel, name)
		if name == ".gitignore" {
			// One git holds is seen changing among the entries, an
			// ignored one among the sources; a new one changes what is
			// ignored below.
			if !full && !w.files[rel] && !w.sources[filepath.Join(w.r.work, filepath.FromSlash(rel))] {
				return nil, errRescan
			}
			w.gitignores = append(w.gitignores, rel)
		}
		t := e.Type()
		switch {
		case t.IsDir():
			switch {
			case w.files[rel] && w.gitlinks[rel]:
				// A submodule: its entry is always given to git.
			case recorded[rel]:
				// Checked on its own.
			case w.tdirs[rel]:
				if st, ok := w.statDir(rel); ok {
					next = append(next, dirStat{Rel: rel, St: st})
				}
			case wasIgnored[name+"/"]:
				w.ignored[d.Rel] = append(w.ignored[d.Rel], name+"/")
			default:
				cands = append(cands, cand{rel, true})
			}
		case t.IsRegular() || t&fs.ModeSymlink != 0:
			switch {
			case w.files[rel]:
			case wasIgnored[name]:
				w.ignored[d.Rel] = append(w.ignored[d.Rel], name)
			default:
				cands = append(cands, cand{rel, false})
			}
		}
		// FIFOs, sockets and devices: git add -A leaves them out.
	}
	if len(cands) == 0 {
		return next, nil
	}
	if w.ci == nil {
		if w.ci, err = w.r.checkIgnore(w.index); err != nil {
			return nil, err
		}
	}
	rels := make([]string, len(cands))
	for i, c := range cands {
		rels[i] = c.rel
	}
	ign, err := w.ci.query(rels)
	if err != nil {
		return nil, err
	}
	for i, c := range cands {
		name := pathBase(c.rel)
		switch {
		case ign[i] && c.dir:
			w.ignored[d.Rel] = append(w.ignored[d.Rel], name+"/")
		case ign[i]:
			w.ignored[d.Rel] = append(w.ignored[d.Rel], name)
		case !c.dir:
			w.newFiles = append(w.newFiles, c.rel)
		default:
			p := filepath.Join(abs, name)
			if _, _, ok := lstatData(filepath.Join(p, ".git")); ok {
				// A repository of its own: git add -A adds it as a
				// submodule, and so does update-index; one without a
				// commit it refuses, and git status shows it as an
				// untracked directory, so it is left out.
				w.repos = append(w.repos, c.rel)
				if committed(p) {
					w.newFiles = append(w.newFiles, c.rel)
				}
				continue
			}
			if st, _, ok := lstatData(p); ok {
				next = append(next, dirStat{Rel: c.rel, St: st})
			}
		}
	}
	return next, nil
}

// ignoreCheck is a running `git check-ignore --stdin`: it answers about
// one directory's names at a time.
type ignoreCheck struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	start time.Time // GitTimeout after it, git is killed
}

func (r *repo) checkIgnore(index string) (*ignoreCheck, error) {
	// --no-index: the names asked about are not in guard's index, but for
	// an entry that is a directory now, which git add -A judges as any
	// other directory.
	cmd := r.command(index, nil, "check-ignore", "--no-index", "--stdin", "-z", "-v", "-n")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startConfined(cmd, r.writable(index)); err != nil {
		return nil, fmt.Errorf("git check-ignore: %w", err)
	}
	return &ignoreCheck{cmd: cmd, in: in, out: bufio.NewReader(out), start: time.Now()}, nil
}

// query reports for each path whether git ignores it. A pattern that
// matched but starts with "!" re-includes the path.
func (c *ignoreCheck) query(paths []string) ([]bool, error) {
	// check-ignore reads pathspecs, and takes no literal magic: "./" in
	// front keeps a name that starts with ":" from being read as magic
	// (it matches names as they are, without globbing).
	var buf bytes.Buffer
	for _, p := range paths {
		buf.WriteString("./")
		buf.WriteString(p)
		buf.WriteByte(0)
	}
	werr := make(chan error, 1)
	go func() { // git answers as it reads: write and read at once
		_, err := c.in.Write(buf.Bytes())
		werr <- err
	}()
	out := make([]bool, len(paths))
	for i := range paths {
		var f [4]string
		for j := range f {
			s, err := c.out.ReadString(0)
			if err != nil && time.Since(c.start) >= GitTimeout {
				return nil, fmt.Errorf("git check-ignore: %w", errGitTimeout)
			}
			if err != nil {
				return nil, fmt.Errorf("git check-ignore: %w", err)
			}
			f[j] = s[:len(s)-1]
		}
		if f[3] != "./"+paths[i] {
			return nil, fmt.Errorf("git check-ignore: answered about %q, asked about %q", f[3], paths[i])
		}
		out[i] = f[2] != "" && f[2][0] != '!'
	}
	if err := <-werr; err != nil {
		return nil, fmt.Errorf("git check-ignore: %w", err)
	}
	return out, nil
}

func (c *ignoreCheck) close() {
	c.in.Close()
	c.cmd.Wait() // exit 1: nothing was ignored
}
