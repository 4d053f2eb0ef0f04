package confine

import (
	"os/exec"
	"slices"
	"sync"
	"testing"
)

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
