package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
	"golang.org/x/sys/unix"
)

// TestMain lets the test binary act as the sandbox helper: Run
// re-executes /proc/self/exe, which here is this binary. The test
// process itself is never restricted.
func TestMain(m *testing.M) {
	sandbox.ChildMain()
	if spec := os.Getenv("SANDBOX_TEST_GUARD"); spec != "" {
		os.Exit(guardMain(spec, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// guardMain plays guard's run command for tests that need a separate
// guard process (a terminal, job control): it runs argv with the JSON
// spec on its own stdio and exits with the command's status.
func guardMain(specJSON string, argv []string) int {
	var spec sandbox.Spec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "guard-test:", err)
		return 125
	}
	if tmp := os.Getenv("SANDBOX_TEST_SHARED_TMP"); tmp != "" {
		sandbox.SetSharedTmp(tmp)
	}
	if key := os.Getenv("SANDBOX_TEST_KEY"); key != "" {
		// A secret in a session keyring of its own, on the thread that
		// starts the command (Run does not change goroutine).
		runtime.LockOSThread()
		desc, val, _ := strings.Cut(key, "=")
		_, err := unix.KeyctlJoinSessionKeyring("guard-test")
		if err == nil {
			_, err = unix.AddKey("user", desc, []byte(val), unix.KEY_SPEC_SESSION_KEYRING)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "guard-test: keyring unavailable:", err)
			return 0
		}
	}
	stdio := sandbox.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	var res sandbox.Result
	var err error
	if sig, _ := strconv.Atoi(os.Getenv("SANDBOX_TEST_SIGNAL")); sig > 0 {
		// As guard does: the helper started ahead of the run, then a
		// signal before Run.
		h := sandbox.Start(context.Background(), argv[0], stdio)
		h.Caught()
		// To this thread: the signal is handled (guard dies of it, or
		// it is caught) before Tgkill returns, not on another thread
		// some time later, which could be after Run catches it too.
		runtime.LockOSThread()
		unix.Tgkill(os.Getpid(), unix.Gettid(), unix.Signal(sig))
		runtime.UnlockOSThread()
		res, err = h.Run(spec, argv)
		if cerr := h.Close(); err == nil {
			err = cerr
		}
	} else {
		res, err = sandbox.Run(context.Background(), spec, argv, stdio)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "guard-test:", err)
	}
	for _, v := range res.Violations {
		fmt.Fprintln(os.Stderr, "guard-test: violation:", v)
	}
	if os.Getenv("SANDBOX_TEST_LDISC") != "" {
		// The line discipline the user's shell (or guard's next
		// prompt) reads the terminal through.
		n, err := unix.IoctlGetInt(0, unix.TIOCGETD)
		fmt.Printf("guard-test: ldisc %d %v\n", n, err)
	}
	if os.Getenv("SANDBOX_TEST_EXCL") != "" {
		// Whether the terminal is in exclusive mode: no one else (guard's
		// next prompt) may open it.
		n, err := unix.IoctlGetInt(0, unix.TIOCGEXCL)
		fmt.Printf("guard-test: exclusive %d %v\n", n, err)
	}
	if os.Getenv("SANDBOX_TEST_PENDING") != "" {
		// What the user's shell (or guard's next prompt) would read
		// from the terminal next.
		n, err := unix.IoctlGetInt(0, unix.TIOCINQ)
		fmt.Printf("guard-test: pending input %d %v\n", n, err)
	}
	return res.ExitCode
}

// killGuardMidRun starts guard (this binary, SANDBOX_TEST_GUARD) running
// argv by spec, with env besides; once the command has named its
// private temp dir in the file ready (written as ready.new and renamed),
// it SIGKILLs guard, as an agent's tool timeout does, and waits for the
// helper, its lifeline gone, to kill the command and remove that temp
// dir, its last step. It returns the temp dir.
func killGuardMidRun(t *testing.T, spec sandbox.Spec, env []string, ready string, argv ...string) string {
	t.Helper()
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	guard := exec.Command(os.Args[0], argv...)
	guard.Env = append([]string{"SANDBOX_TEST_GUARD=" + string(js)}, env...)
	if err := guard.Start(); err != nil {
		t.Fatal(err)
	}
	// Bounds, not timing asserts: they only stop a broken run from
	// hanging.
	for deadline := time.Now().Add(20 * time.Second); readFile(t, ready) == "<absent>"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			guard.Process.Kill()
			guard.Wait()
			t.Fatal("the command did not start")
		}
	}
	tmp := strings.TrimSpace(readFile(t, ready))
	if !strings.HasPrefix(tmp, privateTmpPrefix()) {
		guard.Process.Kill()
		guard.Wait()
		t.Fatalf("the command's TMPDIR is %q", tmp)
	}
	guard.Process.Signal(syscall.SIGKILL)
	guard.Wait()
	waitTmpGone(t, tmp, func() { removeForce(tmp) })
	return tmp
}

