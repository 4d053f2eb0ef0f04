package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/guard-sh/guard/review"
)

// longSandbox is the size of a real decision's sandbox: every secret
// location hidden and every protected path listed (174 and 284 for a
// fresh home).
func longSandbox(home string) *review.Sandbox {
	s := &review.Sandbox{Write: true}
	for i := range 174 {
		s.Hide = append(s.Hide, fmt.Sprintf("%s/.secret-%03d", home, i))
	}
	for i := range 284 {
		s.Protect = append(s.Protect, fmt.Sprintf("%s/.rc-%03d", home, i))
	}
	return s
}

func logSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func setFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, SetsDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A decision's sandbox lists are stored once, not in every record: the
// log grew by 14 KB a command before.
func TestSandboxListsStoredOnce(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	sb := longSandbox("/home/u")
	var before int64
	for i := range 3 {
		r, err := l.Append(Record{ID: fmt.Sprint(i), Command: "true", Decision: ApprovedAuto, Sandbox: sb})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Sandbox.Hide, sb.Hide) || !slices.Equal(r.Sandbox.Protect, sb.Protect) {
			t.Fatalf("Append returned a record without its lists")
		}
		size := logSize(t, dir)
		if grew := size - before; grew > 1024 {
			t.Errorf("record %d: the log grew by %d bytes, want under 1 KB (the lists belong in set files)", i, grew)
		}
		before = size
	}
	if files := setFiles(t, dir); len(files) != 2 {
		t.Errorf("set files %v, want 2 (one hide list, one protect list, shared by the 3 records)", files)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), ".secret-000") {
		t.Errorf("the log line still lists the hidden paths:\n%s", data)
	}

	// Reading the log gives the lists back, exactly.
	rs, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("Read: %d records, want 3", len(rs))
	}
	for _, r := range rs {
		if r.Sandbox == nil || !slices.Equal(r.Sandbox.Hide, sb.Hide) || !slices.Equal(r.Sandbox.Protect, sb.Protect) || !r.Sandbox.Write {
			t.Fatalf("Read: sandbox %+v, want the lists appended", r.Sandbox)
		}
	}
	if rep := mustVerify(t, dir); rep.Records != 3 {
		t.Errorf("Verify: %d records, want 3", rep.Records)
	}

	// Short lists (tests, a sandbox with little to hide) stay in the line.
	if _, err := l.Append(Record{Command: "true", Decision: ApprovedAuto, Sandbox: &review.Sandbox{Hide: []string{"/home/u/.ssh"}}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, FileName)); !strings.Contains(string(data), `"hide":["/home/u/.ssh"]`) {
		t.Errorf("a one-path list was moved out of the line")
	}
}

// A set file is vouched for by the record naming it: edited, replaced or
// removed, it is tampering, which Verify reports at the first line naming
// it; Read leaves the lists out rather than give edited ones.
func TestSandboxSetTampering(t *testing.T) {
	cases := map[string]struct {
		tamper func(t *testing.T, path string)
		reason string
	}{
		"a path removed from the hidden list": {func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(data), `"/home/u/.secret-000",`, "", 1)
			if edited == string(data) {
				t.Fatal("the fixture's list changed shape")
			}
			if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "does not match its name"},
		"the set file removed": {func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "is missing"},
		"the set file replaced by a FIFO": {func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := openTest(t, dir)
			sb := longSandbox("/home/u")
			appendN(t, l, 2)
			if _, err := l.Append(Record{ID: "x", Command: "true", Decision: ApprovedAuto, Sandbox: sb}); err != nil {
				t.Fatal(err)
			}
			appendN(t, l, 1)
			hide, _ := setData(sb.Hide)
			tc.tamper(t, filepath.Join(dir, SetsDir, hide+".json"))

			ce := chainError(t, dir)
			if ce.Torn || ce.Line != 3 || !strings.Contains(ce.Reason, tc.reason) {
				t.Errorf("Verify: %v; want tampering at line 3 saying %q", ce, tc.reason)
			}
			rs, err := Read(dir, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[2]
			if r.HideSet != hide || len(r.Sandbox.Hide) != 0 {
				t.Errorf("Read: hide set %q with %d paths; want the name kept and no list", r.HideSet, len(r.Sandbox.Hide))
			}
		})
	}
}

// Pruning rotated files removes the set files only they named, and keeps
// the ones a remaining record names: the rest still verifies.
func TestPruneSets(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, dir)
	old, kept := longSandbox("/home/old"), longSandbox("/home/u")
	if _, err := l.Append(Record{Command: "true", Decision: ApprovedAuto, Sandbox: old}); err != nil {
		t.Fatal(err)
	}
	l.MaxSize = 1 // every append rotates
	if _, err := l.Append(Record{Command: "true", Decision: ApprovedAuto, Sandbox: kept}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Record{Command: "true", Decision: ApprovedAuto, Sandbox: kept}); err != nil {
		t.Fatal(err)
	}
	if n := len(setFiles(t, dir)); n != 4 {
		t.Fatalf("%d set files before pruning, want 4", n)
	}
	removed, err := l.Prune(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 {
		t.Fatalf("Prune removed %v, want the oldest file", removed)
	}
	oldHide, _ := setData(old.Hide)
	keptHide, _ := setData(kept.Hide)
	files := setFiles(t, dir)
	if slices.Contains(files, oldHide+".json") || !slices.Contains(files, keptHide+".json") || len(files) != 2 {
		t.Errorf("set files after pruning %v: want only the two the remaining records name", files)
	}
	mustVerify(t, dir)
}

// A set name read from a line never reaches outside the sets directory.
func TestSandboxSetNameChecked(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"../audit.log", "", strings.Repeat("A", 64), strings.Repeat("0", 63) + "/"} {
		if _, err := loadSet(dir, name); err == nil || !strings.Contains(err.Error(), "not a SHA-256 name") {
			t.Errorf("loadSet(%q) = %v, want refused as a name", name, err)
		}
	}
}
