package review_test

import (
	"os"
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestDocumentedExamples runs every example row of docs/levels.md (between
// the examples markers) and README.md: the docs say what guard does.
func TestDocumentedExamples(t *testing.T) {
	fx := newFixture(t)
	n := 0
	for _, doc := range []string{"../docs/levels.md", "../README.md", "../docs/sandbox.md", "../docs/threat-model.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		start := strings.Index(text, "<!-- examples:begin -->")
		end := strings.Index(text, "<!-- examples:end -->")
		if start < 0 || end < start {
			t.Fatalf("%s: no examples markers", doc)
		}
		for _, line := range strings.Split(text[start:end], "\n") {
			cols := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
			if len(cols) < 4 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
				continue
			}
			cmd := strings.ReplaceAll(strings.Trim(strings.TrimSpace(cols[1]), "`"), "\x00", "|")
			want, err := review.ParseLevel(strings.TrimSpace(cols[2]))
			if err != nil {
				t.Fatalf("%s: %q: %v", doc, line, err)
			}
			n++
			if got := verdictOf(fx, t, cmd).Level; got != want {
				t.Errorf("%s: %s: guard says %s, the docs say %s", doc, cmd, got, want)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d documented examples found", n)
	}
}
