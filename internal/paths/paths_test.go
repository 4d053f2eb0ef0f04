package paths

import (
	"path"
	"strings"
	"testing"
)

// TestWithin: Within answers as the obvious definition does, for clean
// and unclean directories, the root, and names that share a prefix.
func TestWithin(t *testing.T) {
	ps := []string{"/", "/a", "/ab", "/a/b", "/a/b/c", "/home/u", "/home/u2", "/home/u/.ssh"}
	dirs := append(ps, "/a/", "/a//b", "/a/./b", "/a/b/..", "//")
	for _, p := range ps {
		for _, d := range dirs {
			c := path.Clean(d)
			want := c == "/" || p == c || strings.HasPrefix(p, c+"/")
			if got := Within(p, d); got != want {
				t.Errorf("Within(%q, %q) = %v, want %v", p, d, got, want)
			}
		}
	}
}

// TestIsClean: IsClean, which spares Within a path.Clean, agrees with
// path.Clean on every absolute path of up to seven of '/', '.' and 'a'.
// Were it to call an unclean directory clean, Within("/a/x", "/a/b/..")
// would be false and a path inside a protected directory would not be.
func TestIsClean(t *testing.T) {
	var walk func(p string)
	walk = func(p string) {
		want := path.Clean(p) == p
		if got := IsClean(p); got != want {
			t.Errorf("IsClean(%q) = %v, want %v", p, got, want)
		}
		if len(p) < 7 {
			for _, c := range "/.a" {
				walk(p + string(c))
			}
		}
	}
	walk("/")
	if !Within("/a/x", "/a/b/..") {
		t.Error(`Within("/a/x", "/a/b/..") = false`)
	}
}
