package scan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// skipDirs are not walked outside git: version control metadata and
// installed dependencies.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// Files lists what to scan. Each path that names a file is scanned as
// named, whatever its kind; a directory (all of root when paths is empty)
// contributes its files. With useGit the files of a directory are those git
// ls-files lists there, tracked or untracked but not ignored; otherwise a
// walk that skips .git and node_modules. Symbolic links inside directories
// are not followed. Relative paths are resolved against the working
// directory; paths in the result are relative to root when inside it.
func Files(root string, paths []string, useGit bool) ([]File, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", root, err)
	}
	named := len(paths) > 0
	if !named {
		paths = []string{root}
	}
	var out []File
	seen := map[string]bool{}
	addFile := func(abs string) {
		if !seen[abs] {
			seen[abs] = true
			out = append(out, File{Path: relPath(root, abs), OSPath: abs})
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", p, err)
		}
		if !fi.IsDir() {
			addFile(abs)
			continue
		}
		var found []string
		if useGit {
			found, err = gitListed(root, abs)
		} else {
			found, err = walk(abs)
		}
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			addFile(f)
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if named && useGit {
		// The files named may be code only because a file not named
		// includes them (the pre-commit framework passes the changed
		// files: ci/jobs.yml alone, which .gitlab-ci.yml includes, was
		// scanned as no kind on eed3eff). The repository's includers
		// and YAML files are read as context, as for Staged.
		all, err := gitListed(root, root)
		if err != nil {
			return nil, err
		}
		for _, abs := range all {
			name := relPath(root, abs)
			if !seen[abs] && (slices.Contains(includerKinds, KindOf(name)) || isYAML(strings.ToLower(path.Base(name)))) {
				out = append(out, File{Path: name, OSPath: abs, context: true})
			}
		}
	}
	return out, nil
}

func walk(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", p, err)
		}
		if d.IsDir() {
			if p != dir && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() || linkedScript(p, d.Type()) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// linkedScript reports whether a file of mode m at abs is a symbolic link
// whose own name makes it shell (deploy.sh, .husky/pre-commit,
// Makefile): whoever runs it by that name runs what it leads to, so it is
// scanned under that name (readCandidate reads only targets inside the
// repository).
func linkedScript(abs string, m fs.FileMode) bool {
	return m&fs.ModeSymlink != 0 && KindOf(filepath.ToSlash(abs)) != ""
}

// gitListed lists the regular files git knows under dir (tracked, or
// untracked and not ignored), as absolute paths.
func gitListed(root, dir string) ([]string, error) {
	out, err := git(root, nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, name := range splitNUL(out) {
		abs := filepath.Join(root, filepath.FromSlash(name))
		// Deleted but still in the index, a submodule, a link that
		// does not carry a shell's name: skip.
		if fi, err := os.Lstat(abs); err == nil && (fi.Mode().IsRegular() || linkedScript(abs, fi.Mode())) {
			files = append(files, abs)
		}
	}
	return slices.Compact(files), nil
}

// Staged returns the files a commit would add or change, with their
// content as staged in the index (not as in the working tree): the added,
// copied, modified, renamed and retyped (T: a link that became a file, a
// file that became a link) regular files and links of git diff --cached.
// With paths, only those files (or the files under those directories)
// are kept. root must be the top level of the work tree.
func Staged(root string, paths []string) ([]File, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", root, err)
	}
	// Every change but a deletion (d excludes D): a list of the statuses
	// to keep left out T (a link that became a file, eed3eff), and would
	// leave out any status a later git adds.
	args := []string{"diff", "--cached", "--raw", "-z", "--no-renames", "--diff-filter=d", "--no-abbrev", "--"}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		args = append(args, abs)
	}
	out, err := git(root, nil, args...)
	if err != nil {
		return nil, err
	}
	// Records are ":oldmode newmode oldsha newsha status\0path\0".
	type entry struct {
		path, sha  string
		link, exec bool
	}
	var entries []entry
	fields := splitNUL(out)
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("git diff --cached: unexpected record %q", fields[i])
		}
		name := fields[i+1]
		switch mode := meta[1]; {
		case mode == "100644" || mode == "100755":
			entries = append(entries, entry{path: name, sha: meta[3], exec: mode == "100755"})
		case mode == "120000" && KindOf(name) != "":
			// A link with a shell's name runs what it leads to.
			entries = append(entries, entry{path: name, sha: meta[3], link: true})
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	// One git cat-file for all the blobs.
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.sha
	}
	blobs, err := catFiles(root, names)
	if err != nil {
		return nil, err
	}
	files := make([]File, 0, len(entries))
	var links []int // files that are links to a file in the index
	var targets []string
	for i, e := range entries {
		if blobs[i] == nil {
			return nil, fmt.Errorf("git cat-file: %s: no blob %s", e.path, e.sha)
		}
		f := File{Path: e.path, Src: blobs[i], Exec: e.exec}
		if e.link {
			// The blob is the link's target: the file the commit runs
			// under this name is that target as staged.
			t := string(blobs[i])
			clean := path.Clean(path.Join(path.Dir(e.path), t))
			f.Src = nil
			if path.IsAbs(t) || clean == ".." || strings.HasPrefix(clean, "../") {
				f.Err = errLinkOutside
			} else {
				links = append(links, len(files))
				targets = append(targets, ":"+clean)
			}
		}
		files = append(files, f)
	}
	if len(links) > 0 {
		srcs, err := catFiles(root, targets)
		if err != nil {
			return nil, err
		}
		for k, i := range links {
			files[i].Src = srcs[k]
			if srcs[k] == nil {
				files[i].Err = fmt.Errorf("it is a symbolic link to %s, which the commit does not hold", targets[k][1:])
			}
		}
	}
	return stagedContext(root, files)
}

