package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackOtherRunsTmp: runs overlap (an agent's background command
// and the next one), and each writing run's TMPDIR is a directory of
// its own in /tmp, which every run may read and every writing run may
// write. Run A, approved to read a secret, stages it in its TMPDIR
// (gpg, sops and editors write their plaintext there); run B, a level A
// command with nothing revealed, lists /tmp and reads A's TMPDIR, and
// plants a file there for A to run. Neither may reach the other's.
func TestAttackOtherRunsTmp(t *testing.T) {
	f := newFixture(t)
	a := f.spec()
	a.Reveal = []string{f.p("home/.ssh")}
	fifo, ready := f.p("ws/a.fifo"), f.p("ws/a.ready")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A stages the key in its TMPDIR, says where, and waits; then it
	// runs what its TMPDIR holds at run.sh, as a script it wrote itself.
	const stage = `cp "$1" "$TMPDIR/key" && echo 'echo mine' > "$TMPDIR/run.sh" && echo "$TMPDIR" > "$2.new" && mv "$2.new" "$2" && read x < "$3" && sh "$TMPDIR/run.sh"`
	done := make(chan outcome, 1)
	go func() { done <- run(t, a, "sh", "-c", stage, "sh", f.p("home/.ssh/id_ed25519"), ready, fifo) }()
	// A bound, not a timing assert: it only stops a broken run from
	// hanging.
	for deadline := time.Now().Add(20 * time.Second); readFile(t, ready) == "<absent>"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("run A did not start")
		}
	}
	aTmp := strings.TrimSpace(readFile(t, ready))
	if got := readFile(t, filepath.Join(aTmp, "key")); got != "SECRET-SSH-KEY\n" {
		t.Fatalf("control: run A staged %q", got)
	}

	// B finds A's temp dir by listing the directory it is in, as an
	// attacker would.
	const steal = `for d in "$(dirname "$1")"/*; do cat "$d/key" 2>/dev/null; echo 'echo PLANTED' > "$d/run.sh" 2>/dev/null; done; true`
	// A writing run (a temp dir of its own) and a read-only one (none).
	readOnly := f.spec()
	readOnly.Write = false
	for _, spec := range []sandbox.Spec{readOnly, f.spec()} {
		b := run(t, spec, "sh", "-c", steal, "sh", aTmp)
		mustSucceed(t, b)
		if strings.Contains(b.stdout, "SECRET") {
			t.Errorf("run B (write %v) read the secret run A staged in its TMPDIR: %q", spec.Write, b.stdout)
		}
	}
	if fd, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		fd.WriteString("go\n")
		fd.Close()
	}
	o := <-done
	mustSucceed(t, o)
	if strings.Contains(o.stdout, "PLANTED") || o.stdout != "mine\n" {
		t.Errorf("run A ran what run B planted in its TMPDIR: %q", o.stdout)
	}
}

// TestNestedRunInTmp: a guard run inside a sandboxed command whose
// workspace is that command's TMPDIR (inside the directory every run's
// helper covers) still sees its workspace: the cover is left out where
// it would hide the run's own trees.
// TestRunsTmpCoverUsable: a guard run inside a sandboxed command makes
// its TMPDIR beside the command's own, in the cover over the runs' temp
// dirs. That cover was a 64 KiB tmpfs mounted noexec: the inner run's
// builds and tests could neither write much there nor run what they
// built. It takes files of any size and runs programs.
func TestRunsTmpCoverUsable(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Write = true
	script := `d=$(dirname "$TMPDIR")/inner-run && mkdir "$d" && head -c 200000 /dev/zero > "$d/big" && printf '#!/bin/sh\necho ran\n' > "$d/prog" && chmod +x "$d/prog" && "$d/prog"`
	o := run(t, spec, "sh", "-c", script)
	mustSucceed(t, o)
	if strings.TrimSpace(o.stdout) != "ran" {
		t.Errorf("a program in the runs' temp dir cover: stdout %q, stderr %q", o.stdout, o.stderr)
	}
}

func TestNestedRunInTmp(t *testing.T) {
	f := newFixture(t)
	tmps := filepath.Dir(privateTmpPrefix())
	if err := os.MkdirAll(tmps, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := os.MkdirTemp(tmps, "outer-run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeForce(ws) })
	for _, write := range []bool{true, false} {
		spec := f.spec()
		spec.Workspace, spec.Write = ws, write
		o := run(t, spec, "sh", "-c", `pwd; test "$1" = false || echo made > made.txt`, "sh", fmt.Sprint(write))
		mustSucceed(t, o)
		if strings.TrimSpace(o.stdout) != ws {
			t.Errorf("write %v: the run's working directory is %q, want %s", write, o.stdout, ws)
		}
	}
	if got := readFile(t, filepath.Join(ws, "made.txt")); got != "made\n" {
		t.Errorf("the nested run's write: %q", got)
	}
}
