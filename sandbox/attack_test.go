package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/sandbox"
)

// Attacks on the sandbox v2 classes (issue 13), made by programs inside
// the sandbox the way an attacker would, each asserting what persists
// once guard has returned.

// guardProc runs this test binary as a separate guard process (see
// guardMain), so an attack on guard itself cannot hurt the test.
func guardProc(t *testing.T, spec sandbox.Spec, env []string, argv ...string) (stdout, stderr string, code int) {
	t.Helper()
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append([]string{"SANDBOX_TEST_GUARD=" + string(js)}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func (f *fixture) proc(args ...string) []string {
	return append([]string{"/usr/bin/python3", filepath.Join(f.escape, "proc.py")}, args...)
}

// runReleased runs argv as guard's run does: a helper started ahead,
// then Run, then Release, which does not wait for the helper's own exit.
func runReleased(t *testing.T, spec sandbox.Spec, argv ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	h := sandbox.Start(context.Background(), argv[0], sandbox.Stdio{Out: &out, Err: &errb})
	res, err := h.Run(spec, argv)
	if rerr := h.Release(); rerr != nil && err == nil {
		err = rerr
	}
	return outcome{res: res, err: err, stdout: out.String(), stderr: errb.String()}
}

// TestAttackLeftoverProcesses: a child that leaves the command's process
// group waits until guard has checked the protected paths, then plants
// a git hook. Guard must have killed it before returning: after Run,
// and after guard's Run and Release (which leaves the helper's own exit
// to finish in the background).
func TestAttackLeftoverProcesses(t *testing.T) {
	for name, runner := range map[string]func(*testing.T, sandbox.Spec, ...string) outcome{"Run": run, "Release": runReleased} {
		t.Run(name, func(t *testing.T) { testLeftoverProcesses(t, runner) })
	}
}

func testLeftoverProcesses(t *testing.T, run func(*testing.T, sandbox.Spec, ...string) outcome) {
	// The escapee records its pid, blocks on a FIFO the test controls,
	// then writes the hook.
	const escapee = `echo $$ > "$2"; read x < "$1"; printf '#!/bin/sh\necho pwned\n' > "$3"; chmod +x "$3"`
	// $4 is the escapee's script.
	variants := map[string]string{
		"setsid":           `setsid sh -c "$4" sh "$@" </dev/null >/dev/null 2>&1 &`,
		"own group":        `python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c"] + sys.argv[1:])' "$4" sh "$@" </dev/null >/dev/null 2>&1 &`,
		"double fork":      `( setsid sh -c "$4" sh "$@" </dev/null >/dev/null 2>&1 & ); true`,
		"nohup and setsid": `nohup setsid sh -c "$4" sh "$@" </dev/null >/dev/null 2>&1 &`,
	}
	for name, launch := range variants {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			fifo, pidFile, hook := f.p("ws/fifo"), f.p("ws/escapee.pid"), f.p("ws/.git/hooks/pre-commit")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// The command exits only once the escapee is running.
			script := launch + "\n" + `while [ ! -s "$2" ]; do sleep 0.01; done`
			o := run(t, f.spec(), "sh", "-c", script, "sh", fifo, pidFile, hook, escapee)
			if o.err != nil || o.res.ExitCode != 0 {
				t.Fatal(o)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
			if err != nil {
				t.Fatal(err)
			}
			if st := procState(t, pid); st != "" {
				// Alive: let it do what it waited for, and see.
				defer syscall.Kill(pid, syscall.SIGKILL)
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Write([]byte("go\n"))
					w.Close()
				}
				deadline := time.Now().Add(5 * time.Second)
				for readFile(t, hook) == "<absent>" && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				t.Errorf("process %d started by the command outlived guard (state %s)", pid, st)
			}
			wantContent(t, hook, "<absent>")
		})
	}
}

