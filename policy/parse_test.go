package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

func TestParseValid(t *testing.T) {
	f := mustParse(t, User, `
		min_level = "B"

		[[rules]]
		id = "no-force"
		description = "force pushes rewrite shared history"
		command = "git push *"
		regex = '(^|\s)(-f|--force)(\s|$)'
		caps = ["publish"]
		deny = true
		message = "force-pushing is off in this account"
		examples = ["git push --force origin main"]
		not_examples = ["git push origin main"]

		[[rules]]
		id = "envs"
		paths = ["**/*.env", "~/work/**", "/srv/**"]
		require = "c"

		[[rules]]
		id = "npm"
		command = "npm run *"
		allow = true
		grant_write = ["~/.cache/npm/", "/srv/data/../out"]
		grant_net = [443, 80]
		keep_env = ["NPM_TOKEN"]
	`)
	if f.MinLevel != review.B || f.MinLevelLine != 1 {
		t.Errorf("min_level = %v at line %d", f.MinLevel, f.MinLevelLine)
	}
	if len(f.Rules) != 3 {
		t.Fatalf("got %d rules", len(f.Rules))
	}
	r := f.Rules[0]
	if r.ID != "no-force" || !r.Deny || r.Origin.Line != 3 || r.Caps[0] != profile.CapPublish {
		t.Errorf("rule 0 = %+v", r)
	}
	if got := r.Origin.String(); got != "user policy.toml:3" {
		t.Errorf("origin = %q", got)
	}
	if f.Rules[1].Require != review.C || f.Rules[1].Origin.Line != 14 {
		t.Errorf("rule 1 require = %v line %d", f.Rules[1].Require, f.Rules[1].Origin.Line)
	}
	n := f.Rules[2]
	if strings.Join(n.GrantWrite, " ") != "~/.cache/npm /srv/out" || !n.GrantNet || len(n.NetPorts) != 2 || n.KeepEnv[0] != "NPM_TOKEN" {
		t.Errorf("grants = %q %v %v %v", n.GrantWrite, n.GrantNet, n.NetPorts, n.KeepEnv)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("user file warnings: %v", f.Warnings)
	}
}

