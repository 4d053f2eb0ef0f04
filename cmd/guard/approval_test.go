package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/approval"
)

// TestRunRefusesExpiredApproval: an approval bound to exactly this command
// but past its expiry is not used; the command is queued again instead.
func TestRunRefusesExpiredApproval(t *testing.T) {
	_, ws := fakeHome(t, t.TempDir(), ".git", "build")

	a, err := assess("rm -rf build", assessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	past := func() time.Time { return time.Now().Add(-time.Hour) }
	id, err := approval.Add(approvalsDir(), approval.Request{
		Created: past(), Level: a.Verdict.Level, Explanation: "x",
		Binding: approval.Binding{Command: a.Text, Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Digest: a.Verdict.Digest},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := approval.Approve(approvalsDir(), id, approval.Grant{TTL: 15 * time.Minute}, past); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	code := run([]string{"guard", "--", "rm", "-rf", "build"}, strings.NewReader(""), &out, &errb)
	if code != exitNotRun {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitNotRun, errb.String())
	}
	if !strings.Contains(errb.String(), "approval "+id+" cannot be used") || !strings.Contains(errb.String(), "expired") {
		t.Errorf("stderr does not name the expired approval %s:\n%s", id, errb.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "build")); err != nil {
		t.Errorf("build was deleted under an expired approval")
	}
}