// TestAttackGuardKilled: the command starts a process that leaves its
// process group and keeps writing, one to the workspace and into a
// protected git hook. Then guard is SIGKILLed (as an agent's tool
// timeout does), so guard's own cleanup never runs. The writer must die
// anyway: nothing is left to rewrite the hook once it is restored.
func TestAttackGuardKilled(t *testing.T) {
	// $1 pid file, $2 beat file, $3 hook.
	const writer = `echo $$ > "$1.new" && mv "$1.new" "$1"
while :; do echo beat >> "$2"; printf '#!/bin/sh\necho pwned\n' > "$3"; sleep 0.01; done`
	// $4 is the writer's script; the command itself keeps running.
	variants := map[string]string{
		"setsid":      `setsid sh -c "$4" sh "$@" </dev/null >/dev/null 2>&1 &`,
		"double fork": `( setsid sh -c "$4" sh "$@" </dev/null >/dev/null 2>&1 & ); true`,
		"own group":   `python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c"] + sys.argv[1:])' "$4" sh "$@" </dev/null >/dev/null 2>&1 &`,
	}
	for name, launch := range variants {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			pidFile, beat, hook := f.p("ws/writer.pid"), f.p("ws/beat"), f.p("ws/.git/hooks/pre-commit")
			js, err := json.Marshal(f.spec())
			if err != nil {
				t.Fatal(err)
			}
			script := launch + "\nexec sleep 60"
			guard := exec.Command(os.Args[0], "sh", "-c", script, "sh", pidFile, beat, hook, writer)
			guard.Env = []string{"SANDBOX_TEST_GUARD=" + string(js)}
			if err := guard.Start(); err != nil {
				t.Fatal(err)
			}
			// A bound, not a timing assert: the writer starts within
			// milliseconds; this only stops a broken run from hanging.
			deadline := time.Now().Add(20 * time.Second)
			for readFile(t, pidFile) == "<absent>" || readFile(t, beat) == "<absent>" {
				if time.Now().After(deadline) {
					guard.Process.Kill()
					guard.Wait()
					t.Fatal("the writer did not start")
				}
				time.Sleep(5 * time.Millisecond)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			guard.Process.Signal(syscall.SIGKILL)
			guard.Wait()

			deadline = time.Now().Add(5 * time.Second)
			for st := procState(t, pid); st != "" && st != "Z"; st = procState(t, pid) {
				if time.Now().After(deadline) {
					t.Fatalf("writer %d outlived the SIGKILLed guard (state %s)", pid, st)
				}
				time.Sleep(5 * time.Millisecond)
			}
			// Gone, so nothing rewrites what the next run restores.
			os.Remove(hook)
			size := len(readFile(t, beat))
			time.Sleep(100 * time.Millisecond)
			if got := len(readFile(t, beat)); got != size {
				t.Errorf("the workspace file still grows (%d bytes, then %d)", size, got)
			}
			wantContent(t, hook, "<absent>")
		})
	}
}

// gitAttack is one attempt on a repository's code surfaces.
type gitAttack struct {
	name   string
	setup  func(t *testing.T, f *fixture) // before the run, as the user
	script string                         // run in the workspace
	after  func(t *testing.T, f *fixture, gitIno uint64)
}

func inode(t *testing.T, p string) (uint64, os.FileInfo) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino, fi
}