func TestParseInlineRules(t *testing.T) {
	f := mustParse(t, User, `
		rules = [
		  { id = "a", command = "ls", deny = true },
		  { id = "b", caps = ["delete"], paths = ["/srv/**"], require = "C" },
		]
	`)
	if len(f.Rules) != 2 || f.Rules[1].Require != review.C || f.Rules[1].Origin.Line != 3 {
		t.Errorf("inline rules = %+v", f.Rules)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		where      string // LINE:COL
		msg        string
	}{
		{"syntax", "[[rules]\nid = 'x'\n", "1:8", "invalid TOML: expected ']]'"},
		{"unterminated string", "min_level = \"B\n", "1:15", "invalid TOML"},
		{"duplicate key", "[[rules]]\nid = 'a'\nid = 'b'\n", "3:1", "already defined"},
		{"unknown top key", "min_level = 'B'\nmax_level = 'C'\n", "2:1", `unknown key "max_level"`},
		{"unknown rule key", "[[rules]]\nid = 'x'\ncommand = 'ls'\ndeny = true\ndenny = true\n", "5:1", `unknown key "denny" in a rule`},
		{"unknown subtable", "[[rules]]\nid = 'x'\n[rules.match]\ncommand = 'ls'\n", "3:2", `unknown key "match"`},
		{"rules as table", "[rules]\nid = 'x'\ndeny = true\ncommand = 'ls'\n", "1:2", "write [[rules]], not [rules]"},
		{"bad type bool", "[[rules]]\nid = 'x'\ncommand = 'ls'\ndeny = 'yes'\n", "4:8", "deny must be true or false"},
		{"bad type list", "[[rules]]\nid = 'x'\npaths = '*.env'\ndeny = true\n", "3:9", "paths must be an array of strings"},
		{"bad min level", "min_level = 'D'\n", "1:1", `bad level "D" for min_level`},
		{"deny is no floor", "min_level = 'deny'\n", "1:1", `bad level "deny" for min_level`},
		{"bad require", "\n[[rules]]\nid = 'x'\ncommand = 'ls'\nrequire = 'A'\n", "5:1", `bad level "A" for require (want B or C)`},
		{"no id", "[[rules]]\ncommand = 'ls'\ndeny = true\n", "1:3", "rule has no id"},
		{"bad id", "[[rules]]\nid = 'a b'\ncommand = 'ls'\ndeny = true\n", "2:1", `bad rule id "a b"`},
		{"duplicate id", "[[rules]]\nid = 'a'\ncommand = 'ls'\ndeny = true\n[[rules]]\nid = 'a'\ncommand = 'cat'\ndeny = true\n", "6:1", `rule id "a" is used twice (first at line 1)`},
		{"no match", "[[rules]]\nid = 'x'\ndeny = true\n", "1:3", "rule x matches nothing"},
		{"no effect", "[[rules]]\nid = 'x'\ncommand = 'ls'\n", "1:3", "rule x has no effect"},
		{"deny and allow", "[[rules]]\nid = 'x'\ncommand = 'ls'\ndeny = true\nallow = true\n", "1:3", "rule x combines deny and allow"},
		{"require and grant", "[[rules]]\nid = 'x'\ncommand = 'ls'\nrequire = 'B'\ngrant_net = true\n", "1:3", "rule x combines require and a grant"},
		{"regex-only allow", "[[rules]]\nid = 'x'\nregex = '^ls'\nallow = true\n", "4:1", "a regex alone cannot say"},
		{"invalid regex", "[[rules]]\nid = 'x'\nregex = '(unclosed'\ndeny = true\n", "3:1", "rule x: invalid regex: missing closing )"},
		{"invalid glob", "[[rules]]\nid = 'x'\npaths = ['ok/**', 'bad/[x']\ndeny = true\n", "3:19", `rule x: invalid glob "bad/[x"`},
		{"tilde user", "[[rules]]\nid = 'x'\npaths = ['~root/x']\ndeny = true\n", "3:10", "only ~ and ~/"},
		{"empty paths", "[[rules]]\nid = 'x'\npaths = []\ndeny = true\n", "3:1", "paths is empty"},
		{"unknown cap", "[[rules]]\nid = 'x'\ncaps = ['delete',\n  'nuke']\ndeny = true\n", "4:3", `rule x: unknown cap "nuke"`},
		{"invalid command pattern", "[[rules]]\nid = 'x'\ncommand = 'git [push'\ndeny = true\n", "3:1", "invalid command pattern"},
		{"empty command", "[[rules]]\nid = 'x'\ncommand = '  '\ndeny = true\n", "3:1", "command is empty"},
		{"relative grant", "[[rules]]\nid = 'x'\ncommand = 'ls'\ngrant_write = ['build']\n", "4:16", "must be absolute"},
		{"glob grant", "[[rules]]\nid = 'x'\ncommand = 'ls'\ngrant_write = ['/srv/*']\n", "4:16", "not a glob"},
		{"root grant", "[[rules]]\nid = 'x'\ncommand = 'ls'\ngrant_write = ['/usr/..']\n", "4:16", "whole file system"},
		{"bad port", "[[rules]]\nid = 'x'\ncommand = 'ls'\ngrant_net = [443, 70000]\n", "4:1", "70000 is not a port"},
		{"bad grant_net", "[[rules]]\nid = 'x'\ncommand = 'ls'\ngrant_net = 'yes'\n", "4:1", "bad grant_net"},
		{"bad env", "[[rules]]\nid = 'x'\ncommand = 'ls'\nkeep_env = ['A-B']\n", "4:13", `bad variable name "A-B"`},
		{"empty example", "[[rules]]\nid = 'x'\ncommand = 'ls'\ndeny = true\nexamples = ['ls', '']\n", "5:19", "example 2 is empty"},
		{"inline rule bad cap", "rules = [\n  { id = 'a', command = 'ls', deny = true },\n  { id = 'b', caps = ['nosuch'], deny = true },\n]\n", "3:23", `unknown cap "nosuch"`},
		{"invalid utf8", "min_level = 'B'\n# \xff\n", "2:3", "invalid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/cfg/policy.toml", []byte(tc.text), User)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *policy.Error", err)
			}
			want := "/cfg/policy.toml:" + tc.where + ": "
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got  %q\nwant %q…%q", err, want, tc.msg)
			}
			if pe.Hint == "" {
				t.Errorf("no hint for %q", err)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	_, err := Parse("/cfg/policy.toml", make([]byte, MaxFileSize+1), User)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v", err)
	}
}

