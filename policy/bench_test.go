package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
)

// bigPolicy is a project policy of n rules (well under MaxFileSize), each
// with an example, as an attacker or a generator might write one.
func bigPolicy(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[[rules]]\nid = \"r%d\"\ncommand = \"tool%d *\"\nrequire = \"B\"\n", i, i)
	}
	return []byte(b.String())
}

// BenchmarkLoad16k: loading a 16,000-rule project policy must stay linear
// (issue: 30 s per call before; goal 50 ms).
func BenchmarkLoad16k(b *testing.B) {
	data := bigPolicy(16000)
	if len(data) > MaxFileSize {
		b.Fatalf("fixture is %d bytes, over the limit", len(data))
	}
	ctx := &profile.Context{Cwd: "/w", Workspace: "/w", Home: "/h"}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(ctx, Source{Path: "/w/.guard.toml", Data: data, Scope: Project}); err != nil {
			b.Fatal(err)
		}
	}
}
