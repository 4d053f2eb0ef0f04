package review_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/internal/testwork"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// corpusCase is one labelled command from testdata/corpus.
type corpusCase struct {
	where string // file:line
	want  review.Level
	ctx   string
	text  string
	rules []string // rule ids that must be among the reasons; nil for "-"
	// file and line locate the case for -u: line is the 1-based line in a
	// TSV file, or the index of the file in multiline.txtar.
	file string
	line int
}

// fixture materialises testdata/corpus/fixture.txtar: a home directory with
// secrets and rc files, and a workspace ~/proj that is a git repository.
type fixture struct {
	root, home, ws string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	// The fixture must not live under /tmp: the corpus expects /tmp to be
	// a temp dir and the fixture's home to be an ordinary home.
	root := testwork.Dir(t, "guard-corpus-")
	ar, err := txtar.ParseFile("../testdata/corpus/fixture.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(root, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.Name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Data, mode); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	return &fixture{root: root, home: home, ws: filepath.Join(home, "proj")}
}

// context builds the profile context for a case's CTX column.
func (fx *fixture) context(t testing.TB, ctx string) (*profile.Context, review.Input) {
	t.Helper()
	c := &profile.Context{
		Cwd: fx.ws, Workspace: fx.ws, Home: fx.home, User: "u",
		Env:       map[string]string{"TMPDIR": "/tmp"},
		ConfigDir: filepath.Join(fx.home, ".config", "guard"),
		StateDir:  filepath.Join(fx.home, ".local", "state", "guard"),
		// As the engine reads: regular files only, bounded (a fuzzed
		// /dev/urandom operand must not read forever).
		ReadFile:     func(p string) ([]byte, error) { return safefile.Read(p, decision.MaxScriptRead) },
		EvalSymlinks: filepath.EvalSymlinks,
		Readlink:     os.Readlink,
	}
	in := review.Input{Context: c, Provenance: review.ProvAgent}
	if ctx != "-" && ctx != "" {
		for _, kv := range strings.Split(ctx, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "cwd":
				switch {
				case v == "~":
					c.Cwd = fx.home
				case strings.HasPrefix(v, "~/"):
					c.Cwd = filepath.Join(fx.home, v[2:])
				case strings.HasPrefix(v, "/"):
					c.Cwd = v
				default:
					c.Cwd = filepath.Join(fx.ws, v)
				}
			case "ws":
				// An absolute workspace of the case's own (and cwd, unless
				// a cwd= after it says otherwise): ws=/tmp/a/ws.
				if !strings.HasPrefix(v, "/") {
					t.Fatalf("corpus context ws=%q: want an absolute path", v)
				}
				c.Workspace, c.Cwd = v, v
			case "prov":
				p, err := review.ParseProvenance(v)
				if err != nil {
					t.Fatal(err)
				}
				in.Provenance = p
			case "min":
				l, err := review.ParseLevel(v)
				if err != nil {
					t.Fatal(err)
				}
				in.MinLevel = l
			default:
				t.Fatalf("unknown corpus context key %q", k)
			}
		}
	}
	return c, in
}

// update rewrites the RULES column of every corpus case (and the golden
// files) from what the engine reports today: go test ./review -u.
var update = flag.Bool("u", false, "rewrite corpus rule ids and golden files from the current engine")

// ruleList matches a RULES column: "-" or comma-separated rule ids.
var ruleList = regexp.MustCompile(`^(-|[a-z0-9-]+\.[a-z0-9.-]+(,[a-z0-9-]+\.[a-z0-9.-]+)*)$`)

