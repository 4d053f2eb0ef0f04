package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/guard-sh/guard/internal/hostexec"
	"github.com/guard-sh/guard/internal/safefile"
)

// refPrefix is the private namespace that keeps checkpoint trees alive
// against git gc: refPrefix+ID+"/before" and "/after" name the trees. git
// log (even --all: they are not commits), git status, git branch and git
// stash list do not show refs there.
const refPrefix = "refs/guard/checkpoints/"

// gitFlags are passed to every git guard runs: no fsmonitor daemon, no
// hooks, no pager, no automatic gc, no advice on embedded repositories.
var gitFlags = []string{
	"--no-pager",
	// Objects by their ids only: refs/replace/, which any command may
	// write, would have git read other content in their place.
	"--no-replace-objects",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "gc.auto=0",
	// guard's git makes no reflog for guard's refs, whatever the
	// repository's config says (core.logAllRefUpdates=always); it still
	// appends to one that exists, which realStore checks is no link.
	"-c", "core.logAllRefUpdates=false",
	"-c", "maintenance.auto=false",
	"-c", "advice.addEmbeddedRepo=false",
	"-c", "core.quotePath=false",
	// Never an entry git stops looking at (assume-unchanged, which
	// core.ignoreStat sets on every file git adds): see seed.go.
	"-c", "core.ignoreStat=false",
	// No conversion of line endings by configuration: what guard's git
	// stores and checks out is the file's bytes unless an attribute
	// says otherwise (convert.go).
	"-c", "core.autocrlf=false",
	"-c", "core.eol=lf",
	// guard's own index stays one plain file (checkpoint/index.go reads it).
	"-c", "core.splitIndex=false",
	"-c", "index.sparse=false",
	// Fewer new files per checkpoint. Blobs that git update-index and
	// add write go, together, into one pack (bulk check-in streams every
	// blob over the threshold there) instead of a loose file each; guard
	// packs the trees itself (trees.go), and the trees write-tree still
	// writes (the fallback) are stored, not deflated (zlib's set-up per
	// object was a quarter of write-tree's time). Each new file costs an
	// inode, and on ext4 without a journal (this machine) allocating one
	// scans every inode freed in the last 30 to 60 s of its group
	// (bench_test.go). git gc packs them all as it packs the user's.
	"-c", "core.bigFileThreshold=1",
	"-c", "core.looseCompression=0",
}

// Limits on the files of the repository guard reads itself, never
// blocking on a FIFO (internal/safefile): a .git or commondir file names
// a directory; the user's index is copied whole.
const (
	maxGitFile   = 64 << 10
	maxIndexFile = 2 << 30
)

// GitTimeout bounds each git guard runs (see repo.command). A checkpoint
// of 10,000 files takes git tens of milliseconds; one it cannot finish
// in this time is not taken. Tests shorten it.
var GitTimeout = 30 * time.Second

// errGitTimeout: a git guard ran was killed at GitTimeout. Nothing falls
// back to another git then (it would wait as long again).
var errGitTimeout = errors.New("did not finish in time (a FIFO, a lock or a huge file in the work tree?); killed")

// repo is a git repository whose work tree is exactly the workspace.
type repo struct {
	gitDir string // absolute
	// common is the common directory (commondir), read once when the
	// repository is opened and given to every git as GIT_COMMON_DIR: a
	// commondir file the command writes later moves neither guard's
	// git nor what its confinement lets it write.
	common string
	work   string // absolute, the workspace
	// gitPath is the git guard runs, found (as path, its PATH) only through
	// directories no sandboxed command can write (internal/hostexec):
	// guard runs it unconfined.
	gitPath, path string
	// env is added to every git's environment (tests).
	env []string
	// wrote are the packs (file names in objects/pack) guard has had git
	// write, for the record (wtState.Packs).
	wrote []string
}

// notePack records the pack git index-pack named on its stdout out
// ("pack\tHASH").
func (r *repo) notePack(out []byte) {
	for _, l := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(l, "pack\t"); ok && h != "" {
			r.wrote = append(r.wrote, "pack-"+h+".pack")
		}
	}
}

// packNames lists the packs (file names) in the repository's
// objects/pack; a directory that cannot be read lists none.
func (r *repo) packNames() []string {
	des, _ := os.ReadDir(filepath.Join(r.commonDir(), "objects", "pack"))
	var out []string
	for _, d := range des {
		if strings.HasSuffix(d.Name(), ".pack") {
			out = append(out, d.Name())
		}
	}
	return out
}

