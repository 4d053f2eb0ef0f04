package sandbox_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackHelperKilled: the command kills its own sandbox helper (in
// its Landlock domain, so signal scoping lets it), the watcher that
// kills what the command leaves when it exits, after starting a writer
// that left its process group and waits to plant a git hook once guard
// is done. guard must still kill that writer before it returns, and the
// hook must not be there.
//
// The attack is armed before the kill: the writer holds the fifo open
// for reading (and writing, so that its open does not wait) and only
// then sends its pid on a second fifo, which the command reads before
// it kills the helper. An open for writing that finds no reader after
// the run (ENXIO) then means the writer was killed, not that it never
// started; and its pid must be gone.
func TestAttackHelperKilled(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	fifo, ready, armed, hook := f.p("ws/go.fifo"), f.p("ws/ready.fifo"), f.p("ws/armed"), f.p("ws/.git/hooks/pre-commit")
	// $1 the fifo, $2 the hook, $3 the ready fifo, $4 the armed file;
	// the rest is the kill.
	const script = `f=$1 h=$2 r=$3 a=$4; shift 4; mkfifo "$f" "$r" || exit 1
setsid sh -c 'exec 3<>"$1"; echo $$ > "$3"; read x <&3; printf "#!/bin/sh\necho pwned\n" > "$2"' sh "$f" "$h" "$r" </dev/null >/dev/null 2>&1 &
read pid < "$r" && echo "$pid" > "$a" || exit 1
exec "$@"`
	o := run(t, spec, append([]string{"sh", "-c", script, "sh", fifo, hook, ready, armed}, f.proc("kill-helper")...)...)
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, armed)))
	if err != nil || pid <= 1 {
		t.Fatalf("the attack was not armed (the writer never sent its pid: %q): %v", readFile(t, armed), o)
	}
	if o.err != nil || o.res.ExitCode != 128+9 {
		t.Errorf("want the helper's death (exit 137) as the run's status: %v", o)
	}
	fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK, 0)
	if err == nil {
		unix.Write(fd, []byte("go\n"))
		unix.Close(fd)
		t.Fatal("the writer outlived guard after the command killed its helper")
	}
	if !errors.Is(err, unix.ENXIO) {
		t.Fatalf("open the fifo: %v", err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		if stat := readFile(t, "/proc/"+strconv.Itoa(pid)+"/stat"); strings.Contains(stat, "(sh)") {
			t.Errorf("the writer (pid %d) is still there: %s", pid, stat)
		}
	}
	wantContent(t, hook, "<absent>")
}
