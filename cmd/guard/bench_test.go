package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// What a command pays for going through guard, measured as whole
// processes (what a user or an agent waits for), from the floor up:
//
//	BenchmarkExecTrue         fork and exec /bin/true
//	BenchmarkLandlockTrue     a tiny Go program that restricts itself with
//	                          go-landlock (the sandbox's shape: read /,
//	                          write the workspace) and execs /bin/true
//	BenchmarkGuardCheck       guard check 'true': review only, nothing runs
//	BenchmarkGuardTrue        guard -- true: review, audit, sandbox, run
//	BenchmarkGuardShellTrue   guard run -c true: the same through bash
//
// Each reports peak-RSS-KiB, the largest resident set among the process
// and the children it waited for (the sandbox helper, for guard), when
// GNU time is installed. Both binaries are built as `make build` does
// (CGO_ENABLED=0, -trimpath). Nothing here asserts a time.
//
//	go test -run '^$' -bench 'Exec|Landlock|Guard' -benchtime 200x ./cmd/guard

func BenchmarkExecTrue(b *testing.B) {
	benchExec(b, "", "/bin/true")
}

func BenchmarkLandlockTrue(b *testing.B) {
	bin := buildBareLandlock(b)
	ws := b.TempDir()
	benchExec(b, "", bin, ws, "/bin/true")
}

func BenchmarkGuardCheck(b *testing.B) {
	guard, dir := guardBench(b)
	benchExec(b, dir, guard, "check", "true")
}

func BenchmarkGuardTrue(b *testing.B) {
	guard, dir := guardBench(b)
	benchExec(b, dir, guard, "--", "true")
}

func BenchmarkGuardShellTrue(b *testing.B) {
	guard, dir := guardBench(b)
	benchExec(b, dir, guard, "run", "-c", "true")
}

// benchExec runs argv b.N times in dir, then once more under GNU time
// for the peak RSS.
func benchExec(b *testing.B, dir string, argv ...string) {
	b.Helper()
	for b.Loop() {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	if kib, ok := peakRSS(dir, argv); ok {
		b.ReportMetric(float64(kib), "peak-RSS-KiB")
	}
}

// peakRSS is the largest resident set of argv and the children it waited
// for, in KiB, as GNU time (Debian package time) reports it. The rusage
// of a child started by Go itself would not do: Go starts children with
// CLONE_VM, and the kernel counts the parent's resident set, as it was
// before the exec, into the child's peak.
func peakRSS(dir string, argv []string) (int64, bool) {
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		return 0, false
	}
	out, err := os.CreateTemp("", "peakrss")
	if err != nil {
		return 0, false
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", out.Name()}, argv...)...)
	cmd.Dir = dir
	if err := cmd.Run(); err != nil {
		return 0, false
	}
	b, err := io.ReadAll(out)
	if err != nil {
		return 0, false
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return kib, err == nil
}

// guardBench builds guard and makes a project directory and a home of its
// own, so the runs neither read the user's policy nor grow their audit log.
func guardBench(b *testing.B) (guard, dir string) {
	b.Helper()
	if runtime.GOOS != "linux" {
		b.Skip("the sandbox is Linux only")
	}
	tmp := b.TempDir()
	guard = filepath.Join(tmp, "guard")
	goBuild(b, ".", guard, "github.com/guard-sh/guard/cmd/guard", "GOFLAGS=-mod=readonly")
	home := filepath.Join(tmp, "home")
	dir = filepath.Join(tmp, "proj")
	for _, d := range []string{filepath.Join(dir, ".git"), filepath.Join(home, ".config"), filepath.Join(home, ".local", "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	b.Setenv("GUARD_SESSION", "")
	return guard, dir
}

// bareLandlockMain is the floor for a Landlock run: restrict, then exec.
const bareLandlockMain = `package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// bare WORKSPACE PROGRAM [ARG...]
func main() {
	err := landlock.V7.BestEffort().Restrict(
		landlock.RODirs("/"),
		landlock.RWDirs(os.Args[1]),
		landlock.RWFiles("/dev/null"),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(125)
	}
	err = syscall.Exec(os.Args[2], os.Args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "bare:", err)
	os.Exit(126)
}
`

// buildBareLandlock builds bareLandlockMain in a module of its own that
// requires the versions guard uses (so the module cache has them).
func buildBareLandlock(b *testing.B) string {
	b.Helper()
	src := b.TempDir()
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"main.go": bareLandlockMain,
		"go.mod": "module bare\n\ngo 1.26\n\nrequire (\n" +
			"\tgithub.com/landlock-lsm/go-landlock v0.11.0\n" +
			"\tgolang.org/x/sys v0.49.0 // indirect\n" +
			"\tkernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect\n)\n",
		"go.sum": string(sum),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(b.TempDir(), "bare")
	goBuild(b, src, bin, ".", "GOFLAGS=-mod=mod", "GOPROXY=off")
	return bin
}

func goBuild(b *testing.B, dir, out, pkg string, env ...string) {
	b.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}
