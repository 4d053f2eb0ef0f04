package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
	"golang.org/x/sys/unix"
)

func TestExitStatus(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		argv   []string
		code   int
		signal syscall.Signal
	}{
		{"zero", []string{"true"}, 0, 0},
		{"passthrough", []string{"sh", "-c", "exit 42"}, 42, 0},
		{"killed by SIGKILL", []string{"sh", "-c", "kill -KILL $$"}, 128 + 9, syscall.SIGKILL},
		{"killed by SIGTERM", []string{"sh", "-c", "kill -TERM $$"}, 128 + 15, syscall.SIGTERM},
		// Signals the helper's Go runtime handles itself: the helper,
		// which waits for the command, dies of the same signal.
		{"killed by SIGINT", []string{"sh", "-c", "kill -INT $$"}, 128 + 2, syscall.SIGINT},
		{"killed by SIGABRT", []string{"sh", "-c", "kill -ABRT $$"}, 128 + 6, syscall.SIGABRT},
		{"killed by SIGSEGV", []string{"sh", "-c", "kill -SEGV $$"}, 128 + 11, syscall.SIGSEGV},
		{"killed by SIGPIPE", []string{"sh", "-c", "kill -PIPE $$"}, 128 + 13, syscall.SIGPIPE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := run(t, f.spec(), c.argv...)
			if o.err != nil || !o.res.Started || o.res.ExitCode != c.code || o.res.Signal != c.signal {
				t.Errorf("got %v, signal %v; want exit %d", o, o.res.Signal, c.code)
			}
		})
	}
}

func TestNotRun(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(f.p("ws/noexec.sh"), []byte("#!/bin/sh\necho ran\n"), 0o644)
	os.WriteFile(f.p("ws/badinterp.sh"), []byte("#!/nonexistent/interp\n"), 0o755)
	hidden := f.p("home/.ssh/tool")
	os.WriteFile(hidden, []byte("#!/bin/sh\necho ran\n"), 0o755)
	cases := []struct {
		name string
		argv []string
		code int
		is   error
		msg  string
	}{
		{"not found", []string{"guard-no-such-command"}, 127, sandbox.ErrNotFound, "guard-no-such-command: command not found"},
		{"missing path", []string{"./nope"}, 127, sandbox.ErrNotFound, "./nope: command not found"},
		{"not executable", []string{f.p("ws/noexec.sh")}, 126, sandbox.ErrNotExecutable, "cannot execute"},
		{"directory", []string{f.p("ws")}, 126, sandbox.ErrNotExecutable, "cannot execute"},
		{"hidden program", []string{hidden}, 126, sandbox.ErrNotExecutable, "permission denied"},
		{"missing interpreter", []string{f.p("ws/badinterp.sh")}, 127, sandbox.ErrNotFound, "command not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := run(t, f.spec(), c.argv...)
			if o.res.Started || o.res.ExitCode != c.code || !errors.Is(o.err, c.is) || !strings.Contains(o.err.Error(), c.msg) {
				t.Errorf("got %v; want exit %d, error %q", o, c.code, c.msg)
			}
			if o.stdout != "" {
				t.Errorf("stdout = %q", o.stdout)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	f := newFixture(t)
	var out bytes.Buffer
	in := strings.NewReader("line one\nline two\n")
	res, err := sandbox.Run(context.Background(), f.spec(), []string{"cat"}, sandbox.Stdio{In: in, Out: &out})
	if err != nil || res.ExitCode != 0 || out.String() != "line one\nline two\n" {
		t.Errorf("got %q, %v, %v", out.String(), res.ExitCode, err)
	}
}

func TestSignalForwarding(t *testing.T) {
	f := newFixture(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	done := make(chan outcome, 1)
	go func() {
		o := runWithStdout(t, f.spec(), pw, "sh", "-c",
			`trap 'echo got-term; exit 3' TERM; echo ready; while :; do sleep 0.05; done`)
		pw.Close()
		done <- o
	}()
	br := bufio.NewReader(pr)
	if line, _ := br.ReadString('\n'); line != "ready\n" {
		t.Fatalf("child said %q", line)
	}
	// Run is waiting and relays SIGTERM sent to guard (this process).
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	var o outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not reach the command")
	}
	rest, _ := io.ReadAll(br)
	if o.res.ExitCode != 3 || string(rest) != "got-term\n" {
		t.Errorf("exit %d, output %q", o.res.ExitCode, rest)
	}
}

// TestSignalBeforeRun: a helper started ahead of its run leaves guard's
// signals as they were until Run: SIGTERM, SIGINT or SIGHUP sent before
// it still end guard, and the command never runs; on SIGUSR1 and
// SIGUSR2 (a Go program takes no action on them), SIGWINCH and SIGCONT
// (which guard catches from the helper's start, to relay them later)
// the run goes on, and none of them reaches the command (SIGUSR1 and
// SIGUSR2 would kill it).
func TestSignalBeforeRun(t *testing.T) {
	f := newFixture(t)
	js, err := json.Marshal(f.spec())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		runs bool
	}{
		{syscall.SIGTERM, false}, {syscall.SIGINT, false}, {syscall.SIGHUP, false},
		{syscall.SIGWINCH, true}, {syscall.SIGCONT, true}, {syscall.SIGUSR1, true}, {syscall.SIGUSR2, true},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			marker := filepath.Join(f.ws, "ran-"+strconv.Itoa(int(c.sig)))
			cmd := exec.Command(os.Args[0], "/bin/sh", "-c", "echo ran > "+marker)
			cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(js), "SANDBOX_TEST_SIGNAL=" + strconv.Itoa(int(c.sig))}
			out, err := cmd.CombinedOutput()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			ran := readFile(t, marker) == "ran\n"
			if c.runs {
				if err != nil || !ran {
					t.Errorf("%v before Run: %v, ran %v, want the run to go on; output %q", c.sig, err, ran, out)
				}
				return
			}
			if !ws.Signaled() || ws.Signal() != c.sig || ran {
				t.Errorf("%v before Run: status %v, ran %v, want guard killed by it and nothing run; output %q", c.sig, cmd.ProcessState, ran, out)
			}
		})
	}
}

