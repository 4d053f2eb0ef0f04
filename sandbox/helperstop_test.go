package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
	"golang.org/x/sys/unix"
)

// TestAttackHelperStopped: the command stops its own sandbox helper
// (SIGSTOP, which no process can ignore) after starting a writer that
// left its process group, then exits. They used to share the Landlock
// domain, so signal scoping let it: a stopped helper neither reaps nor
// reports, and guard waited for its report until the agent's timeout
// killed guard, while the writer, never killed, could plant a git hook
// whenever it liked, long after the run. Now the stop is refused
// (TestAttackHelperKilled has every way), and a helper stopped anyway
// is continued by guard (TestWaitExitContinuesHelper): the run ends as
// ever, the writer killed before guard returns, the hook absent, the
// command's status passed through. The context's deadline only bounds
// a broken run.
func TestAttackHelperStopped(t *testing.T) {
	for name, stop := range map[string]string{
		"once":  `kill -STOP $PPID`,
		"twice": `kill -STOP $PPID; kill -STOP $PPID`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			w := newWriter(f)
			script := writerPrelude + stop + "\nexit 3"
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out, errb bytes.Buffer
			res, err := sandbox.Run(ctx, f.spec(), append([]string{"sh", "-c", script, "sh"}, w.args()...), sandbox.Stdio{Out: &out, Err: &errb})
			o := outcome{res: res, err: err, stdout: out.String(), stderr: errb.String()}
			w.wantKilled(t, o.String())
			if ctx.Err() != nil {
				t.Errorf("guard waited for the stopped helper until the deadline")
			}
			if err != nil || res.ExitCode != 3 {
				t.Errorf("want the command's status (3): %v", o)
			}
		})
	}
}

// TestAttackHelperStoppedGuardKilled: as above, and then the command
// stops itself, so the run never ends; the agent's timeout SIGKILLs
// guard. The helper must see guard's end and kill what the command
// started: stopped by the command, it used to stay stopped, and the
// writer lived on. (The kernel continues the stopped processes of a
// process group orphaned by guard's death, the helper's among them: a
// process of the command in a group of its own keeps a child in the
// helper's group, so that the group is not orphaned.)
// keeper is a process of the command in a group of its own that keeps a
// child in the helper's group, so that guard's death does not orphan
// the group (the kernel would continue its stopped processes); it
// creates the file named by its argument once that child is there.
const keeper = `import os, signal, sys
pg = os.getpgid(0)
if os.fork() == 0:
    os.setpgid(0, 0)
    if os.fork() == 0:
        os.setpgid(0, pg)
        open(sys.argv[1], "w").close()
    signal.pause()
`

func TestAttackHelperStoppedGuardKilled(t *testing.T) {
	f := newFixture(t)
	w := newWriter(f)
	named := f.p("ws/tmpdir")
	const script = writerPrelude + `n=$1 k=$2; mkfifo "$r.k" || exit 1
python3 -c "$k" "$r.k" </dev/null >/dev/null 2>&1
read x < "$r.k"
kill -STOP $PPID
echo "$TMPDIR" > "$n.new" && mv "$n.new" "$n"
kill -STOP $$`
	killGuardMidRun(t, f.spec(), nil, named, append(append([]string{"sh", "-c", script, "sh"}, w.args()...), named, keeper)...)
	w.wantKilled(t, "guard SIGKILLed while the command had stopped its helper")
}

// TestAttackJobStopGuardKilled: the stop is the helper's own, for
// guard's job control: the command stops itself and the helper stops
// too, and guard, which continues it at once, is SIGKILLed before it
// can (here guard is held stopped by the test meanwhile, so the order is
// certain; in a real run it is a race the command can repeat until an
// agent's timeout kills guard, as the test above found under load). A
// stopped helper does not see guard's end: the watchdog it starts before
// each stop continues it, and it kills what the command started. Without
// the watchdog the writer lived on.
func TestAttackJobStopGuardKilled(t *testing.T) {
	f := newFixture(t)
	w := newWriter(f)
	named, gofifo := f.p("ws/tmpdir"), f.p("ws/stop.fifo")
	const script = writerPrelude + `n=$1 k=$2 g=$3; mkfifo "$r.k" "$g" || exit 1
python3 -c "$k" "$r.k" </dev/null >/dev/null 2>&1
read x < "$r.k"
echo "$TMPDIR" > "$n.new" && mv "$n.new" "$n"
read x < "$g"
kill -STOP $$`
	js, err := json.Marshal(f.spec())
	if err != nil {
		t.Fatal(err)
	}
	guard := exec.Command(os.Args[0], append(append([]string{"sh", "-c", script, "sh"}, w.args()...), named, keeper, gofifo)...)
	guard.Env = []string{"SANDBOX_TEST_GUARD=" + string(js)}
	if err := guard.Start(); err != nil {
		t.Fatal(err)
	}
	defer guard.Process.Kill()
	// Bounds, not timing asserts: they only stop a broken run from
	// hanging.
	until := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				guard.Process.Kill()
				guard.Wait()
				t.Fatal(what)
			}
		}
	}
	until("the command did not start", func() bool { return readFile(t, named) != "<absent>" })
	tmp := strings.TrimSpace(readFile(t, named))
	// The helper is guard's child, started by whichever of guard's
	// threads: each lists its own children.
	helper := 0
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", guard.Process.Pid))
	for _, task := range tasks {
		for _, c := range strings.Fields(readFile(t, task)) {
			helper, _ = strconv.Atoi(c)
		}
	}
	if helper == 0 {
		t.Fatal("no helper under guard")
	}
	guard.Process.Signal(syscall.SIGSTOP)
	fd, err := unix.Open(gofifo, unix.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Write(fd, []byte("stop\n"))
	unix.Close(fd)
	until("the helper did not stop with the command", func() bool {
		st := readFile(t, fmt.Sprintf("/proc/%d/stat", helper))
		i := strings.LastIndexByte(st, ')')
		return i > 0 && strings.HasPrefix(strings.TrimSpace(st[i+1:]), "T")
	})
	guard.Process.Signal(syscall.SIGKILL)
	guard.Wait()
	waitTmpGone(t, tmp, func() { unix.Kill(helper, unix.SIGCONT) })
	w.wantKilled(t, "guard SIGKILLed while the helper was stopped for job control")
}