// waitTmpGone waits until the private temp dir of a run whose guard was
// killed is removed (the helper's last act), failing t after a bound
// (not a timing assert: it stops a broken run from hanging) and running
// left then.
func waitTmpGone(t *testing.T, tmp string, left func()) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Lstat(tmp); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the killed run's temp dir %s is left", tmp)
			left()
			return
		}
	}
}

// privateTmpPrefix starts the name of every run's private temp dir.
func privateTmpPrefix() string { return fmt.Sprintf("/tmp/guard-%d/run-", os.Geteuid()) }

// fixture is a fake home and workspace outside /tmp (which a writing
// run may write), under /var/tmp.
type fixture struct {
	root    string
	home    string
	ws      string
	outside string
	escape  string // testdata/escape, absolute
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	if sandbox.Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	root, err := os.MkdirTemp("/var/tmp", "guard-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeForce(root) })
	esc, err := filepath.Abs("../testdata/escape")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		root:    root,
		home:    filepath.Join(root, "home"),
		ws:      filepath.Join(root, "ws"),
		outside: filepath.Join(root, "outside"),
		escape:  esc,
	}
	files := map[string]string{
		"home/.ssh/id_ed25519":              "SECRET-SSH-KEY\n",
		"home/.aws/credentials":             "SECRET-AWS\n",
		"home/.bashrc":                      "# rc\n",
		"home/.config/guard/policy.toml":    "POLICY\n",
		"home/.config/other/ok.conf":        "VISIBLE-CONFIG\n",
		"home/.local/state/guard/audit.log": "AUDIT\n",
		"home/notes.txt":                    "VISIBLE-NOTES\n",
		"home/.cache/tool/cache.db":         "cache\n",
		"ws/main.go":                        "package main\n",
		"ws/.git/config":                    "[core]\n\tbare = false\n",
		"ws/.git/hooks/pre-commit.sample":   "#!/bin/sh\n",
		"outside/target.txt":                "ORIGINAL\n",
		"outside/dir/keep.txt":              "KEEP\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) p(rel string) string { return filepath.Join(f.root, rel) }

// removeForce removes a fixture whose attacks may have left directories
// unreadable or unwritable (a non-root user cannot remove their entries
// until their modes are back): the fixtures live in /var/tmp, which no
// test run cleans.
func removeForce(dir string) {
	var open func(string)
	open = func(d string) {
		os.Chmod(d, 0o700)
		es, _ := os.ReadDir(d)
		for _, e := range es {
			if e.IsDir() {
				open(filepath.Join(d, e.Name()))
			}
		}
	}
	open(dir)
	os.RemoveAll(dir)
}

// spec is the workspace profile of a writing command without network.
func (f *fixture) spec() sandbox.Spec {
	return sandbox.Spec{
		Workspace: f.ws,
		Home:      f.home,
		Write:     true,
		Hide: []string{
			filepath.Join(f.home, ".ssh"),
			filepath.Join(f.home, ".aws"),
			filepath.Join(f.home, ".config/guard"),
			filepath.Join(f.home, ".local/state/guard"),
		},
		Protect: []string{
			filepath.Join(f.home, ".bashrc"),
			filepath.Join(f.ws, ".git/hooks"),
			filepath.Join(f.ws, ".git/config"),
		},
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"HOME=" + f.home,
			"LANG=C",
		},
	}
}

type outcome struct {
	res    sandbox.Result
	err    error
	stdout string
	stderr string
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d, err %v\nstdout: %s\nstderr: %s", o.res.ExitCode, o.err, o.stdout, o.stderr)
}

func run(t *testing.T, spec sandbox.Spec, argv ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	res, err := sandbox.Run(ctx, spec, argv, sandbox.Stdio{Out: &out, Err: &errb})
	return outcome{res: res, err: err, stdout: out.String(), stderr: errb.String()}
}

func (f *fixture) sh(t *testing.T, spec sandbox.Spec, args ...string) outcome {
	t.Helper()
	return run(t, spec, append([]string{"/bin/sh", filepath.Join(f.escape, "fs.sh")}, args...)...)
}

func (f *fixture) py(t *testing.T, spec sandbox.Spec, args ...string) outcome {
	t.Helper()
	return run(t, spec, append([]string{"/usr/bin/python3", filepath.Join(f.escape, "net.py")}, args...)...)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return "<absent>"
		}
		t.Fatal(err)
	}
	return string(b)
}

func runWithStdout(t *testing.T, spec sandbox.Spec, stdout io.Writer, argv ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errb bytes.Buffer
	res, err := sandbox.Run(ctx, spec, argv, sandbox.Stdio{Out: stdout, Err: &errb})
	return outcome{res: res, err: err, stderr: errb.String()}
}
