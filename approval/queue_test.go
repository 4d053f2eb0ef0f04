package approval

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guard-sh/guard/review"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

var key = Binding{Command: "rm -rf build", Cwd: "/home/u/proj", Workspace: "/home/u/proj", Digest: "sha256:1f2e"}

func request(b Binding, level review.Level) Request {
	return Request{
		Created: t0, Binding: b, Level: level, Provenance: "agent:test",
		Explanation: "deletes build/ recursively", Details: "{profile}", Session: "s1",
	}
}

func mustAdd(t *testing.T, dir string, r Request) string {
	t.Helper()
	id, err := Add(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestValidID: an id names a file in the queue, so only the 8 lowercase
// hex digits Add makes are ids.
func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"3fa2b1c0": true, "00000000": true, "": false, "3fa2b1c": false, "3fa2b1c00": false,
		"3FA2B1C0": false, "3fa2b1cg": false, "../../x1": false, "3fa2b1c\n": false, "3fa2/1c0": false, "3fa2b1cé": false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, !want, want)
		}
	}
}

func TestAddApproveConsume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "approvals")
	id := mustAdd(t, dir, request(key, review.B))
	if !ValidID(id) {
		t.Fatalf("id %q is not 8 hex digits", id)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("approvals dir: %v, %v; want mode 0700", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, id+".json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("request file: %v; want mode 0600", err)
	}

	list, err := List(dir, at(t0.Add(time.Minute)))
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v; want one request", list, err)
	}
	got := list[0]
	if got.ID != id || got.State != Pending || got.Binding != key || got.Level != review.B ||
		got.Explanation != "deletes build/ recursively" || got.Details != "{profile}" || got.Session != "s1" ||
		got.Provenance != "agent:test" || !got.Created.Equal(t0) || !got.Expires.Equal(t0.Add(DefaultPendingTTL)) {
		t.Errorf("listed request = %+v", got)
	}

	// Pending is not approved.
	if _, err := Consume(dir, key, at(t0.Add(time.Minute))); !errors.Is(err, ErrPending) {
		t.Fatalf("Consume of a pending request = %v, want ErrPending", err)
	}

	approvedAt := t0.Add(2 * time.Minute)
	r, err := Approve(dir, id, Grant{}, at(approvedAt))
	if err != nil {
		t.Fatal(err)
	}
	if r.State != Approved || !r.Expires.Equal(approvedAt.Add(15*time.Minute)) {
		t.Errorf("approved request = %+v, want approved until +15m", r)
	}
	if _, err := Approve(dir, id, Grant{}, at(approvedAt)); !errors.Is(err, ErrApproved) {
		t.Errorf("second Approve = %v, want ErrApproved", err)
	}

	r, err = Consume(dir, key, at(approvedAt.Add(time.Minute)))
	if err != nil || r.ID != id || r.State != Consumed {
		t.Fatalf("Consume = %+v, %v; want request %s consumed", r, err, id)
	}
	r, err = Consume(dir, key, at(approvedAt.Add(2*time.Minute)))
	if !errors.Is(err, ErrUsed) || r.ID != id {
		t.Errorf("second Consume = %v (id %q), want ErrUsed naming %s", err, r.ID, id)
	}
	if list, _ := List(dir, at(approvedAt.Add(3*time.Minute))); list[0].State != Consumed {
		t.Errorf("listed state after Consume = %s, want consumed", list[0].State)
	}
}

