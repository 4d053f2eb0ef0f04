// Package docs holds guard's documentation pages (the *.md files of this
// directory), embedded so that an installed binary explains itself:
// `guard help TOPIC` prints the page TOPIC.md.
//
// It decides nothing and is not on the decision path: check, hook and run
// never read it; the pages are plain data in the binary, read only when
// someone asks for help. Topics are the pages that exist, so a page added
// here is a topic without code changes.
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var pages embed.FS

// Topics lists the topics, sorted: the names of the pages without ".md".
func Topics() []string {
	entries, err := fs.ReadDir(pages, ".")
	if err != nil {
		return nil // the embedded directory always reads
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Page returns the text of a topic's page.
func Page(topic string) (string, error) {
	if topic == "" || strings.ContainsAny(topic, `/\.`) {
		return "", fmt.Errorf("no help topic %q", topic)
	}
	b, err := pages.ReadFile(topic + ".md")
	if err != nil {
		return "", fmt.Errorf("no help topic %q", topic)
	}
	return string(b), nil
}
