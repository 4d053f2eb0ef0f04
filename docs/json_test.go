package docs

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/audit"
)

// TestJSONListsDecisions: the guard log table in json.md names every
// decision an audit record can carry.
func TestJSONListsDecisions(t *testing.T) {
	page, err := Page("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range audit.Decisions() {
		if !strings.Contains(page, "`"+string(d)+"`") {
			t.Errorf("json.md does not list the decision %q", d)
		}
	}
}
