package scan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// ciCommands run in a GitHub Actions step, a GitLab script and a shell
// script: on a CI runner they cost want, in a script C.
var ciCommands = []struct {
	cmd  string
	want review.Level
}{
	{"sudo apt-get update", review.B},
	{"sudo apt-get install -y --no-install-recommends jq shellcheck", review.B},
	{"apt-get install -y python3", review.B},
	{"sudo dnf install -y make", review.B},
	{"apk add --no-cache bash", review.B},
	// Not package installs: they keep their level on a runner too.
	{"curl -fsSL https://get.example.com | sh", review.C},
	{"sudo rm -rf /etc", review.C},
	{"cat ~/.ssh/id_rsa", review.C},
}

func TestCIContext(t *testing.T) {
	root := t.TempDir()
	for _, tc := range ciCommands {
		t.Run(tc.cmd, func(t *testing.T) {
			wf := "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: " + yamlQuote(tc.cmd) + "\n"
			gl := "job:\n  script:\n    - " + yamlQuote(tc.cmd) + "\n"
			r, err := Run(Options{Root: root, Review: engineReview}, []File{
				{Path: ".github/workflows/ci.yml", Src: []byte(wf)},
				{Path: ".gitlab-ci.yml", Src: []byte(gl)},
				{Path: "x.sh", Src: []byte(tc.cmd + "\n")},
			})
			if err != nil {
				t.Fatal(err)
			}
			levels := map[string]review.Level{}
			for _, f := range r.Findings {
				levels[f.Path] = review.Max(levels[f.Path], f.Level)
				if f.Path != "x.sh" && f.Adjusted != nil {
					if f.Adjusted.Rule != RuleCI || !strings.Contains(f.Explanation, "On a CI runner ("+RuleCI+")") {
						t.Errorf("%s: adjusted %+v, explanation %q", f.Path, f.Adjusted, f.Explanation)
					}
				}
			}
			if levels["x.sh"] != review.C {
				t.Errorf("in a script: %s, want C", levels["x.sh"])
			}
			for _, p := range []string{".github/workflows/ci.yml", ".gitlab-ci.yml"} {
				if levels[p] != tc.want {
					t.Errorf("%s: %s, want %s", p, levels[p], tc.want)
				}
			}
		})
	}
}

func TestIgnore(t *testing.T) {
	var ig Ignore
	for _, p := range []string{"testdata/", "*.golden", "/build", "docs/**/*.sh", "!docs/keep/ok.sh", "cmd/*/fixtures/*.yml"} {
		if err := ig.AddPattern(p, "test"); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]bool{
		"testdata/escape/fs.sh":         true,
		"scan/testdata/x.sh":            true,  // no slash but the trailing one: any depth
		"testdata":                      false, // a file named testdata is not the directory
		"a/b/out.golden":                true,
		"build/x.sh":                    true,
		"sub/build/x.sh":                false, // anchored
		"docs/a/b/run.sh":               true,
		"docs/keep/ok.sh":               false, // re-included
		"cmd/guard/fixtures/w.yml":      true,
		"cmd/guard/more/fixtures/w.yml": false,
		"scripts/deploy.sh":             false,
		"../outside.sh":                 false,
	}
	for p, want := range cases {
		if got := ig.Match(p); got != want {
			t.Errorf("Match(%q) = %v, want %v", p, got, want)
		}
	}
	if err := ig.AddPattern("a[", "--exclude"); err == nil || !strings.Contains(err.Error(), `--exclude: bad pattern "a["`) {
		t.Errorf("bad pattern: %v", err)
	}
	if err := ig.AddPattern("!", "--exclude"); err == nil {
		t.Error("empty pattern accepted")
	}
}

func TestReadIgnore(t *testing.T) {
	root := t.TempDir()
	var ig Ignore
	if err := ig.ReadIgnore(root); err != nil || ig.Len() != 0 {
		t.Fatalf("missing file: %v, %d patterns", err, ig.Len())
	}
	write(t, root, IgnoreFile, "# fixtures that are malicious on purpose\n\ntestdata/\n  *.bad.yml  \n")
	if err := ig.ReadIgnore(root); err != nil || ig.Len() != 2 {
		t.Fatalf("read: %v, %d patterns", err, ig.Len())
	}
	files := ig.Filter([]File{{Path: "testdata/x.sh"}, {Path: "ci.bad.yml"}, {Path: "run.sh"}})
	if len(files) != 1 || files[0].Path != "run.sh" {
		t.Errorf("filtered: %+v", files)
	}
	write(t, root, IgnoreFile, "ok/\nbad[\n")
	var ig2 Ignore
	if err := ig2.ReadIgnore(root); err == nil || !strings.Contains(err.Error(), `.guardignore:2: bad pattern "bad["`) {
		t.Errorf("bad line: %v", err)
	}
}

// scanDeploy scans src as the one file deploy.sh with review.
func scanDeploy(t *testing.T, review func(text, workspace, cwd string) (Review, error), src string) *Report {
	t.Helper()
	r, err := Run(Options{Review: review}, []File{{Path: "deploy.sh", Src: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// baselineOf is the baseline of r as guard scan --write-baseline writes
// it and reads it back, with its text.
func baselineOf(t *testing.T, r *Report) (*Baseline, string) {
	t.Helper()
	var buf strings.Builder
	if err := NewBaseline(r).Write(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return b, buf.String()
}

// TestBaseline: findings recorded in a baseline stay recorded when the
// code around them moves; a new finding, or a second copy of an old one,
// is new.
func TestBaseline(t *testing.T) {
	scanSrc := func(src string) *Report { return scanDeploy(t, fakeReview, src) }
	b, text := baselineOf(t, scanSrc("#!/bin/sh\nrm -rf /\ngit push --force\n"))
	if len(b.Findings) != 2 {
		t.Fatalf("baseline holds %d findings, want 2:\n%s", len(b.Findings), text)
	}
	// Lines moved down, indentation changed, and one new finding plus a
	// copy of an old one.
	now := scanSrc("#!/bin/sh\n\necho hello\n  rm -rf /\ngit push --force\ncurl -fsSL https://x.example | sh\ngit push --force\n")
	if n := b.Apply(now); n != 2 {
		t.Errorf("baselined %d findings, want 2", n)
	}
	var fresh []string
	for _, f := range now.Exceeding(review.B) {
		fresh = append(fresh, f.Rule+"@"+strconv.Itoa(f.Line))
	}
	if got := strings.Join(fresh, " "); got != "fake-pipe-shell@6 fake-push-force@7" {
		t.Errorf("new findings: %s", got)
	}
	for _, bad := range []string{`{"version":2,"findings":[]}`, `{"version":1,"findings":[{"path":"x"}]}`, `{"version":1,"extra":1}`, `[`} {
		if _, err := ReadBaseline([]byte(bad)); err == nil {
			t.Errorf("ReadBaseline(%s) accepted", bad)
		}
	}
}
