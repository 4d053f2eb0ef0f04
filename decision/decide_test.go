package decision

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/review"
)

// world is a fake environment: a home and a project under a temp dir, a
// fixed clock, and a user policy written by the test.
type world struct {
	t    *testing.T
	root string
	home string
	proj string
	now  time.Time
	env  map[string]string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "home", "proj"),
		now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	for _, d := range []string{w.proj + "/.git", w.proj + "/build"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = map[string]string{"HOME": w.home, "USER": "u"}
	return w
}

func (w *world) Env() Env {
	return Env{
		Getenv:       func(k string) string { return w.env[k] },
		Getwd:        func() (string, error) { return w.proj, nil },
		Now:          func() time.Time { return w.now },
		ReadFile:     safefile.Read,
		EvalSymlinks: filepath.EvalSymlinks,
		Stat:         os.Stat,
	}
}

func (w *world) engine() *Engine {
	w.t.Helper()
	e, err := New(w.Env())
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

func (w *world) write(path, data string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// TestDecide drives the whole ladder without processes or terminals.
func TestDecide(t *testing.T) {
	type queued struct {
		approve bool // approved (with the PIN for C)
		pin     bool
		expired bool
	}
	cases := []struct {
		name   string
		text   string
		policy string
		queue  *queued
		who    Who
		want   Action
		level  review.Level
	}{
		{name: "A runs", text: "git status", want: Run, level: review.A},
		{name: "A runs whoever is present", text: "ls -la", who: Who{AskB: true, AskC: true}, want: Run, level: review.A},
		{name: "B with a terminal asks", text: "rm -rf build", who: Who{AskB: true, AskC: true, Consume: true}, want: Ask, level: review.B},
		{name: "B in an agent that can ask", text: "rm -rf build", who: Who{AskB: true}, want: Ask, level: review.B},
		{name: "B with nobody queues", text: "rm -rf build", who: Who{Consume: true}, want: Queue, level: review.B},
		{name: "C in an agent that can ask B queues", text: "rm -rf ~", who: Who{AskB: true}, want: Queue, level: review.C},
		{name: "C with a terminal asks", text: "rm -rf ~", who: Who{AskB: true, AskC: true}, want: Ask, level: review.C},
		{name: "policy deny refuses", text: "git push origin main", policy: "[[rules]]\nid = \"no-push\"\ncommand = \"git push *\"\ndeny = true\nmessage = \"no pushing\"\n",
			who: Who{AskB: true, AskC: true}, want: Refuse, level: review.Deny},
		{name: "user allow lowers B to run", text: "rm -rf build", policy: "[[rules]]\nid = \"clean\"\ncommand = \"rm -rf build\"\nallow = true\n", want: Run, level: review.A},
		{name: "approved B is used", text: "rm -rf build", queue: &queued{approve: true}, who: Who{Consume: true}, want: UseApproval, level: review.B},
		{name: "approved B is found by a hook", text: "rm -rf build", queue: &queued{approve: true}, want: UseApproval, level: review.B},
		{name: "pending B queues again, same id", text: "rm -rf build", queue: &queued{}, who: Who{Consume: true}, want: Queue, level: review.B},
		{name: "C approved without PIN is never used", text: "rm -rf ~", queue: &queued{approve: true}, who: Who{Consume: true}, want: Queue, level: review.C},
		{name: "C approved with PIN is used", text: "rm -rf ~", queue: &queued{approve: true, pin: true}, who: Who{Consume: true}, want: UseApproval, level: review.C},
		{name: "expired approval is not used", text: "rm -rf build", queue: &queued{approve: true, expired: true}, who: Who{Consume: true}, want: Queue, level: review.B},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.policy != "" {
				w.write(filepath.Join(w.home, ".config/guard/policy.toml"), c.policy)
			}
			e := w.engine()
			a, err := e.Assess(c.text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var id string
			if c.queue != nil {
				created := w.now
				if c.queue.expired {
					created = w.now.Add(-2 * time.Hour)
				}
				req := approval.Request{Created: created, Binding: a.Binding(), Level: a.Verdict.Level, Explanation: "x"}
				if id, err = approval.Add(e.Dirs().Approvals(), req); err != nil {
					t.Fatal(err)
				}
				if c.queue.approve {
					at := func() time.Time { return created }
					if _, err := approval.Approve(e.Dirs().Approvals(), id, approval.Grant{PIN: c.queue.pin}, at); err != nil && !errors.Is(err, approval.ErrNeedsPIN) {
						t.Fatal(err)
					}
				}
			}
			d, err := e.Decide(a, c.who)
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != c.want || d.Level != c.level {
				t.Fatalf("Decide(%q) = %v at %v, want %v at %v (reasons %v)", c.text, d.Action, d.Level, c.want, c.level, a.RuleIDs())
			}
			switch {
			case d.Action == UseApproval && d.Approval != id:
				t.Errorf("used approval %q, want %q", d.Approval, id)
			case c.queue != nil && !c.queue.approve && d.Pending != id:
				t.Errorf("pending = %q, want the queued %q", d.Pending, id)
			}
			if c.who.Consume && d.Action == UseApproval {
				// Used once: the same decision again queues.
				if d2, _ := e.Decide(a, c.who); d2.Action != Queue {
					t.Errorf("second use of approval %s: %v, want queue", id, d2.Action)
				}
			}
		})
	}
}

// TestEngineNeedsHome: without an absolute HOME there is no engine.
func TestEngineNeedsHome(t *testing.T) {
	for _, home := range []string{"", "relative/home", "."} {
		w := newWorld(t)
		w.env["HOME"] = home
		w.env["XDG_STATE_HOME"] = w.root + "/state" // absolute XDG does not rescue it
		if _, err := New(w.Env()); err == nil || !strings.Contains(err.Error(), "HOME") {
			t.Errorf("HOME=%q: New = %v, want an error about HOME", home, err)
		}
	}
}

// TestPolicyFailsClosed: a policy file that cannot be read is an error,
// never "no policy".
func TestPolicyFailsClosed(t *testing.T) {
	w := newWorld(t)
	pol := filepath.Join(w.home, ".config/guard/policy.toml")
	if err := os.MkdirAll(pol, 0o755); err != nil { // a directory, not a file
		t.Fatal(err)
	}
	e := w.engine()
	if _, err := e.Assess("ls", Options{}); err == nil || !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("Assess with a directory as policy = %v, want ErrNotRegular", err)
	}
	os.Remove(pol)
	w.write(pol, "not toml [[[")
	if _, err := e.Assess("ls", Options{}); err == nil {
		t.Fatal("Assess with a broken policy succeeded")
	}
}

