package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set by the linker (-X main.version=…). It must be a plain
// variable for -X to work; versionString falls back to the module version
// from the build info, or "devel".
var version string

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func debugEnabled() bool { return os.Getenv("GUARD_DEBUG") != "" }

func newVersionCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print guard's version",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return printVersion(s) },
	}
}

func printVersion(s *streams) error {
	fmt.Fprintf(s.out, "guard %s\n", versionString())
	return nil
}
