package policy

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		err        string // "" = loads
	}{
		{"passing", `
			[[rules]]
			id = "no-force"
			command = "git push *"
			caps = ["publish"]
			deny = true
			examples = ["git push --force origin main", "F=-f; git push $F"]
			not_examples = ["git push origin main", "git status", "echo git push --force"]`, ""},
		{"allow examples are judged as allow", `
			[[rules]]
			id = "push"
			command = "git push origin *"
			allow = true
			examples = ["git push origin main"]
			not_examples = ["git push origin $UNKNOWN"]`, ""},
		{"failing example", `
			[[rules]]
			id = "no-force"
			command = "git push --force *"
			deny = true
			examples = [
			  "git push --force origin main",
			  "git push -f origin main",
			]`,
			`/cfg/policy.toml:7:3: rule no-force: example "git push -f origin main" does not match`},
		{"failing not_example", `
			[[rules]]
			id = "envs"
			paths = ["**/*.env"]
			require = "C"
			not_examples = ["cat README.md", "cd sub && cat ../x.env"]`,
			`/cfg/policy.toml:5:34: rule envs: not_example "cd sub && cat ../x.env" matches`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(testCtx(), Source{Path: "/cfg/policy.toml", Data: []byte(dedent(tc.text)), Scope: User})
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("load: %v", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("got  %v\nwant %s", err, tc.err)
			}
			var pe *Error
			if err != nil && (!errors.As(err, &pe) || !strings.Contains(pe.Hint, "guard check --explain")) {
				t.Errorf("error %v has no hint", err)
			}
		})
	}
}

// TestLoadAllOrNothing: one bad file fails the whole policy.
func TestLoadAllOrNothing(t *testing.T) {
	good := Source{Path: "/cfg/policy.toml", Data: []byte("[[rules]]\nid = 'a'\ncommand = 'ls'\ndeny = true\n"), Scope: User}
	bad := Source{Path: "/w/.guard.toml", Data: []byte("[[rules]]\nid = 'b'\ncommand = 'rm *'\ndeny = true\nexamples = ['ls']\n"), Scope: Project}
	p, err := Load(testCtx(), good, bad)
	if p != nil || err == nil || !strings.HasPrefix(err.Error(), "/w/.guard.toml:5:") {
		t.Fatalf("got %v, %v", p, err)
	}
	p, err = Load(testCtx(), good)
	if err != nil || len(p.Files) != 2 || p.Files[0].Scope != Builtin || len(p.Rules()) != 1 {
		t.Fatalf("got %+v, %v", p, err)
	}
}

func TestCheckCounts(t *testing.T) {
	f := mustParse(t, User, `
		[[rules]]
		id = "a"
		command = "ls *"
		deny = true
		examples = ["ls", "ls -la"]
		not_examples = ["cat x"]
	`)
	n, err := f.Check(testCtx())
	if err != nil || n != 3 {
		t.Errorf("Check = %d, %v", n, err)
	}
}

// TestExamplePolicies: the example files in testdata/policy load and their
// self-tests pass, so the documentation stays true.
func TestExamplePolicies(t *testing.T) {
	for _, f := range []struct {
		name  string
		scope Scope
	}{{"user.toml", User}, {".guard.toml", Project}} {
		src := "../testdata/policy/user.toml"
		if f.scope == Project {
			src = "../testdata/policy/project.toml"
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load(testCtx(), Source{Path: "/cfg/" + f.name, Data: data, Scope: f.scope})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if len(p.Warnings()) != 0 {
			t.Errorf("%s: warnings %v", src, p.Warnings())
		}
	}
}
