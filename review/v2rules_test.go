package review_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestCorpusV2Rules checks the rule column of the v2-*.tsv corpus files:
// LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES[<TAB># note]. Every listed rule must
// be among the verdict's reasons ("-": an A case with no reasons). The
// merged corpus test reads the same column for every file; this one keeps
// the v2 files honest until then.
func TestCorpusV2Rules(t *testing.T) {
	fx := newFixture(t)
	files, _ := filepath.Glob("../testdata/corpus/v2-*.tsv")
	if len(files) == 0 {
		t.Skip("no v2 corpus files")
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if len(cols) < 4 {
				t.Errorf("%s:%d: want LEVEL<TAB>CTX<TAB>COMMAND<TAB>RULES", filepath.Base(name), n)
				continue
			}
			want, err := review.ParseLevel(cols[0])
			if err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			cs := corpusCase{where: filepath.Base(name), want: want, ctx: cols[1], text: cols[2]}
			v := assess(fx, t, cs)
			got := map[string]bool{}
			var rs []string
			for _, r := range v.Reasons {
				got[r.Rule] = true
				rs = append(rs, r.Rule+"("+r.Level.String()+"): "+r.Message)
			}
			if v.Level != want {
				t.Errorf("%s:%d: %s\n\tgot %s, want %s\n\t%s", filepath.Base(name), n, cs.text, v.Level, want, strings.Join(rs, "\n\t"))
				continue
			}
			if cols[3] == "-" {
				if want == review.A && len(v.Reasons) > 0 {
					t.Errorf("%s:%d: %s: want no reasons, got %s", filepath.Base(name), n, cs.text, strings.Join(rs, "; "))
				}
				continue
			}
			for _, id := range strings.Split(cols[3], ",") {
				if !got[id] {
					t.Errorf("%s:%d: %s: rule %s missing; reasons:\n\t%s", filepath.Base(name), n, cs.text, id, strings.Join(rs, "\n\t"))
				}
			}
		}
		f.Close()
	}
}