func parseRules(s string) []string {
	if s == "-" {
		return nil
	}
	return strings.Split(s, ",")
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	var cases []corpusCase
	files, _ := filepath.Glob("../testdata/corpus/*.tsv")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			n := i + 1
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if len(cols) < 3 {
				t.Fatalf("%s:%d: want LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES", name, n)
			}
			if strings.Contains(","+cols[1]+",", ",undo,") {
				// Needs guard's checkpoint in a real git workspace:
				// checkpoint's TestUndoCorpus checks these rows.
				continue
			}
			l, err := review.ParseLevel(cols[0])
			if err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			cs := corpusCase{where: fmt.Sprintf("%s:%d", filepath.Base(name), n), want: l, ctx: cols[1], text: cols[2], file: name, line: n}
			switch {
			case len(cols) > 3 && ruleList.MatchString(cols[3]):
				cs.rules = parseRules(cols[3])
			case *update:
				// Filled in by TestCorpus.
			default:
				t.Fatalf("%s:%d: want LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES (rule ids or -; go test ./review -run TestCorpus -u fills them in)", name, n)
			}
			cases = append(cases, cs)
		}
	}
	ar, err := txtar.ParseFile(multilineFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range ar.Files {
		// "LEVEL CTX RULES short-name"
		parts := strings.SplitN(f.Name, " ", 4)
		if len(parts) < 3 {
			t.Fatalf("multiline.txtar: bad name %q", f.Name)
		}
		l, err := review.ParseLevel(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		cs := corpusCase{want: l, ctx: parts[1], text: strings.TrimSuffix(string(f.Data), "\n"), file: multilineFile, line: i}
		switch {
		case len(parts) == 4 && ruleList.MatchString(parts[2]):
			cs.rules = parseRules(parts[2])
			cs.where = "multiline.txtar:" + parts[3]
		case *update:
			cs.where = "multiline.txtar:" + strings.Join(parts[2:], " ")
		default:
			t.Fatalf("multiline.txtar: %q: want a name \"LEVEL CTX RULES short-name\"", f.Name)
		}
		cases = append(cases, cs)
	}
	return cases
}

const multilineFile = "../testdata/corpus/multiline.txtar"

// levelRules are the rule ids a verdict stands on: those of the reasons at
// its level, sorted, or "-" when it has none.
func levelRules(v review.Verdict) string {
	var ids []string
	for _, r := range v.Reasons {
		if r.Level == v.Level && !slices.Contains(ids, r.Rule) {
			ids = append(ids, r.Rule)
		}
	}
	if len(ids) == 0 {
		return "-"
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// rewriteCorpus writes the RULES column of every case from the verdicts.
func rewriteCorpus(t *testing.T, cases []corpusCase, got map[string]string) {
	t.Helper()
	byFile := map[string][]corpusCase{}
	for _, cs := range cases {
		byFile[cs.file] = append(byFile[cs.file], cs)
	}
	for file, list := range byFile {
		if file == multilineFile {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range list {
				if got[cs.where] == "" {
					continue
				}
				f := &ar.Files[cs.line]
				parts := strings.SplitN(f.Name, " ", 4)
				name := strings.Join(parts[2:], " ")
				if len(parts) == 4 && ruleList.MatchString(parts[2]) {
					name = parts[3]
				}
				f.Name = strings.Join([]string{parts[0], parts[1], got[cs.where], name}, " ")
			}
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for _, cs := range list {
			if got[cs.where] == "" {
				continue
			}
			cols := strings.Split(lines[cs.line-1], "\t")
			var note []string
			if len(cols) > 3 {
				note = cols[3:]
				if ruleList.MatchString(cols[3]) {
					note = cols[4:]
				}
			}
			lines[cs.line-1] = strings.Join(append([]string{cols[0], cols[1], cols[2], got[cs.where]}, note...), "\t")
		}
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func assess(fx *fixture, t testing.TB, cs corpusCase) review.Verdict {
	c, in := fx.context(t, cs.ctx)
	in.Text = cs.text
	p := profile.Build(cs.text, c)
	return review.Assess(p, in)
}

// TestCorpus checks every labelled command: LEVELS.md rows and examples,
// bypasses, fail-closed cases and false-positive controls. Each case names
// the rule ids its level must rest on, so a case that reaches the right
// level for the wrong reason (a parse error) fails.
func TestCorpus(t *testing.T) {
	fx := newFixture(t)
	cases := loadCorpus(t)
	if len(cases) < 400 {
		t.Fatalf("corpus has %d cases, want at least 400", len(cases))
	}
	controls := 0
	got := map[string]string{}
	for _, cs := range cases {
		if cs.want == review.A {
			controls++
		}
		v := assess(fx, t, cs)
		var rs []string
		have := map[string]bool{}
		for _, r := range v.Reasons {
			have[r.Rule] = true
			rs = append(rs, fmt.Sprintf("%s(%s): %s", r.Rule, r.Level, r.Message))
			if !review.KnownRule(r.Rule) {
				t.Errorf("%s: rule %q is not listed by profile.RuleIDs or review.RuleIDs", cs.where, r.Rule)
			}
		}
		if v.Level != cs.want {
			t.Errorf("%s: %s\n\tgot %s, want %s\n\t%s", cs.where, cs.text, v.Level, cs.want, strings.Join(rs, "\n\t"))
			continue
		}
		if *update {
			got[cs.where] = levelRules(v)
			continue
		}
		for _, id := range cs.rules {
			if !have[id] {
				t.Errorf("%s: %s\n\tlevel %s as expected, but rule %s is not among the reasons:\n\t%s", cs.where, cs.text, v.Level, id, strings.Join(rs, "\n\t"))
			}
		}
		if cs.rules == nil && cs.want == review.A && len(v.Reasons) > 0 {
			t.Errorf("%s: %s\n\twant no reasons (-), got:\n\t%s", cs.where, cs.text, strings.Join(rs, "\n\t"))
		}
	}
	if controls < 100 {
		t.Errorf("corpus has %d A controls, want at least 100", controls)
	}
	if *update {
		rewriteCorpus(t, cases, got)
	}
}