// errNoRepo: the workspace is not in git (it has no .git); guard falls
// back to backups.
var errNoRepo = errors.New("not a git work tree")

// errBadRepo: the workspace has a .git that git cannot use as the
// workspace's own work tree (git missing, a broken or foreign .git, the
// workspace below the top level). guard cannot tell what git holds or
// ignores there, so it covers nothing.
var errBadRepo = errors.New("the workspace has a .git that git cannot use")

// baseEnv is the environment git runs with: the caller's, minus every
// GIT_* variable but GIT_CONFIG_NOSYSTEM (a GIT_DIR, GIT_INDEX_FILE or
// GIT_CONFIG_* left by the agent must not redirect guard or inject
// configuration), with a fixed locale, no prompts and no pager.
func baseEnv() []string {
	var env []string
	tunables := mallocTunables
	for _, kv := range os.Environ() {
		if (strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=")) || strings.HasPrefix(kv, "LC_ALL=") || strings.HasPrefix(kv, "PAGER=") {
			continue
		}
		if v, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
			if v != "" {
				tunables += ":" + v // the caller's come last: they win
			}
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GLIBC_TUNABLES="+tunables)
}

// mallocTunables keep the memory a git process frees for its next
// allocation (glibc; other C libraries ignore the variable). git
// compresses every object it writes through a new zlib stream of about
// 300 KB: by default glibc maps each one afresh or returns it to the
// system, and the first touch of every page is a page fault. For the
// 102 tree objects of a checkpoint that changed 100 files in 100
// directories that was 2,700 page faults and a quarter of git
// write-tree's time (bench_test.go).
const mallocTunables = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456"

// openRepo finds the repository of workspace ws from its .git (a
// directory, or a file naming the git dir as in linked worktrees and
// submodules), without running git: errNoRepo when ws has no .git,
// errBadRepo when it has one that does not look like a git dir or git is
// not installed. A .git git cannot use fails the first git command.
func openRepo(ws string) (*repo, error) { return reopenRepo(ws, "", "") }

// reopenRepo is openRepo with the git found (and its PATH) when the
// repository was opened before in this process, "" to look: the
// directories hostexec keeps are ones no sandboxed command can write, so
// the command that ran since cannot have changed what the look finds
// (Finish reuses Begin's; the look resolves every PATH entry and every
// tree a command may write).
func reopenRepo(ws, git, path string) (*repo, error) {
	dotgit := filepath.Join(ws, ".git")
	st, err := os.Lstat(dotgit)
	if err != nil {
		return nil, errNoRepo
	}
	if git == "" {
		path = hostexec.PATH(os.Getenv("PATH"), hostexec.CommandTrees(os.Getenv("HOME"), ws))
		if git, err = hostexec.Look("git", path); err != nil {
			return nil, errBadRepo
		}
	}
	gitDir := dotgit
	if st.Mode().IsRegular() {
		data, err := safefile.Read(dotgit, maxGitFile)
		line, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if err != nil || !ok || strings.ContainsAny(line, "\n") {
			return nil, errBadRepo
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(ws, line)
		}
		gitDir = filepath.Clean(line)
	} else if !st.IsDir() {
		return nil, errBadRepo
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return nil, errBadRepo
	}
	return &repo{gitDir: gitDir, common: readCommonDir(gitDir), work: ws, gitPath: git, path: path}, nil
}

// command is git on r with GIT_DIR and GIT_WORK_TREE set explicitly,
// and GIT_INDEX_FILE when index is not "" (guard never uses the user's
// index). extra adds environment entries.
//
// Every git guard runs is killed GitTimeout after it starts: it runs
// unconfined on a work tree the command just wrote, and a FIFO where git
// reads (a .gitignore, .gitattributes, info/exclude) would keep it, and
// guard, waiting for a writer that is gone. The checkpoint then fails
// (no undo for that command) instead of guard hanging after the run.
func (r *repo) command(index string, extra []string, args ...string) *exec.Cmd {
	counters.gitRuns.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), GitTimeout)
	cmd := exec.CommandContext(ctx, r.gitPath, append(append([]string(nil), gitFlags...), args...)...)
	cmd.Cancel = func() error {
		cancel()
		return cmd.Process.Kill()
	}
	// A killed git's children (a clean filter) may hold its pipes.
	cmd.WaitDelay = time.Second
	cmd.Dir = r.work
	env := append(hostexec.Env(baseEnv(), r.path), "GIT_DIR="+r.gitDir, "GIT_COMMON_DIR="+r.commonDir(), "GIT_WORK_TREE="+r.work)
	if index != "" {
		env = append(env, "GIT_INDEX_FILE="+index)
	}
	cmd.Env = append(append(env, r.env...), extra...)
	return cmd
}

