package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestInitBudget: guard's library packages do next to nothing when the
// process starts. Every guard call pays for every package's init, so a
// table, a regular expression or a map literal built there costs each
// 'guard check' and each hook decision, used or not; such things are built
// on first use instead (sync.OnceValue). The budget is what the Go runtime
// reports for each package's init (GODEBUG=inittrace=1, bytes allocated,
// which is the same on every run), measured in this test binary, which
// links the same packages; it leaves room for a few small maps, not for a
// table.
func TestInitBudget(t *testing.T) {
	budget := map[string]int{ // bytes allocated by the package's init
		"github.com/guard-sh/guard/profile":    12 << 10,
		"github.com/guard-sh/guard/scan":       4 << 10,
		"github.com/guard-sh/guard/sandbox":    4 << 10,
		"github.com/guard-sh/guard/pin":        1 << 10,
		"github.com/guard-sh/guard/review":     1 << 10,
		"github.com/guard-sh/guard/policy":     1 << 10,
		"github.com/guard-sh/guard/audit":      1 << 10,
		"github.com/guard-sh/guard/decision":   1 << 10,
		"github.com/guard-sh/guard/checkpoint": 1 << 10,
		"github.com/guard-sh/guard/approval":   1 << 10,
		"github.com/guard-sh/guard/parse":      1 << 10,
		// The copy of yaml.v3 in third_party (only guard scan decodes
		// YAML; upstream compiles two regexps and fills its tables at
		// init: 25.7 KB).
		"gopkg.in/yaml%2ev3": 1 << 10,
		// The copy of mvdan.cc/sh/v3 in third_party: upstream compiles
		// two regexps in each at init (15.2 and 4.9 KB).
		"mvdan.cc/sh/v3/fileutil": 1 << 10,
		"mvdan.cc/sh/v3/expand":   1 << 10,
		// confine's init is the process's first os.Getenv, which copies
		// the environment into syscall's map (3.4 KB here): every Go
		// program does that once, whoever asks first.
		"github.com/guard-sh/guard/sandbox/confine": 4 << 10,
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		_, budgeted := budget[pkg]
		if !budgeted && (!strings.HasPrefix(pkg, "github.com/guard-sh/guard/") || strings.HasPrefix(pkg, "github.com/guard-sh/guard/cmd/")) {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("bad inittrace line %q", line)
		}
		limit, ok := budget[pkg]
		if !ok {
			limit = 1 << 10
		}
		if bytes > limit {
			t.Errorf("%s allocates %d bytes at init (budget %d): build its tables on first use", pkg, bytes, limit)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace of guard's packages in:\n%s", out)
	}
}

// TestUnlinkedPackages: the guard binary does not link packages whose
// init did work at every start and that guard no longer needs. The test
// binary links more (the testing package's own), so this asks the go
// command for the binary's packages.
func TestUnlinkedPackages(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list guard's packages")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "github.com/guard-sh/guard/cmd/guard").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	unlinked := map[string]string{
		"compress/flate":       "its init builds Huffman tables; checkpoint writes its stored zlib streams itself (storedZlib)",
		"golang.org/x/sys/cpu": "its init asks the processor for every feature; third_party/x-crypto's argon2 asks for SSE4.1 on first use",
	}
	for pkg := range strings.Lines(string(out)) {
		if why, ok := unlinked[strings.TrimSpace(pkg)]; ok {
			t.Errorf("guard links %s again, whose init runs at every start: %s", strings.TrimSpace(pkg), why)
		}
	}
}
