package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackGlobalGitConfigRefs: the user's own git config, which git
// reads in every repository, includes a file of the workspace (a
// dotfiles repository the agent works in; or a project's shared
// gitconfig) and names a relative hooks directory (.githooks: a
// directory of every work tree). The command writes a fsmonitor into
// the included file and a pre-commit hook into .githooks, both in the
// workspace, which it may write; git outside guard then ran them. Only
// the repository's own config was followed. Now what the global config
// points to is protected: put back (the hook removed), the run failing
// loudly.
func TestAttackGlobalGitConfigRefs(t *testing.T) {
	git := needGit(t)
	f := newFixture(t)
	shared := filepath.Join(f.ws, "tools", "gitconfig")
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, []byte("[user]\n\tname = Dev\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := "[include]\n\tpath = " + shared + "\n[core]\n\thooksPath = .githooks\n"
	if err := os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Protect = append(spec.Protect, filepath.Join(f.home, ".gitconfig"))
	const plant = `printf '[core]\n\tfsmonitor = /bin/planted\n' >> "$1/tools/gitconfig" &&
mkdir -p "$1/.githooks" && printf '#!/bin/sh\necho pwned\n' > "$1/.githooks/pre-commit" && chmod +x "$1/.githooks/pre-commit"`
	o := run(t, spec, "sh", "-c", plant, "sh", f.ws)
	if len(o.res.Violations) < 2 {
		t.Errorf("want both changes reported: %v (violations %q)", o, o.res.Violations)
	}
	wantContent(t, shared, "[user]\n\tname = Dev\n")
	if _, err := os.Lstat(filepath.Join(f.ws, ".githooks", "pre-commit")); !os.IsNotExist(err) {
		t.Errorf("the hook in the global hooksPath is left (%v)", err)
	}
	// What git outside guard would run in the workspace.
	cmd := exec.Command(git, "config", "--get", "core.fsmonitor")
	cmd.Dir = f.ws
	cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	if out, _ := cmd.Output(); strings.TrimSpace(string(out)) != "" {
		t.Errorf("git in the workspace has core.fsmonitor %q", out)
	}
}
