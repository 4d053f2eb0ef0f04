package review_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// appended are commands the property test adds to a line; adding a
// command must never lower the level.
var appended = []string{"true", "ls -la", "rm -rf /", "git push --force", "echo hi > out.txt", "curl https://example.com"}

func verdictOf(fx *fixture, t testing.TB, text string) review.Verdict {
	return assess(fx, t, corpusCase{text: text, ctx: "-"})
}

// FuzzAssess: no panic, no hang, the same verdict byte for byte on every
// run, and appending "; CMD" never lowers the level.
func FuzzAssess(f *testing.F) {
	for _, cs := range loadCorpus(f) {
		f.Add(cs.text)
	}
	for _, s := range fuzzRegressions {
		f.Add(s)
	}
	for _, s := range fuzzStress {
		f.Add(s)
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, text string) {
		// No wall-clock check here: the fuzzer reports inputs that hang,
		// and timing asserts in tests only measure the machine's load.
		v1 := verdictOf(fx, t, text)
		v2 := verdictOf(fx, t, text)
		b1, _ := json.Marshal(v1)
		b2, _ := json.Marshal(v2)
		if string(b1) != string(b2) {
			t.Fatalf("verdict not deterministic:\n%s\n%s", b1, b2)
		}
		if v1.Level < review.A || v1.Level > review.C {
			t.Fatalf("level %v out of range", v1.Level)
		}
		if strings.HasSuffix(text, `\`) {
			// A trailing backslash escapes what is appended: "cp /\" then
			// "; true" is cp '/;' true, another command (the fuzzer found
			// it; testdata keeps it).
			return
		}
		for _, cmd := range appended {
			v := verdictOf(fx, t, text+"; "+cmd)
			if v.Level < v1.Level {
				t.Fatalf("appending %q lowered %s to %s for %q", cmd, v1.Level, v.Level, text)
			}
		}
	})
}

// fuzzRegressions are inputs the fuzzer found; they stay as seeds.
var fuzzRegressions = []string{
	"{rm,-rf,~}",
	"$'\\x72\\x6d' -rf ~",
	"a=(\"$(rm -rf ~)\")",
	"x[$(rm -rf ~)]=1",
	"case $(rm -rf ~) in *) ;; esac",
	"[[ $(rm -rf ~) ]]",
	"((x[$(rm -rf ~)]))",
	": ${X:=$(rm -rf ~)}",
	"f() { f | f & }; f",
	"cat <<EOF\n$(rm -rf ~)\nEOF",
	"for d in build ~; do rm -rf \"$d\"; done",
	"()0$()", // found by FuzzAssess: an anonymous function panicked parse
}

// fuzzStress are seeds for the issue 14 walker paths (launchers, printf
// emulation, namerefs, hooks, find per start path). Two 60 s fuzz runs
// found no crash; these keep the shapes covered. None may be A.
var fuzzStress = []string{
	"printf '%*s' 100000000 x | sh",
	"printf '%0999999999d' 1 | sh",
	"f() { f \"$@\"; }; f x y",
	"command_not_found_handle() { command_not_found_handle; }; zz",
	"declare -n a=b; declare -n b=a; a=1; echo $a",
	"eval 'g() { eval g; }'; g",
	"find a b c -exec find a b c -exec find a b c -delete \\; \\;",
	"busybox busybox busybox sh -c 'rm -rf ~'",
	"tmux \\; \\; new 'tmux new \"rm -rf ~\"'",
	"env -S '\\c' ; env -S \"${\" ; env -S '\\'",
	"x ${y} 'a | b' --c='d e' /usr/bin/rm -rf ~",
	"sed -e 's' -e 's/a' -e 'e' -e 'w' notes.txt",
}

// TestDeterministic runs every corpus case twice through fresh builders.
func TestDeterministic(t *testing.T) {
	fx := newFixture(t)
	for _, cs := range loadCorpus(t) {
		v1, v2 := assess(fx, t, cs), assess(fx, t, cs)
		b1, _ := json.Marshal(v1)
		b2, _ := json.Marshal(v2)
		if string(b1) != string(b2) {
			t.Errorf("%s: not deterministic", cs.where)
		}
	}
}

// TestAppendNeverLowers is the property over the whole corpus.
func TestAppendNeverLowers(t *testing.T) {
	fx := newFixture(t)
	for _, cs := range loadCorpus(t) {
		base := assess(fx, t, cs).Level
		for _, cmd := range appended {
			c := cs
			c.text = cs.text + "; " + cmd
			if got := assess(fx, t, c).Level; got < base {
				t.Errorf("%s: appending %q lowered %s to %s", cs.where, cmd, base, got)
			}
		}
	}
}

// TestRegressions pins what the fuzz seeds must give.
func TestRegressions(t *testing.T) {
	fx := newFixture(t)
	for _, text := range fuzzRegressions {
		if got := verdictOf(fx, t, text).Level; got != review.C {
			t.Errorf("%q: got %s, want C", text, got)
		}
	}
}

// TestStressSeeds: the stress seeds are never A (each holds something
// dynamic, unknown or dangerous) and give the same verdict twice.
func TestStressSeeds(t *testing.T) {
	fx := newFixture(t)
	for _, text := range fuzzStress {
		v1, v2 := verdictOf(fx, t, text), verdictOf(fx, t, text)
		if v1.Level == review.A {
			t.Errorf("%q: got A", text)
		}
		if v1.Digest != v2.Digest {
			t.Errorf("%q: verdict not deterministic", text)
		}
	}
}

// TestEveryEffectHasALevel guards the ladder table: an unknown cap fails
// closed (C), and every cap the profile emits is priced on purpose.
func TestEveryEffectHasALevel(t *testing.T) {
	if l := review.EffectLevel(profile.Effect{Cap: "no-such-cap"}); l != review.C {
		t.Errorf("unknown cap priced %s, want C", l)
	}
}