// stagedContext adds to the commit's files the staged files it does not
// change that may include others or be included (a kind by name, or
// YAML), as context: a file is often CI code only because another
// includes it (.gitlab-ci.yml's include: local: ci/jobs.yml), and
// eed3eff's --staged, which read only the changed files, passed a
// commit changing ci/jobs.yml alone to curl | sh. Run decides which
// context files are scanned (withoutContext). The includers' blobs are
// read here; a YAML file's only when an include reaches it.
func stagedContext(root string, files []File) ([]File, error) {
	out, err := git(root, nil, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, f := range files {
		changed[f.Path] = true
	}
	var names, shas []string
	for _, rec := range splitNUL(out) {
		// "mode sha stage\tpath"
		meta, name, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) < 3 || changed[name] || fields[0] != "100644" && fields[0] != "100755" {
			continue
		}
		if slices.Contains(includerKinds, KindOf(name)) {
			names, shas = append(names, name), append(shas, fields[1])
		} else if isYAML(strings.ToLower(path.Base(name))) {
			// Read only if an include reaches it (File.source): on
			// every commit, reading each YAML file of a repository of
			// 30,000 cost 1.4 s CPU and 190 MB, for a commit of main.go.
			files = append(files, File{Path: name, blob: fields[1], context: true})
		}
	}
	if len(names) == 0 {
		return files, nil
	}
	blobs, err := catFiles(root, shas)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if blobs[i] != nil {
			files = append(files, File{Path: n, Src: blobs[i], context: true})
		}
	}
	return files, nil
}

// catFiles reads the blobs git names (a sha, or :path for the index) with
// one git cat-file; a name git does not have reads as nil.
func catFiles(root string, names []string) ([][]byte, error) {
	var in bytes.Buffer
	for _, n := range names {
		in.WriteString(n + "\n")
	}
	out, err := git(root, &in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	blobs := make([][]byte, len(names))
	for i, n := range names {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: unexpected header %q for %s", strings.TrimSpace(header), n)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(header))
		}
		src := make([]byte, size+1)
		if _, err := io.ReadFull(r, src); err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %w", n, err)
		}
		blobs[i] = src[:size]
	}
	return blobs, nil
}

// Toplevel returns the top level of the git work tree holding dir, or ""
// when dir is not in one (or git is not installed).
func Toplevel(dir string) string {
	out, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// HooksDir returns the directory git runs hooks from for the repository
// holding dir (core.hooksPath honoured), as an absolute path.
func HooksDir(dir string) (string, error) {
	out, err := git(dir, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func git(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], firstLine(msg))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// VerifyRevision checks that rev names a commit of the repository at root.
func VerifyRevision(root, rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return fmt.Errorf("%q is not a revision", rev)
	}
	_, err := git(root, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return fmt.Errorf("%q is not a commit of this repository", rev)
	}
	return nil
}

// AtRevision returns the content of the file at path (slash-separated,
// relative to root) in commit rev; false when it was not there.
func AtRevision(root, rev, path string) ([]byte, bool) {
	out, err := git(root, nil, "cat-file", "blob", rev+":"+path)
	if err != nil {
		return nil, false
	}
	return out, true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func splitNUL(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
