package sandbox_test

import (
	"os"
	"strings"
	"testing"
)

// TestAttackOOMVictim: a command that fills memory with many processes,
// each smaller than guard, after planting a hook, makes guard the
// largest process and so the kernel's OOM victim: guard's death leaves
// the hook unchecked (the helper kills what the command started, but
// restores nothing). Filling this shared machine's memory is not a
// test to run; what decides the victim is: every process of the
// command starts with oom_score_adj 1000 (first in line, whatever its
// size), and guard keeps its own.
func TestAttackOOMVictim(t *testing.T) {
	f := newFixture(t)
	own, err := os.ReadFile("/proc/self/oom_score_adj")
	if err != nil {
		t.Fatal(err)
	}
	// The command may not lower it again (an unprivileged process may,
	// down to its minimum, 0): Landlock refuses writes in /proc.
	o := run(t, f.spec(), "sh", "-c", `cat /proc/self/oom_score_adj; echo 0 2>/dev/null > /proc/$$/oom_score_adj; sh -c 'cat /proc/self/oom_score_adj'`)
	mustSucceed(t, o)
	if got := strings.Fields(o.stdout); len(got) != 2 || got[0] != "1000" || got[1] != "1000" {
		t.Errorf("the command's oom_score_adj: %q, want 1000 for it and its children, lowered by none", o.stdout)
	}
	if after, _ := os.ReadFile("/proc/self/oom_score_adj"); string(after) != string(own) {
		t.Errorf("guard's own oom_score_adj changed: %q, was %q", after, own)
	}
}
