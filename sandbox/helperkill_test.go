package sandbox_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackHelperKilled: the command kills its own sandbox helper (in
// its Landlock domain, so signal scoping lets it), the watcher that
// kills what the command leaves when it exits, after starting a writer
// that left its process group and waits to plant a git hook once guard
// is done. guard must still kill that writer before it returns, and the
// hook must not be there.
func TestAttackHelperKilled(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	fifo, hook := f.p("ws/go.fifo"), f.p("ws/.git/hooks/pre-commit")
	// $1 the fifo, $2 the hook; the rest is the kill.
	const script = `f=$1 h=$2; shift 2; mkfifo "$f" || exit 1
setsid sh -c 'cat "$1" >/dev/null; printf "#!/bin/sh\necho pwned\n" > "$2"' sh "$f" "$h" </dev/null >/dev/null 2>&1 &
exec "$@"`
	o := run(t, spec, append([]string{"sh", "-c", script, "sh", fifo, hook}, f.proc("kill-helper")...)...)
	if o.err != nil || o.res.ExitCode != 128+9 {
		t.Errorf("want the helper's death (exit 137) as the run's status: %v", o)
	}
	fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK, 0)
	if err == nil {
		unix.Close(fd)
		t.Fatal("the writer outlived guard after the command killed its helper")
	}
	if !errors.Is(err, unix.ENXIO) {
		t.Fatalf("open the fifo: %v", err)
	}
	wantContent(t, hook, "<absent>")
}
