package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTopicsArePages: the topics are exactly the pages in this directory,
// so a page added (say undo.md) is a topic, and the ones the issue names
// that exist today are there.
func TestTopicsArePages(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(f, ".md"))
	}
	slices.Sort(want)
	if got := Topics(); !slices.Equal(got, want) {
		t.Errorf("Topics() = %v, want %v", got, want)
	}
	for _, topic := range []string{"levels", "sandbox", "agents", "ci", "policy", "threat-model", "config", "json"} {
		page, err := Page(topic)
		if err != nil {
			t.Errorf("%s: %v", topic, err)
			continue
		}
		disk, err := os.ReadFile(topic + ".md")
		if err != nil || page != string(disk) {
			t.Errorf("%s: embedded page differs from %s.md", topic, topic)
		}
	}
	for _, bad := range []string{"", "nope", "../README", "ci.md", "embed.go"} {
		if _, err := Page(bad); err == nil {
			t.Errorf("Page(%q) found a page", bad)
		}
	}
}
