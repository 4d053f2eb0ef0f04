package sandbox_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// rerunUnder runs the test t again, alone, in a child process of this
// binary started through wrapper (its program and arguments, which end
// by running what follows them), with env added, and makes the child's
// result t's: its failure fails t, its skip skips t. where names the
// child's circumstances in the messages. A wrapper that cannot start
// (its own message first, prefixed "NAME:") skips t.
func rerunUnder(t *testing.T, where string, env []string, wrapper ...string) {
	t.Helper()
	name := wrapper[0]
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s needs %s: %v", where, name, err)
	}
	args := append(wrapper[1:len(wrapper):len(wrapper)], os.Args[0], "-test.run", "^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && strings.HasPrefix(string(out), name+":"):
		t.Skipf("%s: %s cannot start here:\n%s", where, name, out)
	case err != nil:
		t.Fatalf("%s: %v\n%s", where, err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()+" "):
		t.Skipf("%s:\n%s", where, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()+" "):
		t.Fatalf("%s, the test did not run:\n%s", where, out)
	}
}
