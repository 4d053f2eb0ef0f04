package review

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
)

// Input.Recoverable lowers exactly the workspace deletes it lists.
func TestRecoverable(t *testing.T) {
	del := func(target string, class profile.Class) profile.Effect {
		return profile.Effect{Cap: profile.CapDelete, Rule: "fs.delete", Program: "rm", Target: target, Class: class, Msg: "deletes " + target}
	}
	for _, c := range []struct {
		name    string
		effects []profile.Effect
		rec     []string
		want    Level
	}{
		{"covered", []profile.Effect{del("/w/src", profile.ClassWorkspace)}, []string{"/w/src"}, A},
		{"not listed", []profile.Effect{del("/w/src", profile.ClassWorkspace)}, []string{"/w/other"}, B},
		{"one of two", []profile.Effect{del("/w/src", profile.ClassWorkspace), del("/w/build", profile.ClassWorkspace)}, []string{"/w/src"}, B},
		{"both", []profile.Effect{del("/w/src", profile.ClassWorkspace), del("/w/build", profile.ClassWorkspace)}, []string{"/w/src", "/w/build"}, A},
		{"temp", []profile.Effect{del("/tmp/x", profile.ClassTemp)}, []string{"/tmp/x"}, B},
		{"sensitive", []profile.Effect{del("/w/.env", profile.ClassSensitive)}, []string{"/w/.env"}, B},
		{"outside", []profile.Effect{del("/h/x", profile.ClassHome)}, []string{"/h/x"}, C},
		{"no target", []profile.Effect{del("", profile.ClassWorkspace)}, []string{""}, B},
		{"discard is not a delete", []profile.Effect{{Cap: profile.CapDiscard, Rule: "git.reset-hard", Target: "/w/src", Class: profile.ClassWorkspace}}, []string{"/w/src"}, B},
	} {
		p := &profile.Profile{Effects: c.effects}
		v := Assess(p, Input{Text: "x", Recoverable: c.rec})
		if v.Level != c.want {
			t.Errorf("%s: level %s, want %s", c.name, v.Level, c.want)
		}
		if c.want == A && !strings.Contains(v.Explanation, "deletes /w/src "+RecoverableNote) {
			t.Errorf("%s: explanation does not say it is recoverable:\n%s", c.name, v.Explanation)
		}
		if c.want == A && strings.Contains(v.Explanation, "cannot be undone") {
			t.Errorf("%s: explanation says it cannot be undone:\n%s", c.name, v.Explanation)
		}
		if without := Assess(p, Input{Text: "x"}); c.want == A && without.Digest == v.Digest {
			t.Errorf("%s: the digest does not change with the level", c.name)
		}
	}
}
