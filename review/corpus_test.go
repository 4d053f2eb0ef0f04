package review_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// corpusCase is one labelled command from testdata/corpus.
type corpusCase struct {
	where string // file:line
	want  review.Level
	ctx   string
	text  string
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
	base, err := os.UserCacheDir()
	if err != nil || strings.HasPrefix(base, os.TempDir()) {
		base = "."
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(base, "guard-corpus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
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
		ReadFile:  os.ReadFile,
		EvalSymlinks: func(p string) (string, error) {
			return filepath.EvalSymlinks(p)
		},
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

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	var cases []corpusCase
	files, _ := filepath.Glob("../testdata/corpus/*.tsv")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if len(cols) < 3 {
				t.Fatalf("%s:%d: want LEVEL<TAB>CTX<TAB>COMMAND", name, n)
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
			cases = append(cases, corpusCase{where: fmt.Sprintf("%s:%d", filepath.Base(name), n), want: l, ctx: cols[1], text: cols[2]})
		}
		f.Close()
	}
	ar, err := txtar.ParseFile("../testdata/corpus/multiline.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		parts := strings.SplitN(f.Name, " ", 3)
		if len(parts) < 3 {
			t.Fatalf("multiline.txtar: bad name %q", f.Name)
		}
		l, err := review.ParseLevel(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, corpusCase{where: "multiline.txtar:" + parts[2], want: l, ctx: parts[1], text: strings.TrimSuffix(string(f.Data), "\n")})
	}
	return cases
}

func assess(fx *fixture, t testing.TB, cs corpusCase) review.Verdict {
	c, in := fx.context(t, cs.ctx)
	in.Text = cs.text
	p := profile.Build(cs.text, c)
	return review.Assess(p, in)
}

// TestCorpus checks every labelled command: LEVELS.md rows and examples,
// bypasses, fail-closed cases and false-positive controls.
func TestCorpus(t *testing.T) {
	fx := newFixture(t)
	cases := loadCorpus(t)
	if len(cases) < 400 {
		t.Fatalf("corpus has %d cases, want at least 400", len(cases))
	}
	controls := 0
	for _, cs := range cases {
		if cs.want == review.A {
			controls++
		}
		v := assess(fx, t, cs)
		for _, r := range v.Reasons {
			if !review.KnownRule(r.Rule) {
				t.Errorf("%s: rule %q is not listed by profile.RuleIDs or review.RuleIDs", cs.where, r.Rule)
			}
		}
		if v.Level != cs.want {
			var rs []string
			for _, r := range v.Reasons {
				rs = append(rs, fmt.Sprintf("%s(%s): %s", r.Rule, r.Level, r.Message))
			}
			t.Errorf("%s: %s\n\tgot %s, want %s\n\t%s", cs.where, cs.text, v.Level, cs.want, strings.Join(rs, "\n\t"))
		}
	}
	if controls < 100 {
		t.Errorf("corpus has %d A controls, want at least 100", controls)
	}
}
