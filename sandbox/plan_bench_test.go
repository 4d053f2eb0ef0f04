package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlan measures what guard computes before every run, on its
// critical path: the validation, the grants (hiding ~80 paths in a home
// of 60 entries), the private temp dir and the snapshot.
func BenchmarkPlan(b *testing.B) {
	root, err := os.MkdirTemp("/var/tmp", "guard-plan-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "home", "src", "proj")
	var hide []string
	for i := range 60 {
		os.MkdirAll(filepath.Join(home, fmt.Sprintf(".dir%02d", i), "sub"), 0o755)
	}
	for i := range 80 {
		hide = append(hide, filepath.Join(home, fmt.Sprintf(".dir%02d", i%60), fmt.Sprintf("secret%d", i)))
	}
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	spec := Spec{Workspace: ws, Home: home, Write: true, Hide: hide,
		Protect: []string{filepath.Join(home, ".bashrc"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "config")},
		Env:     []string{"PATH=/usr/bin:/bin", "HOME=" + home}}
	argv := []string{"/bin/true"}
	for b.Loop() {
		pr := plan(spec, argv, Stdio{})
		if pr.invalid != nil || pr.err != nil {
			b.Fatal(pr.invalid, pr.err)
		}
		pr.release()
	}
}
