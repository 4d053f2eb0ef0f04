package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlan measures what guard computes before every run, on its
// critical path: the validation, the grants (hiding ~80 paths in a home
// of 60 entries), the private temp dir and the snapshot. read-only is
// guard -- true's plan: no temp dir, no snapshot, an agent's
// environment to filter.
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
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "TERM=xterm-256color", "SHELL=/bin/bash"}
	for i := range 30 {
		env = append(env, fmt.Sprintf("AGENT_SETTING_%d=value-%d", i, i))
	}
	spec := Spec{Workspace: ws, Home: home, Write: true, Hide: hide,
		Protect: []string{filepath.Join(home, ".bashrc"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "config")},
		Env:     env}
	argv := []string{"/bin/true"}
	run := func(b *testing.B, spec Spec) {
		for b.Loop() {
			pr := plan(spec, argv, Stdio{})
			if pr.invalid != nil || pr.err != nil {
				b.Fatal(pr.invalid, pr.err)
			}
			pr.release()
		}
	}
	b.Run("write", func(b *testing.B) { run(b, spec) })
	ro := spec
	ro.Write = false
	b.Run("read-only", func(b *testing.B) { run(b, ro) })
}

// BenchmarkFilterEnv measures the environment filter on an agent's
// environment of 35 variables.
func BenchmarkFilterEnv(b *testing.B) {
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm-256color", "SHELL=/bin/bash"}
	for i := range 30 {
		env = append(env, fmt.Sprintf("AGENT_SETTING_%d=value-%d", i, i))
	}
	for b.Loop() {
		filterEnv(env, nil)
	}
}
