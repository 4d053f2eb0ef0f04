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

func TestIsClean(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/a/", "/a//b", "/a/./b", "/a/..", "/..", "a", "", "/.a", "/a..b"} {
		if got, want := IsClean(p), strings.HasPrefix(p, "/") && path.Clean(p) == p; got != want {
			t.Errorf("IsClean(%q) = %v, want %v", p, got, want)
		}
	}
}
