package scan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guard-sh/guard/internal/safefile"
)

// IgnoreFile is the name of the exclude file scan reads at the repository
// root.
const IgnoreFile = ".guardignore"

// Ignore is a list of exclude patterns: doublestar globs over paths
// relative to the repository root, slash-separated, read like gitignore
// lines. A pattern without a slash (other than a trailing one) matches a
// name at any depth; one with a slash is anchored at the root (a leading
// slash is dropped); a trailing slash matches directories only; a pattern
// that matches a directory excludes everything under it; a leading !
// re-includes what an earlier pattern excluded; the last pattern that
// matches decides. Blank lines and lines starting with # are skipped.
type Ignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	pattern string // anchored doublestar pattern
	dirOnly bool
	negate  bool
	source  string // "file:line" or "--exclude", for messages
}

// AddPattern adds one pattern. source names where it came from for error
// messages ("--exclude", ".guardignore:3").
func (ig *Ignore) AddPattern(p, source string) error {
	raw := p
	r := ignoreRule{source: source}
	if strings.HasPrefix(p, "!") {
		r.negate = true
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	if p == "" {
		return fmt.Errorf("%s: empty pattern %q", source, raw)
	}
	if strings.HasPrefix(p, "/") {
		p = strings.TrimLeft(p, "/")
	} else if !strings.Contains(p, "/") {
		p = "**/" + p
	}
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("%s: bad pattern %q", source, raw)
	}
	r.pattern = p
	ig.rules = append(ig.rules, r)
	return nil
}

// ReadIgnore reads root/.guardignore into ig. A missing file adds nothing;
// one that is not a regular file, or is larger than 1 MiB, is an error.
func (ig *Ignore) ReadIgnore(root string) error {
	data, err := safefile.Read(filepath.Join(root, IgnoreFile), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", IgnoreFile, err)
	}
	return ig.ParseIgnore(data)
}

// ParseIgnore adds the patterns of a .guardignore file's content (as it
// is in a trusted commit, say).
func (ig *Ignore) ParseIgnore(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := ig.AddPattern(line, fmt.Sprintf("%s:%d", IgnoreFile, n)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Len is the number of patterns.
func (ig *Ignore) Len() int { return len(ig.rules) }

// Match reports whether the file at rel (relative to the root,
// slash-separated) is excluded: by a pattern matching it or one of its
// parent directories, the last matching pattern deciding.
func (ig *Ignore) Match(rel string) bool {
	if ig == nil || len(ig.rules) == 0 {
		return false
	}
	rel = path.Clean(rel)
	if rel == "." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return false
	}
	excluded := false
	for _, r := range ig.rules {
		if r.matches(rel) {
			excluded = !r.negate
		}
	}
	return excluded
}

// matches reports whether r matches rel itself (a file) or a directory
// above it.
func (r ignoreRule) matches(rel string) bool {
	if !r.dirOnly {
		if ok, _ := doublestar.Match(r.pattern, rel); ok {
			return true
		}
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if ok, _ := doublestar.Match(r.pattern, dir); ok {
			return true
		}
	}
	return false
}

// Filter returns the files ig does not exclude.
func (ig *Ignore) Filter(files []File) []File {
	if ig == nil || len(ig.rules) == 0 {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if !ig.Match(f.Path) {
			out = append(out, f)
		}
	}
	return out
}
