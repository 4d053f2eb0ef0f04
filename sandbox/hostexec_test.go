package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/internal/hostexec"
	"github.com/guard-sh/guard/internal/paths"
)

// TestCommandTreesCoverGrants ties hostexec's list of the trees a
// sandboxed command may write to the grants the sandbox gives: guard
// finds the programs it runs unconfined (git) only outside that list,
// so a writable grant the list missed would let a command plant one.
func TestCommandTreesCoverGrants(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "src/p")
	for _, d := range append([]string{ws}, filepath.Join(home, ".cache"), filepath.Join(home, "go/pkg/mod"),
		filepath.Join(home, ".npm"), filepath.Join(home, ".cargo/registry"), filepath.Join(home, ".cargo/git")) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	s, err := Spec{Workspace: ws, Home: home, Write: true, Net: true}.validate()
	if err != nil {
		t.Fatal(err)
	}
	g, err := buildGrants(s, nil, tmp)
	if err != nil {
		t.Fatal(err)
	}
	trees := hostexec.CommandTrees(home, ws)
	for _, w := range g.grants.Write {
		in := false
		for _, tr := range trees {
			if r, err := filepath.EvalSymlinks(tr); err == nil {
				tr = r
			}
			in = in || paths.Within(w, tr)
		}
		if !in {
			t.Errorf("writable grant %s is not in hostexec.CommandTrees %v", w, trees)
		}
	}
	if len(g.grants.Write) < 5 {
		t.Errorf("want the workspace, the temp dirs and the caches writable, got %v", g.grants.Write)
	}
}
