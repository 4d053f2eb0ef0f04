package sandbox

import (
	"os/exec"
	"testing"
	"time"
)

// TestWaitExitContinuesHelper: without a terminal (an agent's run), a
// helper that stops is continued by guard at once: the helper stops only to tell guard that the
// command stopped, and one stopped by someone else (where the kernel has
// no signal scoping, the command) neither reaps, nor reports, nor sees
// guard's end. Without a terminal guard used to leave it stopped and
// wait for it forever. The child here stops itself, as such a helper
// is stopped, and then exits 7: waitExit must return.
func TestWaitExitContinuesHelper(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "kill -STOP $$; exit 7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		waitExit(cmd.Process.Pid, -1)
		close(done)
	}()
	// A bound, not a timing assert: it only stops a broken run from
	// hanging.
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Error("the stopped helper was left stopped: guard would wait for it forever")
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 7 {
		t.Errorf("exit %d, want 7 (continued, then exited)", code)
	}
}
