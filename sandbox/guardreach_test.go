package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackGuardReach: a command rated A goes for guard's process and
// guard's own state by the ways round Landlock's file rules: guard's
// memory (ptrace, process_vm_readv), its descriptors (pidfd_getfd), a
// hidden file through an O_PATH descriptor (a new name for it in the
// workspace, the descriptor opened again, its mode changed), a program
// run from memory (memfd), SIGKILL without kill(2). Each must be refused; the same call on a
// process of the command's own works (the control: the attack is real).
func TestAttackGuardReach(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	// $PPID is the sandbox helper, whose parent is guard.
	const atGuard = `guard=$(cut -d' ' -f4 /proc/$PPID/stat); exec "$@" "$guard"`
	// SIGKILL to guard by the ways round kill(2) (the kernel as the
	// sender for a pipe guard would own: F_SETOWN, F_SETSIG; a pidfd)
	// would leave nothing restored; a signal the kernel may not send it
	// drops without an error (silent): guard's survival is the test.
	for _, c := range []struct {
		op     string
		silent bool
	}{{"ptrace-attach", false}, {"pidfd-getfd", false}, {"vm-read", false}, {"pidfd-kill", false}, {"sigio-kill", true}} {
		op := c.op
		t.Run(op, func(t *testing.T) {
			argv := append([]string{"sh", "-c", atGuard, "sh"}, f.proc(op)...)
			stdout, stderr, code := guardProc(t, spec, nil, argv...)
			if code < 0 {
				t.Fatalf("%s killed guard (stdout %q, stderr %q)", op, stdout, stderr)
			}
			if !c.silent && (code == 0 || !strings.Contains(stdout, "EPERM") && !strings.Contains(stdout, "EACCES")) {
				t.Errorf("%s on guard: exit %d, stdout %q, stderr %q; want it refused", op, code, stdout, stderr)
			}
			// Control: the same on a child of the command's own.
			o := run(t, spec, f.proc(op, "child")...)
			mustSucceed(t, o)
		})
	}

	audit := f.p("home/.local/state/guard/audit.log")
	key := f.p("home/.ssh/id_ed25519")
	// A hidden file inside a writable tree (the cache).
	token := f.p("home/.cache/huggingface/token")
	if err := os.MkdirAll(filepath.Dir(token), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(token, []byte("hf_SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Hide = append(spec.Hide, token)
	for _, secret := range []string{key, audit, token} {
		name := filepath.Base(secret)
		t.Run("O_PATH link of "+name, func(t *testing.T) {
			link := f.p("ws/" + name + ".link")
			o := run(t, spec, f.proc("opath-link", secret, link)...)
			mustFail(t, o)
			if strings.Contains(o.stdout, "SECRET") || strings.Contains(o.stdout, "AUDIT") {
				t.Errorf("read through a link: %v", o)
			}
			wantContent(t, link, "<absent>")
		})
		t.Run("O_PATH reopen of "+name, func(t *testing.T) {
			o := run(t, spec, f.proc("opath-reopen", secret)...)
			mustFail(t, o)
			if strings.Contains(o.stdout, "SECRET") || strings.Contains(o.stdout, "AUDIT") {
				t.Errorf("read through the descriptor: %v", o)
			}
		})
		t.Run("memfd program reads "+name, func(t *testing.T) {
			o := run(t, spec, f.proc("memfd-exec", secret)...)
			mustFail(t, o)
			if strings.Contains(o.stdout, "SECRET") || strings.Contains(o.stdout, "AUDIT") {
				t.Errorf("read by a program from memory: %v", o)
			}
		})
	}
	t.Run("O_PATH chmod of guard's audit log", func(t *testing.T) {
		before, err := os.Stat(audit)
		if err != nil {
			t.Fatal(err)
		}
		o := run(t, spec, f.proc("opath-chmod", audit, "0")...)
		mustFail(t, o)
		after, err := os.Stat(audit)
		if err != nil {
			t.Fatal(err)
		}
		if after.Mode() != before.Mode() {
			t.Errorf("the audit log's mode is %v, was %v", after.Mode(), before.Mode())
		}
	})
	t.Run("guard's and the helper's /proc files", func(t *testing.T) {
		// guard's environment holds what it dropped from the command's
		// (a token), its descriptors its state files, its working and
		// root directories the paths the command may not open: through
		// /proc they are ptrace's to give, and Landlock refuses ptrace
		// of processes outside the domain (guard), and the helper is
		// not dumpable. Each read prints what it got, or nothing. (The
		// numbers of guard's descriptors can be listed, not what they
		// are.)
		const script = `helper=$PPID guard=$(cut -d' ' -f4 /proc/$PPID/stat)
for p in $guard $helper; do
  cat /proc/$p/environ 2>/dev/null | tr '\0' '\n'
  for fd in /proc/$p/fd/*; do readlink "$fd"; done 2>/dev/null | sed "s/^/fd $p /"
  ls /proc/$p/cwd/ 2>/dev/null | sed "s/^/cwd $p /"
  ls -L "/proc/$p/root" 2>/dev/null | sed "s/^/root $p /"
  cat /proc/$p/maps 2>/dev/null | head -1 | sed "s/^/maps $p /"
done
cat /proc/self/environ | tr '\0' '\n' | grep -c . | sed 's/^/own /'`
		env := append(spec.Env[:len(spec.Env):len(spec.Env)], "GUARD_TEST_TOKEN=ghp_SECRETSECRETSECRETSECRETSECRET0000")
		s := spec
		s.Env = env
		stdout, stderr, code := guardProc(t, s, []string{"GUARD_TEST_TOKEN=ghp_SECRETSECRETSECRETSECRETSECRET0000"}, "sh", "-c", script)
		if code != 0 || !strings.HasPrefix(stdout, "own ") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		for _, leak := range []string{"SECRET", "fd ", "cwd ", "root ", "maps ", "SANDBOX_TEST_GUARD", "GUARD_SANDBOX_HELPER"} {
			if strings.Contains(stdout, leak) {
				t.Errorf("read %q through /proc: %q", leak, stdout)
			}
		}
	})
	t.Run("control: O_PATH and memfd on the command's own files", func(t *testing.T) {
		mine := f.p("ws/main.go")
		o := run(t, spec, f.proc("opath-reopen", mine)...)
		mustSucceed(t, o)
		if !strings.Contains(o.stdout, "package main") {
			t.Errorf("got %q", o.stdout)
		}
		mustSucceed(t, run(t, spec, f.proc("opath-link", mine, f.p("ws/main.link"))...))
		mustSucceed(t, run(t, spec, f.proc("memfd-exec", mine)...))
	})
}
