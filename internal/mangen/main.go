// Command mangen writes guard's man pages (section 1, one per command)
// into a directory:
//
//	go run ./internal/mangen [-o DIR]      # make man: DIR is man/
//
// The pages come from guard's cobra command tree through
// github.com/spf13/cobra/doc, written by `guard man DIR` (so that users who
// did not build from source get the same pages); mangen runs that command
// from the source tree. Pages of commands that no longer exist are removed
// first.
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
	cmd := exec.Command(goTool, "run", "github.com/guard-sh/guard/cmd/guard", "man", abs)
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
