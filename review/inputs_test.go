package review_test

import (
	"io/fs"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// memContext is a context whose files live in a map, so a test can change
// a script between two reviews without touching any disk.
func memContext(files map[string]string) *profile.Context {
	return &profile.Context{
		Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
		Env: map[string]string{"TMPDIR": "/tmp"},
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		EvalSymlinks: func(p string) (string, error) { return p, nil },
	}
}

// Principle 6: an approval is bound to the content of every file the
// review read. The same command text over a changed script is a different
// review, even when the level and reasons stay the same.
func TestDigestBindsInputs(t *testing.T) {
	files := map[string]string{
		"/home/u/proj/build.sh":     "go build ./...\n",
		"/home/u/proj/package.json": `{"scripts":{"test":"go test ./..."}}`,
	}
	for _, text := range []string{"sh build.sh", "./build.sh", "npm test", "cat build.sh | sh", "source build.sh"} {
		t.Run(text, func(t *testing.T) {
			verdict := func() review.Verdict {
				c := memContext(files)
				in := review.Input{Text: text, Context: c, Provenance: review.ProvAgent}
				return review.Assess(profile.Build(text, c), in)
			}
			old := files["/home/u/proj/build.sh"]
			oldPkg := files["/home/u/proj/package.json"]
			defer func() {
				files["/home/u/proj/build.sh"] = old
				files["/home/u/proj/package.json"] = oldPkg
			}()
			v1 := verdict()
			if len(v1.Inputs) == 0 {
				t.Fatalf("no inputs recorded for %q", text)
			}
			if v2 := verdict(); v2.Digest != v1.Digest {
				t.Fatalf("digest not stable: %s vs %s", v1.Digest, v2.Digest)
			}
			// Same level, same rules, different bytes.
			files["/home/u/proj/build.sh"] = "go vet ./...\n"
			files["/home/u/proj/package.json"] = `{"scripts":{"test":"go vet ./..."}}`
			v3 := verdict()
			if v3.Level != v1.Level {
				t.Fatalf("level changed %s → %s; the test wants the same level", v1.Level, v3.Level)
			}
			if v3.Digest == v1.Digest {
				t.Errorf("%q: digest unchanged after the file it reads changed", text)
			}
		})
	}
}

// A script that could not be read is recorded as absent: creating it
// later changes the review.
func TestDigestBindsAbsentScript(t *testing.T) {
	files := map[string]string{}
	text := "sh missing.sh"
	c := memContext(files)
	in := review.Input{Text: text, Context: c, Provenance: review.ProvAgent}
	v1 := review.Assess(profile.Build(text, c), in)
	if len(v1.Inputs) != 1 || v1.Inputs[0].Sum != "absent" {
		t.Fatalf("inputs = %+v, want the script recorded as absent", v1.Inputs)
	}
	files["/home/u/proj/missing.sh"] = "rm -rf build\n"
	v2 := review.Assess(profile.Build(text, c), in)
	if v2.Digest == v1.Digest {
		t.Error("digest unchanged after the missing script appeared")
	}
}
