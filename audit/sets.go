package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/review"
)

// The sandbox of a decision record lists every path it hides and protects:
// about 460 paths, 14 KB, the same for every command run in the same
// workspace. Written into every record they made the log grow by 14 KB a
// command (32 MB, a rotation, every 2,300 commands) and every decision
// encode, hash, write and sync them. A long list is stored once instead,
// in a set file named by the SHA-256 of its bytes (sets/HEX.json in the
// log's directory), and the record carries that name (hide_set,
// protect_set) in place of the list. The name is inside the hash chain,
// so a set file edited afterwards no longer matches the record that
// names it: Verify reports it, and Read refuses to expand it.

// SetsDir is the directory, inside the log's, that holds the set files.
const SetsDir = "sets"

// setMin is the shortest list stored as a set; shorter ones stay inline.
const setMin = 16

// setLimit bounds what reading a set file loads.
const setLimit = 4 << 20

// setData is the set file's bytes for list, and its name (hex SHA-256).
func setData(list []string) (name string, data []byte) {
	data = append(appendStrings(nil, list), '\n')
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), data
}

// compactSets moves r.Sandbox's long Hide and Protect lists into set files
// (written and synced before the record that names them) and returns the
// record with their names in place of the lists. r's own Sandbox is not
// changed.
func (l *Log) compactSets(r Record) (Record, error) {
	s := r.Sandbox
	if s == nil || (len(s.Hide) < setMin && len(s.Protect) < setMin) {
		return r, nil
	}
	c := *s
	if len(c.Hide) >= setMin {
		name, err := l.storeSet(c.Hide)
		if err != nil {
			return r, err
		}
		r.HideSet, c.Hide = name, nil
	}
	if len(c.Protect) >= setMin {
		name, err := l.storeSet(c.Protect)
		if err != nil {
			return r, err
		}
		r.ProtectSet, c.Protect = name, nil
	}
	r.Sandbox = &c
	return r, nil
}

// storeSet makes sure the set file for list exists and returns its name.
// A set file already there is left alone (Verify checks its content); a
// new one is written to a temporary file, synced, renamed into place and
// the directory synced, so that it is on disk before any record names it.
func (l *Log) storeSet(list []string) (string, error) {
	name, data := setData(list)
	dir := filepath.Join(l.dir, SetsDir)
	path := filepath.Join(dir, name+".json")
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return name, nil
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("store sandbox set: %w", err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		// A symlink planted here would take the sets elsewhere.
		return "", fmt.Errorf("store sandbox set: %s is not a directory", dir)
	}
	if err := tighten(dir, 0o700); err != nil {
		return "", fmt.Errorf("store sandbox set: %w", err)
	}
	tmp, err := safefile.WriteTemp(dir, ".tmp-*", data)
	if err != nil {
		return "", fmt.Errorf("store sandbox set: %w", err)
	}
	defer os.Remove(tmp)
	err = os.Rename(tmp, path)
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return "", fmt.Errorf("store sandbox set: %w", err)
	}
	return name, nil
}

// loadSet reads the set file name in the log directory dir and checks that
// its bytes still hash to name.
func loadSet(dir, name string) ([]string, error) {
	if !validSetName(name) {
		return nil, fmt.Errorf("sandbox set %q: not a SHA-256 name", name)
	}
	path := filepath.Join(dir, SetsDir, name+".json")
	data, err := safefile.Read(path, setLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("sandbox set %s is missing (removed?)", name)
		}
		return nil, fmt.Errorf("sandbox set %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != name {
		return nil, fmt.Errorf("sandbox set %s does not match its name (edited?)", name)
	}
	var list []string
	if err := json.Unmarshal(bytes.TrimSuffix(data, []byte("\n")), &list); err != nil {
		return nil, fmt.Errorf("sandbox set %s: %w", name, err)
	}
	return list, nil
}

// validSetName: 64 lower-case hex digits, so a name read from a log line
// can never reach outside the sets directory.
func validSetName(name string) bool {
	if len(name) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// setCache loads each set file once for one walk of the log (many records
// name the same set).
type setCache struct {
	dir   string
	lists map[string][]string
	errs  map[string]error
}

func newSetCache(dir string) *setCache {
	return &setCache{dir: dir, lists: map[string][]string{}, errs: map[string]error{}}
}

func (c *setCache) load(name string) ([]string, error) {
	if err, ok := c.errs[name]; ok {
		return nil, err
	}
	if list, ok := c.lists[name]; ok {
		return list, nil
	}
	list, err := loadSet(c.dir, name)
	if err != nil {
		c.errs[name] = err
		return nil, err
	}
	c.lists[name] = list
	return list, nil
}

// expand puts the lists of the sets r names back into its Sandbox.
func (c *setCache) expand(r *Record) error {
	if r.HideSet == "" && r.ProtectSet == "" {
		return nil
	}
	s := review.Sandbox{}
	if r.Sandbox != nil {
		s = *r.Sandbox
	}
	for _, set := range []struct {
		name string
		dst  *[]string
	}{{r.HideSet, &s.Hide}, {r.ProtectSet, &s.Protect}} {
		if set.name == "" {
			continue
		}
		list, err := c.load(set.name)
		if err != nil {
			return err
		}
		*set.dst = slices.Clone(list)
	}
	r.Sandbox = &s
	return nil
}

// lineSets returns the set names a log line carries, found without
// decoding the line: the members are written by encode, whose strings
// escape every quote, so `"hide_set":"` cannot occur inside another
// member's value.
func lineSets(line []byte) []string {
	var names []string
	for _, key := range []string{`"hide_set":"`, `"protect_set":"`} {
		i := bytes.Index(line, []byte(key))
		if i < 0 {
			continue
		}
		rest := line[i+len(key):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			names = append(names, string(rest))
			continue
		}
		names = append(names, string(rest[:end]))
	}
	return names
}
