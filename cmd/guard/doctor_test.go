package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
)

// weakKernel is this machine's Support with the Landlock ABI lowered to
// abi: every feature that needs more is missing, as on an older kernel.
func weakKernel(t *testing.T, abi int, seccomp bool) sandbox.Support {
	t.Helper()
	sup := sandbox.Probe()
	sup.ABI, sup.Seccomp, sup.Limits = abi, seccomp, nil
	sup.Features = append([]sandbox.Feature(nil), sup.Features...)
	for i, f := range sup.Features {
		var need int
		if n, ok := strings.CutPrefix(f.Needs, "Landlock ABI "); ok {
			for _, r := range n {
				need = need*10 + int(r-'0')
			}
			sup.Features[i].OK = abi >= need
		} else {
			sup.Features[i].OK = seccomp
		}
		if !sup.Features[i].OK && !f.Required {
			sup.Limits = append(sup.Limits, f.Gap)
		}
	}
	return sup
}

func runDoctorWith(t *testing.T, sup sandbox.Support, jsonOut bool) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	env := &doctorEnv{support: sup, euid: 1000, configDir: dir + "/config", stateDir: dir + "/state", now: time.Now}
	var out, errb bytes.Buffer
	err := runDoctor(&streams{out: &out, err: &errb}, &doctorOptions{json: jsonOut}, env)
	code = report(&errb, err)
	return out.String(), errb.String(), code
}

func TestDoctorMissingFeatures(t *testing.T) {
	// ABI 3 (Linux 6.2): no TCP rules, no ioctl rule, no scopes.
	out, errs, code := runDoctorWith(t, weakKernel(t, 3, true), false)
	if code != exitDoctorProblem {
		t.Errorf("exit %d, want %d", code, exitDoctorProblem)
	}
	for _, want := range []string{
		`^Sandbox: Landlock ABI 3, seccomp filter for `,
		`^  ok   truncate  `,
		`^  FAIL tcp  +missing \(needs Landlock ABI 4\): TCP connections and listening sockets are not refused$`,
		`^  FAIL ioctl  +missing \(needs Landlock ABI 5\): `,
		`^  FAIL scopes  +missing \(needs Landlock ABI 6\): signals and abstract unix socket connections`,
		`^  --   unix-sockets  +not on this kernel \(needs Landlock ABI 9\)`,
		`^  ok   udp \(seccomp\)  `,
	} {
		if !regexp.MustCompile("(?m)" + want).MatchString(out) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(errs, "guard: error: guard doctor found problems: tcp, ioctl, scopes\nguard: hint: ") ||
		!strings.Contains(errs, "--require-sandbox") {
		t.Errorf("stderr = %q", errs)
	}
	// A user-run guard is not told about root.
	if strings.Contains(out, "runs as root") {
		t.Errorf("root limit shown for uid 1000:\n%s", out)
	}
}

func TestDoctorNoLandlock(t *testing.T) {
	out, _, code := runDoctorWith(t, weakKernel(t, 0, false), true)
	if code != exitDoctorProblem {
		t.Errorf("exit %d, want %d", code, exitDoctorProblem)
	}
	var v doctorJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if v.OK || v.Sandbox.Full || v.Sandbox.ABI != 0 || v.Sandbox.Seccomp {
		t.Errorf("report = %+v", v.Sandbox)
	}
	// Without Landlock the file system gap says it all; seccomp's is its own.
	if len(v.Sandbox.Gaps) != 2 || !strings.HasPrefix(v.Sandbox.Gaps[0], "filesystem: ") || !strings.HasPrefix(v.Sandbox.Gaps[1], "seccomp: ") {
		t.Errorf("gaps = %q", v.Sandbox.Gaps)
	}
	fails := map[string]bool{}
	for _, c := range v.Sections[0].Checks {
		if c.Status == "fail" {
			fails[c.Name] = true
		}
	}
	for _, n := range []string{"filesystem", "tcp", "scopes", "udp (seccomp)", "mptcp/io_uring"} {
		if !fails[n] {
			t.Errorf("%s not failed: %+v", n, v.Sections[0].Checks)
		}
	}
}

func TestDoctorFullKernel(t *testing.T) {
	out, errs, code := runDoctorWith(t, weakKernel(t, 7, true), false)
	if code != 0 || errs != "" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if strings.Contains(out, "FAIL") {
		t.Errorf("FAIL on a full kernel:\n%s", out)
	}
}

// TestDoctorNotify: a webhook guard cannot send (curl is not on PATH)
// fails doctor with the fix; with curl it is ok, and without a webhook
// there is nothing to check.
func TestDoctorNotify(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if c := doctorNotify(); !c.OK || !strings.HasPrefix(c.Detail, "no webhook") {
		t.Errorf("no config: %+v", c)
	}
	cfg := filepath.Join(home, ".config", "guard", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg, []byte("[notify]\nwebhook = \"https://hooks.example.com/x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "curl"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin)
	if c := doctorNotify(); !c.OK || c.Detail != "webhook set (posted with curl)" {
		t.Errorf("with curl: %+v", c)
	}
	t.Setenv("PATH", t.TempDir())
	if c := doctorNotify(); c.OK || !strings.Contains(c.Detail, "curl, which guard posts it with, is not on PATH: install curl") {
		t.Errorf("without curl: %+v", c)
	}
}

// TestGateUnknownAgent: an agent without a gate check is not reported as
// running guard's hook.
func TestGateUnknownAgent(t *testing.T) {
	g := gateFor(&agentProtocol{name: "newagent", label: "New Agent"}, "/nonexistent/settings.json", false)
	if g.fires || !strings.Contains(g.detail, "cannot check whether New Agent") {
		t.Errorf("gate = %+v, want not firing, with the reason", g)
	}
}