// TestSelfNotReplaced: guard built inside a tree the command may write
// (here the test binary, in the temp dir every writing run may write):
// a sandboxed program that puts its own guard-sandbox-exec beside guard
// would be the next run's helper, confining nothing. The file is gone
// after the run and the run says a protected path changed.
func TestSelfNotReplaced(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	target := filepath.Join(filepath.Dir(exe), sandbox.ExecHelperName)
	if _, err := os.Lstat(target); err == nil {
		t.Skip("a helper already sits beside the test binary")
	}
	t.Cleanup(func() { os.Remove(target) })
	f := newFixture(t)
	o := run(t, f.spec(), "sh", "-c", `printf '#!/bin/sh\nexec "$@"\n' > "$0" && chmod 755 "$0"`, target)
	if _, err := os.Lstat(target); err == nil {
		t.Fatalf("a helper planted beside guard outlived the run: %v", o)
	}
	wrote := o.res.ExitCode == 0
	if wrote && !slices.ContainsFunc(o.res.Violations, func(v sandbox.Violation) bool { return v.Path == target }) {
		t.Errorf("the helper was written and removed, but no violation was reported: %v (violations %q)", o, o.res.Violations)
	}
}

// TestSignalDispositions: the command gets the default action for each
// signal guard relays, even one guard itself was started with ignored
// (guard handles and relays it), whenever it arrives: the helper must
// never pass its own handling on, nor an ignored disposition.
func TestSignalDispositions(t *testing.T) {
	f := newFixture(t)
	js, err := json.Marshal(f.spec())
	if err != nil {
		t.Fatal(err)
	}
	// SigIgn of the command, a hex mask: bit N-1 for signal N.
	cmd := exec.Command("/bin/sh", "-c", `trap '' HUP INT; exec "$0" "$@"`, os.Args[0],
		"sh", "-c", `grep SigIgn /proc/self/status`)
	cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(js)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err, string(out))
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(out), "SigIgn:")), 16, 64)
	if err != nil {
		t.Fatal(err, string(out))
	}
	for sig, want := range map[syscall.Signal]bool{syscall.SIGHUP: false, syscall.SIGINT: false, syscall.SIGTERM: false, syscall.SIGQUIT: false, syscall.SIGTSTP: false} {
		if got := mask&(1<<(sig-1)) != 0; got != want {
			t.Errorf("%v ignored in the command: %v, want %v (SigIgn %x)", sig, got, want, mask)
		}
	}
}

