package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackSharedTmpPointers: the shared temp dir's repository was
// protected by its config and hooks only, so a command rated A could
// plant the repository by a pointer instead — a .git *file* whose
// gitdir: line names a repository it made elsewhere in /tmp, a .git
// directory whose commondir names one, a .jj/repo file, a .cargo that is
// a symlink — and every git (jj, cargo) below /tmp would obey the
// planted config. And programs find far more than repositories by
// walking up: Node loads /tmp/node_modules for every script below,
// Yarn runs a .yarnrc.yml's yarnPath, rustup a rust-toolchain.toml's
// toolchain path, pytest a conftest.py under a pytest.ini. Each name of
// sharedTmpWalkUp is now protected whole: every plant below was left in
// place on the old code, and is removed now (the run fails loudly),
// while a project of its own below /tmp stays.
func TestAttackSharedTmpPointers(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	// The repository (or toolchain) the pointer names, made by the same
	// command in a directory of its own below /tmp, where it may write.
	const evil = `mkdir -p "$1/x/evil/hooks" && printf '[core]\n\tfsmonitor = /bin/planted\n' > "$1/x/evil/config" && `
	for _, c := range []struct {
		name, plant string
		planted     []string // what must not be there after the run
	}{
		{"git gitdir file", evil + `printf 'gitdir: %s\n' "$1/x/evil" > "$1/.git"`, []string{".git"}},
		{"git commondir", evil + `mkdir -p "$1/.git" && echo 'ref: refs/heads/main' > "$1/.git/HEAD" && echo "$1/x/evil" > "$1/.git/commondir"`, []string{".git"}},
		{"jj repo file", evil + `mkdir -p "$1/.jj" && echo "$1/x/evil" > "$1/.jj/repo"`, []string{".jj"}},
		{"cargo config symlink", `mkdir -p "$1/x/c" && printf '[build]\nrustc-wrapper = "/bin/planted"\n' > "$1/x/c/config.toml" && ln -s "$1/x/c" "$1/.cargo"`, []string{".cargo"}},
		{"node_modules", `mkdir -p "$1/node_modules/lodash" && echo 'require("child_process")' > "$1/node_modules/lodash/index.js"`, []string{"node_modules"}},
		{"yarnPath", `echo 'yarnPath: /bin/planted.cjs' > "$1/.yarnrc.yml"`, []string{".yarnrc.yml"}},
		{"rust toolchain path", `printf '[toolchain]\npath = "/bin/planted"\n' > "$1/rust-toolchain.toml"`, []string{"rust-toolchain.toml"}},
		{"pytest root", `echo '[pytest]' > "$1/pytest.ini" && echo 'import os' > "$1/conftest.py"`, []string{"pytest.ini", "conftest.py"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer emptyDir(t, tmp)
			o := run(t, spec, "sh", "-c", c.plant, "sh", tmp)
			if len(o.res.Violations) == 0 {
				t.Errorf("no protected-path violation reported: %v", o)
			}
			for _, p := range c.planted {
				if _, err := os.Lstat(filepath.Join(tmp, p)); !os.IsNotExist(err) {
					t.Errorf("%s left in the shared temp dir (%v)", p, err)
				}
			}
		})
	}
	t.Run("a project of its own below the temp dir is fine", func(t *testing.T) {
		// Control: the names are protected in /tmp itself only.
		defer emptyDir(t, tmp)
		mustSucceed(t, run(t, spec, "sh", "-c", `mkdir -p "$1/proj/.git" "$1/proj/node_modules/m" && echo x > "$1/proj/package.json" && echo x > "$1/proj/node_modules/m/index.js"`, "sh", tmp))
		for _, p := range []string{"proj/.git", "proj/package.json", "proj/node_modules/m/index.js"} {
			if _, err := os.Lstat(filepath.Join(tmp, p)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
	t.Run("a directory already there is the user's", func(t *testing.T) {
		// Control: a /tmp/node_modules from the user's own work outside
		// guard is not protected (a big one would be scanned before and
		// after every run, and fail every run past 100,000 entries).
		defer emptyDir(t, tmp)
		if err := os.MkdirAll(filepath.Join(tmp, "node_modules/m"), 0o755); err != nil {
			t.Fatal(err)
		}
		o := run(t, spec, "sh", "-c", `echo x > "$1/node_modules/m/index.js" && echo '{}' > "$1/package.json"`, "sh", tmp)
		if _, err := os.Lstat(filepath.Join(tmp, "node_modules/m/index.js")); err != nil {
			t.Errorf("a file in the user's own node_modules was removed: %v (%v)", err, o)
		}
		if _, err := os.Lstat(filepath.Join(tmp, "package.json")); !os.IsNotExist(err) {
			t.Errorf("a new package.json beside it was left (%v)", err)
		}
	})
	t.Run("the temp dir as the workspace is its own", func(t *testing.T) {
		// Control: with /tmp as the workspace, its project files are
		// the workspace's.
		defer emptyDir(t, tmp)
		own := spec
		own.Workspace = tmp
		own.ExtraWrite = nil
		mustSucceed(t, run(t, own, "sh", "-c", `mkdir -p "$1/node_modules/m" && echo x > "$1/package.json"`, "sh", tmp))
		if _, err := os.Lstat(filepath.Join(tmp, "package.json")); err != nil {
			t.Error(err)
		}
	})
}

// TestAttackSharedTmpGuardKilled: the command plants a repository and a
// project file in the shared temp dir, then guard is SIGKILLed (an
// agent's tool timeout) before it checks the protected paths. The plant
// used to stay; and the next run, finding /tmp/.git there, took it for
// the user's own and protected it no more, so every git below /tmp
// (a shell prompt's) ran its fsmonitor outside guard from then on. The
// helper, which outlives guard to kill the command, now removes what is
// at the names that were absent before the run; what was there before
// (the user's own node_modules) stays.
func TestAttackSharedTmpGuardKilled(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	mine := filepath.Join(tmp, "node_modules/m/index.js")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(spec.Workspace, "ready")
	const plant = `mkdir -p "$1/.git/hooks" && printf '[core]\n\tfsmonitor = /bin/planted\n' > "$1/.git/config" && chmod 0 "$1/.git/hooks" && echo '{}' > "$1/package.json" && ln -s /bin/planted "$1/.yarnrc.yml" && echo "$TMPDIR" > "$2.new" && mv "$2.new" "$2" && exec sleep 60`
	// The helper removes the plants before the private temp dir, whose
	// removal killGuardMidRun waits for.
	killGuardMidRun(t, spec, []string{"SANDBOX_TEST_SHARED_TMP=" + tmp}, ready, "sh", "-c", plant, "sh", tmp, ready)
	for _, p := range []string{".git", "package.json", ".yarnrc.yml"} {
		if _, err := os.Lstat(filepath.Join(tmp, p)); !os.IsNotExist(err) {
			t.Errorf("%s, planted by a run whose guard was killed, is left in the shared temp dir (%v)", p, err)
		}
	}
	if got := readFile(t, mine); got != "mine\n" {
		t.Errorf("the user's own node_modules lost its file: %q", got)
	}
}

// sharedTmpSpec points the shared temp dir's protection at a directory
// of the test's own (until the test ends) and returns it, with the spec
// of a writing run that may write it, as every run may write /tmp.
func sharedTmpSpec(t *testing.T) (string, sandbox.Spec) {
	f := newFixture(t)
	tmp := f.p("sharedtmp")
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sandbox.SetSharedTmp(tmp))
	spec := f.spec()
	spec.ExtraWrite = []string{tmp}
	return tmp, spec
}

// emptyDir removes everything in d (a test's own directory).
func emptyDir(t *testing.T, d string) {
	t.Helper()
	es, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := os.RemoveAll(filepath.Join(d, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
