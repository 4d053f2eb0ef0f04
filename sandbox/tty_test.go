package sandbox_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyGuard starts this test binary as a guard process on a new
// terminal (its session leader, in the foreground), running argv.
func ptyGuard(t *testing.T, f *fixture, argv ...string) (*exec.Cmd, *bufio.Reader, *os.File, chan int) {
	t.Helper()
	spec, err := json.Marshal(f.spec())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = []string{"SANDBOX_TEST_GUARD=" + string(spec)}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan int, 1)
	go func() {
		cmd.Wait()
		exited <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return cmd, bufio.NewReader(tty), tty, exited
}

// expect reads terminal output until it contains want.
func expect(t *testing.T, r *bufio.Reader, want string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		for !strings.Contains(b.String(), want) {
			c, err := r.ReadByte()
			if err != nil {
				break
			}
			b.WriteByte(c)
		}
		got <- b.String()
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, want) {
			t.Fatalf("terminal said %q, want %q", s, want)
		}
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %q", want)
	}
	return ""
}

func waitExit(t *testing.T, exited chan int) int {
	t.Helper()
	select {
	case code := <-exited:
		return code
	case <-time.After(10 * time.Second):
		ps, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,tpgid,stat,wchan:20,args").Output()
		t.Fatalf("guard did not exit\n%s", ps)
	}
	return -1
}

func TestTerminal(t *testing.T) {
	f := newFixture(t)
	// The command may reopen its terminal and use ioctl on it.
	_, r, _, exited := ptyGuard(t, f, "sh", "-c", `stty size </dev/tty && tty && echo end`)
	out := expect(t, r, "end")
	if !strings.Contains(out, "24 80") || !strings.Contains(out, "/dev/pts/") {
		t.Errorf("terminal output %q", out)
	}
	if code := waitExit(t, exited); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestTerminalInterrupt(t *testing.T) {
	f := newFixture(t)
	// ^C goes to the command's process group (in the foreground), not
	// to guard, which reports 128+SIGINT.
	_, r, tty, exited := ptyGuard(t, f, "sh", "-c", `echo ready; exec sleep 20`)
	expect(t, r, "ready")
	// A ^C landing between sh's fork and exec is lost (dash defers it
	// to the child's exit); press it again, as a person would.
	for range 20 {
		tty.Write([]byte{3})
		select {
		case code := <-exited:
			if code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatal("^C did not reach the command")
}

func TestTerminalStop(t *testing.T) {
	f := newFixture(t)
	// ^Z stops the command and guard with it; continuing guard
	// continues the command.
	cmd, r, tty, exited := ptyGuard(t, f, "sh", "-c", `echo ready; read x; echo "done $x"`)
	expect(t, r, "ready")
	tty.Write([]byte{26})
	deadline := time.Now().Add(5 * time.Second)
	for procState(t, cmd.Process.Pid) != "T" {
		if time.Now().After(deadline) {
			t.Fatalf("guard did not stop (state %s)", procState(t, cmd.Process.Pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
	tty.Write([]byte("resumed\n"))
	expect(t, r, "done resumed")
	if code := waitExit(t, exited); code != 0 {
		t.Errorf("exit %d", code)
	}
}
