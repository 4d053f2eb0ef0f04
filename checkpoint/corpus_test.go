package checkpoint_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/guard-sh/guard/checkpoint"
	"github.com/guard-sh/guard/internal/testwork"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// corpusBudget is small so that dist/ (6 ignored files) is over it while
// build/ (3) is within.
var corpusBudget = checkpoint.Budget{MaxFiles: 5, MaxBytes: 1 << 20}

// undoFixture is testdata/corpus/fixture.txtar with ~/proj made a real git
// repository (everything committed but what .gitignore ignores), plus:
// src/ tracked; draft.md untracked, not ignored; build/ (3 files) and
// dist/ (6 files) ignored; vendor/mod a nested repository; links/home a
// symlink to the home directory.
func undoFixture(t *testing.T) (home, ws string) {
	t.Helper()
	root := testwork.Dir(t, "guard-undo-corpus-")
	home = filepath.Join(root, "home")
	ws = filepath.Join(home, "proj")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ar, err := txtar.ParseFile("../testdata/corpus/fixture.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "home/proj/.git/") {
			files[f.Name] = string(f.Data)
		}
	}
	files["home/proj/.gitignore"] += "dist/\n"
	for _, p := range []string{"src/app.go", "src/lib/util.go", "build/a.o", "build/gen/b.o"} {
		files["home/proj/"+p] = p + "\n"
	}
	for i := 0; i < 6; i++ {
		files[fmt.Sprintf("home/proj/dist/f%d.js", i)] = "js\n"
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(ws, "init", "-q", "-b", "main")
	git(ws, "add", "-A")
	git(ws, "commit", "-q", "-m", "fixture")
	os.MkdirAll(filepath.Join(ws, "vendor", "mod"), 0o755)
	git(filepath.Join(ws, "vendor", "mod"), "init", "-q")
	os.WriteFile(filepath.Join(ws, "vendor", "mod", "m.go"), []byte("package mod\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "draft.md"), []byte("draft\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, "links"), 0o755)
	if err := os.Symlink(home, filepath.Join(ws, "links", "home")); err != nil {
		t.Fatal(err)
	}
	return home, ws
}

// TestUndoCorpus checks testdata/corpus/v2-undo.tsv: the level and the
// rules of each line, with guard's real checkpoint coverage (CTX "undo")
// or without a checkpoint. LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES[<TAB># note].
func TestUndoCorpus(t *testing.T) {
	home, ws := undoFixture(t)
	state := filepath.Join(home, ".local", "state", "guard")
	f, err := os.Open("../testdata/corpus/v2-undo.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, rows, covered := 0, 0, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 4 {
			t.Fatalf("v2-undo.tsv:%d: want LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES", n)
		}
		want, err := review.ParseLevel(cols[0])
		if err != nil {
			t.Fatalf("v2-undo.tsv:%d: %v", n, err)
		}
		c := &profile.Context{
			Cwd: ws, Workspace: ws, Home: home, User: "u", Env: map[string]string{"TMPDIR": "/tmp"},
			ConfigDir: filepath.Join(home, ".config", "guard"), StateDir: state,
			ReadFile: os.ReadFile, EvalSymlinks: filepath.EvalSymlinks,
		}
		in := review.Input{Text: cols[2], Context: c, Provenance: review.ProvAgent}
		undo := false
		for _, kv := range strings.Split(cols[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "-", "":
			case "undo":
				undo = true
			case "prov":
				if in.Provenance, err = review.ParseProvenance(v); err != nil {
					t.Fatal(err)
				}
			case "cwd":
				c.Cwd = filepath.Join(ws, v)
			default:
				t.Fatalf("v2-undo.tsv:%d: unknown context key %q", n, k)
			}
		}
		p := profile.Build(cols[2], c)
		if undo {
			in.Recoverable = checkpoint.Cover(state, ws, checkpoint.Targets(p), corpusBudget)
		}
		v := review.Assess(p, in)
		rows++
		if v.Level == review.A && undo {
			covered++
		}
		var got []string
		seen := map[string]bool{}
		for _, r := range v.Reasons {
			if !seen[r.Rule] {
				seen[r.Rule] = true
				got = append(got, r.Rule)
			}
		}
		sort.Strings(got)
		gotRules := strings.Join(got, ",")
		if gotRules == "" {
			gotRules = "-"
		}
		if v.Level != want || gotRules != cols[3] {
			t.Errorf("v2-undo.tsv:%d: %s\n\tgot %s %s, want %s %s\n\trecoverable: %v", n, cols[2], v.Level, gotRules, want, cols[3], in.Recoverable)
		}
		if undo && v.Level == review.A && p.Has(profile.CapDelete) && !strings.Contains(v.Explanation, review.RecoverableNote) {
			t.Errorf("v2-undo.tsv:%d: a recoverable delete's explanation does not say so:\n%s", n, v.Explanation)
		}
	}
	if rows < 20 || covered < 5 {
		t.Errorf("v2-undo.tsv has %d rows, %d covered at A; want at least 20 and 5", rows, covered)
	}
}