// TestCapabilitiesDropped: run as root, the command's bounding set holds
// only the kept capabilities (the helper drops the others on the thread
// that starts the command), so no exec can grant CAP_SYS_PTRACE or
// CAP_SYS_ADMIN.
func TestCapabilitiesDropped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root has capabilities to drop")
	}
	f := newFixture(t)
	o := run(t, f.spec(), "sh", "-c", `grep CapBnd /proc/self/status`)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(o.stdout, "CapBnd:")), 16, 64)
	if err != nil {
		t.Fatal(err, o.stdout)
	}
	for c, want := range map[uint]bool{
		unix.CAP_CHOWN: true, unix.CAP_DAC_OVERRIDE: true, unix.CAP_SETUID: true,
		unix.CAP_SYS_PTRACE: false, unix.CAP_SYS_ADMIN: false, unix.CAP_SYS_MODULE: false,
		unix.CAP_NET_RAW: false, unix.CAP_MKNOD: false, unix.CAP_SYS_RESOURCE: false,
	} {
		if got := mask&(1<<c) != 0; got != want {
			t.Errorf("capability %d in the command's bounding set: %v, want %v (CapBnd %x)", c, got, want, mask)
		}
	}
}

// TestCapabilitiesNotInherited: a dropped capability does not reach the
// command through guard's inheritable or ambient sets either (for root,
// exec keeps the inheritable set whatever the bounding set says).
func TestCapabilitiesNotInherited(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root has capabilities to drop")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	f := newFixture(t)
	js, err := json.Marshal(f.spec())
	if err != nil {
		t.Fatal(err)
	}
	// guard (this binary, SANDBOX_TEST_GUARD) started with
	// CAP_SYS_PTRACE and CAP_SYS_ADMIN inheritable and ambient.
	cmd := exec.Command(setpriv, "--inh-caps=+sys_ptrace,+sys_admin", "--ambient-caps=+sys_ptrace,+sys_admin", "--",
		os.Args[0], "sh", "-c", `grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status`)
	cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(js)}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sets := 0
	for line := range strings.Lines(string(out)) {
		name, hex, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatal(err, line)
		}
		sets++
		for _, c := range []uint{unix.CAP_SYS_PTRACE, unix.CAP_SYS_ADMIN} {
			if mask&(1<<c) != 0 {
				t.Errorf("capability %d in the command's %s set (%x)", c, name, mask)
			}
		}
		if name == "CapEff" && mask&(1<<unix.CAP_CHOWN) == 0 {
			t.Errorf("root's command lost CAP_CHOWN, which it keeps (CapEff %x)", mask)
		}
	}
	if sets != 4 {
		t.Fatalf("want 4 capability sets, got: %s", out)
	}
}

// TestCommandConfined: the command inherits what the helper set on the
// one thread it confined: no_new_privs and the seccomp filter (and the
// Landlock domain, which the escape tests probe).
func TestCommandConfined(t *testing.T) {
	f := newFixture(t)
	o := run(t, f.spec(), "sh", "-c", `grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status`)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	want := "NoNewPrivs:\t1\nSeccomp:\t2\n"
	if !sandbox.Probe().Seccomp {
		want = "NoNewPrivs:\t1\nSeccomp:\t0\n"
	}
	if o.stdout != want {
		t.Errorf("command's status %q, want %q", o.stdout, want)
	}
}

