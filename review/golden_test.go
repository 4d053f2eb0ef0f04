package review_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// TestGolden pins the whole profile and verdict (reasons, explanation,
// sandbox grants) of a representative set of commands:
// review/testdata/golden/*.txtar, each with a `cmd` file (and an optional
// `ctx` file, as the corpus CTX column). go test ./review -run TestGolden -u
// rewrites profile.json and verdict.json. Fixture paths read as $FIXTURE;
// the digest is left out (it covers the fixture's random directory).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(files) < 10 {
		t.Fatalf("want at least 10 golden files, have %d", len(files))
	}
	fx := newFixture(t)
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
			}
			text := strings.TrimSuffix(string(sections["cmd"]), "\n")
			if text == "" {
				t.Fatal("no cmd section")
			}
			ctx := strings.TrimSpace(string(sections["ctx"]))
			c, in := fx.context(t, ctx)
			in.Text = text
			p := profile.Build(text, c)
			v := review.Assess(p, in)
			v.Digest = "(left out)"
			got := map[string][]byte{
				"profile.json": goldenJSON(t, p, fx.root),
				"verdict.json": goldenJSON(t, v, fx.root),
			}
			if *update {
				out := &txtar.Archive{Comment: ar.Comment}
				out.Files = append(out.Files, txtar.File{Name: "cmd", Data: sections["cmd"]})
				if _, ok := sections["ctx"]; ok {
					out.Files = append(out.Files, txtar.File{Name: "ctx", Data: sections["ctx"]})
				}
				out.Files = append(out.Files, txtar.File{Name: "profile.json", Data: got["profile.json"]}, txtar.File{Name: "verdict.json", Data: got["verdict.json"]})
				if err := os.WriteFile(name, txtar.Format(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, sec := range []string{"profile.json", "verdict.json"} {
				if !bytes.Equal(sections[sec], got[sec]) {
					t.Errorf("%s differs (go test ./review -run TestGolden -u rewrites it):\n--- want\n%s--- got\n%s", sec, sections[sec], got[sec])
				}
			}
		})
	}
}

func goldenJSON(t *testing.T, v any, root string) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(root), []byte("$FIXTURE"))
	return append(b, '\n')
}
