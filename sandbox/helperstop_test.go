package sandbox_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
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
func TestAttackHelperStoppedGuardKilled(t *testing.T) {
	f := newFixture(t)
	w := newWriter(f)
	named := f.p("ws/tmpdir")
	const keeper = `import os, signal, sys
pg = os.getpgid(0)
if os.fork() == 0:
    os.setpgid(0, 0)
    if os.fork() == 0:
        os.setpgid(0, pg)
        open(sys.argv[1], "w").close()
    signal.pause()
`
	const script = writerPrelude + `n=$1 k=$2; mkfifo "$r.k" || exit 1
python3 -c "$k" "$r.k" </dev/null >/dev/null 2>&1
read x < "$r.k"
kill -STOP $PPID
echo "$TMPDIR" > "$n.new" && mv "$n.new" "$n"
kill -STOP $$`
	killGuardMidRun(t, f.spec(), nil, named, append(append([]string{"sh", "-c", script, "sh"}, w.args()...), named, keeper)...)
	w.wantKilled(t, "guard SIGKILLed while the command had stopped its helper")
}