func wantGitDir(t *testing.T, f *fixture, ino uint64) {
	t.Helper()
	got, fi := inode(t, f.p("ws/.git"))
	if !fi.IsDir() || got != ino {
		t.Errorf(".git is %v (inode %d), want the original directory (inode %d)", fi.Mode(), got, ino)
	}
	wantContent(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n")
	wantContent(t, f.p("ws/.git/hooks/pre-commit"), "<absent>")
}

func TestAttackGitSurfaces(t *testing.T) {
	writeFile := func(t *testing.T, p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attacks := []gitAttack{
		{name: ".git swapped for a symlink to a planted repository",
			script: `mkdir -p evil/hooks && cp .git/config evil/ && printf '#!/bin/sh\necho pwned\n' > evil/hooks/pre-commit && mv .git stash && ln -s evil .git`,
			after:  func(t *testing.T, f *fixture, ino uint64) { wantGitDir(t, f, ino) }},
		{name: ".git swapped for a gitdir: file",
			script: `mkdir -p evil/hooks && printf '#!/bin/sh\necho pwned\n' > evil/hooks/pre-commit && mv .git stash && echo 'gitdir: evil' > .git`,
			after:  func(t *testing.T, f *fixture, ino uint64) { wantGitDir(t, f, ino) }},
		{name: ".git deleted and replaced by a fresh directory",
			script: `rm -rf .git && mkdir -p .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && printf '[core]\n\tfsmonitor = evil\n' > .git/config`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/hooks/pre-commit"), "<absent>")
				wantContent(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n")
			}},
		{name: "commondir pointing at a planted directory",
			script: `mkdir -p evilcommon/hooks && printf '#!/bin/sh\necho pwned\n' > evilcommon/hooks/pre-commit && echo ../evilcommon > .git/commondir`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/commondir"), "<absent>")
			}},
		{name: "config.worktree with fsmonitor",
			script: `printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' > .git/config.worktree`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/config.worktree"), "<absent>")
			}},
		{name: "submodule hook",
			script: `mkdir -p .git/modules/sub/hooks && printf '#!/bin/sh\necho pwned\n' > .git/modules/sub/hooks/post-checkout`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/modules/sub/hooks/post-checkout"), "<absent>")
			}},
		{name: "submodule config",
			setup:  func(t *testing.T, f *fixture) { writeFile(t, f.p("ws/.git/modules/sub/config"), "[core]\n") },
			script: `printf '\tfsmonitor = evil\n' >> .git/modules/sub/config`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/modules/sub/config"), "[core]\n")
			}},
		{name: "linked worktree config",
			script: `mkdir -p .git/worktrees/wt && printf '[core]\n\tfsmonitor = evil\n' > .git/worktrees/wt/config.worktree`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/worktrees/wt/config.worktree"), "<absent>")
			}},
		{name: "hard link from the workspace to .git/config",
			script: `ln .git/config cfg`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				// Later, an editor or an agent writes the workspace file.
				os.WriteFile(f.p("ws/cfg"), []byte("[core]\n\tfsmonitor = evil\n"), 0o644)
				wantContent(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n")
			}},
		{name: "hooks directory made unreadable with a hook inside",
			script: `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && chmod 000 .git/hooks`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				_, fi := inode(t, f.p("ws/.git/hooks"))
				if fi.Mode().Perm() != 0o755 {
					t.Errorf("hooks mode %v", fi.Mode())
				}
				wantContent(t, f.p("ws/.git/hooks/pre-commit"), "<absent>")
			}},
		{name: "hooks renamed away and replaced",
			script: `mv .git/hooks .git/old-hooks && mkdir .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/hooks/pre-commit"), "<absent>")
				wantContent(t, f.p("ws/.git/hooks/pre-commit.sample"), "#!/bin/sh\n")
			}},
		{name: "core.hooksPath in the workspace",
			setup: func(t *testing.T, f *fixture) {
				writeFile(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n\thooksPath = .githooks\n")
				writeFile(t, f.p("ws/.githooks/README"), "hooks\n")
			},
			script: `printf '#!/bin/sh\necho pwned\n' > .githooks/pre-push && chmod +x .githooks/pre-push`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.githooks/pre-push"), "<absent>")
			}},
		{name: "a config file included from the workspace",
			setup: func(t *testing.T, f *fixture) {
				writeFile(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n[include]\n\tpath = ../team.gitconfig\n")
				// Included in turn, relative to team.gitconfig.
				writeFile(t, f.p("ws/team.gitconfig"), "[includeIf \"onbranch:main\"]\n\tpath = conf/main.gitconfig\n")
			},
			script: `printf '[core]\n\tfsmonitor = evil\n' >> team.gitconfig && mkdir conf && printf '[core]\n\thooksPath = /tmp\n' > conf/main.gitconfig`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/team.gitconfig"), "[includeIf \"onbranch:main\"]\n\tpath = conf/main.gitconfig\n")
				wantContent(t, f.p("ws/conf/main.gitconfig"), "<absent>")
			}},
		{name: "huge sparse files in protected paths",
			script: `truncate -s 64G .git/hooks/big && truncate -s 64G .git/config`,
			after: func(t *testing.T, f *fixture, _ uint64) {
				wantContent(t, f.p("ws/.git/hooks/big"), "<absent>")
				wantContent(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n")
			}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			f := newFixture(t)
			if a.setup != nil {
				a.setup(t, f)
			}
			ino, _ := inode(t, f.p("ws/.git"))
			spec := f.spec()
			spec.Dir = f.ws
			o := run(t, spec, "sh", "-c", a.script)
			if o.err != nil {
				t.Fatal(o)
			}
			if len(o.res.Violations) == 0 {
				t.Errorf("no violation reported: %v", o)
			}
			for _, v := range o.res.Violations {
				t.Log(v)
			}
			a.after(t, f, ino)
		})
	}
	t.Run("benign: commits and objects are not violations", func(t *testing.T) {
		f := newFixture(t)
		o := run(t, f.spec(), "sh", "-c", `mkdir -p .git/objects/ab .git/refs/heads && echo x > .git/objects/ab/cd && echo ref > .git/refs/heads/main && echo idx > .git/index && mkdir -p .git/modules/sub/objects && echo o > .git/modules/sub/objects/x`)
		mustSucceed(t, o)
		wantNoViolation(t, o)
	})
	t.Run("restoring never writes through a planted symlink", func(t *testing.T) {
		// modules/sub is not recorded itself (only the code-bearing
		// files in it are): swapped for a symlink to a directory
		// outside the grants, guard must not restore sub/config there.
		f := newFixture(t)
		os.MkdirAll(f.p("ws/.git/modules/sub"), 0o755)
		os.WriteFile(f.p("ws/.git/modules/sub/config"), []byte("[core]\n\tsub = 1\n"), 0o644)
		os.WriteFile(f.p("outside/dir/config"), []byte("USER-CONFIG\n"), 0o644)
		spec := f.spec()
		spec.Dir = f.ws
		o := run(t, spec, "sh", "-c", `rm -rf .git/modules/sub && ln -s "$1" .git/modules/sub`, "sh", f.p("outside/dir"))
		mustSucceed(t, o)
		wantContent(t, f.p("outside/dir/config"), "USER-CONFIG\n")
		if len(o.res.Violations) == 0 {
			t.Errorf("no violation reported: %v", o)
		}
		// The symlink is gone, and the config is back where it was.
		if _, fi := inode(t, f.p("ws/.git/modules/sub")); !fi.IsDir() {
			t.Errorf(".git/modules/sub is %v, want a directory again", fi.Mode())
		}
		wantContent(t, f.p("ws/.git/modules/sub/config"), "[core]\n\tsub = 1\n")
	})
	t.Run("a shared repository's setgid .git keeps its mode", func(t *testing.T) {
		// git init --shared makes .git setgid: a run that leaves it
		// alone is no violation, and one that changes its mode gets
		// the setgid bit back too.
		f := newFixture(t)
		shared := os.ModeSetgid | 0o775
		if err := os.Chmod(f.p("ws/.git"), shared); err != nil {
			t.Fatal(err)
		}
		o := run(t, f.spec(), "true")
		mustSucceed(t, o)
		wantNoViolation(t, o)
		if _, fi := inode(t, f.p("ws/.git")); fi.Mode()&(os.ModeSetgid|os.ModePerm) != shared {
			t.Errorf("after a benign run .git is %v, want %v", fi.Mode(), shared)
		}
		o = run(t, f.spec(), "chmod", "0777", f.p("ws/.git"))
		if len(o.res.Violations) != 1 || o.res.Violations[0].Change != "mode changed" || !o.res.Violations[0].Restored {
			t.Errorf("chmod .git: violations %v, want one restored mode change", o.res.Violations)
		}
		if _, fi := inode(t, f.p("ws/.git")); fi.Mode()&(os.ModeSetgid|os.ModePerm) != shared {
			t.Errorf("after chmod 0777 .git is %v, want %v restored", fi.Mode(), shared)
		}
	})
}

// TestAttackGuardItself: the command attacks the guard process that
// must restore what it changed.
func TestAttackGuardItself(t *testing.T) {
	t.Run("prlimit on guard, then rewrite .git/config", func(t *testing.T) {
		f := newFixture(t)
		spec := f.spec()
		// $PPID is the sandbox helper, whose parent is guard.
		argv := append([]string{"sh", "-c", `"$@" $(cut -d' ' -f4 /proc/$PPID/stat); printf '\tfsmonitor = evil\n' >> .git/config`, "sh"}, f.proc("prlimit-parent")...)
		stdout, stderr, code := guardProc(t, spec, nil, argv...)
		t.Logf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		wantContent(t, f.p("ws/.git/config"), "[core]\n\tbare = false\n")
		if !strings.Contains(stdout, "EPERM") {
			t.Errorf("prlimit on guard not refused: %q", stdout)
		}
	})
	t.Run("signal guard", func(t *testing.T) {
		// guard stays outside the command's Landlock domain, so signal
		// scoping refuses even kill -0 on it. The control is the shell
		// itself, always in the domain: the helper is not a control,
		// since whether it can be signalled depends on which of its
		// threads confined itself (the kernel checks the thread group
		// leader's domain).
		f := newFixture(t)
		script := `guard=$(cut -d' ' -f4 /proc/$PPID/stat)
kill -0 $$ 2>/dev/null && echo self-reachable
kill -0 $guard 2>/dev/null && echo guard-reachable; kill -STOP $guard 2>/dev/null && echo guard-stopped; true`
		stdout, stderr, code := guardProc(t, f.spec(), nil, "sh", "-c", script)
		if code != 0 || strings.Contains(stdout, "guard-") || !strings.Contains(stdout, "self-reachable") {
			t.Errorf("exit %d, stdout %q, stderr %q: want guard unreachable, the command itself reachable", code, stdout, stderr)
		}
	})
	t.Run("TIOCSTI types into guard's terminal", func(t *testing.T) {
		out, rest := onTerminal(t, "SANDBOX_TEST_PENDING=1", "pending input", "tiocsti", "y\necho INJECTED\n")
		if !strings.Contains(rest, " 0 <nil>") {
			t.Errorf("input left in guard's terminal after the run: %q", out+rest)
		}
	})
	t.Run("TIOCSETD changes guard's terminal's line discipline", func(t *testing.T) {
		// The null discipline (27) drops what is typed and what is
		// written alike: where the command may set it, the terminal
		// says nothing more (not even guard-test's line), and the
		// user's shell after the run reads nothing.
		out, rest := onTerminal(t, "SANDBOX_TEST_LDISC=1", "guard-test: ldisc", "tiocsetd", "27")
		if !strings.Contains(out, "EPERM") {
			t.Errorf("the command changed the terminal's line discipline: %q", out+rest)
		}
		if !strings.HasPrefix(rest, " 0 <nil>") {
			t.Errorf("the terminal's line discipline after the run: %q, want 0 (N_TTY)", rest)
		}
	})
	t.Run("TIOCEXCL locks guard's terminal", func(t *testing.T) {
		out, rest := onTerminal(t, "SANDBOX_TEST_EXCL=1", "guard-test: exclusive", "tiocexcl")
		if !strings.Contains(out, "EPERM") {
			t.Errorf("the command put the terminal in exclusive mode: %q", out+rest)
		}
		if !strings.HasPrefix(rest, " 0 <nil>") {
			t.Errorf("the terminal after the run: %q, want not exclusive (0)", rest)
		}
	})
	t.Run("keyring", func(t *testing.T) {
		f := newFixture(t)
		stdout, stderr, code := guardProc(t, f.spec(), []string{"SANDBOX_TEST_KEY=guard-test-key=SECRET-IN-KEYRING"}, f.proc("keyctl-read", "guard-test-key")...)
		if strings.Contains(stderr, "keyring unavailable") {
			t.Skip(stderr)
		}
		if strings.Contains(stdout, "SECRET") || code == 0 {
			t.Errorf("session keyring read: exit %d, %q %q", code, stdout, stderr)
		}
	})
}

// onTerminal runs proc.py's op with args under guard (this binary,
// with env too) on a new terminal, and returns what the terminal said
// up to marker, and the rest of that line, once guard has exited.
func onTerminal(t *testing.T, env, marker string, op ...string) (out, rest string) {
	t.Helper()
	f := newFixture(t)
	js, _ := json.Marshal(f.spec())
	cmd := exec.Command(os.Args[0], f.proc(op...)...)
	cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(js), env}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	exited := make(chan int, 1)
	go func() { cmd.Wait(); exited <- cmd.ProcessState.ExitCode() }()
	r := bufio.NewReader(tty)
	out = expect(t, r, marker)
	rest = expect(t, r, "\n")
	waitExit(t, exited)
	return out, rest
}

func TestAttackTCPFastOpen(t *testing.T) {
	f := newFixture(t)
	sink := newTCPSink(t)
	o := run(t, f.spec(), f.proc("tcp-fastopen", sink.port)...)
	mustFail(t, o)
	sink.wantNothing(t)
}

// TestAttackSecrets reads every secret location of profile's table
// through the hide list the run path derives from it.
func TestAttackSecrets(t *testing.T) {
	f := newFixture(t)
	ctx := &profile.Context{Home: f.home, Workspace: f.ws, Cwd: f.ws,
		ConfigDir: f.p("home/.config/guard"), StateDir: f.p("home/.local/state/guard")}
	secrets := []string{
		".codex/auth.json", ".claude/.credentials.json", ".claude.json", ".gemini/oauth_creds.json",
		".config/git/credentials", ".config/containers/auth.json", ".gem/credentials",
		".config/rclone/rclone.conf", ".config/glab-cli/config.yml", ".pulumi/credentials.json",
		".local/share/fish/fish_history", ".config/gh/hosts.yml", ".m2/settings.xml",
		".config/guard/pin", ".local/state/guard/approvals/r1.json",
	}
	for _, rel := range secrets {
		p := filepath.Join(f.home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("SECRET "+rel+"\n"), 0o600)
	}
	os.WriteFile(f.p("home/.config/guard/config.toml"), []byte("CONFIG\n"), 0o600)
	spec := f.spec()
	spec.Hide = ctx.SecretLocations()
	spec.Reveal = ctx.RevealedLocations()
	for _, rel := range secrets {
		t.Run(rel, func(t *testing.T) {
			o := f.sh(t, spec, "read", filepath.Join(f.home, rel))
			mustFail(t, o)
			if strings.Contains(o.stdout, "SECRET") {
				t.Errorf("read: %q", o.stdout)
			}
		})
	}
	t.Run("guard's policy and settings are readable, not writable", func(t *testing.T) {
		o := f.sh(t, spec, "exec", "cat", f.p("home/.config/guard/policy.toml"), f.p("home/.config/guard/config.toml"))
		mustSucceed(t, o)
		if o.stdout != "POLICY\nCONFIG\n" {
			t.Errorf("stdout %q", o.stdout)
		}
		mustFail(t, f.sh(t, spec, "append", f.p("home/.config/guard/policy.toml")))
		wantContent(t, f.p("home/.config/guard/policy.toml"), "POLICY\n")
	})
}

func TestAttackSocketEnv(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Env = append(spec.Env, "TMUX=/tmp/tmux-0/default,1,0", "STY=1.pts-0.h", "DISPLAY=:0",
		"WAYLAND_DISPLAY=wayland-0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus",
		"SSH_AUTH_SOCK=/tmp/agent", "XAUTHORITY=/home/u/.Xauthority", "AWS_CA_BUNDLE=/etc/ssl/ca.pem",
		"UPSTREAM=https://me:hunter2@example.com/x.git", "CI_JOB=ghp_0123456789abcdefghijABCDEFGHIJ")
	spec.KeepEnv = []string{"DISPLAY"}
	o := run(t, spec, "env")
	mustSucceed(t, o)
	for _, gone := range []string{"TMUX=", "STY=", "WAYLAND_DISPLAY=", "DBUS_SESSION_BUS_ADDRESS=", "SSH_AUTH_SOCK=", "XAUTHORITY=", "hunter2", "ghp_"} {
		if strings.Contains(o.stdout, gone) {
			t.Errorf("%s passed to the command", gone)
		}
	}
	for _, kept := range []string{"DISPLAY=:0", "AWS_CA_BUNDLE=/etc/ssl/ca.pem"} {
		if !strings.Contains(o.stdout, kept) {
			t.Errorf("%s not passed", kept)
		}
	}
	if strings.Contains(strings.Join(o.res.DroppedEnv, " "), "AWS_CA_BUNDLE") {
		t.Errorf("AWS_CA_BUNDLE blamed: %v", o.res.DroppedEnv)
	}
}

// TestApprovedDeleteInHome: an approved rm -rf ~/old-data gets a write
// grant on the home directory, which holds hidden paths; the delete
// must work, the secrets stay unreadable and unwritable.
func TestApprovedDeleteInHome(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(f.p("home/old-data/sub"), 0o755)
	os.WriteFile(f.p("home/old-data/sub/f"), []byte("x"), 0o644)
	os.WriteFile(f.p("home/old-file"), []byte("x"), 0o644)
	spec := f.spec()
	spec.ExtraWrite = []string{f.home}
	o := run(t, spec, "rm", "-rf", f.p("home/old-data"), f.p("home/old-file"))
	mustSucceed(t, o)
	wantContent(t, f.p("home/old-data"), "<absent>")
	wantContent(t, f.p("home/old-file"), "<absent>")
	o = f.sh(t, spec, "read", f.p("home/.ssh/id_ed25519"))
	mustFail(t, o)
	mustFail(t, f.sh(t, spec, "append", f.p("home/.ssh/id_ed25519")))
	mustFail(t, f.sh(t, spec, "exec", "ln", "-s", f.p("ws/evil"), f.p("home/.ssh/authorized_keys2")))
	wantContent(t, f.p("home/.ssh/id_ed25519"), "SECRET-SSH-KEY\n")
	wantContent(t, f.p("home/.ssh/authorized_keys2"), "<absent>")
	// The protected paths under the grant stay checked.
	o = f.sh(t, spec, "append", f.p("home/.bashrc"))
	mustSucceed(t, o)
	wantContent(t, f.p("home/.bashrc"), "# rc\n")
	if len(o.res.Violations) != 1 || !o.res.Violations[0].Restored {
		t.Errorf("violations %v", o.res.Violations)
	}
}

// TestProtectedTooLarge: a protected file over the snapshot's bound is
// never read; changed, it is moved aside and reported as not restored.
func TestProtectedTooLarge(t *testing.T) {
	f := newFixture(t)
	big := f.p("ws/.envrc")
	if err := os.WriteFile(big, bytes.Repeat([]byte("#\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Protect = append(spec.Protect, big)
	o := f.sh(t, spec, "append", big)
	mustSucceed(t, o)
	if len(o.res.Violations) != 1 || o.res.Violations[0].Restored || !strings.Contains(o.res.Violations[0].RestoreErr, "moved to") {
		t.Fatalf("violations %v", o.res.Violations)
	}
	wantContent(t, big, "<absent>")
	if !strings.HasSuffix(readFile(t, f.p("ws/.guard-changed-.envrc")), "pwned\n") {
		t.Error("the changed file was not kept aside")
	}
	// Untouched, it is no violation.
	os.Rename(f.p("ws/.guard-changed-.envrc"), big)
	wantNoViolation(t, f.sh(t, spec, "read", f.p("ws/main.go")))
}

func TestReveal(t *testing.T) {
	f := newFixture(t)
	gh := f.p("home/.config/gh")
	os.MkdirAll(gh, 0o700)
	os.WriteFile(filepath.Join(gh, "hosts.yml"), []byte("oauth_token: T\n"), 0o600)
	spec := f.spec()
	spec.Hide = append(spec.Hide, gh)
	mustFail(t, f.sh(t, spec, "read", filepath.Join(gh, "hosts.yml")))
	spec.Reveal = []string{gh}
	o := f.sh(t, spec, "read", filepath.Join(gh, "hosts.yml"))
	mustSucceed(t, o)
	mustFail(t, f.sh(t, spec, "append", filepath.Join(gh, "hosts.yml")))
	spec.ExtraWrite = []string{f.home}
	mustFail(t, f.sh(t, spec, "write", filepath.Join(gh, "new")))
	wantContent(t, filepath.Join(gh, "hosts.yml"), "oauth_token: T\n")
	// A revealed path that leads into another hidden one is refused.
	os.Symlink(f.p("home/.ssh/id_ed25519"), f.p("home/.config/guard/config.toml"))
	spec = f.spec()
	spec.Reveal = []string{f.p("home/.config/guard/config.toml")}
	if o := run(t, spec, "true"); o.err == nil || o.res.Started {
		t.Errorf("reveal through a symlink into ~/.ssh accepted: %v", o)
	}
	// Revealing a directory does not reveal a hidden path inside it.
	spec = f.spec()
	spec.Hide = append(spec.Hide, f.p("home/.config"))
	spec.Reveal = []string{f.p("home/.config")}
	mustSucceed(t, f.sh(t, spec, "read", f.p("home/.config/other/ok.conf")))
	mustFail(t, f.sh(t, spec, "read", f.p("home/.config/guard/policy.toml")))
}
