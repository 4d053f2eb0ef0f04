package scan

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallPreCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks") // created by install
	hook := filepath.Join(dir, "pre-commit")

	ch, err := InstallPreCommit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Hook != hook || ch.Chained != "" || ch.Updated {
		t.Errorf("first install = %+v", ch)
	}
	body := readFile(t, hook)
	if !strings.Contains(body, hookMarker) || !strings.Contains(body, "exec guard scan --staged") {
		t.Errorf("hook:\n%s", body)
	}
	if fi, _ := os.Stat(hook); fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("hook is not executable: %v", fi.Mode())
	}

	// Again: guard's hook is updated in place, nothing is chained.
	ch, err = InstallPreCommit(dir)
	if err != nil || !ch.Updated || ch.Chained != "" {
		t.Errorf("second install = %+v, %v", ch, err)
	}
	if _, err := os.Stat(hook + ChainedSuffix); err == nil {
		t.Error("reinstalling chained guard's own hook")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("hooks dir holds %d entries, want 1 (no temp files left)", len(entries))
	}

	ch, err = UninstallPreCommit(dir)
	if err != nil || ch.Chained != "" {
		t.Errorf("uninstall = %+v, %v", ch, err)
	}
	if _, err := os.Stat(hook); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hook still there: %v", err)
	}
	if _, err := UninstallPreCommit(dir); !errors.Is(err, ErrNoHook) {
		t.Errorf("uninstall with no hook = %v, want ErrNoHook", err)
	}
}

func TestInstallPreCommitChains(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "pre-commit")
	const old = "#!/bin/sh\necho old\n"
	if err := os.WriteFile(hook, []byte(old), 0o755); err != nil {
		t.Fatal(err)
	}
	ch, err := InstallPreCommit(dir)
	if err != nil || ch.Chained != hook+ChainedSuffix {
		t.Fatalf("install over a hook = %+v, %v", ch, err)
	}
	if got := readFile(t, hook+ChainedSuffix); got != old {
		t.Errorf("chained hook = %q", got)
	}
	// Idempotent: the chain stays as it is.
	ch, err = InstallPreCommit(dir)
	if err != nil || !ch.Updated || ch.Chained != hook+ChainedSuffix {
		t.Errorf("reinstall = %+v, %v", ch, err)
	}
	if got := readFile(t, hook+ChainedSuffix); got != old {
		t.Errorf("chained hook after reinstall = %q", got)
	}
	ch, err = UninstallPreCommit(dir)
	if err != nil || ch.Chained == "" {
		t.Fatalf("uninstall = %+v, %v", ch, err)
	}
	if got := readFile(t, hook); got != old {
		t.Errorf("restored hook = %q, want the original", got)
	}
	if _, err := os.Stat(hook + ChainedSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Error("chained copy left behind")
	}
}

func TestInstallPreCommitRefuses(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "pre-commit")
	for _, p := range []string{hook, hook + ChainedSuffix} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := InstallPreCommit(dir); err == nil || !strings.Contains(err.Error(), "move one of them away") {
		t.Errorf("install with both a hook and a chained hook = %v", err)
	}
	if _, err := UninstallPreCommit(dir); err == nil || !strings.Contains(err.Error(), "not written by guard") {
		t.Errorf("uninstall of a foreign hook = %v", err)
	}
	if got := readFile(t, hook); got != "#!/bin/sh\n" {
		t.Errorf("foreign hook changed: %q", got)
	}
}

func TestInstallPreCommitDanglingLink(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "pre-commit")
	if err := os.Symlink("/nonexistent/hook", hook); err != nil {
		t.Fatal(err)
	}
	ch, err := InstallPreCommit(dir)
	if err != nil || ch.Chained == "" {
		t.Fatalf("install over a dangling link = %+v, %v", ch, err)
	}
	if target, err := os.Readlink(hook + ChainedSuffix); err != nil || target != "/nonexistent/hook" {
		t.Errorf("chained link = %q, %v", target, err)
	}
}

// TestPreCommitHookRuns runs the hook script with a stand-in guard: the
// chained hook runs first and its failure stops the commit; then guard
// scan --staged decides.
func TestPreCommitHookRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks")
	bin := filepath.Join(dir, "bin")
	log := filepath.Join(dir, "log")
	write(t, bin, "guard", "#!/bin/sh\necho \"guard $*\" >> "+log+"\nexit ${GUARD_EXIT:-0}\n")
	write(t, hooks, "pre-commit", "#!/bin/sh\necho old >> "+log+"\nexit ${OLD_EXIT:-0}\n")
	for _, p := range []string{filepath.Join(bin, "guard"), filepath.Join(hooks, "pre-commit")} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := InstallPreCommit(hooks); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (string, int) {
		os.Remove(log)
		cmd := exec.Command(filepath.Join(hooks, "pre-commit"))
		cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin"}, env...)
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(log)
		return string(b), code
	}
	if out, code := run(); out != "old\nguard scan --staged\n" || code != 0 {
		t.Errorf("clean run: %q, exit %d", out, code)
	}
	if out, code := run("GUARD_EXIT=1"); out != "old\nguard scan --staged\n" || code != 1 {
		t.Errorf("guard refuses: %q, exit %d", out, code)
	}
	if out, code := run("OLD_EXIT=3"); out != "old\n" || code != 3 {
		t.Errorf("old hook fails: %q, exit %d", out, code)
	}
	// Without guard in PATH the commit is refused, not waved through.
	cmd := exec.Command(filepath.Join(hooks, "pre-commit"))
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "guard is not in PATH") {
		t.Errorf("no guard: %v\n%s", err, out)
	}
}
