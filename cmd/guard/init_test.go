package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/sandbox"
)

// initHome gives the test a fresh HOME and XDG dirs and a working
// directory outside any git repository.
func initHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("NO_COLOR", "1")
	dir := filepath.Join(home, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return home
}

// runInitWith runs guard init's steps with a faked kernel and stdin.
func runInitWith(t *testing.T, sup sandbox.Support, opts *initOptions, stdin string) (stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	s := &streams{in: strings.NewReader(stdin), out: &out, err: &errb}
	if opts.chosen == nil {
		opts.chosen = map[string]*bool{}
	}
	cwd, _ := os.Getwd()
	env := &initEnv{
		s: s, opts: opts, root: newRootCmd(s), support: sup, euid: 1000, cwd: cwd,
		pins:    &pin.Store{ConfigDir: configDir(), StateDir: stateDir(), Now: time.Now},
		timeout: 5 * time.Second,
	}
	code = report(&errb, runInit(env, initSteps()))
	if out.Len() > 0 {
		t.Errorf("guard init wrote to stdout: %q", out.String())
	}
	return errb.String(), code
}

func TestInitStepsTable(t *testing.T) {
	c := newInitCmd(&streams{})
	seen := map[string]bool{}
	for _, st := range initSteps() {
		if st.name == "" || st.title == "" || st.detect == nil {
			t.Errorf("step %+v lacks a name, title or detect", st.name)
		}
		if seen[st.name] {
			t.Errorf("step %q twice", st.name)
		}
		seen[st.name] = true
		// One sentence, ending with a full stop.
		if !strings.HasSuffix(st.explain, ".") || strings.Count(st.explain, ". ") > 0 {
			t.Errorf("step %q: explain is not one sentence: %q", st.name, st.explain)
		}
		if st.apply == nil {
			continue
		}
		if !strings.HasSuffix(st.question, "?") || st.later == "" {
			t.Errorf("step %q: question %q, later %q", st.name, st.question, st.later)
		}
		flag := st.name
		if st.name == "pin" {
			flag = "pin-stdin"
		}
		if c.Flags().Lookup(flag) == nil {
			t.Errorf("step %q has no --%s flag", st.name, flag)
		}
	}
	for _, name := range []string{"kernel", "pin", "shell", "claude", "codex", "gemini", "pre-commit"} {
		if !seen[name] {
			t.Errorf("no %q step", name)
		}
	}
}

func TestInitKernelWithoutLandlock(t *testing.T) {
	// A kernel without Landlock or seccomp: init reports it as a warning
	// with the doctor's hints, and is not a failure (guard still runs,
	// with a warning per gap).
	initHome(t)
	errs, code := runInitWith(t, weakKernel(t, 0, false), &initOptions{nonInteractive: true}, "")
	if code != exitOK {
		t.Errorf("exit %d, want 0\n%s", code, errs)
	}
	for _, want := range []string{
		"  warn Kernel ",
		"no Landlock, no seccomp filter for ",
		": not enforced here: filesystem, ",
		"guard: warning: this kernel cannot enforce the whole sandbox (missing: filesystem, ",
		"guard: hint: commands still run, with a warning naming each gap; pass --require-sandbox to refuse to run them instead\n",
		"guard: hint: Landlock needs Linux 5.13 or later with landlock in the lsm= boot parameter",
		"guard: hint: 'guard doctor' shows each feature and what guard cannot stop here\n",
		"  skip PIN ",
		"not set (--pin-stdin); level C commands cannot be approved until you run 'guard pin set'",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

func TestInitKernelFull(t *testing.T) {
	initHome(t)
	errs, code := runInitWith(t, weakKernel(t, 7, true), &initOptions{nonInteractive: true}, "")
	if code != exitOK || !strings.Contains(errs, "  ok   Kernel ") || !strings.Contains(errs, "the sandbox is fully in force") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
	if strings.Contains(errs, "guard: warning") || strings.Contains(errs, "guard: hint") {
		t.Errorf("warning or hint on a full kernel, as a user:\n%s", errs)
	}
}

func TestInitPINStdin(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		code        int
		want        string
	}{
		{"one line", "q7w3e9z1\n", exitOK, "  done PIN "},
		{"CRLF", "q7w3e9z1\r\n", exitOK, "  done PIN "},
		{"no newline", "q7w3e9z1", exitOK, "  done PIN "},
		{"empty", "", exitGuardFailed, "guard: error: --pin-stdin: no PIN on stdin\nguard: hint: pipe the PIN into guard init, one line"},
		{"weak", "123456\n", exitGuardFailed, "guard: hint: use at least 6 characters"},
		{"two lines", "q7w3e9z1\nq7w3e9z1\n", exitGuardFailed, "guard: error: --pin-stdin: more than one line on stdin\n"},
		{"too long", strings.Repeat("x", maxPINInput+1), exitGuardFailed, "more than 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			initHome(t)
			errs, code := runInitWith(t, weakKernel(t, 7, true), &initOptions{nonInteractive: true, pinStdin: true}, tc.stdin)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d (want %d), stderr lacks %q:\n%s", code, tc.code, tc.want, errs)
			}
			info, err := pin.Status(configDir(), stateDir(), time.Now)
			if err != nil {
				t.Fatal(err)
			}
			if info.Set != (tc.code == exitOK) {
				t.Errorf("PIN set = %v after exit %d", info.Set, code)
			}
			if tc.code != exitOK && !strings.Contains(errs, "guard: error: guard init: 1 step failed: pin\nguard: hint: fix what the messages above say, then run 'guard init' again") {
				t.Errorf("no summary error:\n%s", errs)
			}
		})
	}
}