func TestCancel(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := sandbox.Run(ctx, f.spec(), []string{"sleep", "30"}, sandbox.Stdio{})
	if err != nil || res.ExitCode != 128+15 {
		t.Errorf("exit %d, %v", res.ExitCode, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestProcessGroupCleanup(t *testing.T) {
	f := newFixture(t)
	o := run(t, f.spec(), "sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!")
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(o.stdout))
	if err != nil {
		t.Fatal(o)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		st := procState(t, pid)
		if st == "" || st == "Z" {
			break // gone, or dead and waiting for its new parent
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background process %d left running (state %s)", pid, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNoDescriptorLeak(t *testing.T) {
	f := newFixture(t)
	// A descriptor guard holds without close-on-exec must not reach
	// the command either.
	leak, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	syscall.Syscall(syscall.SYS_FCNTL, leak.Fd(), syscall.F_SETFD, 0)
	o := run(t, f.spec(), "sh", "-c", "ls /proc/$$/fd")
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	fds := strings.Fields(o.stdout)
	// 0, 1, 2, and the directory ls is reading.
	if len(fds) > 4 || !slices.Contains(fds, "0") {
		t.Errorf("descriptors in the command: %v", fds)
	}
	if slices.Contains(fds, strconv.Itoa(int(leak.Fd()))) && leak.Fd() > 3 {
		t.Errorf("inherited descriptor %d leaked: %v", leak.Fd(), fds)
	}
}

func TestEnvFiltering(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Env = append(spec.Env,
		"GITHUB_TOKEN=s1", "GH_TOKEN=s2", "OPENAI_API_KEY=s3", "AWS_SESSION_TOKEN=s4",
		"DB_PASSWORD=s5", "MY_SECRET=s6", "SSH_AUTH_SOCK=/tmp/agent",
		"NPM_TOKEN=kept", "EDITOR=vi", "GUARD_SANDBOX_HELPER=1")
	spec.KeepEnv = []string{"NPM_TOKEN"}
	o := run(t, spec, "env")
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	env := strings.Split(strings.TrimSpace(o.stdout), "\n")
	for _, want := range []string{"EDITOR=vi", "NPM_TOKEN=kept", "HOME=" + f.home, "PATH=/usr/local/bin:/usr/bin:/bin"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from %v", want, env)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GUARD_SANDBOX_HELPER=") || strings.Contains(kv, "=s") && !strings.HasPrefix(kv, "TMPDIR") {
			t.Errorf("%s passed on", kv)
		}
	}
	want := []string{"AWS_SESSION_TOKEN", "DB_PASSWORD", "GH_TOKEN", "GITHUB_TOKEN", "MY_SECRET", "OPENAI_API_KEY", "SSH_AUTH_SOCK"}
	if !slices.Equal(o.res.DroppedEnv, want) {
		t.Errorf("DroppedEnv = %v, want %v", o.res.DroppedEnv, want)
	}
}

// TestEnvCodeDropped: variables in guard's own environment that make the
// shell or the loader run code the review never saw do not reach the
// command. BASH_ENV and an exported function ran before the reviewed
// bash -c 'echo hi'; now only echo hi runs.
func TestEnvCodeDropped(t *testing.T) {
	f := newFixture(t)
	inj := filepath.Join(f.ws, "inj.sh")
	if err := os.WriteFile(inj, []byte("echo INJECTED-BASH_ENV\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Env = append(spec.Env, "BASH_ENV="+inj, "ENV="+inj, "BASH_FUNC_echo%%=() { builtin echo INJECTED-FUNC; }",
		"SHELLOPTS=xtrace", "PS4=$(echo INJECTED-PS4)", "LD_PRELOAD=/nonexistent.so", "GIT_CONFIG_PARAMETERS='core.pager=x'",
		"LD_LIBRARY_PATH=/opt/lib")
	o := run(t, spec, "bash", "-c", "echo hi; echo LD=$LD_LIBRARY_PATH")
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	if got := strings.TrimSpace(o.stdout); got != "hi\nLD=/opt/lib" {
		t.Errorf("stdout = %q, want only the reviewed command's output", got)
	}
	if strings.Contains(o.stderr, "INJECTED") || strings.Contains(o.stderr, "LD_PRELOAD") {
		t.Errorf("stderr = %q", o.stderr)
	}
	for _, name := range []string{"BASH_ENV", "BASH_FUNC_echo%%", "ENV", "GIT_CONFIG_PARAMETERS", "LD_PRELOAD", "PS4", "SHELLOPTS"} {
		if !slices.Contains(o.res.DroppedEnv, name) {
			t.Errorf("DroppedEnv = %v, missing %s", o.res.DroppedEnv, name)
		}
	}
}

func TestPrivateTmpdir(t *testing.T) {
	f := newFixture(t)
	o := run(t, f.spec(), "sh", "-c", `echo "$TMPDIR"; echo x > "$TMPDIR/file"; mkdir "$TMPDIR/ro"; touch "$TMPDIR/ro/f"; chmod 0500 "$TMPDIR/ro"`)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatal(o)
	}
	dir := strings.TrimSpace(o.stdout)
	if !strings.HasPrefix(dir, privateTmpPrefix()) {
		t.Errorf("TMPDIR = %q", dir)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after the run (%v)", dir, err)
	}
	// A read-only run gets no private temp dir.
	spec := f.spec()
	spec.Write = false
	o = run(t, spec, "sh", "-c", `echo "${TMPDIR-unset}"`)
	if strings.TrimSpace(o.stdout) != "unset" {
		t.Errorf("read-only TMPDIR = %q", o.stdout)
	}
}

func TestRefusedWorkspace(t *testing.T) {
	f := newFixture(t)
	for _, ws := range []string{"/", f.home, filepath.Dir(f.home), "relative/ws"} {
		spec := f.spec()
		spec.Workspace = ws
		o := run(t, spec, "true")
		if o.err == nil || o.res.Started {
			t.Errorf("workspace %s accepted", ws)
		}
	}
	spec := f.spec()
	spec.Hide = append(spec.Hide, f.ws)
	if o := run(t, spec, "true"); o.err == nil {
		t.Error("hidden workspace accepted")
	}
}

func TestDenialsAndGrants(t *testing.T) {
	f := newFixture(t)
	var out, errb bytes.Buffer
	res, err := sandbox.Run(context.Background(), f.spec(),
		[]string{"sh", "-c", `printf 'partial '; echo to-stderr >&2; echo x > "$1"; printf 'no newline: Operation not permitted' >&2`, "sh", f.p("outside/x")},
		sandbox.Stdio{Out: &out, Err: &errb, WatchErr: true})
	if err != nil {
		t.Fatal(err)
	}
	// Outside the writable trees the helper's mounts are read-only
	// (where it has a mount namespace): the kernel says so first.
	refused := "Read-only file system"
	if sandbox.ProbeUserns() != nil {
		refused = "Permission denied"
	}
	wantErr := "to-stderr\nsh: 1: cannot create " + f.p("outside/x") + ": " + refused + "\nno newline: Operation not permitted"
	if errb.String() != wantErr {
		t.Errorf("stderr changed:\n%q\nwant\n%q", errb.String(), wantErr)
	}
	if len(res.Denials) != 2 || !strings.Contains(res.Denials[0], refused) {
		t.Errorf("Denials = %q", res.Denials)
	}
	g := res.Grants
	if !slices.Contains(g.Write, f.ws) || !slices.Contains(g.Write, "/tmp") || g.Net != "none" {
		t.Errorf("Grants = %+v", g)
	}
	if !slices.Contains(g.Hidden, f.p("home/.ssh")) {
		t.Errorf("Grants.Hidden = %v", g.Hidden)
	}
	if lines := g.Lines(); len(lines) < 3 || !strings.HasPrefix(lines[1], "write: ") {
		t.Errorf("Lines = %q", lines)
	}
	// A long hide list is cut short in the hint.
	g.Hidden = make([]string, 40)
	if l := g.Lines()[3]; !strings.HasSuffix(l, " and 34 more") {
		t.Errorf("hidden line %q", l)
	}
}

func TestProbe(t *testing.T) {
	s := sandbox.Probe()
	if s.ABI < 1 {
		t.Skip("no Landlock")
	}
	// This project's machines run kernel 6.18 (ABI 7) on amd64: the
	// sandbox must be complete there.
	if s.ABI >= 6 && s.Seccomp && !s.Full() {
		t.Errorf("Full() = false with ABI %d: gaps %v", s.ABI, s.Gaps(false))
	}
	if s.ABI < 9 && len(s.Limits) == 0 {
		t.Error("no limits reported below ABI 9")
	}
}