func TestConsumeNeedsExactBinding(t *testing.T) {
	for name, other := range map[string]Binding{
		"command":   {Command: "rm -rf build ", Cwd: key.Cwd, Workspace: key.Workspace, Digest: key.Digest},
		"cwd":       {Command: key.Command, Cwd: "/home/u/proj/sub", Workspace: key.Workspace, Digest: key.Digest},
		"workspace": {Command: key.Command, Cwd: key.Cwd, Workspace: "/home/u", Digest: key.Digest},
		"digest":    {Command: key.Command, Cwd: key.Cwd, Workspace: key.Workspace, Digest: "sha256:1f2f"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			id := mustAdd(t, dir, request(key, review.B))
			if _, err := Approve(dir, id, Grant{}, at(t0)); err != nil {
				t.Fatal(err)
			}
			if _, err := Consume(dir, other, at(t0.Add(time.Second))); !errors.Is(err, ErrNotFound) {
				t.Errorf("Consume with a different %s = %v, want ErrNotFound", name, err)
			}
			// The approval is still there for the exact binding.
			if _, err := Consume(dir, key, at(t0.Add(time.Second))); err != nil {
				t.Errorf("Consume with the exact binding after a mismatch = %v", err)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	dir := t.TempDir()
	id := mustAdd(t, dir, request(key, review.B))
	if _, err := Approve(dir, id, Grant{TTL: 5 * time.Minute}, at(t0)); err != nil {
		t.Fatal(err)
	}
	if _, err := Consume(dir, key, at(t0.Add(5*time.Minute))); !errors.Is(err, ErrExpired) {
		t.Errorf("Consume at expiry = %v, want ErrExpired", err)
	}

	// A pending request lapses too, and can then not be approved.
	id = mustAdd(t, dir, request(Binding{Command: "make install"}, review.B))
	late := at(t0.Add(DefaultPendingTTL))
	if _, err := Approve(dir, id, Grant{}, late); !errors.Is(err, ErrExpired) {
		t.Errorf("Approve after the pending TTL = %v, want ErrExpired", err)
	}
	if _, err := Approve(dir, id, Grant{}, at(t0.Add(DefaultPendingTTL-time.Second))); err != nil {
		t.Errorf("Approve just before the pending TTL = %v", err)
	}
}

func TestDeny(t *testing.T) {
	dir := t.TempDir()
	id := mustAdd(t, dir, request(key, review.B))
	if r, err := Deny(dir, id, at(t0)); err != nil || r.State != Denied {
		t.Fatalf("Deny = %+v, %v", r, err)
	}
	if _, err := Approve(dir, id, Grant{}, at(t0)); !errors.Is(err, ErrDenied) {
		t.Errorf("Approve after Deny = %v, want ErrDenied", err)
	}
	if _, err := Consume(dir, key, at(t0)); !errors.Is(err, ErrDenied) {
		t.Errorf("Consume after Deny = %v, want ErrDenied", err)
	}
}

func TestLevelCNeedsPIN(t *testing.T) {
	dir := t.TempDir()
	id := mustAdd(t, dir, request(key, review.C))
	if _, err := Approve(dir, id, Grant{}, at(t0)); !errors.Is(err, ErrNeedsPIN) {
		t.Fatalf("Approve of C without the PIN = %v, want ErrNeedsPIN", err)
	}
	// A C approval without the PIN written by someone else is never honoured.
	r, _ := Get(dir, id)
	r.State, r.Expires = Approved, t0.Add(time.Hour)
	if err := writeRequest(dir, r, os.Rename); err != nil {
		t.Fatal(err)
	}
	if _, err := Consume(dir, key, at(t0)); err == nil {
		t.Fatal("Consume honoured a C approval given without the PIN")
	}
	r.State = Pending
	if err := writeRequest(dir, r, os.Rename); err != nil {
		t.Fatal(err)
	}
	if r, err := Approve(dir, id, Grant{PIN: true}, at(t0)); err != nil || !r.PIN {
		t.Fatalf("Approve of C with the PIN = %+v, %v", r, err)
	}
	if _, err := Consume(dir, key, at(t0)); err != nil {
		t.Errorf("Consume of a C approval with the PIN = %v", err)
	}
}

func TestAddRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, r := range map[string]Request{
		"no time":    {Binding: key, Level: review.B},
		"no command": {Created: t0, Level: review.B},
		"level A":    request(key, review.A),
		"deny":       request(key, review.Deny),
		"zero level": request(key, 0),
	} {
		if _, err := Add(dir, r); err == nil {
			t.Errorf("Add with %s succeeded", name)
		}
	}
	if _, err := Consume(dir, key, at(t0)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Consume on an empty queue = %v, want ErrNotFound", err)
	}
}

func TestGetRejectsBadIDs(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", "../../etc", "ABCDEF12", "abcdef1", "abcdef123", "abcdef1/"} {
		if _, err := Get(dir, id); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want an invalid-id error", id, err)
		}
		if _, err := Approve(dir, id, Grant{}, at(t0)); err == nil {
			t.Errorf("Approve(%q) succeeded", id)
		}
	}
	if _, err := Get(dir, "0badc0de"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing id = %v, want ErrNotFound", err)
	}
}

func TestAddPrunesOldRequests(t *testing.T) {
	dir := t.TempDir()
	old := mustAdd(t, dir, request(key, review.B))
	if _, err := Deny(dir, old, at(t0)); err != nil {
		t.Fatal(err)
	}
	pending := mustAdd(t, dir, request(Binding{Command: "make"}, review.B))
	later := request(Binding{Command: "ls"}, review.B)
	later.Created = t0.Add(keepFinished + 2*time.Hour)
	mustAdd(t, dir, later)
	if _, err := Get(dir, old); !errors.Is(err, ErrNotFound) {
		t.Errorf("a request denied over a week ago is still there: %v", err)
	}
	if _, err := Get(dir, pending); !errors.Is(err, ErrNotFound) {
		t.Errorf("a request expired over a week ago is still there: %v", err)
	}
	if list, _ := List(dir, at(later.Created)); len(list) != 1 {
		t.Errorf("List after pruning has %d requests, want 1", len(list))
	}
}

