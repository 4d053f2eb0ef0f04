package review_test

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// After a branch the rest of the line is reviewed in every state a way
// through it leaves; past the budget of such reviews the merged state
// alone counts, and a variable with two values is unknown: B, never the
// A of the last branch's value.
func TestBranchesPastTheBudget(t *testing.T) {
	pad := strings.Repeat("true; ", 4000) // 24 KiB after the branch: over the budget
	for _, tc := range []struct {
		text  string
		level review.Level
		rule  string
	}{
		{`X='rm -rf ~'; [ -e f ] && X=echo; eval "$X"`, review.C, "fs.delete"},
		{`X='rm -rf ~'; [ -e f ] && X=echo; ` + pad + `eval "$X"`, review.B, "exec.dynamic-code"},
		{`if c; then cd ~; else cd /tmp; fi; ` + pad + `rm -rf ./*`, review.C, "fs.delete"},
	} {
		ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
		v := review.Assess(profile.Build(tc.text, ctx), review.Input{Text: tc.text, Context: ctx, Provenance: review.ProvAgent})
		if v.Level != tc.level {
			t.Errorf("%.60s…: level %v, want %v (%v)", tc.text, v.Level, tc.level, v.Reasons)
			continue
		}
		found := false
		for _, r := range v.Reasons {
			found = found || r.Rule == tc.rule
		}
		if !found {
			t.Errorf("%.60s…: no %s among %v", tc.text, tc.rule, v.Reasons)
		}
	}
}

// guard never opens a kernel path to review it, however it is spelt: it
// would read its own descriptors, not the command's.
func TestNoKernelPathRead(t *testing.T) {
	var read []string
	ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
		ReadFile: func(p string) ([]byte, error) {
			read = append(read, p)
			return []byte("echo hi\n"), nil
		},
		EvalSymlinks: func(p string) (string, error) { return p, nil },
	}
	for _, text := range []string{"source /dev//fd/3", "bash /dev/./fd/3", ". /proc/self/../self/fd/3", "sh /proc/1/fd/3", "source /dev/fd/./03"} {
		read = nil
		v := review.Assess(profile.Build(text, ctx), review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent})
		if len(read) > 0 {
			t.Errorf("%s: read %v", text, read)
		}
		if v.Level < review.B {
			t.Errorf("%s: level %v, want at least B", text, v.Level)
		}
	}
}
