package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttackSharedTmpRepository: a command rated A plants a repository
// in the shared temp dir, /tmp/.git with an fsmonitor in its config (or
// cargo's configuration, or a Go workspace, which builds below /tmp find
// the same way). Every
// git the user (or their shell prompt, on each cd) runs in a directory
// below /tmp that has no repository of its own then runs that program,
// outside the sandbox. The temp dir's repository paths are protected:
// the plant is removed after the run, which fails loudly. (The test
// points the protection at a temp dir of its own, granted as /tmp is:
// the machine's /tmp is shared with everything else running here.)
func TestAttackSharedTmpRepository(t *testing.T) {
	tmp, spec := sharedTmpSpec(t)
	for name, plant := range map[string]string{
		"git config":     `mkdir -p "$1/.git/hooks" "$1/.git/objects" "$1/.git/refs" && echo 'ref: refs/heads/main' > "$1/.git/HEAD" && printf '[core]\n\tfsmonitor = /bin/planted\n' > "$1/.git/config"`,
		"git hook":       `mkdir -p "$1/.git/hooks" && printf '#!/bin/sh\necho pwned\n' > "$1/.git/hooks/post-checkout"`,
		"mercurial hook": `mkdir -p "$1/.hg" && printf '[hooks]\npre-status = /bin/planted\n' > "$1/.hg/hgrc"`,
		"cargo wrapper":  `mkdir -p "$1/.cargo" && printf '[build]\nrustc-wrapper = "/bin/planted"\n' > "$1/.cargo/config.toml"`,
		"go workspace":   `printf 'go 1.22\nreplace golang.org/x/text => /tmp/planted\n' > "$1/go.work"`,
	} {
		t.Run(name, func(t *testing.T) {
			defer os.RemoveAll(filepath.Join(tmp, ".git"))
			defer os.RemoveAll(filepath.Join(tmp, ".hg"))
			defer os.RemoveAll(filepath.Join(tmp, ".cargo"))
			defer os.Remove(filepath.Join(tmp, "go.work"))
			o := run(t, spec, "sh", "-c", plant, "sh", tmp)
			if len(o.res.Violations) == 0 {
				t.Errorf("no protected-path violation reported: %v", o)
			}
			for _, p := range []string{".git/config", ".git/hooks/post-checkout", ".hg/hgrc", ".cargo/config.toml", "go.work"} {
				if got := readFile(t, filepath.Join(tmp, p)); got != "<absent>" {
					t.Errorf("%s left in the shared temp dir: %q", p, got)
				}
			}
		})
	}
	t.Run("a scratch file there is fine", func(t *testing.T) {
		// Control: /tmp stays writable for everything else.
		mustSucceed(t, run(t, spec, "sh", "-c", `echo x > "$1/notes.txt"`, "sh", tmp))
		if got := readFile(t, filepath.Join(tmp, "notes.txt")); got != "x\n" {
			t.Errorf("got %q", got)
		}
	})
}
