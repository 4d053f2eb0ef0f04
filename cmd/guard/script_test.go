package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/internal/testwork"
	"github.com/guard-sh/guard/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.ChildMain()
	// Tests that call run directly and queue do not wait for a decision.
	// (A script's guard command runs this too: it keeps the script's own
	// GUARD_WAIT, even an empty one.)
	if _, ok := os.LookupEnv("GUARD_WAIT"); !ok {
		os.Setenv("GUARD_WAIT", "0s")
	}
	// Runs make tmux's socket directory to cover it (sandbox/sockets.go):
	// not the machine's /tmp/tmux-UID. Below a directory that is not
	// there, none is made.
	if _, ok := os.LookupEnv("TMUX_TMPDIR"); !ok {
		os.Setenv("TMUX_TMPDIR", filepath.Join(os.TempDir(), "guard-test-no-tmux"))
	}
	testscript.Main(m, map[string]func(){
		"guard": func() {
			os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		// guard-sh is guard reached through a link of that name.
		"guard-sh": func() {
			os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

// scriptParams is the common setup: a fresh HOME and XDG dirs under $WORK,
// the exitcode command and the [landlock] condition.
func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		WorkdirRoot:         workdirRoot(t, "run-"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			for _, d := range []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".local", "state"), filepath.Join(home, ".cache")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			e.Setenv("HOME", home)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("USER", "tester")
			// The sandbox makes tmux's socket directory to cover it:
			// the script's own, not the machine's /tmp/tmux-UID.
			e.Setenv("TMUX_TMPDIR", e.WorkDir)
			// Scripts that queue do not wait for a decision unless they
			// say so (env GUARD_WAIT=…, --wait).
			e.Setenv("GUARD_WAIT", "0s")
			// ttyin types every answer before the first question; the
			// shipped guard drops such type-ahead (prompt_test checks it).
			e.Setenv(envKeepTypeAhead, "1")
			for _, k := range []string{"PATH", "GOCACHE", "GOPATH", "GOROOT", "GOMODCACHE"} {
				if v, ok := os.LookupEnv(k); ok {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":     cmdExitcode,
			"awaitpending": cmdAwaitPending,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "landlock":
				return landlockABI() >= 6, nil
			case "abi9":
				return landlockABI() >= 9, nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// cmdExitcode runs a command and asserts its exact exit status:
//
//	exitcode 126 guard -- rm -rf build
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ok bool
		got, ok = exitStatusOf(err)
		if !ok {
			ts.Fatalf("exitcode: %v", err)
		}
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdAwaitPending waits until the approval queue holds a pending request
// whose id is not yet in the environment, and sets VAR to its id. It is
// how a script synchronises with a background guard that queued a request
// and now waits for the user (the queue file is written before guard
// prints its pending line):
//
//	exec guard -- rm -rf build &
//	awaitpending ID
//	exec guard deny $ID
func cmdAwaitPending(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: awaitpending VAR")
	}
	dir := filepath.Join(ts.Getenv("XDG_STATE_HOME"), "guard", "approvals")
	// A bound, not a timing assert: the background guard queues within
	// milliseconds; this only stops a broken script from hanging.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		reqs, err := approval.List(dir, time.Now)
		if err != nil {
			ts.Fatalf("awaitpending: %v", err)
		}
		for _, r := range reqs {
			if r.State == approval.Pending && ts.Getenv("AWAITED_"+r.ID) == "" {
				ts.Setenv("AWAITED_"+r.ID, "1")
				ts.Setenv(args[0], r.ID)
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	ts.Fatalf("awaitpending: no new pending request in %s", dir)
}

// workdirRoot keeps $WORK out of /tmp: guard treats /tmp as a temp dir
// (writable, deletes are B), which would blur what the scripts test.
func workdirRoot(t testing.TB, prefix string) string {
	return testwork.Dir(t, "guard-testscript-"+prefix)
}