// exitError is a git that ran and exited with a status other than 0.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d: %s", e.code, e.msg) }

// git runs git on r (see command); stdin may be nil.
func (r *repo) git(index string, extra []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := r.command(index, extra, args...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := startConfined(cmd, r.writable(index))
	if err == nil {
		err = cmd.Wait()
	}
	out := stdout.Bytes()
	if err != nil && time.Since(start) >= GitTimeout {
		return out, fmt.Errorf("git %s: %w", args[0], errGitTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = &exitError{code: ee.ExitCode(), msg: msg}
			return out, fmt.Errorf("git %s: %w", args[0], err)
		}
		return out, fmt.Errorf("git %s: %v: %s", args[0], err, msg)
	}
	return out, nil
}

// copyIndex seeds guard's index at dst from the user's index at src,
// without what git would trust instead of reading the files
// (distrustIndex). A missing index (a fresh repository), or one guard
// does not read, leaves dst absent and git starts from an empty one.
func copyIndex(src, dst string) error {
	data, err := safefile.Read(src, maxIndexFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	data, ok := distrustIndex(data)
	if !ok {
		return nil
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return fmt.Errorf("copy index: %w", err)
	}
	return nil
}

// indexRefPrefix names, per guard index, the tree of that index (the
// snapshot a command without changes since reuses), so that git gc keeps
// it between commands: refs/guard/index/H, H a hash of the index's path
// (its state directory and repository: linked worktrees share refs, and
// so do two users' guards on one repository).
const indexRefPrefix = "refs/guard/index/"

func indexRef(index string) string {
	h := sha256.Sum256([]byte(index))
	return indexRefPrefix + hex.EncodeToString(h[:8])
}

// keep points the private refs of checkpoint id at trees, in one
// transaction ("before" and/or "after"; "" leaves one out), and the ref
// of guard's index at tree index when it is not "", so git gc keeps them.
// Refs may name trees: no commit is needed.
func (r *repo) keep(id, before, after string, idx snapshotResult) error {
	var b strings.Builder
	if before != "" {
		fmt.Fprintf(&b, "update %s%s/before %s\n", refPrefix, id, before)
	}
	if after != "" {
		fmt.Fprintf(&b, "update %s%s/after %s\n", refPrefix, id, after)
	}
	if idx.ref != "" {
		fmt.Fprintf(&b, "update %s %s\n", idx.ref, idx.tree)
	}
	_, err := r.git("", nil, strings.NewReader(b.String()), updateRef...)
	return err
}

// updateRef is how guard runs git update-ref: --no-deref, because a
// command may have made guard's refs symbolic refs to the user's (a
// tag, the stash, a branch), which git would then write or delete in
// their place (TestRefsNeverDereferenced).
var updateRef = []string{"update-ref", "--no-deref", "--stdin"}

// checkRefs checks that every object guard's refs name (refs/guard/),
// and every object below them, is in git, and deletes the refs that
// name or reach one that is gone: a command may delete guard's packs,
// and a ref reaching a missing object makes the user's git gc fail.
// whole reports whether tree (the index's, "" for none) is whole.
func (r *repo) checkRefs(tree string) (whole bool, err error) {
	out, err := r.git("", nil, nil, "for-each-ref", "--format=%(objectname) %(refname)", "refs/guard/")
	if err != nil {
		return false, err
	}
	var ids, refs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, ref, ok := strings.Cut(l, " "); ok {
			ids, refs = append(ids, id), append(refs, ref)
		}
	}
	if tree != "" {
		ids, refs = append(ids, tree), append(refs, "")
	}
	if len(ids) == 0 {
		return true, nil
	}
	// First the objects the refs name (rev-list refuses a missing one),
	// then everything below those that are there, all in one walk; only
	// when something is missing, each ref on its own.
	out, err = r.git("", nil, strings.NewReader(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return false, err
	}
	broken := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, what, _ := strings.Cut(l, " "); what == "missing" {
			broken[id] = true
		}
	}
	var there []string
	for _, id := range ids {
		if !broken[id] {
			there = append(there, id)
		}
	}
	if len(there) > 0 {
		some, err := r.reachesMissing(there)
		if err != nil {
			return false, err
		}
		for _, id := range there {
			if !some {
				break
			}
			if broken[id], err = r.reachesMissing([]string{id}); err != nil {
				return false, err
			}
		}
	}
	var b strings.Builder
	for i, ref := range refs {
		if ref != "" && broken[ids[i]] {
			fmt.Fprintf(&b, "delete %s\n", ref)
		}
	}
	if b.Len() > 0 {
		if _, err := r.git("", nil, strings.NewReader(b.String()), updateRef...); err != nil {
			return false, err
		}
	}
	return tree == "" || !broken[tree], nil
}

// reachesMissing reports whether an object below the objects ids (which
// git has) is missing.
func (r *repo) reachesMissing(ids []string) (bool, error) {
	out, err := r.git("", nil, nil, append([]string{"rev-list", "--objects", "--missing=print"}, ids...)...)
	if err != nil {
		return false, err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "?") {
			return true, nil
		}
	}
	return false, nil
}

