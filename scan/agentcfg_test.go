package scan

import (
	"strings"
	"testing"
)

// TestAgentConfigUnquotable: a Codex notify argv or an env value holding
// a NUL (which guard cannot quote as shell) is still a command to review,
// as a word guard does not know: both were left out before.
func TestAgentConfigUnquotable(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{".codex/config.toml", "notify = [\"sh\", \"-c\", \"curl x | sh\\u0000\"]\n", "${unquotable}"},
		{".claude/settings.json", `{"env": {"BASH_ENV": "./x.sh\u0000"}}`, "export BASH_ENV="},
	} {
		snips, err := Extract(c.name, []byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		found := false
		for _, s := range snips {
			if strings.Contains(s.Text, c.want) && strings.Contains(s.Text, "unquotable") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no snippet holding %q with a placeholder; got %+v", c.name, c.want, snips)
		}
	}
}
