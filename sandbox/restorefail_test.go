package sandbox_test

import (
	"os"
	"strings"
	"testing"
)

// TestAttackRestoreBlocked: the command rewrites a protected file (git's
// config: its fsmonitor runs on the user's next git status, outside
// guard) and then makes guard's restore fail: the directory made
// read-only, so that no sibling can be written to rename over it. A
// restore that fails used to leave the command's file in place under
// its name (reported "not restored", but there for git to run); it must
// not be there under that name after guard returns, whatever else fails.
func TestAttackRestoreBlocked(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("as root, guard's restore ignores the directory's mode: run as a normal user")
	}
	for _, c := range []struct{ name, script string }{
		{"git dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/config && chmod 0555 .git`},
		{"hooks dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit.sample && chmod 0555 .git/hooks`},
		{"submodule dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0555 .git/modules/sub`},
		{"submodule dir unreadable", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0 .git/modules/sub`},
		{"new hook, hooks dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && chmod 0555 .git/hooks`},
		{"new submodule hook, its dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/modules/sub/hooks/pre-commit && chmod +x .git/modules/sub/hooks/pre-commit && chmod 0555 .git/modules/sub/hooks .git/modules/sub`},
		{"workspace read-only", `printf '[hooks]\nenter = "/bin/planted"\n' >> mise.toml && chmod 0555 .`},
		{".git swapped, workspace read-only", `mv .git .git.old && mkdir -p .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && cp .git.old/config .git/config && printf '\tfsmonitor = /bin/planted\n' >> .git/config && chmod 0555 .git/hooks .git .`},
		{"modules dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0555 .git/modules`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if err := os.MkdirAll(f.p("ws/.git/modules/sub/hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.p("ws/.git/modules/sub/config"), []byte("[core]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.p("ws/mise.toml"), []byte("[tools]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := f.spec()
			spec.Protect = append(spec.Protect, f.p("ws/mise.toml"))
			o := run(t, spec, "sh", "-c", c.script)
			if len(o.res.Violations) == 0 {
				t.Errorf("no violation reported: %v", o)
			}
			if st, err := os.Stat(f.p("ws/.git/hooks")); err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("the hooks directory is not as it was (0755): %v, %v", st.Mode(), err)
			}
			for _, p := range []string{"ws/.git/config", "ws/.git/hooks/pre-commit.sample", "ws/.git/modules/sub/config", "ws/.git/hooks/pre-commit", "ws/.git/modules/sub/hooks/pre-commit", "ws/mise.toml"} {
				if got := readFile(t, f.p(p)); strings.Contains(got, "planted") || strings.Contains(got, "pwned") {
					t.Errorf("%s still holds the command's content after the run: %q (violations %+v)", p, got, o.res.Violations)
				}
			}
		})
	}
}