// drop deletes the private refs of checkpoint id (its objects go at the
// next git gc).
func (r *repo) drop(id string) error {
	if err := r.realStore(); err != nil {
		return err
	}
	in := fmt.Sprintf("delete %s%s/before\ndelete %s%s/after\n", refPrefix, id, refPrefix, id)
	_, err := r.git("", nil, strings.NewReader(in), updateRef...)
	return err
}

// change is one path that differs between two trees.
type change struct {
	status byte // 'A' added, 'D' deleted, 'M' modified (type changes too)
	path   string
}

// diff lists the paths that differ between trees a and b, recursively,
// without rename detection.
func (r *repo) diff(a, b string) ([]change, error) {
	if a == b {
		return nil, nil
	}
	out, err := r.git("", nil, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", a, b)
	if err != nil {
		return nil, err
	}
	var cs []change
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		st := f[i][0]
		if st != 'A' && st != 'D' {
			st = 'M'
		}
		cs = append(cs, change{status: st, path: f[i+1]})
	}
	return cs, nil
}

// diffEntries is diff on two indexes' entries (sorted by path, as git
// keeps them): the paths whose mode or object differ, or that only one
// holds. Only the entries write-tree writes count (inTree).
func diffEntries(a, b []ientry) []change {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return nil // the same index, read once
	}
	var cs []change
	i, j := 0, 0
	for {
		for i < len(a) && !inTree(&a[i]) {
			i++
		}
		for j < len(b) && !inTree(&b[j]) {
			j++
		}
		if i == len(a) && j == len(b) {
			return cs
		}
		switch {
		case j == len(b) || (i < len(a) && a[i].path < b[j].path):
			cs = append(cs, change{status: 'D', path: a[i].path})
			i++
		case i == len(a) || b[j].path < a[i].path:
			cs = append(cs, change{status: 'A', path: b[j].path})
			j++
		default:
			if a[i].mode != b[j].mode || a[i].oid != b[j].oid {
				cs = append(cs, change{status: 'M', path: a[i].path})
			}
			i++
			j++
		}
	}
}

// inTree reports whether git write-tree writes e (merged, with content).
func inTree(e *ientry) bool { return e.stage == 0 && !e.ita }

// dirs lists every directory in tree.
func (r *repo) dirs(tree string) (map[string]bool, error) {
	out, err := r.git("", nil, nil, "ls-tree", "-r", "-d", "-z", "--name-only", tree)
	if err != nil {
		return nil, err
	}
	return nulSet(out), nil
}

// ignored lists the untracked ignored files under the workspace-relative
// paths rels (git's own view of .gitignore, info/exclude and
// core.excludesFile).
// It only reads the user's index.
func (r *repo) ignored(rels []string) (map[string]bool, error) {
	args := []string{"ls-files", "-z", "-o", "-i", "--exclude-standard", "--"}
	for _, p := range rels {
		args = append(args, ":(literal)"+p)
	}
	out, err := r.git("", nil, nil, args...)
	if err != nil {
		return nil, err
	}
	return nulSet(out), nil
}

// nulSet is the set of the NUL-separated names git printed.
func nulSet(out []byte) map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			m[p] = true
		}
	}
	return m
}
