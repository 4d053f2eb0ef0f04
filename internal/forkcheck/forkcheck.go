// Package forkcheck makes, while guard starts, the check Go's os package
// makes before a process's first child, when guard's command line is a
// run (guard -- CMD, guard run, guard --FLAG ... -- CMD), which starts
// the sandbox helper first thing.
//
// The check (whether pidfds work: it opens a pidfd of guard itself,
// waits on it and sends it signal 0, then vforks a child that exits at
// once and waits for it) is made once per process, in the first
// exec.Cmd.Start: the helper's, on guard's main thread right before the
// fork, 0.12 to 0.25 ms measured here under chrt (up to 0.75 loaded).
// Made from this package's init, on a goroutine, it runs on the other
// CPU alongside the inits of the packages that follow (yaml, the shell
// parser, profile, scan: about 1 ms); the helper's start then finds it
// done, or waits for it to end (os makes it under a sync.Once).
//
// The package imports os and confine only, so that it is initialized
// early. It does nothing in any other process: not for guard's other
// subcommands, and not in the sandbox helper (guard re-executed), which
// confines itself and must start no child but the command.
package forkcheck

import (
	"os"
	"strings"

	"github.com/guard-sh/guard/sandbox/confine"
)

func init() {
	if runs(os.Args) && os.Getenv(confine.Env) == "" {
		go check()
	}
}

// runs reports whether guard's command line argv is a run: its first
// word is --, run, or a flag with a -- further on.
func runs(argv []string) bool {
	if len(argv) < 2 {
		return false
	}
	switch first := argv[1]; {
	case first == "--" || first == "run":
		return true
	case strings.HasPrefix(first, "-"):
		for _, a := range argv[2:] {
			if a == "--" {
				return true
			}
		}
	}
	return false
}

// check makes the check: os.FindProcess makes the same one (once per
// process) to return a process with a pidfd.
func check() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
}