// The helpers below run in child processes (this test binary re-executed)
// so the flock is exercised between processes, as between guard runs.
func TestMain(m *testing.M) {
	switch os.Getenv("APPROVAL_TEST_HELPER") {
	case "add":
		dir := os.Getenv("APPROVAL_TEST_DIR")
		n, _ := strconv.Atoi(os.Getenv("APPROVAL_TEST_N"))
		for i := range n {
			r := request(Binding{Command: fmt.Sprintf("echo %s-%d", os.Getenv("APPROVAL_TEST_WORKER"), i)}, review.B)
			if _, err := Add(dir, r); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	case "consume":
		testHookConsume = func() { time.Sleep(20 * time.Millisecond) }
		_, err := Consume(os.Getenv("APPROVAL_TEST_DIR"), key, at(t0.Add(time.Minute)))
		switch {
		case err == nil:
			fmt.Print("won")
		case errors.Is(err, ErrUsed):
			fmt.Print("used")
		default:
			fmt.Print(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(t *testing.T, mode, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"APPROVAL_TEST_HELPER=" + mode, "APPROVAL_TEST_DIR=" + dir}, env...)...)
	return cmd
}

func TestConcurrentAddLosesNothing(t *testing.T) {
	dir := t.TempDir()
	const procs, each = 8, 50
	var wg sync.WaitGroup
	for w := range procs {
		wg.Go(func() {
			out, err := helper(t, "add", dir, "APPROVAL_TEST_N="+strconv.Itoa(each), "APPROVAL_TEST_WORKER="+strconv.Itoa(w)).CombinedOutput()
			if err != nil {
				t.Errorf("worker %d: %v: %s", w, err, out)
			}
		})
	}
	wg.Wait()
	list, err := List(dir, at(t0))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, r := range list {
		seen[r.Command] = true
		ids[r.ID] = true
	}
	if len(list) != procs*each || len(seen) != procs*each || len(ids) != procs*each {
		t.Errorf("%d requests, %d distinct commands, %d distinct ids; want %d each", len(list), len(seen), len(ids), procs*each)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(matches) != 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

func TestConcurrentConsumeOneWinner(t *testing.T) {
	dir := t.TempDir()
	id := mustAdd(t, dir, request(key, review.B))
	if _, err := Approve(dir, id, Grant{}, at(t0)); err != nil {
		t.Fatal(err)
	}
	testHookConsume = func() { time.Sleep(20 * time.Millisecond) }
	defer func() { testHookConsume = func() {} }()
	const procs = 8
	var mu sync.Mutex
	results := map[string]int{}
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			out, err := helper(t, "consume", dir).Output()
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			results[strings.TrimSpace(string(out))]++
			mu.Unlock()
		})
	}
	// Goroutines in this process race too, each with its own lock fd.
	for range procs {
		wg.Go(func() {
			_, err := Consume(dir, key, at(t0.Add(time.Minute)))
			res := "won"
			if errors.Is(err, ErrUsed) {
				res = "used"
			} else if err != nil {
				res = err.Error()
			}
			mu.Lock()
			results[res]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if results["won"] != 1 || results["used"] != 2*procs-1 {
		t.Errorf("results = %v, want exactly one winner and %d ErrUsed", results, 2*procs-1)
	}
}

// TestAsked: an approval given in an agent's prompt is used only with its
// token, once, for level B only; Consume and Find never see it.
func TestAsked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "approvals")
	token, err := NewToken()
	if err != nil || len(token) != 32 {
		t.Fatalf("NewToken = %q, %v", token, err)
	}
	if _, err := AddAsked(dir, request(key, review.C), "Claude Code", token); err == nil {
		t.Error("AddAsked accepted a level C request")
	}
	r, err := AddAsked(dir, request(key, review.B), "Claude Code", token)
	if err != nil || r.State != Approved || r.Asked != "Claude Code" || r.TokenHash == "" || r.TokenHash == token {
		t.Fatalf("AddAsked = %+v, %v", r, err)
	}
	later := at(t0.Add(time.Minute))
	if got, err := Consume(dir, key, later); !errors.Is(err, ErrNotFound) {
		t.Errorf("Consume without the token = %+v, %v; want ErrNotFound", got, err)
	}
	if approved, pending, err := Find(dir, key, later); approved != "" || pending != "" || err != nil {
		t.Errorf("Find = %q, %q, %v; want nothing", approved, pending, err)
	}
	other, _ := NewToken()
	if _, err := ConsumeAsked(dir, key, other, later); !errors.Is(err, ErrNotFound) {
		t.Errorf("ConsumeAsked with another token: %v; want ErrNotFound", err)
	}
	if _, err := ConsumeAsked(dir, Binding{Command: "rm -rf src", Cwd: key.Cwd, Workspace: key.Workspace, Digest: key.Digest}, token, later); !errors.Is(err, ErrNotFound) {
		t.Errorf("ConsumeAsked for another command: %v; want ErrNotFound", err)
	}
	if _, err := ConsumeAsked(dir, key, token, at(t0.Add(DefaultPendingTTL))); !errors.Is(err, ErrExpired) {
		t.Errorf("ConsumeAsked after the pending TTL: %v; want ErrExpired", err)
	}
	got, err := ConsumeAsked(dir, key, token, later)
	if err != nil || got.ID != r.ID || got.State != Consumed {
		t.Fatalf("ConsumeAsked = %+v, %v", got, err)
	}
	if _, err := ConsumeAsked(dir, key, token, later); !errors.Is(err, ErrUsed) {
		t.Errorf("second ConsumeAsked: %v; want ErrUsed", err)
	}
}

// TestRevoke: an approval not yet used, or a pending request, can be
// revoked; it is then never consumed. A used one cannot.
func TestRevoke(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "approvals")
	id := mustAdd(t, dir, request(key, review.B))
	if _, err := Approve(dir, id, Grant{}, at(t0)); err != nil {
		t.Fatal(err)
	}
	r, err := Revoke(dir, id, at(t0.Add(time.Minute)))
	if err != nil || r.State != Revoked {
		t.Fatalf("Revoke = %+v, %v", r, err)
	}
	var se *StateError
	if _, err := Consume(dir, key, at(t0.Add(2*time.Minute))); !errors.As(err, &se) || se.State != Revoked {
		t.Errorf("Consume after Revoke: %v; want a revoked StateError", err)
	}
	pending := mustAdd(t, dir, request(Binding{Command: "x", Cwd: "/", Workspace: "/", Digest: "d"}, review.B))
	if r, err := Revoke(dir, pending, at(t0)); err != nil || r.State != Revoked {
		t.Errorf("Revoke pending = %+v, %v", r, err)
	}
	used := mustAdd(t, dir, request(Binding{Command: "y", Cwd: "/", Workspace: "/", Digest: "d"}, review.B))
	Approve(dir, used, Grant{}, at(t0))
	Consume(dir, Binding{Command: "y", Cwd: "/", Workspace: "/", Digest: "d"}, at(t0))
	if _, err := Revoke(dir, used, at(t0)); !errors.Is(err, ErrUsed) {
		t.Errorf("Revoke a used approval: %v; want ErrUsed", err)
	}
}

// TestRevokePINApprovals: a PIN change withdraws the approvals given with
// the PIN that are still usable; one given without it, a used one, a
// pending request and one already past its time are left as they were.
func TestRevokePINApprovals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "approvals")
	bind := func(c string) Binding { return Binding{Command: c, Cwd: "/", Workspace: "/", Digest: "d"} }
	add := func(c string, level review.Level, pin bool) string {
		id := mustAdd(t, dir, request(bind(c), level))
		if c != "pending" {
			if _, err := Approve(dir, id, Grant{PIN: pin}, at(t0)); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	withPIN, withPINB := add("c", review.C, true), add("b-pin", review.B, true)
	noPIN, pending, used := add("b", review.B, false), add("pending", review.C, false), add("used", review.C, true)
	if _, err := Consume(dir, bind("used"), at(t0)); err != nil {
		t.Fatal(err)
	}
	old := mustAdd(t, dir, request(bind("old"), review.C))
	if _, err := Approve(dir, old, Grant{PIN: true, TTL: time.Minute}, at(t0)); err != nil {
		t.Fatal(err)
	}
	revoked, err := RevokePINApprovals(dir, at(t0.Add(5*time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range revoked {
		ids = append(ids, r.ID)
	}
	if fmt.Sprint(ids) != fmt.Sprint(sortedIDs(withPIN, withPINB)) {
		t.Errorf("revoked %v, want %v", ids, sortedIDs(withPIN, withPINB))
	}
	want := map[string]State{withPIN: Revoked, withPINB: Revoked, noPIN: Approved, pending: Pending, used: Consumed, old: Expired}
	for id, st := range want {
		r, err := Get(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.StateAt(t0.Add(5 * time.Minute)); got != st {
			t.Errorf("%s (%s): state %s, want %s", id, r.Command, got, st)
		}
	}
	var se *StateError
	if _, err := Consume(dir, bind("c"), at(t0.Add(6*time.Minute))); !errors.As(err, &se) || se.State != Revoked {
		t.Errorf("Consume after the PIN changed: %v; want a revoked StateError", err)
	}
}

// sortedIDs is ids in the order readAll lists requests created at the same
// time (by id).
func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}
