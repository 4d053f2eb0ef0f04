package profile

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// TestHomeRelativesClean: underHome joins the home-relative tables by
// concatenation, which equals path.Join only for clean relative paths.
func TestHomeRelativesClean(t *testing.T) {
	for name, rels := range map[string][]string{"persistRel": persistRel(), "secretRel": secretRel()} {
		for _, r := range rels {
			if r == "" || strings.HasPrefix(r, "/") || strings.HasPrefix(r, "../") || path.Clean(r) != r {
				t.Errorf("%s: %q is not a clean relative path", name, r)
			}
		}
	}
}

// TestHomeLocsAsJoined: the home tables are what path.Join makes, for a
// home given with a trailing slash, with dot segments, and for "/".
func TestHomeLocsAsJoined(t *testing.T) {
	for _, home := range []string{"/home/u", "/home/u/", "/home/./u/../u", "/"} {
		c := &Context{Home: home}
		got := c.homeLocs()
		var persist, secret []string
		for _, r := range persistRel() {
			persist = append(persist, path.Join(home, r))
		}
		for _, r := range secretRel() {
			secret = append(secret, path.Join(home, r))
		}
		if !slices.Equal(got.persist, persist) || !slices.Equal(got.secret, secret) {
			t.Errorf("home %q: tables differ from path.Join's", home)
		}
	}
	if l := (&Context{}).homeLocs(); l.persist != nil || l.secret != nil {
		t.Errorf("no home: tables %v %v, want none", l.persist, l.secret)
	}
}
