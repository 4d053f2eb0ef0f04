package sandbox_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ownMounts lets the test t mount: as root it runs in place (false);
// as a normal user it runs t again in a child process of this binary in
// a user and mount namespace of its own, as the same user with the
// capabilities of that namespace (unshare --keep-caps), and returns
// true: the caller returns, the child's result is t's. Where neither is
// possible, t is skipped.
func ownMounts(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() == 0 || os.Getenv("GUARD_TEST_OWN_MOUNTS") != "" {
		return false
	}
	rerunUnder(t, "in a user and mount namespace of its own", []string{"GUARD_TEST_OWN_MOUNTS=1"},
		"unshare", "--map-current-user", "--mount", "--keep-caps", "--")
	return true
}

// TestAttackRestoreDiskFull: the command rewrites a protected file (git's
// config, with an fsmonitor that runs on the user's next git status,
// outside guard), then fills the file system it is on, so that guard's
// restore, which writes the snapshot's copy beside it and renames it
// over, fails (ENOSPC). The command's file must not stay under the
// protected name: it is moved aside (a rename needs no space) and the
// run reports it not restored. Likewise a hook it planted where no
// inode is left.
func TestAttackRestoreDiskFull(t *testing.T) {
	if ownMounts(t) {
		return
	}
	for name, script := range map[string]string{
		"blocks": `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/config && cat /dev/zero > fill 2>/dev/null; exit 0`,
		"inodes": `printf '[core]\n\tfsmonitor = /bin/planted\n' > .git/config && i=0; while : > "n$i" 2>/dev/null; do i=$((i+1)); done; exit 0`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			// The workspace on a small file system of its own.
			if err := os.RemoveAll(f.ws); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(f.ws, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mount("tmpfs", f.ws, "tmpfs", 0, "size=256k,nr_inodes=64,mode=0755"); err != nil {
				t.Skipf("cannot mount a small tmpfs: %v", err)
			}
			t.Cleanup(func() { unix.Unmount(f.ws, unix.MNT_DETACH) })
			if err := os.MkdirAll(f.p("ws/.git/hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			const config = "[core]\n\tbare = false\n"
			if err := os.WriteFile(f.p("ws/.git/config"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			o := run(t, f.spec(), "sh", "-c", script)
			if o.err != nil {
				t.Fatal(o)
			}
			if len(o.res.Violations) == 0 {
				t.Errorf("no violation reported: %v", o)
			}
			if got := readFile(t, f.p("ws/.git/config")); strings.Contains(got, "planted") {
				t.Errorf(".git/config holds the command's content after the run: %q (violations %+v)", got, o.res.Violations)
			}
			for _, v := range o.res.Violations {
				if strings.HasSuffix(v.Path, "/.git/config") && (v.Restored || !strings.Contains(v.RestoreErr, "moved to")) {
					t.Errorf("want .git/config reported not restored, moved aside: %+v", v)
				}
			}
		})
	}
}
