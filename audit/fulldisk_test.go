package audit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/guard-sh/guard/review"
)

// envFullDisk runs TestOutcomeRecordOnFullDisk's body in the child: a
// process in its own user and mount namespace, where it may mount a small
// file system to fill.
const envFullDisk = "AUDIT_TEST_FULL_DISK"

// A command that fills the disk must not erase its own outcome record:
// the record of how it ended and which protected paths it changed is the
// evidence of the attempt. The log keeps space allocated past its end,
// made while there was room, for the records after the last one.
func TestOutcomeRecordOnFullDisk(t *testing.T) {
	if os.Getenv(envFullDisk) != "" {
		fullDiskChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutcomeRecordOnFullDisk$", "-test.v")
	cmd.Env = append(os.Environ(), envFullDisk+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		// No user namespaces here (a sysctl, a container's policy).
		t.Skipf("cannot start a process in its own user and mount namespace: %v", err)
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	// A child that skipped (no tmpfs in the namespace) tested nothing:
	// say so, rather than pass.
	if !strings.Contains(string(out), "--- PASS: TestOutcomeRecordOnFullDisk") {
		t.Skipf("the child did not run the test:\n%s", out)
	}
	t.Logf("child:\n%s", out)
}

func fullDiskChild(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs in the namespace: %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	dir := filepath.Join(mnt, "state")
	l := openTest(t, dir)
	if _, err := l.Append(Record{ID: "x", Command: "fill the disk", Decision: ApprovedAuto, Level: review.A}); err != nil {
		t.Fatal(err)
	}

	// The command fills the disk.
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(mnt, "one-more"), chunk[:4096], 0o600); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the disk is not full: writing 4 KiB more gave %v", err)
	}

	// Its outcome, with the protected paths it changed, still lands: a
	// record longer than a page, so it needs space the log did not have
	// when the disk filled.
	var violations []string
	for i := range 120 {
		violations = append(violations, fmt.Sprintf("/home/u/.config/autostart/planted-%03d.desktop (restored)", i))
	}
	exit := 0
	if _, err := l.Append(Record{ID: "x", Command: "fill the disk", Decision: Ran, Exit: &exit, Violations: violations}); err != nil {
		t.Fatalf("the outcome record of a command that filled the disk was lost: %v", err)
	}
	// And so do the next decisions.
	appendN(t, l, 20)
	if rep := mustVerify(t, dir); rep.Records != 22 {
		t.Errorf("Verify: %d records, want 22", rep.Records)
	}
	rs, err := Read(dir, Filter{Decisions: []Decision{Ran}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || rs[0].ID != "x" || len(rs[0].Violations) != len(violations) {
		t.Errorf("the outcome record read back: %+v", rs)
	}
}
