package profile

import (
	"path"
	"testing"
)

// TestIsClean: isClean, which spares within a path.Clean, agrees with
// path.Clean on every absolute path of up to seven of '/', '.' and 'a'.
// Were it to call an unclean directory clean, within("/a/x", "/a/b/..")
// would be false and a path inside a protected directory would not be.
func TestIsClean(t *testing.T) {
	var walk func(p string)
	walk = func(p string) {
		want := path.Clean(p) == p
		if got := isClean(p); got != want {
			t.Errorf("isClean(%q) = %v, want %v", p, got, want)
		}
		if len(p) < 7 {
			for _, c := range "/.a" {
				walk(p + string(c))
			}
		}
	}
	walk("/")
	if !within("/a/x", "/a/b/..") {
		t.Error(`within("/a/x", "/a/b/..") = false`)
	}
}
