package sandbox

import (
	"bufio"
	"bytes"
	"github.com/guard-sh/guard/internal/paths"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// protectRoot is one protected path and what of it is checked.
type protectRoot struct {
	path   string
	filter filter
	// identity: a directory whose device and inode must not change
	// (.git): if the command moves it away, it is moved back.
	identity bool
}

// Git runs code from more places than .git/hooks and .git/config: a
// protected .git/hooks or .git/config in Spec.Protect stands for every
// code-bearing path of that repository, as git resolves them.
//
//   - .git itself (device and inode): swapped for a symlink, a
//     "gitdir:" file or another directory, it is put back;
//   - when .git is a "gitdir:" file or a symlink, that file and the
//     directory it names;
//   - in the git directory and in its commondir: config,
//     config.worktree, hooks/ and commondir; every config,
//     config.worktree, commondir and hooks/ under modules/ (submodules)
//     and worktrees/;
//   - the files those config files include (include.path,
//     includeIf.*.path), in turn, and the directory core.hooksPath
//     names in any of them.
//
// Each may be absent before the run: then creating it is a violation.

// gitCodeNames are the files under a git directory that make git run
// code or point it elsewhere.
var gitCodeNames = []string{"config", "config.worktree", "commondir"}

// gitDataDirs are never entered when looking for code-bearing files:
// they hold data, and can be large.
var gitDataDirs = []string{"objects", "refs", "logs", "lfs", "info", "rr-cache", "branches"}

// gitCode selects the code-bearing files under modules/ and worktrees/.
func gitCode(rel string, dir bool) (record, descend bool) {
	if rel == "." {
		return false, true
	}
	parts := strings.Split(rel, "/")
	if slices.Contains(parts[:len(parts)-1], "hooks") {
		return true, true
	}
	base := parts[len(parts)-1]
	if dir {
		if base == "hooks" {
			return true, true
		}
		return false, !slices.Contains(gitDataDirs, base)
	}
	return slices.Contains(gitCodeNames, base), false
}

// gitDirOf reports the .git a protected path stands for: p is
// <repo>/.git/hooks or <repo>/.git/config.
func gitDirOf(p string) (string, bool) {
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if (base == "hooks" || base == "config") && filepath.Base(dir) == ".git" {
		return dir, true
	}
	return "", false
}

// gitSurfaces lists the protected roots of the repository whose .git is
// dotgit, in the order they must be checked (.git itself first).
func gitSurfaces(r *resolver, dotgit, home string) []protectRoot {
	var out []protectRoot
	add := func(r protectRoot) {
		if !slices.ContainsFunc(out, func(o protectRoot) bool { return o.path == r.path }) {
			out = append(out, r)
		}
	}
	worktree := filepath.Dir(dotgit)
	gitdir := dotgit
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		// No repository yet: one the command creates is its own. The
		// paths the profile named stay protected (absent).
		add(protectRoot{path: filepath.Join(dotgit, "hooks"), filter: everything})
		add(protectRoot{path: filepath.Join(dotgit, "config"), filter: everything})
		return out
	case fi.IsDir():
		add(protectRoot{path: dotgit, filter: rootOnly, identity: true})
	default:
		// A "gitdir:" file or a symlink: protect it, and follow it.
		add(protectRoot{path: dotgit, filter: everything})
		if fi.Mode()&os.ModeSymlink != 0 {
			gitdir = r.canonical(dotgit)
		} else if t, ok := readGitPointer(dotgit, "gitdir:"); ok {
			gitdir = resolveFrom(worktree, t)
		}
	}
	dirs := []string{gitdir}
	if t, ok := readGitPointer(filepath.Join(gitdir, "commondir"), ""); ok {
		if c := resolveFrom(gitdir, t); c != gitdir {
			dirs = append(dirs, c)
		}
	}
	for _, d := range dirs {
		for _, name := range []string{"config", "config.worktree", "commondir", "hooks"} {
			add(protectRoot{path: filepath.Join(d, name), filter: everything})
		}
		for _, name := range []string{"modules", "worktrees"} {
			add(protectRoot{path: filepath.Join(d, name), filter: gitCode})
		}
	}
	// The config files, then the files they include (which git reads as
	// part of them: a fsmonitor or a hooksPath there runs as well).
	var configs []string
	for _, d := range dirs {
		configs = append(configs, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
	}
	for _, r := range configRoots(configs, home, func(hooks string) []string {
		return []string{expandGitPath(hooks, worktree, home)}
	}) {
		add(r)
	}
	return out
}

// configRoots follows git config files (configs) and the files they
// include, in turn, up to maxIncludes more: each included file is a
// root, and so is each hooks directory one names (hooksAt: the
// directories a core.hooksPath value means). The repository's config
// (gitSurfaces) and the user's (globalGitRefs) are followed alike.
func configRoots(configs []string, home string, hooksAt func(string) []string) []protectRoot {
	configs = slices.Clone(configs)
	var out []protectRoot
	n := len(configs)
	for i := 0; i < len(configs) && i < n+maxIncludes; i++ {
		hooks, includes := configRefs(configs[i])
		if hooks != "" {
			for _, h := range hooksAt(hooks) {
				out = append(out, protectRoot{path: h, filter: everything})
			}
		}
		for _, inc := range includes {
			// Relative to the directory of the file that includes it.
			p := expandGitPath(inc, filepath.Dir(configs[i]), home)
			if !slices.Contains(configs, p) {
				out = append(out, protectRoot{path: p, filter: everything})
				configs = append(configs, p)
			}
		}
	}
	return out
}

// globalGitConfigs are the user's git config files, which git reads in
// every repository before the repository's own: GIT_CONFIG_GLOBAL's
// file when it is set, else ~/.gitconfig and the XDG one.
func globalGitConfigs(home string, env []string) []string {
	if g := envValue(env, "GIT_CONFIG_GLOBAL"); g != "" {
		return []string{expandGitPath(g, home, home)}
	}
	xdg := envValue(env, "XDG_CONFIG_HOME")
	if !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	return []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")}
}

// globalGitRefs are the paths the user's git config files point git to
// (configs, protected themselves as home files): the files they include
// (include.path, includeIf.*.path, relative to the including file), in
// turn, and the directory core.hooksPath names — relative, it is a
// directory of every work tree, so of each of worktrees. Before, only
// the repository's own config was followed: a global config that
// includes a file of the workspace (a dotfiles repository the agent
// works in) or names a relative hooks directory (.githooks) left the
// command free to plant a fsmonitor or a hook that git ran outside
// guard (TestAttackGlobalGitConfigRefs).
func globalGitRefs(configs []string, home string, worktrees []string) []protectRoot {
	var out []protectRoot
	for _, c := range configs {
		// GIT_CONFIG_GLOBAL may name a file of the workspace.
		out = append(out, protectRoot{path: c, filter: everything})
	}
	return append(out, configRoots(configs, home, func(hooks string) []string {
		if filepath.IsAbs(hooks) || strings.HasPrefix(hooks, "~/") {
			return []string{expandGitPath(hooks, home, home)}
		}
		var dirs []string
		for _, w := range worktrees {
			dirs = append(dirs, expandGitPath(hooks, w, home))
		}
		return dirs
	})...)
}

// maxPointer bounds how much of a "gitdir:" or commondir file is read.
const maxPointer = 4096

// readGitPointer reads a one-line pointer file (".git" holding
// "gitdir: PATH", or commondir holding PATH), bounded.
func readGitPointer(p, prefix string) (string, bool) {
	data, ok := readSmall(p, maxPointer)
	if !ok {
		return "", false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	s, ok := strings.CutPrefix(strings.TrimSpace(string(line)), prefix)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(p string, limit int64) ([]byte, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, false
	}
	return readBounded(p, fi.Size())
}

func resolveFrom(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// maxConfig bounds how much of a git config file is parsed for
// core.hooksPath; a larger one is still protected, just not parsed.
const maxConfig = 1 << 20

// maxIncludes bounds how many included config files are followed (git
// stops at a depth of 10).
const maxIncludes = 32

// configRefs lists the paths a git config file points git to:
// core.hooksPath, and include.path and includeIf.*.path, whose files
// are read as if they were part of it. They are returned as found
// (relative, or starting with "~/").
func configRefs(cfg string) (hooks string, includes []string) {
	data, ok := readSmall(cfg, maxConfig)
	if !ok {
		return "", nil
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			section = strings.ToLower(strings.TrimSpace(name))
			if i := strings.IndexByte(line, ']'); i >= 0 {
				line = strings.TrimSpace(line[i+1:])
			} else {
				line = ""
			}
		}
		include := section == "include" || strings.HasPrefix(section, "includeif ")
		if (section != "core" && !include) || line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || (key != "hookspath" || include) && (key != "path" || !include) {
			continue
		}
		val = strings.TrimSpace(val)
		if i := strings.IndexAny(val, "#;"); i >= 0 && !strings.HasPrefix(val, `"`) {
			val = strings.TrimSpace(val[:i])
		}
		val = strings.Trim(val, `"`)
		switch {
		case val == "":
		case include:
			includes = append(includes, val)
		default:
			hooks = val // the last one wins, as in git
		}
	}
	return hooks, includes
}

// expandGitPath resolves a path from a git config file as git does:
// "~/" is the home directory, a relative path is relative to base (the
// work tree for core.hooksPath, the including file's directory for
// include.path).
func expandGitPath(p, base, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return resolveFrom(base, p)
}

// protectRoots turns Spec.Protect into the roots to snapshot, keeping
// only those a writable grant can reach: Landlock already refuses
// changes to the others.
func protectRoots(s Spec, writable []string) []protectRoot {
	if len(writable) == 0 {
		// Nothing is reachable (a read-only run): no need to resolve
		// the protected paths or to read the repository's files.
		return nil
	}
	var roots []protectRoot
	seen := map[string]bool{}
	var add func(r protectRoot)
	add = func(r protectRoot) {
		if seen[r.path] || !reachable(s.res, r.path, writable) {
			return
		}
		seen[r.path] = true
		roots = append(roots, r)
		// A protected path that is a symbolic link (~/.bashrc linked
		// into a dotfiles repository, the workspace) is read through
		// it: what it points to is protected too, as its own root
		// (the scan records the link, never its target).
		dir, base := splitClean(r.path)
		if c := s.res.canonical(r.path); c != joinClean(s.res.canonical(dir), base) {
			real := r
			real.path, real.identity = c, false
			add(real)
		}
	}
	// Both .git/hooks and .git/config protected: the whole repository's
	// code surfaces are. The review lifts one of them when the command
	// was approved to write it; then only the other stays protected.
	gitDirs := map[string]int{}
	for _, p := range s.Protect {
		if g, ok := gitDirOf(p); ok {
			gitDirs[g]++
		}
	}
	for _, p := range s.Protect {
		if g, ok := gitDirOf(p); ok && gitDirs[g] == 2 {
			if !seen["git:"+g] {
				seen["git:"+g] = true
				for _, r := range gitSurfaces(s.res, g, s.Home) {
					add(r)
				}
			}
			continue
		}
		add(protectRoot{path: p, filter: everything})
	}
	// The user's own git config, which git reads in every repository:
	// what it includes and the hooks directory it names, where the
	// command may write them.
	var worktrees []string
	for g, n := range gitDirs {
		if n == 2 {
			worktrees = append(worktrees, filepath.Dir(g))
		}
	}
	slices.Sort(worktrees)
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	for _, r := range globalGitRefs(globalGitConfigs(s.Home, env), s.Home, worktrees) {
		add(r)
	}
	// guard's own executable and its sandbox helper, when they live in a
	// tree the command may write (guard built in its own workspace): a
	// replaced helper would confine nothing on the next run.
	for _, p := range selfFiles() {
		add(protectRoot{path: p, filter: everything})
	}
	return roots
}

// selfFiles are guard's executable and the sandbox helper beside it.
func selfFiles() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return []string{self, filepath.Join(filepath.Dir(self), ExecHelperName)}
}

// reachable reports whether a writable tree holds p (by its name or by
// its real location).
func reachable(res *resolver, p string, writable []string) bool {
	c := res.canonical(p)
	for _, w := range writable {
		if paths.Within(p, w) || paths.Within(c, w) {
			return true
		}
	}
	return false
}
