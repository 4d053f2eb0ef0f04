package sandbox_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackCapabilitiesAfterExec: the helper of a user who is not root
// holds CAP_SYS_ADMIN and CAP_DAC_OVERRIDE in its user namespace (for the
// mounts) and must hand the command none; root's command keeps exactly
// the kept set. The command looks at all five sets, its own and those of
// a program it execs that carries file capabilities (CAP_SYS_ADMIN,
// CAP_SYS_PTRACE, CAP_DAC_OVERRIDE) and of a set-user-ID-root one: no
// exec may raise them (no_new_privs, the bounding set). The user's run
// is guard started as nobody (setpriv). Root only: making those programs
// and changing user need it.
func TestAttackCapabilitiesAfterExec(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making file-capability and set-user-ID programs needs root")
	}
	setcap, err := exec.LookPath("setcap")
	if err != nil {
		t.Skip("needs setcap")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	f := newFixture(t)
	// nobody must reach the fixture, guard (this test binary) and the
	// programs.
	if err := os.Chmod(f.root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := f.p("bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal(err)
	}
	copyExec(t, cat, filepath.Join(bin, "capcat"), 0o755)
	copyExec(t, cat, filepath.Join(bin, "suidcat"), os.ModeSetuid|0o755)
	copyExec(t, os.Args[0], filepath.Join(bin, "guard"), 0o755)
	if out, err := exec.Command(setcap, "cap_sys_admin,cap_sys_ptrace,cap_dac_override+eip", filepath.Join(bin, "capcat")).CombinedOutput(); err != nil {
		t.Skipf("setcap refused here: %v %s", err, out)
	}
	script := `for b in cat "$1/capcat" "$1/suidcat"; do echo "== $b"; out=$("$b" /proc/self/status 2>&1) || { echo "refused $b: $out"; continue; }; printf '%s\n' "$out" | grep -E '^(Uid|Cap(Inh|Prm|Eff|Bnd|Amb)):'; done`
	spec := f.spec()
	kept := uint64(1<<unix.CAP_CHOWN | 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_FOWNER |
		1<<unix.CAP_KILL | 1<<unix.CAP_SETGID | 1<<unix.CAP_SETUID |
		1<<unix.CAP_SETPCAP | 1<<unix.CAP_NET_BIND_SERVICE | 1<<unix.CAP_SYS_CHROOT |
		1<<unix.CAP_AUDIT_WRITE)

	t.Run("a user's command has none", func(t *testing.T) {
		js, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--",
			filepath.Join(bin, "guard"), "sh", "-c", script, "sh", bin)
		cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(js), "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		checkCaps(t, string(out), func(b, set string, mask uint64) {
			if set != "CapBnd" && mask != 0 {
				t.Errorf("%s: %s %x, want none", b, set, mask)
			}
			if mask&(1<<unix.CAP_SYS_ADMIN|1<<unix.CAP_DAC_OVERRIDE) != 0 && set != "CapBnd" {
				t.Errorf("%s keeps the helper's mount capabilities: %s %x", b, set, mask)
			}
		})
		for line := range strings.Lines(string(out)) {
			if ids, ok := strings.CutPrefix(line, "Uid:"); ok && strings.Join(strings.Fields(ids), " ") != "65534 65534 65534 65534" {
				t.Errorf("a set-user-ID program changed user: %s", line)
			}
		}
	})
	t.Run("root's command keeps exactly the kept set", func(t *testing.T) {
		o := run(t, spec, "sh", "-c", script, "sh", bin)
		mustSucceed(t, o)
		checkCaps(t, o.stdout, func(b, set string, mask uint64) {
			switch set {
			case "CapBnd":
				if mask != kept {
					t.Errorf("%s: CapBnd %x, want %x", b, mask, kept)
				}
			case "CapPrm", "CapEff":
				if mask&^kept != 0 {
					t.Errorf("%s: %s %x holds more than the kept set %x", b, set, mask, kept)
				}
			}
		})
	})
}

// checkCaps calls check for each program's capability set in out (lines
// "== program" then /proc/PID/status lines); each program must show
// all five sets.
func checkCaps(t *testing.T, out string, check func(prog, set string, mask uint64)) {
	t.Helper()
	prog, sets := "", map[string]int{}
	seen := func(p string) {
		if _, ok := sets[p]; !ok {
			sets[p] = 0
		}
	}
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "== "); ok {
			prog = p
			seen(p)
			continue
		}
		name, hex, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatal(err, line)
		}
		sets[prog]++
		check(prog, name, mask)
	}
	// A program whose exec the kernel refused (file capabilities beyond
	// the bounding set, under no_new_privs: EPERM) shows none: it gained
	// nothing. cat itself must show all five.
	for p, n := range sets {
		if n != 5 && !(n == 0 && strings.Contains(out, "refused "+p+":")) {
			t.Errorf("%s: %d capability sets, want 5: %s", p, n, out)
		}
	}
	if sets["cat"] != 5 || len(sets) != 3 {
		t.Fatalf("want the sets of 3 programs, cat's among them: %s", out)
	}
}

// copyExec copies the program src to dst with mode (chmod after the
// write: the set-user-ID bit survives only so).
func copyExec(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, mode); err != nil {
		t.Fatal(err)
	}
}