func TestParseProjectLoosening(t *testing.T) {
	f := mustParse(t, Project, `
		[[rules]]
		id = "lets-push"
		command = "git push *"
		allow = true

		[[rules]]
		id = "net"
		command = "make *"
		grant_net = true
		grant_write = ["~/.cache/x"]
		keep_env = ["TOKEN"]

		[[rules]]
		id = "no-deploy"
		command = "make deploy"
		deny = true
	`)
	var got []string
	for _, w := range f.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		".guard.toml:4: rule lets-push: allow is ignored in a project policy (a cloned repository cannot loosen guard)",
		".guard.toml:9: rule net: grant_net is ignored in a project policy (a cloned repository cannot loosen guard)",
		".guard.toml:10: rule net: grant_write is ignored in a project policy (a cloned repository cannot loosen guard)",
		".guard.toml:11: rule net: keep_env is ignored in a project policy (a cloned repository cannot loosen guard)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDefaultPolicy(t *testing.T) {
	d := Default()
	if d.Scope != Builtin || len(d.Rules) != 0 || d.MinLevel != 0 {
		t.Errorf("default policy = %+v; docs/policy.md says it is empty", d)
	}
}

func TestCompileWord(t *testing.T) {
	for _, tc := range []struct {
		pat, word string
		want      bool
	}{
		{"push", "push", true},
		{"push", "pushx", false},
		{"-f*", "-fq", true},
		{"--force*", "--force-with-lease", true},
		{"https://*", "https://example.com/x", true},
		{"?", "a", true},
		{"?", "ab", false},
		{"[ab]", "b", true},
		{"[!ab]", "b", false},
		{"[^ab]", "c", true},
		{"[a-c]x", "bx", true},
		{"[]]", "]", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"a.b", "axb", false},
		{"é*", "éa", true},
	} {
		wp, err := compileWord(tc.pat)
		if err != nil {
			t.Errorf("%q: %v", tc.pat, err)
			continue
		}
		if got := wp.matchWord(tc.word, false); got != tc.want {
			t.Errorf("%q ~ %q = %v, want %v", tc.pat, tc.word, got, tc.want)
		}
	}
	for _, bad := range []string{"[abc", `x\`} {
		if _, err := compileWord(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// FuzzParse: no input makes Parse panic, and what it accepts is a valid
// policy whose rules can be evaluated.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"min_level = 'B'\n[[rules]]\nid = 'a'\ncommand = 'git push *'\ndeny = true\n",
		"[[rules]]\nid = 'a'\npaths = ['**/*.env']\ncaps = ['delete']\nallow = true\ngrant_net = [443]\n",
		"rules = [{ id = 'x', regex = '^ls', require = 'C', examples = ['ls'] }]\n",
		"[[rules]\n", "[rules]\nid = 1\n", "a.b.c = [[1], {x = 2}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("/cfg/policy.toml", data, User)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not a *policy.Error", err)
			}
			return
		}
		p := &Policy{Files: []*File{file}}
		for _, text := range []string{"git push --force origin main", "cd sub && rm ../x.env"} {
			run(t, p, text)
		}
	})
}
