package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// needGit returns git's path, or skips t.
func needGit(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git")
	}
	return git
}

// TestAttackSharedTmpBareRepository: the command makes the shared temp
// dir itself a repository, without a .git: a HEAD, objects and refs
// there make git take /tmp for a bare repository's directory when it
// walks up from anywhere below that is not a repository of its own, and
// obey /tmp/config, whose commands (diff.external, core.pager,
// core.sshCommand, credential helpers) then run for git outside guard,
// long after the run. Only .git was protected; the HEAD that makes a
// directory a repository is now a walk-up name too. (git refuses /tmp
// for a user who does not own it, but not for root, whose containers
// agents often run in; the fixture's temp dir is the test user's own.)
// The test then runs git below the temp dir, as the user would.
func TestAttackSharedTmpBareRepository(t *testing.T) {
	git := needGit(t)
	tmp, spec := sharedTmpSpec(t)
	defer emptyDir(t, tmp)
	marker := filepath.Join(t.TempDir(), "pwned")
	const plant = `mkdir -p "$1/objects" "$1/refs" "$1/x/sub" &&
echo 'ref: refs/heads/main' > "$1/HEAD" &&
printf '#!/bin/sh\necho ran > %s\n' "$2" > "$1/x/differ" && chmod +x "$1/x/differ" &&
printf '[diff]\n\texternal = %s\n' "$1/x/differ" > "$1/config" &&
echo a > "$1/x/sub/a" && echo b > "$1/x/sub/b"`
	o := run(t, spec, "sh", "-c", plant, "sh", tmp, marker)
	if len(o.res.Violations) == 0 {
		t.Errorf("no protected-path violation reported: %v", o)
	}
	if _, err := os.Lstat(filepath.Join(tmp, "HEAD")); !os.IsNotExist(err) {
		t.Errorf("HEAD left in the shared temp dir (%v)", err)
	}
	// Later, outside guard: git below the temp dir.
	cmd := exec.Command(git, "diff", "--no-index", "a", "b")
	cmd.Dir = filepath.Join(tmp, "x", "sub")
	cmd.Env = []string{"HOME=" + spec.Home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, _ := cmd.CombinedOutput()
	if got := readFile(t, marker); got != "<absent>" {
		t.Errorf("git below the shared temp dir ran the command the planted config names (%q); git said %s", got, out)
	}
}

// TestAttackSharedTmpAncestors: the workspace is below the shared temp
// dir (an agent's clone in /tmp/a/ws), so the directories between the
// two are writable too, and tools in the workspace that find nothing of
// their own there, or in its siblings, walk up through them: a
// /tmp/a/.cargo/config.toml names a rustc-wrapper for every cargo build
// below /tmp/a, a /tmp/a/.git hook runs for git in /tmp/a/other. Only
// /tmp's own names were protected; those in /tmp/a were left.
func TestAttackSharedTmpAncestors(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	defer emptyDir(t, tmp)
	ws := filepath.Join(tmp, "a", "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec.Workspace, spec.Dir = ws, ws
	spec.Protect = []string{filepath.Join(ws, ".git/hooks"), filepath.Join(ws, ".git/config")}
	const plant = `mkdir -p "$1/.cargo" "$1/.git/hooks" && printf '[build]\nrustc-wrapper = "/bin/planted"\n' > "$1/.cargo/config.toml" && printf '#!/bin/sh\necho pwned\n' > "$1/.git/hooks/post-checkout" && echo x > "$1/notes.txt"`
	o := run(t, spec, "sh", "-c", plant, "sh", filepath.Join(tmp, "a"))
	if len(o.res.Violations) == 0 {
		t.Errorf("no protected-path violation reported: %v", o)
	}
	for _, p := range []string{"a/.cargo", "a/.git"} {
		if _, err := os.Lstat(filepath.Join(tmp, p)); !os.IsNotExist(err) {
			t.Errorf("%s left above the workspace (%v)", p, err)
		}
	}
	// Control: any other name there stays.
	if got := readFile(t, filepath.Join(tmp, "a", "notes.txt")); got != "x\n" {
		t.Errorf("notes.txt: %q", got)
	}
}

// TestAttackSharedTmpMoreWalkUp: more names programs find by walking up
// from where they run, planted in the shared temp dir, each code (or
// naming code) for every run of its program below /tmp outside guard;
// they were left in place. Now they are removed and the run fails.
func TestAttackSharedTmpMoreWalkUp(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	for _, c := range []struct{ name, plant string }{
		{"Cargo.toml", `printf '[package]\nname = "p"\nbuild = "/tmp/x/build.rs"\n' > "$1/Cargo.toml"`},
		{".sl", `mkdir -p "$1/.sl" && printf '[hooks]\npre-status = /bin/planted\n' > "$1/.sl/config"`},
		{".eslintrc.js", `echo 'require("child_process")' > "$1/.eslintrc.js"`},
		{".eslintrc.json", `echo '{"parser": "/tmp/x/p.js"}' > "$1/.eslintrc.json"`},
		{"jest.config.js", `echo 'require("child_process")' > "$1/jest.config.js"`},
		{"postcss.config.js", `echo 'require("child_process")' > "$1/postcss.config.js"`},
		{"Vagrantfile", `echo 'system("x")' > "$1/Vagrantfile"`},
		{"Package.swift", `echo '// code' > "$1/Package.swift"`},
		{".env", `echo 'LD_PRELOAD=/tmp/x/p.so' > "$1/.env"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer emptyDir(t, tmp)
			o := run(t, spec, "sh", "-c", c.plant, "sh", tmp)
			if len(o.res.Violations) == 0 {
				t.Errorf("no protected-path violation reported: %v", o)
			}
			if _, err := os.Lstat(filepath.Join(tmp, c.name)); !os.IsNotExist(err) {
				t.Errorf("%s left in the shared temp dir (%v)", c.name, err)
			}
		})
	}
}
