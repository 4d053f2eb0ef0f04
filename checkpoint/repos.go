package checkpoint

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// RepoChange is a git repository inside the workspace (not the
// workspace's own) whose code the command may have changed: its config
// (core.fsmonitor, core.hooksPath, filters, …) and hooks are run by git,
// and by the editors that run git there on their own (VS Code looks for
// repositories in subfolders), outside guard's sandbox. The sandbox
// protects the workspace repository's code surfaces; a repository the
// command makes, moves in or edits is found here, after the run.
type RepoChange struct {
	// Path is the repository's directory, relative to the workspace.
	Path string `json:"path"`
	// New: the repository was not there before the command (or its
	// .git was replaced, or it was moved in): all its code is the
	// command's.
	New bool `json:"new,omitempty"`
	// Files are its code files that changed during the run, relative to
	// its .git directory ("config", "hooks/post-checkout").
	Files []string `json:"files,omitempty"`
}

// repoSlack: a file's change time comes from a coarse clock, and may read
// slightly earlier than the time taken before the command started.
const repoSlack = time.Second

// repoCodeFiles are the files of a .git directory whose content is code
// or points git at code elsewhere.
var repoCodeFiles = []string{"config", "config.worktree", "commondir"}

// repoChanges finds the repositories the command may have given code: the
// workspace's nested repositories (the index's submodules after the run
// and the repositories the scan met among untracked directories) whose
// directory, .git or code files changed since since. before are the
// index entries before the run (nil: unknown, and then only changed code
// files count).
func repoChanges(ws string, before []ientry, after snapshotResult, since time.Time) []RepoChange {
	known := map[string]bool{}
	for _, e := range before {
		if e.mode == modeGitlink {
			known[e.path] = true
		}
	}
	cands := map[string]bool{}
	for _, e := range after.entries {
		if e.mode == modeGitlink {
			cands[e.path] = true
		}
	}
	for _, r := range after.repos {
		cands[r] = true
	}
	// The repositories in the workspace's top directories, ignored ones
	// too (the scan reads no ignored directory): editors open these on
	// their own, and run git there.
	if ents, err := os.ReadDir(ws); err == nil {
		for _, e := range ents {
			if e.IsDir() && e.Name() != ".git" {
				cands[e.Name()] = true // the loop below skips those without a .git
			}
		}
	}
	rels := make([]string, 0, len(cands))
	for r := range cands {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	var out []RepoChange
	for _, rel := range rels {
		root := filepath.Join(ws, filepath.FromSlash(rel))
		if !realDirs(ws, rel) {
			// A directory on the way swapped for a symlink leads
			// elsewhere; guard, unconfined, never follows it (the
			// command made nothing there).
			continue
		}
		gd := filepath.Join(root, ".git")
		var gst unix.Stat_t
		if unix.Lstat(gd, &gst) != nil {
			continue
		}
		rc := RepoChange{Path: rel}
		if before != nil && !known[rel] && (changedSince(root, since) || changedSince(gd, since)) {
			rc.New = true
		}
		if gst.Mode&unix.S_IFMT != unix.S_IFDIR {
			// A gitdir: file points git anywhere.
			if changedSince(gd, since) {
				rc.New = true
			}
		} else {
			for _, f := range repoCodeFiles {
				if changedSince(filepath.Join(gd, f), since) {
					rc.Files = append(rc.Files, f)
				}
			}
			hooks := filepath.Join(gd, "hooks")
			ents, _ := os.ReadDir(hooks)
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") && changedSince(filepath.Join(hooks, e.Name()), since) {
					rc.Files = append(rc.Files, "hooks/"+e.Name())
				}
			}
		}
		if rc.New || len(rc.Files) > 0 {
			out = append(out, rc)
		}
	}
	return out
}

// realDirs reports whether every directory from ws down to ws/rel is a
// directory, none a symlink.
func realDirs(ws, rel string) bool {
	p := ws
	for _, c := range strings.Split(rel, "/") {
		p = filepath.Join(p, c)
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false
		}
	}
	return true
}

// changedSince reports whether p's status changed (or, where the file
// system records it, p was born) at since or later.
func changedSince(p string, since time.Time) bool {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_CTIME|unix.STATX_BTIME, &st); err != nil {
		return false
	}
	at := func(t unix.StatxTimestamp) time.Time { return time.Unix(t.Sec, int64(t.Nsec)) }
	if !at(st.Ctime).Before(since) {
		return true
	}
	return st.Mask&unix.STATX_BTIME != 0 && !at(st.Btime).Before(since)
}
