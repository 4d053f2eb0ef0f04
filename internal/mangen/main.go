// Command mangen writes guard's man pages (section 1, one per command)
// into a directory:
//
//	go run ./internal/mangen [-o DIR]      # make man: DIR is man/
//
// The pages come from guard's cobra command tree through
// github.com/spf13/cobra/doc. That tree is built in package main
// (cmd/guard), which cannot be imported, so the generator is the test
// TestInitManPages there, and mangen runs it with GUARD_MAN_DIR set: the
// guard binary itself carries no hidden page writer. Pages of commands
// that no longer exist are removed first.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", "man", "write the pages into `DIR`")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/mangen [-o DIR]")
		os.Exit(2)
	}
	if err := generate(*out); err != nil {
		fmt.Fprintf(os.Stderr, "mangen: %v\n", err)
		os.Exit(1)
	}
}

func generate(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	if err := removePages(abs); err != nil {
		return err
	}
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-run", "^TestInitManPages$", "github.com/guard-sh/guard/cmd/guard")
	cmd.Env = append(os.Environ(), "GUARD_MAN_DIR="+abs)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("generate the pages: %v", err)
	}
	pages, err := filepath.Glob(filepath.Join(abs, "guard*.1"))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mangen: wrote %d pages to %s\n", len(pages), dir)
	return nil
}

// removePages deletes the guard*.1 pages in dir and nothing else.
func removePages(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, "guard") && strings.HasSuffix(n, ".1") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	return nil
}
