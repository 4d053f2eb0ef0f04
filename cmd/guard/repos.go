package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/checkpoint"
	"github.com/guard-sh/guard/internal/hostexec"
	"github.com/guard-sh/guard/internal/rootdir"
	"github.com/guard-sh/guard/profile"
)

// disarmed is the suffix of a code file guard moved aside.
const disarmed = ".guard-disabled"

// disarmRepos takes out the code the command gave git repositories
// inside the workspace (checkpoint.RepoChange): config that makes git
// run a command (core.fsmonitor, core.hooksPath, a filter, …), a
// commondir or gitdir: that points git elsewhere, and hooks. git runs
// them, outside guard's sandbox, the next time anyone — or an editor
// that looks for repositories in subfolders — runs git there. Each is
// moved aside (NAME.guard-disabled), kept for the user to look at. It
// returns one line per file moved, or that could not be.
func disarmRepos(ws string, rcs []checkpoint.RepoChange) []string {
	var out []string
	if len(rcs) == 0 {
		return nil
	}
	// Moved aside through the workspace as an os.Root: a directory
	// swapped for a symlink meanwhile (another guard run's command) never
	// leads the rename outside the workspace.
	root, err := rootdir.Open(ws)
	if err != nil {
		return []string{fmt.Sprintf("%s: the repositories the command changed could not be checked; could not move it aside: %v", ws, err)}
	}
	defer root.Close()
	moveAside := func(p, why string) string { return moveAsideIn(root, ws, p, why) }
	for _, rc := range rcs {
		gd := filepath.Join(ws, filepath.FromSlash(rc.Path), ".git")
		fi, err := os.Lstat(gd)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if rc.New {
				out = append(out, moveAside(gd, "a .git file that points git at another directory"))
			}
			continue
		}
		files := rc.Files
		if rc.New {
			files = []string{"config", "config.worktree", "commondir"}
			ents, _ := os.ReadDir(filepath.Join(gd, "hooks"))
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") && !strings.HasSuffix(e.Name(), disarmed) {
					files = append(files, "hooks/"+e.Name())
				}
			}
		}
		for _, f := range files {
			p := filepath.Join(gd, filepath.FromSlash(f))
			if why := repoCode(ws, p, f); why != "" {
				out = append(out, moveAside(p, why))
			}
		}
	}
	return out
}

// repoCode says why the file f (relative to .git) at p is code git runs
// or follows, "" if it is not.
func repoCode(ws, p, f string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	switch {
	case f == "commondir":
		return "a commondir, which points git at another repository's config and hooks"
	case strings.HasPrefix(f, "hooks/"):
		if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return "a hook, which git runs"
		}
		return ""
	}
	keys, err := gitConfigKeys(ws, p)
	if err != nil {
		// git cannot read it: neither can guard tell it is harmless.
		return "a config git cannot read (" + err.Error() + ")"
	}
	var code []string
	for _, kv := range keys {
		if profile.GitConfigRunsCode(kv[0], kv[1]) {
			code = append(code, kv[0])
		}
	}
	if len(code) == 0 {
		return ""
	}
	return "config that makes git run commands (" + strings.Join(code, ", ") + ")"
}

// gitConfigKeys lists the keys and values of the config file p, as git
// reads it (git config --file reads that file alone and runs nothing).
// The git is found only where a command run in workspace ws could not
// have planted one (internal/hostexec): guard runs it unconfined.
func gitConfigKeys(ws, p string) ([][2]string, error) {
	path := hostexec.PATH(os.Getenv("PATH"), hostexec.CommandTrees(os.Getenv("HOME"), ws))
	git, err := hostexec.Look("git", path)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(git, "config", "--file", p, "--no-includes", "--list", "-z")
	cmd.Env = []string{"PATH=" + path, "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s", msg)
	}
	var kvs [][2]string
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		kvs = append(kvs, [2]string{k, v})
	}
	return kvs, nil
}

// moveAsideIn renames p (in ws, opened as root) to p.guard-disabled and
// says so.
func moveAsideIn(root *os.Root, ws, p, why string) string {
	dst := p + disarmed
	rel, err := filepath.Rel(ws, p)
	if err == nil {
		err = root.Rename(rel, rel+disarmed)
	}
	if err != nil {
		return fmt.Sprintf("%s: %s; could not move it aside: %v", p, why, err)
	}
	return fmt.Sprintf("%s: %s; moved to %s", p, why, filepath.Base(dst))
}