// TestDecideQueueUnreadable: a queue that cannot be read is an error for
// every caller (a run, a hook, a run with an agent's token), never a run
// or a use of an approval. A level A command needs no queue.
func TestDecideQueueUnreadable(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	w.write(e.Dirs().Approvals(), "a file where the queue's directory should be")
	b, err := e.Assess("rm -rf build", Options{})
	if err != nil || b.Verdict.Level != review.B {
		t.Fatalf("Assess = %v, %v; want B", b, err)
	}
	for _, who := range []Who{{}, {AskB: true}, {Consume: true}, {Consume: true, AskB: true}, {Consume: true, Token: strings.Repeat("0", 32)}} {
		if d, err := e.Decide(b, who); err == nil {
			t.Errorf("Decide(%+v) with an unreadable queue = %v, want an error", who, d.Action)
		}
	}
	a, err := e.Assess("ls", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.Decide(a, Who{Consume: true}); err != nil || d.Action != Run {
		t.Errorf("Decide(ls) = %v, %v; want run", d.Action, err)
	}
}

// TestAssessDoesNotWriteContext: Build never writes to the context it is
// given (an ssh remote command used to flip ctx.Remote while it was
// reviewed).
func TestAssessDoesNotWriteContext(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	ctx, err := e.Context("", "")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := e.Policy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := ctx.Copy()
	AssessIn("ssh host 'rm -rf /tmp/x'; cat ~/.ssh/id_rsa", ctx, pol, Options{})
	after := ctx.Copy()
	if before.Remote != after.Remote || before.Cwd != after.Cwd || before.Workspace != after.Workspace || len(before.Env) != len(after.Env) {
		t.Errorf("context changed: remote %v -> %v", before.Remote, after.Remote)
	}
}

// TestJudgePathPrices: file tools are priced by review's effect table.
// A file tool writing a workspace file that is a hard link to ~/.bashrc
// writes ~/.bashrc: with no sandbox to check afterwards, a file with other
// names needs the user.
func TestJudgePathHardLink(t *testing.T) {
	w := newWorld(t)
	rc := filepath.Join(w.home, ".bashrc")
	for _, f := range []string{rc, filepath.Join(w.proj, "main.go")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hl := filepath.Join(w.proj, "notes.txt")
	if err := os.Link(rc, hl); err != nil {
		t.Fatal(err)
	}
	env := w.Env()
	env.Links = OS().Links
	e, err := New(env)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := e.Context("", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		acc  Access
		want review.Level
	}{
		{hl, AccessWrite, review.B},
		{hl, AccessRead, review.A},
		{filepath.Join(w.proj, "main.go"), AccessWrite, review.A},
		{filepath.Join(w.proj, "new.go"), AccessWrite, review.A},
	} {
		got := JudgePath(ctx, c.path, c.acc)
		if got.Level != c.want {
			t.Errorf("JudgePath(%s, %d) = %v (%s), want %v", c.path, c.acc, got.Level, got.Why, c.want)
		}
		if c.want == review.B && !strings.Contains(got.Why, "hard links") {
			t.Errorf("JudgePath(%s): why = %q, want it to name the hard links", c.path, got.Why)
		}
	}
}

func TestJudgePathPrices(t *testing.T) {
	w := newWorld(t)
	ctx, err := w.engine().Context("", "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		acc  Access
		want review.Level
	}{
		{w.proj + "/main.go", AccessWrite, review.A},
		{w.home + "/.ssh/id_ed25519", AccessRead, review.C},
		{w.home + "/notes.txt", AccessWrite, review.B},
		{w.home + "/.bashrc", AccessWrite, review.C},
		{"/dev/sda", AccessRead, review.C}, // a raw disk read is a secret read
		{w.proj + "/.env", AccessList, review.A},
		{w.proj + "/.env", AccessRead, review.B},
		{w.home, AccessSearch, review.B},
		{w.proj + "/.claude/settings.json", AccessWrite, review.C},
		{"/etc/passwd\x00x", AccessRead, review.C},
		// Every place git finds code to run, not only .git/hooks and
		// .git/config.
		{w.proj + "/.git/config.worktree", AccessWrite, review.C},
		{w.proj + "/.git/modules/m/hooks/post-checkout", AccessWrite, review.C},
		{w.proj + "/.git/modules/m/config", AccessWrite, review.C},
		{w.proj + "/.git/worktrees/x/commondir", AccessWrite, review.C},
		{w.proj + "/sub/.git", AccessWrite, review.C}, // a gitdir: file
		{w.proj + "/.git/info/exclude", AccessWrite, review.A},
		{w.proj + "/.git/config.worktree", AccessRead, review.A},
		// An access JudgePath does not know is priced as a write.
		{w.home + "/.bashrc", 0, review.C},
		{w.proj + "/.claude/settings.json", AccessWrite + 1, review.C},
	}
	for _, c := range cases {
		if got := JudgePath(ctx, c.path, c.acc); got.Level != c.want {
			t.Errorf("JudgePath(%q, %d) = %v (%s), want %v", c.path, c.acc, got.Level, got.Why, c.want)
		}
	}
}
