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
		if !strings.HasPrefix(pkg, "github.com/guard-sh/guard/") || strings.HasPrefix(pkg, "github.com/guard-sh/guard/cmd/") {
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
