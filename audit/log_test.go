package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guard-sh/guard/review"
)

// The writer mode of the test binary: TestConcurrentProcesses re-executes
// it to get separate processes appending to one log.
const (
	envWriter   = "AUDIT_TEST_WRITER"   // the writer's name; set in children only
	envDir      = "AUDIT_TEST_DIR"      // the log directory
	envRecords  = "AUDIT_TEST_RECORDS"  // how many records to append
	envMaxSize  = "AUDIT_TEST_MAX_SIZE" // Log.MaxSize
	writerUsage = "writer: %v\n"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(envWriter); name != "" {
		if err := writer(name); err != nil {
			fmt.Fprintf(os.Stderr, writerUsage, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writer(name string) error {
	n, err := strconv.Atoi(os.Getenv(envRecords))
	if err != nil {
		return err
	}
	l, err := Open(os.Getenv(envDir))
	if err != nil {
		return err
	}
	defer l.Close()
	if s := os.Getenv(envMaxSize); s != "" {
		if l.MaxSize, err = strconv.ParseInt(s, 10, 64); err != nil {
			return err
		}
	}
	for i := range n {
		if _, err := l.Append(Record{ID: fmt.Sprintf("%s-%d", name, i), Session: name, Command: "echo " + name, Decision: Ran}); err != nil {
			return err
		}
	}
	return nil
}

// fakeClock starts at a fixed time and moves a second per reading.
func fakeClock() func() time.Time {
	t := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func openTest(t testing.TB, dir string) *Log {
	t.Helper()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Clock = fakeClock()
	t.Cleanup(func() { l.Close() })
	return l
}

func appendN(t testing.TB, l *Log, n int) []Record {
	t.Helper()
	var out []Record
	for i := range n {
		r, err := l.Append(Record{ID: fmt.Sprintf("r%d", i), Command: fmt.Sprintf("echo %d", i), Decision: Ran, Level: review.A, Exit: new(int)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func mustVerify(t *testing.T, dir string) Report {
	t.Helper()
	rep, err := Verify(dir)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

func chainError(t *testing.T, dir string) *ChainError {
	t.Helper()
	_, err := Verify(dir)
	var ce *ChainError
	if !errors.As(err, &ce) {
		t.Fatalf("Verify = %v, want a *ChainError", err)
	}
	return ce
}

func TestAppend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "guard")
	l := openTest(t, dir)
	if h, err := l.Head(); err != nil || h != "" {
		t.Fatalf("Head of an empty log = %q, %v; want \"\"", h, err)
	}
	exit := 3
	r, err := l.Append(Record{
		ID: "abc", Session: "ppid:42", Provenance: "hook:claude-code", Cwd: "/w", Workspace: "/w",
		Command: "GH_TOKEN=" + ghp + " gh pr list", Level: review.B, Rules: []string{"net.connect"},
		Decision: Ran, Sandbox: &review.Sandbox{Write: true, Net: true, Hide: []string{"/home/u/.ssh"}},
		Exit: &exit, Duration: 1500 * time.Millisecond, Note: "--password " + pw,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.V != Version || r.Prev != "" || r.Hash == "" || !r.Time.Equal(time.Date(2025, 6, 1, 10, 0, 1, 0, time.UTC)) {
		t.Errorf("Append filled V=%d Time=%v Prev=%q Hash=%q", r.V, r.Time, r.Prev, r.Hash)
	}
	if r.Command != "GH_TOKEN=ghp_1234…[masked] gh pr list" || r.Note != "--password h…[masked]" {
		t.Errorf("Append did not mask: command %q, note %q", r.Command, r.Note)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"time":"2025-06-01T10:00:01Z","id":"abc","session":"ppid:42","provenance":"hook:claude-code","cwd":"/w","workspace":"/w","command":"GH_TOKEN=ghp_1234…[masked] gh pr list","level":"B","rules":["net.connect"],"decision":"ran","sandbox":{"write":true,"net":true,"hide":["/home/u/.ssh"],"protect":null},"exit":3,"duration_ns":1500000000,"note":"--password h…[masked]","prev":""}` + "\n"
	if string(data) != want {
		t.Errorf("log file:\n got %s\nwant %s", data, want)
	}
	if h, _ := l.Head(); h != r.Hash || h != lineHash(data[:len(data)-1]) {
		t.Errorf("Head = %q, want the first line's hash %q", h, r.Hash)
	}
	r2, err := l.Append(Record{Command: "true", Decision: ApprovedAuto})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Prev != r.Hash {
		t.Errorf("second record's Prev = %q, want %q", r2.Prev, r.Hash)
	}
	if rep := mustVerify(t, dir); rep.Records != 2 || rep.Head != r2.Hash {
		t.Errorf("Verify = %+v, want 2 records ending at %s", rep, r2.Hash)
	}
}

func TestAppendRejectsUnknownDecision(t *testing.T) {
	l := openTest(t, t.TempDir())
	if _, err := l.Append(Record{Command: "ls", Decision: "maybe"}); err == nil {
		t.Fatal("Append with an unknown decision succeeded")
	}
	if _, err := l.Append(Record{Command: "ls"}); err == nil {
		t.Fatal("Append without a decision succeeded")
	}
}

func TestPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l := openTest(t, dir)
	appendN(t, l, 1)
	for name, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, FileName): 0o600, filepath.Join(dir, lockName): 0o600} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", name, got, want)
		}
	}
}

func TestVerifyEmpty(t *testing.T) {
	// A missing directory, an empty directory and an empty log verify.
	missing := filepath.Join(t.TempDir(), "nope")
	if rep := mustVerify(t, missing); rep.Records != 0 || rep.Head != "" {
		t.Errorf("missing: %+v", rep)
	}
	dir := t.TempDir()
	openTest(t, dir) // creates an empty audit.log
	if rep := mustVerify(t, dir); rep.Records != 0 || len(rep.Files) != 1 {
		t.Errorf("empty: %+v", rep)
	}
	if rs, err := Read(missing, Filter{}); err != nil || len(rs) != 0 {
		t.Errorf("Read(missing) = %v, %v", rs, err)
	}
}

// editFile rewrites dir/name through edit.
func editFile(t *testing.T, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func lines(data []byte) [][]byte {
	return bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func TestVerifyTornVersusTampered(t *testing.T) {
	tests := []struct {
		name string
		edit func(data []byte) []byte
		line int
		torn bool
		msg  string
	}{{
		name: "last line cut short",
		edit: func(d []byte) []byte { return d[:len(d)-10] },
		line: 5, torn: true,
		msg: "line 5: torn last line (crash mid-write): the line is not newline-terminated",
	}, {
		// A record is one write(2) ending in its newline: a complete
		// line that is not a record is not what a crash leaves.
		name: "last line complete but not a record",
		edit: func(d []byte) []byte { return append(d, "\x00\x00\x00\x00\n"...) },
		line: 6,
		msg:  "line 6: chain broken in the middle (tampering): the line is not a valid record (edited?)",
	}, {
		name: "last line complete JSON but not chained",
		edit: func(d []byte) []byte { return append(d, "{\"v\":1}\n"...) },
		line: 6,
		msg:  "line 6: chain broken in the middle (tampering): the line is not a valid record (edited?)",
	}, {
		name: "middle line edited",
		edit: func(d []byte) []byte {
			ls := lines(d)
			ls[2] = bytes.Replace(ls[2], []byte(`"echo 2"`), []byte(`"echo 9"`), 1)
			return bytes.Join(ls, nil)
		},
		line: 3,
		msg:  "line 3: chain broken in the middle (tampering): line 4 does not carry this line's hash: this line was edited, or lines after it were removed or inserted",
	}, {
		name: "middle line removed",
		edit: func(d []byte) []byte {
			ls := lines(d)
			return bytes.Join(append(ls[:1], ls[2:]...), nil)
		},
		line: 1,
		msg:  "line 1: chain broken in the middle (tampering): line 2 does not carry this line's hash: this line was edited, or lines after it were removed or inserted",
	}, {
		name: "middle line no longer JSON",
		edit: func(d []byte) []byte {
			ls := lines(d)
			ls[1] = []byte("{oops\n")
			return bytes.Join(ls, nil)
		},
		line: 2,
		msg:  "line 2: chain broken in the middle (tampering): the line is not a valid record (edited?)",
	}, {
		name: "first lines removed",
		edit: func(d []byte) []byte { return bytes.Join(lines(d)[2:], nil) },
		line: 1,
		msg:  "line 1: chain broken in the middle (tampering): the first record does not start the chain and no prune anchor vouches for it: earlier records were removed",
	}, {
		name: "middle edited and last torn: the earlier problem wins",
		edit: func(d []byte) []byte {
			ls := lines(d)
			ls[1] = bytes.Replace(ls[1], []byte(`"ran"`), []byte(`"refused"`), 1)
			return bytes.Join(ls, nil)[:len(d)-3]
		},
		line: 2,
		msg:  "line 2: chain broken in the middle (tampering): line 3 does not carry this line's hash: this line was edited, or lines after it were removed or inserted",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			appendN(t, openTest(t, dir), 5)
			editFile(t, dir, FileName, tt.edit)
			ce := chainError(t, dir)
			if ce.Line != tt.line || ce.Torn != tt.torn || ce.File != FileName {
				t.Errorf("got %+v, want line %d torn=%v", ce, tt.line, tt.torn)
			}
			if ce.Error() != tt.msg {
				t.Errorf("message:\n got %s\nwant %s", ce.Error(), tt.msg)
			}
		})
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	// A crash mid-write leaves a torn line; the next Append sets it aside
	// and the chain verifies again.
	dir := t.TempDir()
	l := openTest(t, dir)
	rs := appendN(t, l, 3)
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"time":"2025-`)
	f.Close()
	if ce := chainError(t, dir); !ce.Torn || ce.Line != 4 {
		t.Fatalf("torn log: %+v", ce)
	}
	if h, err := l.Head(); err != nil || h != rs[2].Hash {
		t.Errorf("Head past a torn line = %q, %v; want %q", h, err, rs[2].Hash)
	}
	if rs, err := Read(dir, Filter{}); err != nil || len(rs) != 3 {
		t.Errorf("Read skips a torn line: got %d records, %v", len(rs), err)
	}
	r, err := l.Append(Record{Command: "ls", Decision: Ran})
	if err != nil {
		t.Fatal(err)
	}
	if r.Prev != rs[2].Hash {
		t.Errorf("Prev after a torn line = %q, want %q", r.Prev, rs[2].Hash)
	}
	if rep := mustVerify(t, dir); rep.Records != 4 {
		t.Errorf("after repair: %+v", rep)
	}
	torn, err := os.ReadFile(filepath.Join(dir, tornName))
	if err != nil || string(torn) != `{"v":1,"time":"2025-`+"\n" {
		t.Errorf("audit.torn = %q, %v", torn, err)
	}
}

func TestAppendAfterAnotherWriter(t *testing.T) {
	// A Log that appends again carries on from its own last line only
	// while the file is as it left it: another process's record in
	// between is read back and chained.
	dir := t.TempDir()
	l1, l2 := openTest(t, dir), openTest(t, dir)
	appendN(t, l1, 1)
	appendN(t, l2, 1)
	appendN(t, l1, 1)
	if rep := mustVerify(t, dir); rep.Records != 3 {
		t.Errorf("verified %d records, want 3", rep.Records)
	}
}

func TestLastLineEditedBetweenAppends(t *testing.T) {
	// The decision record is rewritten (same length) while its command
	// runs: the outcome record carries the hash of the line guard wrote,
	// so the edit shows. Read back, the edited line would have been
	// chained and the edit hidden.
	dir := t.TempDir()
	l := openTest(t, dir)
	appendN(t, l, 2)
	editFile(t, dir, FileName, func(d []byte) []byte { return bytes.Replace(d, []byte(`"echo 1"`), []byte(`"echo 7"`), 1) })
	appendN(t, l, 1)
	if ce := chainError(t, dir); ce.Torn || ce.Line != 2 {
		t.Errorf("got %+v, want a break at line 2", ce)
	}
}

func TestAppendAfterTamperingKeepsEvidence(t *testing.T) {
	// Append never repairs a break in the middle: the chain stays broken
	// at the same line.
	dir := t.TempDir()
	l := openTest(t, dir)
	appendN(t, l, 3)
	editFile(t, dir, FileName, func(d []byte) []byte { return bytes.Replace(d, []byte(`"echo 1"`), []byte(`"echo 7"`), 1) })
	appendN(t, l, 2)
	if ce := chainError(t, dir); ce.Torn || ce.Line != 2 {
		t.Errorf("got %+v, want a break at line 2", ce)
	}
}

// TestWhichAppendsSync: a decision is on disk when Append returns; a ran
// record and AppendUnsynced's are not synced by themselves, and reach the
// disk with the next decision or, if the file is rotated first, before it
// is set aside.
func TestWhichAppendsSync(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	var synced []int64 // the file's size at each sync
	old := syncLines
	syncLines = func(f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		synced = append(synced, fi.Size())
		return old(f)
	}
	t.Cleanup(func() { syncLines = old })
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	steps := []struct {
		name     string
		add      func(Record) (Record, error)
		decision Decision
		syncs    bool
	}{
		{"Append of a decision", l.Append, ApprovedAuto, true},
		{"Append of a ran record", l.Append, Ran, false},
		{"AppendUnsynced of a decision", l.AppendUnsynced, ApprovedAuto, false},
		{"AppendUnsynced of a refusal", l.AppendUnsynced, Refused, false},
		{"Append of a refusal", l.Append, Refused, true},
	}
	for _, st := range steps {
		synced = nil
		if _, err := st.add(Record{Command: "true", Decision: st.decision}); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		switch {
		case st.syncs && (len(synced) != 1 || synced[0] != size()):
			t.Errorf("%s: syncs at sizes %v, want one sync of the whole file (%d bytes)", st.name, synced, size())
		case !st.syncs && len(synced) != 0:
			t.Errorf("%s: synced %v, want no sync", st.name, synced)
		}
	}

	// An unsynced line in a file about to be rotated is synced before
	// the file is set aside.
	if _, err := l.AppendUnsynced(Record{Command: "true", Decision: ApprovedAuto}); err != nil {
		t.Fatal(err)
	}
	before := size()
	l.MaxSize = before + 10
	synced = nil
	if _, err := l.Append(Record{Command: "true", Decision: ApprovedAuto}); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 || synced[0] != before || synced[1] != size() {
		t.Errorf("rotation syncs at sizes %v, want %d (the old file) then %d (the new one)", synced, before, size())
	}
	if rep := mustVerify(t, dir); rep.Records != 7 {
		t.Errorf("Verify: %d records, want 7", rep.Records)
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	l.MaxSize = 1000
	rs := appendN(t, l, 40)
	rep := mustVerify(t, dir)
	if len(rep.Files) < 4 || rep.Files[0] != "audit.log.1" || rep.Files[len(rep.Files)-1] != FileName {
		t.Fatalf("files %v, want audit.log.1 … audit.log", rep.Files)
	}
	if rep.Records != 40 || rep.Head != rs[39].Hash || rep.Start != "" {
		t.Errorf("report %+v, want 40 records ending at %s", rep, rs[39].Hash)
	}
	for _, f := range rep.Files {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > l.MaxSize {
			t.Errorf("%s is %d bytes, over MaxSize", f, fi.Size())
		}
	}
	got, err := Read(dir, Filter{})
	if err != nil || len(got) != 40 {
		t.Fatalf("Read: %d records, %v", len(got), err)
	}
	for i, r := range got {
		if r.ID != rs[i].ID || r.Hash != rs[i].Hash {
			t.Fatalf("record %d: %s %s, want %s %s", i, r.ID, r.Hash, rs[i].ID, rs[i].Hash)
		}
	}

	// A new file continues the chain from the old file's head.
	data, err := os.ReadFile(filepath.Join(dir, "audit.log.2"))
	if err != nil {
		t.Fatal(err)
	}
	prev, _ := parseLink(lines(data)[0])
	old, _ := os.ReadFile(filepath.Join(dir, "audit.log.1"))
	if ls := lines(old); prev != lineHash(bytes.TrimSuffix(ls[len(ls)-1], []byte("\n"))) {
		t.Errorf("audit.log.2 does not start with audit.log.1's head")
	}

	// Tampering in a rotated file is found and named.
	editFile(t, dir, "audit.log.2", func(d []byte) []byte {
		return bytes.Replace(d, []byte(`"decision":"ran"`), []byte(`"decision":"refused"`), 1)
	})
	if ce := chainError(t, dir); ce.File != "audit.log.2" || ce.Line != 1 || ce.Torn {
		t.Errorf("got %+v, want a break at audit.log.2 line 1", ce)
	} else if !strings.HasPrefix(ce.Error(), "audit.log.2: line 1: chain broken") {
		t.Errorf("message %q", ce.Error())
	}
}

func TestRotationPruned(t *testing.T) {
	// Pruning the oldest rotated files keeps the rest verifiable: the
	// anchor vouches for where the chain now starts.
	dir := t.TempDir()
	l := openTest(t, dir)
	l.MaxSize = 600
	appendN(t, l, 30)
	all := mustVerify(t, dir)
	removed, err := l.Prune(len(all.Files) - 3) // audit.log itself is kept
	if err != nil || len(removed) != 2 || removed[0] != "audit.log.1" || removed[1] != "audit.log.2" {
		t.Fatalf("Prune = %v, %v", removed, err)
	}
	if rep := mustVerify(t, dir); rep.Start == "" || rep.Files[0] != "audit.log.3" {
		t.Errorf("pruned: %+v", rep)
	}
	// Records appended after a prune keep verifying.
	appendN(t, l, 3)
	mustVerify(t, dir)
	// Removing the oldest file by hand (not pruned) is a broken chain.
	if err := os.Remove(filepath.Join(dir, "audit.log.3")); err != nil {
		t.Fatal(err)
	}
	if ce := chainError(t, dir); ce.Torn || !strings.Contains(ce.Reason, "without 'guard log prune'") {
		t.Errorf("got %+v, want a break naming the removal", ce)
	}
	// A forged anchor does not vouch for an edited first record.
	if err := writeAnchor(dir, anchor{n: 3, hash: strings.Repeat("0", 64)}); err != nil {
		t.Fatal(err)
	}
	if ce := chainError(t, dir); ce.Torn || !strings.Contains(ce.Reason, "prune anchor recorded") {
		t.Errorf("got %+v, want a break at the anchor", ce)
	}
}

func TestRotationRemovedByHand(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	l.MaxSize = 600
	appendN(t, l, 20)
	// Without a prune, a missing oldest file is a break, not a start.
	if err := os.Remove(filepath.Join(dir, "audit.log.1")); err != nil {
		t.Fatal(err)
	}
	if ce := chainError(t, dir); ce.Torn || ce.File != "audit.log.2" || ce.Line != 1 {
		t.Errorf("got %+v, want a break at audit.log.2 line 1", ce)
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.log.1"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Removing a file from the middle breaks the chain.
	if err := os.Remove(filepath.Join(dir, "audit.log.3")); err != nil {
		t.Fatal(err)
	}
	if ce := chainError(t, dir); ce.File != "audit.log.2" || ce.Torn {
		t.Errorf("got %+v, want a break at the end of audit.log.2", ce)
	}
}

func TestRotatedAwayWhileOpen(t *testing.T) {
	// Two handles; one rotates. The other follows to the new file and the
	// chain holds.
	dir := t.TempDir()
	a, b := openTest(t, dir), openTest(t, dir)
	a.MaxSize = 500
	for range 10 {
		appendN(t, a, 1)
		appendN(t, b, 1)
	}
	if rep := mustVerify(t, dir); rep.Records != 20 || len(rep.Files) < 3 {
		t.Errorf("report %+v", rep)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	shared := openTest(t, dir)
	for w := range 4 {
		wg.Go(func() {
			l := shared
			if w%2 == 0 {
				l = openTest(t, dir) // separate handles as well as a shared one
			}
			for i := range 50 {
				if _, err := l.Append(Record{ID: fmt.Sprintf("g%d-%d", w, i), Decision: Ran}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if rep := mustVerify(t, dir); rep.Records != 200 {
		t.Errorf("report %+v, want 200 records", rep)
	}
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("8 processes × 500 synced appends")
	}
	for _, tt := range []struct {
		name    string
		maxSize int64
	}{{"one file", 0}, {"rotating", 64 << 10}} {
		t.Run(tt.name, func(t *testing.T) {
			const writers, each = 8, 500
			dir := t.TempDir()
			var cmds []*exec.Cmd
			for w := range writers {
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), envWriter+"=w"+strconv.Itoa(w), envDir+"="+dir,
					envRecords+"="+strconv.Itoa(each), envMaxSize+"="+strconv.FormatInt(tt.maxSize, 10))
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
			}
			for _, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("writer: %v", err)
				}
			}
			rep := mustVerify(t, dir)
			if rep.Records != writers*each {
				t.Errorf("verified %d records, want %d", rep.Records, writers*each)
			}
			if tt.maxSize > 0 && len(rep.Files) < 3 {
				t.Errorf("files %v: the log did not rotate", rep.Files)
			}
			rs, err := Read(dir, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, r := range rs {
				seen[r.ID]++
			}
			for w := range writers {
				for i := range each {
					if id := fmt.Sprintf("w%d-%d", w, i); seen[id] != 1 {
						t.Fatalf("record %s appears %d times", id, seen[id])
					}
				}
			}
			if len(seen) != writers*each {
				t.Errorf("%d distinct records, want %d", len(seen), writers*each)
			}
		})
	}
}

func TestLogHoldsNoSecret(t *testing.T) {
	// Every seeded secret, in command and note, written through Append:
	// the file's bytes hold none of them.
	dir := t.TempDir()
	l := openTest(t, dir)
	for _, s := range seeded {
		text := fmt.Sprintf(s.context, s.secret)
		if _, err := l.Append(Record{Command: text, Note: text, Decision: Pending}); err != nil {
			t.Fatal(err)
		}
	}
	var all []byte
	files, _ := logFiles(dir)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	if len(all) == 0 {
		t.Fatal("nothing written")
	}
	for _, s := range seeded {
		if bytes.Contains(all, []byte(s.secret)) {
			t.Errorf("the log holds %q unmasked", s.secret)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	add := func(id string, lvl review.Level, d Decision, session string) {
		t.Helper()
		if _, err := l.Append(Record{ID: id, Level: lvl, Decision: d, Session: session, Command: "cmd " + id}); err != nil {
			t.Fatal(err)
		}
	}
	add("1", review.A, ApprovedAuto, "s1") // 10:00:01
	add("1", review.A, Ran, "s1")          // 10:00:02
	add("2", review.B, Pending, "s2")      // 10:00:03
	add("3", review.C, Refused, "s1")      // 10:00:04
	add("2", review.B, ApprovedQueue, "s2")
	add("2", review.B, Ran, "s2")
	add("4", review.Deny, DeniedPolicy, "s2")

	ids := func(rs []Record) string {
		var b []string
		for _, r := range rs {
			b = append(b, r.ID+":"+string(r.Decision))
		}
		return strings.Join(b, " ")
	}
	at := func(sec int) time.Time { return time.Date(2025, 6, 1, 10, 0, sec, 0, time.UTC) }
	clock = func() time.Time { return at(7) }
	t.Cleanup(func() { clock = time.Now })
	for _, tt := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all", Filter{}, "1:approved-auto 1:ran 2:pending 3:refused 2:approved-queue 2:ran 4:denied-policy"},
		{"last 2", Filter{Last: 2}, "2:ran 4:denied-policy"},
		{"since", Filter{Since: at(4)}, "3:refused 2:approved-queue 2:ran 4:denied-policy"},
		{"within", Filter{Within: 2 * time.Second}, "2:approved-queue 2:ran 4:denied-policy"},
		{"level", Filter{Levels: []review.Level{review.B, review.C}}, "2:pending 3:refused 2:approved-queue 2:ran"},
		{"decision", Filter{Decisions: []Decision{Ran}}, "1:ran 2:ran"},
		{"session, last 1", Filter{Session: "s1", Last: 1}, "3:refused"},
		{"nothing", Filter{Session: "s9"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := Read(dir, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rs); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}

	// A middle line that is not a record is an error, not a silent skip.
	editFile(t, dir, FileName, func(d []byte) []byte {
		ls := lines(d)
		ls[1] = []byte("not json\n")
		return bytes.Join(ls, nil)
	})
	if _, err := Read(dir, Filter{}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Read of a broken log = %v, want an error naming line 2", err)
	}
}

func TestSummarize(t *testing.T) {
	at := func(sec int) time.Time { return time.Date(2025, 6, 1, 10, 0, sec, 0, time.UTC) }
	exit := func(n int) *int { return &n }
	rs := []Record{
		{Time: at(1), ID: "1", Level: review.A, Decision: ApprovedAuto},
		{Time: at(2), ID: "1", Level: review.A, Decision: Ran, Exit: exit(0)},
		{Time: at(3), ID: "2", Level: review.B, Decision: Pending},
		{Time: at(4), ID: "3", Level: review.C, Decision: Refused},
		{Time: at(5), ID: "2", Level: review.B, Decision: ApprovedQueue},
		{Time: at(6), ID: "2", Level: review.B, Decision: Ran, Exit: exit(1)},
		{Time: at(7), ID: "4", Level: review.C, Decision: Pending},
		{Time: at(8), ID: "5", Level: review.Deny, Decision: DeniedPolicy},
		{Time: at(9), ID: "6", Decision: Failed},
	}
	s := Summarize(rs)
	if s.Records != 9 || s.Requests != 6 || !s.First.Equal(at(1)) || !s.Last.Equal(at(9)) {
		t.Errorf("counts %d/%d, span %v–%v", s.Records, s.Requests, s.First, s.Last)
	}
	if s.Levels[review.A] != 1 || s.Levels[review.B] != 1 || s.Levels[review.C] != 2 || s.Levels[review.Deny] != 1 {
		t.Errorf("levels %v", s.Levels)
	}
	if s.Decisions[Ran] != 2 || s.Decisions[Pending] != 2 {
		t.Errorf("decisions %v", s.Decisions)
	}
	if len(s.Ran) != 2 || s.Failed != 1 {
		t.Errorf("ran %d, failed %d", len(s.Ran), s.Failed)
	}
	if len(s.NotRun) != 3 || s.NotRun[0].ID != "3" || s.NotRun[2].ID != "6" {
		t.Errorf("not run %v", s.NotRun)
	}
	// Request 2 was approved since; only 4 is still pending.
	if len(s.Pending) != 1 || s.Pending[0].ID != "4" {
		t.Errorf("pending %v", s.Pending)
	}
}

// BenchmarkDecision is what one guard process pays to record a decision:
// open the existing log, append one record (synced), close.
func BenchmarkDecision(b *testing.B) {
	dir := b.TempDir()
	openTest(b, dir).Close()
	r := Record{ID: NewID(), Session: "ppid:1234", Cwd: "/home/u/proj", Workspace: "/home/u/proj",
		Command: "git status", Level: review.A, Rules: []string{"git.read"}, Decision: ApprovedAuto}
	for b.Loop() {
		l, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		l.MaxSize = 0
		if _, err := l.Append(r); err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}

// BenchmarkAppend measures a durable append of a decision: lock, tail
// read, one write, fdatasync. BenchmarkAppendOutcome is the same for a ran
// record, which Append does not sync.
func BenchmarkAppend(b *testing.B) {
	benchmarkAppend(b, ApprovedTTY)
}

func BenchmarkAppendOutcome(b *testing.B) {
	benchmarkAppend(b, Ran)
}

func benchmarkAppend(b *testing.B, d Decision) {
	l := openTest(b, b.TempDir())
	l.MaxSize = 0
	r := Record{ID: NewID(), Session: "ppid:1234", Cwd: "/home/u/proj", Workspace: "/home/u/proj",
		Command: "go test ./... && git push origin main", Level: review.B, Rules: []string{"net.connect", "git.push"},
		Decision: d, Sandbox: &review.Sandbox{Write: true, Net: true, Hide: []string{"/home/u/.ssh", "/home/u/.aws"}},
		Exit: new(int), Duration: time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}
