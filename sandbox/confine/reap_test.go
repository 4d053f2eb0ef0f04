package confine

import (
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestChildrenStates: Children finds no child when there is none, and
// lists a child that has exited but is not reaped yet (a zombie) and a
// stopped one, without consuming what waiting for them reports.
func TestChildrenStates(t *testing.T) {
	if kids, err := Children(); err != nil || len(kids) != 0 {
		t.Fatalf("no child: Children() = %v, %v", kids, err)
	}
	zombie := exec.Command("sh", "-c", "exit 7")
	stopped := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{zombie, stopped} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { stopped.Process.Kill(); stopped.Wait() }()
	stopped.Process.Signal(syscall.SIGSTOP)
	// Until the zombie has exited and the other has stopped.
	for _, pid := range []int{zombie.Process.Pid, stopped.Process.Pid} {
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT, nil); err != nil {
			t.Fatal(err)
		}
	}
	kids, err := Children()
	slices.Sort(kids)
	want := []int{zombie.Process.Pid, stopped.Process.Pid}
	slices.Sort(want)
	if err != nil || !slices.Equal(kids, want) {
		t.Errorf("Children() = %v, %v; want %v", kids, err, want)
	}
	if !WaitStop(stopped.Process.Pid) {
		t.Error("the stop was consumed by Children")
	}
	if err := zombie.Wait(); zombie.ProcessState == nil || zombie.ProcessState.ExitCode() != 7 {
		t.Errorf("zombie's status after Children: %v, %v", zombie.ProcessState, err)
	}
}

// TestChildrenAndReap: Children lists this process's children, whatever
// thread started them, and ReapChildren kills and reaps all of them but
// those spared.
func TestChildrenAndReap(t *testing.T) {
	var cmds []*exec.Cmd
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := exec.Command("sleep", "30")
			if err := c.Start(); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			cmds = append(cmds, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(cmds) != 3 {
		t.Fatal("children did not start")
	}
	spared := cmds[0]
	defer func() { spared.Process.Kill(); spared.Wait() }()
	kids, err := Children()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if !slices.Contains(kids, c.Process.Pid) {
			t.Errorf("Children() = %v, misses %d", kids, c.Process.Pid)
		}
	}
	n, err := ReapChildren(func(pid int) bool { return pid == spared.Process.Pid }, &mu)
	if err != nil || n < 2 {
		t.Errorf("reaped %d, %v; want the 2 others", n, err)
	}
	kids, _ = Children()
	if !slices.Equal(kids, []int{spared.Process.Pid}) {
		t.Errorf("left %v, want only %d", kids, spared.Process.Pid)
	}
}
