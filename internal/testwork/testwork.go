// Package testwork gives tests a working directory outside every temp
// directory. guard prices /tmp, /var/tmp, /dev/shm and $TMPDIR as temp
// dirs (a delete there is cheap), so fixtures that stand for a home and a
// workspace must not live there: they go in the user cache dir
// ($HOME/.cache). Never inside the checkout: a fixture there is inside
// guard's own git repository, and a test that installs a hook or commits
// would change it. Only tests import this package.
package testwork

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir makes a fresh directory named prefix… in the user cache dir, removed
// when the test ends, with symlinks resolved (so the paths guard prints
// are the test's). With HOME itself under a temp dir there is no such
// place: the test is skipped and says why.
func Dir(t testing.TB, prefix string) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache dir for a fixture home: %v", err)
	}
	if UnderTemp(base) {
		t.Skipf("the fixture home must be outside the temp dirs, and HOME's cache dir %s is in one", base)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}

// UnderTemp reports whether p is in one of the directories guard takes
// for temp dirs.
func UnderTemp(p string) bool {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	for _, t := range []string{"/tmp", "/var/tmp", "/dev/shm", os.Getenv("TMPDIR")} {
		if t == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(t); err == nil {
			t = r
		}
		t = filepath.Clean(t)
		if p == t || strings.HasPrefix(p, t+"/") {
			return true
		}
	}
	return false
}