func TestInitKeepsExistingPIN(t *testing.T) {
	// Re-running a provisioning script never replaces the PIN: stdin is
	// not even read.
	initHome(t)
	if err := pin.Set(configDir(), "q7w3e9z1"); err != nil {
		t.Fatal(err)
	}
	errs, code := runInitWith(t, weakKernel(t, 7, true), &initOptions{nonInteractive: true, pinStdin: true}, "m4k8p2x6\n")
	if code != exitOK || !strings.Contains(errs, "  ok   PIN  ") || !strings.Contains(errs, "already set ('guard pin change' changes it)") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
	if err := pin.Verify(configDir(), stateDir(), "q7w3e9z1", time.Now); err != nil {
		t.Errorf("the old PIN no longer verifies: %v", err)
	}
}

func TestInitFailedStep(t *testing.T) {
	// --pre-commit outside a git repository: the installer's own error and
	// hint, a FAIL line, and exit 125; the other chosen steps still run.
	home := initHome(t)
	yes := true
	errs, code := runInitWith(t, weakKernel(t, 7, true), &initOptions{nonInteractive: true, chosen: map[string]*bool{"pre-commit": &yes, "gemini": &yes}}, "")
	if code != exitGuardFailed {
		t.Errorf("exit %d, want %d", code, exitGuardFailed)
	}
	for _, want := range []string{
		"guard: error: find the git hooks directory: ",
		"guard: hint: run it inside a git repository\n",
		"  FAIL pre-commit hook  find the git hooks directory: ",
		"  done Gemini CLI ",
		"guard: error: guard init: 1 step failed: pre-commit\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Errorf("the gemini step did not run: %v", err)
	}
}

func TestInitInteractiveCancel(t *testing.T) {
	// ^D at a question cancels: nothing more is asked or changed, the
	// summary says so, and the exit status is 126.
	initHome(t)
	c := newConsole(t)
	t.Setenv(envTTY, c.tty.Name())
	done := make(chan struct{})
	var errs string
	var code int
	go func() {
		defer close(done)
		errs, code = runInitWith(t, weakKernel(t, 7, true), &initOptions{}, "")
	}()
	c.expect("Set the PIN now? [y/N] ")
	c.send("\x04")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("guard init did not end after ^D")
	}
	if code != exitNotRun {
		t.Errorf("exit %d, want %d", code, exitNotRun)
	}
	for _, want := range []string{
		"  skip PIN ",
		"cancelled",
		"  skip Shell shim       not asked (guard init was cancelled)",
		"guard: error: guard init was cancelled\nguard: hint: run 'guard init' again to go on: what is already set up is kept\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(c.transcript(), "Make the guard-sh link?") {
		t.Errorf("asked on after ^D:\n%s", c.transcript())
	}
	if info, _ := pin.Status(configDir(), stateDir(), time.Now); info.Set {
		t.Error("a PIN was set")
	}
}

// TestInitManPages generates the man pages from the command tree as
// `guard man DIR` (and make man, through it) does: guard.1 and one page
// per subcommand.
func TestInitManPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	root := newRootCmd(&streams{})
	if _, err := writeManPages(root, dir); err != nil {
		t.Fatal(err)
	}
	for page, want := range map[string]string{
		"guard.1":                    `.TH "GUARD" "1"`,
		"guard-check.1":              "guard-check - Review a command without running it",
		"guard-init.1":               "--non-interactive",
		"guard-install-pre-commit.1": "guard scan --staged",
		"guard-completion-bash.1":    "bash",
	} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("no %s: %v", page, err)
			continue
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", page, want)
		}
	}
	// Every command that help lists has a page.
	var missing []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		if _, err := os.Stat(filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")); err != nil {
			missing = append(missing, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(missing) > 0 {
		t.Errorf("no man page for %q", missing)
	}
}
