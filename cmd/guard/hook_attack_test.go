package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/guard-sh/guard/audit"
)

// TestHookGuardPathPanic: a panic in the goroutine that finds guard's own
// path (for the sandbox rewrite) is recovered into an explicit deny with
// one audit record. Unrecovered, it ended the process with Go's exit
// status 2 and no answer on stdout.
func TestHookGuardPathPanic(t *testing.T) {
	w := newHookWorld(t)
	saved := hookGuardPath
	hookGuardPath = func() string { panic("forced by the test") }
	t.Cleanup(func() { hookGuardPath = saved })

	before := w.auditCount(t)
	var out, errb bytes.Buffer
	in := w.event("PreToolUse", "Bash", map[string]any{"command": "ls"})
	s := &streams{in: strings.NewReader(in), out: &out, err: &errb}
	code := runHook(s, []string{"claude"}, defaultHookEnv())
	if code != exitHookBlock {
		t.Fatalf("exit %d, want %d (deny); stderr %q", code, exitHookBlock, errb.String())
	}
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Errorf("stdout %q: want an explicit deny", out.String())
	}
	if !strings.Contains(errb.String(), "internal error while finding guard's own path: forced by the test") {
		t.Errorf("stderr %q: want the internal error named", errb.String())
	}
	if n := w.auditCount(t) - before; n != 1 {
		t.Errorf("%d audit records, want one (the failure, not an approval)", n)
	}
	r := w.lastAudit(t)
	if r == nil || r.Decision != audit.Failed || r.Command != "ls" {
		t.Errorf("audit record %+v, want one failed record for ls", r)
	}
}
