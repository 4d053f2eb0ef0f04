package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestMatchKinds checks each kind of match on its own and combined.
func TestMatchKinds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rule  string
		yes   []string
		no    []string
		where func(*review.Input)
	}{
		{"command", `command = "git push *"`,
			[]string{"git push", "git push origin main", "/usr/bin/git push -f", "sudo git push", "bash -c 'git push origin'", "F=x; git push $F", "git status && git push"},
			[]string{"git status", "git -C sub push", "echo git push", "git commit -m 'git push'", "gitx push"}, nil},
		{"command literal", `command = "make deploy"`,
			[]string{"make deploy", "cd sub && make deploy"},
			[]string{"make deploy prod", "make", "make test"}, nil},
		{"command star between", `command = "git * push *"`,
			[]string{"git push", "git -C sub push origin"},
			[]string{"git status"}, nil},
		{"command word glob", `command = "curl https://*.internal/*"`,
			[]string{"curl https://api.internal/x"},
			[]string{"curl https://example.com/x"}, nil},
		{"command path", `command = "./scripts/*.sh *"`,
			[]string{"./scripts/gen.sh", "./scripts/gen.sh a b"},
			[]string{"scripts/gen.sh", "./tools/gen.sh"}, nil},
		{"command any program", `command = "* --force *"`,
			[]string{"git push --force", "helm upgrade --force x"},
			[]string{"git push -f"}, nil},
		{"regex", `regex = '--force\b'`,
			[]string{"git push --force", "echo --force"},
			[]string{"git push -f"}, nil},
		{"paths workspace-relative", `paths = ["config/*.yml"]`,
			[]string{"rm config/a.yml", "cat config/a.yml", "cd config && rm a.yml"},
			[]string{"rm other/config/a.yml", "rm /etc/config/a.yml", "rm config/sub/a.yml"}, nil},
		{"paths anywhere", `paths = ["**/*.env"]`,
			[]string{"rm x.env", "cat deep/dir/x.env", "rm ~/x.env", "cd sub && rm ../x.env", "echo hi > /tmp/a.env"},
			[]string{"rm x.envy", "cat x.txt", "echo x.env", "git commit -m x.env", "curl https://e.com/x.env"}, nil},
		{"paths tilde", `paths = ["~/work/**"]`,
			[]string{"rm -rf ~/work/a", "cat $HOME/work/b", "cd ~ && rm work/c", "rm ~/work"},
			[]string{"rm -rf ~/works/a", "rm -rf /work/a"}, nil},
		{"paths absolute", `paths = ["/srv/**"]`,
			[]string{"rm /srv/x", "cd /srv && rm x"},
			[]string{"rm srv/x"}, nil},
		{"caps", `caps = ["delete", "send"]`,
			[]string{"rm x", "git push", "git clean -fd"},
			[]string{"git status", "cat x", "curl https://e.com"}, nil},
		{"caps by class", `caps = ["secrets"]`,
			[]string{"cat ~/.ssh/id_rsa", "gpg --export-secret-keys"},
			[]string{"cat README.md"}, nil},
		{"caps self", `caps = ["self"]`,
			[]string{"guard config set x", "touch ~/.config/guard/policy.toml"},
			[]string{"guard check ls"}, nil},
		{"command and caps", `command = "rm *"` + "\n" + `caps = ["delete"]`,
			[]string{"rm x"},
			[]string{"git clean -fd", "rm"}, nil},
		{"command and paths", `command = "rm *"` + "\n" + `paths = ["**/*.env"]`,
			[]string{"rm x.env", "cd sub && rm ../x.env"},
			[]string{"cat x.env", "rm x.txt", "rm x.txt; cat y.env"}, nil},
		{"caps and paths", `caps = ["write"]` + "\n" + `paths = ["**/*.lock"]`,
			[]string{"echo x > a.lock", "touch a.lock"},
			[]string{"cat a.lock", "touch a.txt"}, nil},
		{"regex and command", `command = "git push *"` + "\n" + `regex = 'origin\s+main'`,
			[]string{"git push origin main"},
			[]string{"git push origin dev", "git status # origin main"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pol(t, "[[rules]]\nid = \"r\"\nrequire = \"C\"\n"+tc.rule+"\n", "")
			r := p.Rules()[0]
			for _, text := range tc.yes {
				if _, out := run(t, p, text); len(out.Matches) != 1 {
					t.Errorf("%q: no match", text)
				}
				if !r.Matches(buildFor(text), text, testCtx()) {
					t.Errorf("%q: Rule.Matches false", text)
				}
			}
			for _, text := range tc.no {
				if _, out := run(t, p, text); len(out.Matches) != 0 {
					t.Errorf("%q: matched", text)
				}
			}
		})
	}
}

// TestEffects checks each effect and how it moves the level.
func TestEffects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		text   string
		from   review.Level
		want   review.Level
		match  string // Match.String()
	}{
		{"deny", `
			[[rules]]
			id = "no-push"
			command = "git push *"
			deny = true
			message = "pushing is done by CI"`,
			"git push origin main", review.B, review.Deny, "rule no-push (user policy.toml:1) denied it (was B)"},
		{"require raises", `
			[[rules]]
			id = "careful-push"
			command = "git push *"
			require = "C"`,
			"git push origin main", review.B, review.C, "rule careful-push (user policy.toml:1) raised B → C"},
		{"require never lowers", `
			[[rules]]
			id = "b-for-delete"
			caps = ["delete"]
			require = "B"`,
			"rm -rf ~", review.C, review.C, "rule b-for-delete (user policy.toml:1) matched; the level stays C"},
		{"allow lowers", `
			[[rules]]
			id = "push-main"
			command = "git push origin main"
			allow = true`,
			"git push origin main", review.B, review.A, "rule push-main (user policy.toml:1) lowered B → A"},
		{"allow lowers C", `
			[[rules]]
			id = "publish"
			command = "npm publish"
			allow = true`,
			"npm publish", review.C, review.A, "rule publish (user policy.toml:1) lowered C → A"},
		{"floor", `min_level = "B"`, "ls", review.A, review.B, "min_level B (user policy.toml:1) raised A → B"},
		{"floor below level", `min_level = "B"`, "rm -rf ~", review.C, review.C, ""},
		{"grant", `
			[[rules]]
			id = "cache"
			command = "make *"
			grant_write = ["~/.cache/tool"]
			grant_net = true`,
			"make all", review.A, review.A, "rule cache (user policy.toml:1) granted write access to /home/u/.cache/tool, network access"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pol(t, tc.policy, "")
			v, out := run(t, p, tc.text)
			if v.Level != tc.from {
				t.Fatalf("review gave %s, test expects %s", v.Level, tc.from)
			}
			if out.Verdict.Level != tc.want {
				t.Errorf("level %s, want %s; reasons %v", out.Verdict.Level, tc.want, ruleIDs(out.Verdict))
			}
			var got []string
			for _, m := range out.Matches {
				got = append(got, m.String())
			}
			if strings.Join(got, "\n") != tc.match {
				t.Errorf("matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), tc.match)
			}
			if tc.match == "" {
				if !reflect.DeepEqual(out.Verdict, v) {
					t.Errorf("no match changed the verdict")
				}
				return
			}
			if out.Verdict.Digest == v.Digest {
				t.Errorf("digest not recomputed")
			}
			if out.Verdict.Digest != review.Digest(review.Input{Text: tc.text, Context: testCtx(), Provenance: review.ProvAgent}, out.Verdict) {
				t.Errorf("digest does not seal the adjusted verdict")
			}
			if !strings.HasPrefix(out.Verdict.Explanation, "Level "+tc.want.String()+": ") || !strings.Contains(out.Verdict.Explanation, "Policy:\n  - "+tc.match+"\n") {
				t.Errorf("explanation:\n%s", out.Verdict.Explanation)
			}
		})
	}
}

func TestDenyReason(t *testing.T) {
	p := pol(t, `
		[[rules]]
		id = "no-push"
		description = "pushing is done by CI"
		command = "git push *"
		deny = true
	`, "")
	_, out := run(t, p, "git status && git push origin main")
	r := out.Verdict.Reasons[0]
	if r.Rule != "policy.no-push" || r.Level != review.Deny || r.Message != "denied by your user policy: pushing is done by CI" {
		t.Errorf("first reason = %+v", r)
	}
	if got := "git status && git push origin main"[r.Pos:r.End]; got != "git push origin main" {
		t.Errorf("reason points at %q", got)
	}
	if !strings.HasPrefix(out.Verdict.Explanation, "Level deny: refused by policy.\n") {
		t.Errorf("explanation: %s", out.Verdict.Explanation)
	}
}

// TestPrecedence: deny beats require beats allow; the highest level wins.
func TestPrecedence(t *testing.T) {
	allow := "[[rules]]\nid = \"allow-push\"\ncommand = \"git push *\"\nallow = true\n"
	require := "[[rules]]\nid = \"req-push\"\ncommand = \"git push *\"\nrequire = \"C\"\n"
	requireB := "[[rules]]\nid = \"req-b\"\ncaps = [\"send\"]\nrequire = \"B\"\n"
	deny := "[[rules]]\nid = \"deny-push\"\ncommand = \"git push *\"\ndeny = true\n"
	for _, tc := range []struct {
		name, user, project string
		want                review.Level
	}{
		{"allow alone", allow, "", review.A},
		{"require beats allow", allow + require, "", review.C},
		{"require beats allow in any order", require + allow, "", review.C},
		{"highest require wins", requireB + require, "", review.C},
		{"deny beats allow", allow + deny, "", review.Deny},
		{"deny beats require", require + deny, "", review.Deny},
		{"project require beats user allow", allow, require, review.C},
		{"project deny beats user allow", allow, deny, review.Deny},
		{"project floor beats user allow", allow, `min_level = "B"`, review.B},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pol(t, tc.user, tc.project)
			_, out := run(t, p, "git push origin main")
			if out.Verdict.Level != tc.want {
				t.Errorf("level %s, want %s; %v", out.Verdict.Level, tc.want, ruleIDs(out.Verdict))
			}
			if out.LoweredFromB != (tc.want == review.A) {
				t.Errorf("LoweredFromB = %v", out.LoweredFromB)
			}
		})
	}
}

// TestProjectCannotLoosen: a project's allow and grants are ignored; its
// deny, require and floor hold.
func TestProjectCannotLoosen(t *testing.T) {
	p := pol(t, "", `
		[[rules]]
		id = "lets-push"
		command = "git push *"
		allow = true
		examples = ["git push origin main"]

		[[rules]]
		id = "net"
		command = "make *"
		grant_net = true
		grant_write = ["/srv"]
		keep_env = ["TOKEN"]

		[[rules]]
		id = "no-rm-env"
		command = "rm *"
		paths = ["**/*.env"]
		deny = true
	`)
	if len(p.Warnings()) != 4 {
		t.Errorf("warnings = %v", p.Warnings())
	}
	if _, out := run(t, p, "git push origin main"); out.Verdict.Level != review.B || len(out.Matches) != 0 || out.LoweredFromB {
		t.Errorf("project allow applied: %s %v", out.Verdict.Level, out.Matches)
	}
	v, out := run(t, p, "make all")
	if !reflect.DeepEqual(out.Verdict, v) || out.KeepEnv != nil {
		t.Errorf("project grant applied: %+v", out.Verdict.Sandbox)
	}
	if _, out := run(t, p, "cd sub && rm ../x.env"); out.Verdict.Level != review.Deny {
		t.Errorf("project deny not honoured: %s", out.Verdict.Level)
	}
	if got := out.Verdict.Level; got != review.A {
		t.Errorf("make all = %s", got)
	}
}

// TestAllowNeverLowers: guard-self, terminal injection, analysis failures,
// untrusted text and the caller's floor stay where they are.
func TestAllowNeverLowers(t *testing.T) {
	for _, tc := range []struct {
		name, rule, text string
		opts             []opt
		want             review.Level
	}{
		{"guard self", `command = "guard *"`, "guard config set x", nil, review.C},
		{"guard files", `command = "touch *"`, "touch ~/.config/guard/policy.toml", nil, review.C},
		{"guard files by path", `paths = ["~/**"]`, "touch ~/.config/guard/policy.toml", nil, review.C},
		{"inject", `command = "tmux *"`, "tmux send-keys -t 0 y Enter", nil, review.C},
		{"inject by caps", `caps = ["inject"]`, "tmux send-keys -t 0 y Enter", nil, review.C},
		{"another terminal", `caps = ["write"]`, "echo y > /dev/pts/3", nil, review.C},
		{"unparsed", `caps = ["unparsed"]`, "git log &&& rm -rf /", nil, review.C},
		{"untrusted", `command = "git push *"`, "git push origin main", []opt{untrusted}, review.C},
		{"untrusted C", `command = "git push *"`, "git push --force origin main", []opt{untrusted}, review.C},
		{"untrusted A stays B", `command = "ls *"`, "ls", []opt{untrusted}, review.B},
		{"caller floor", `command = "git push *"`, "git push origin main", []opt{minLevel(review.B)}, review.B},
		{"caller floor over C", `command = "git push *"`, "git push --force origin main", []opt{minLevel(review.B)}, review.B},
		{"widened sandbox", `command = "ls *"`, "ls", []opt{widenNet}, review.B},
		{"other commands", `command = "npm *"`, "npm test && rm -rf ~", nil, review.C},
		{"wrapper", `command = "git push *"`, "sudo git push origin main", nil, review.C},
		{"redirect", `command = "echo *"`, "echo hi > ~/notes.txt", nil, review.B},
		{"unresolved word", `command = "git push origin *"`, "git push origin $REF", nil, review.C},
		{"ambiguous owner", `command = "git status"`, "bash -c 'git status; git push origin main'", nil, review.B},
		{"unresolved path", `paths = ["~/scratch/**"]` + "\n" + `caps = ["delete"]`, "rm -rf $DIR", nil, review.C},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pol(t, "[[rules]]\nid = \"r\"\nallow = true\n"+tc.rule+"\n", "")
			_, out := run(t, p, tc.text, tc.opts...)
			if out.Verdict.Level != tc.want {
				t.Errorf("level %s, want %s; %v", out.Verdict.Level, tc.want, ruleIDs(out.Verdict))
			}
			if out.LoweredFromB {
				t.Errorf("LoweredFromB set")
			}
		})
	}
}

// TestAllowCovers: what an allow does lower.
func TestAllowCovers(t *testing.T) {
	for _, tc := range []struct {
		name, rule, text string
		want             review.Level
	}{
		{"both commands", "command = \"git push *\"\n[[rules]]\nid = \"r2\"\nallow = true\ncaps = [\"delete\"]\npaths = [\"build/**\"]", "rm -rf build && git push origin main", review.A},
		{"one of two", `command = "git push *"`, "rm -rf build && git push origin main", review.B},
		{"nested", `command = "git push *"`, "bash -c 'git push origin main'", review.A},
		{"resolved variable", `command = "git push origin *"`, "R=main; git push origin $R", review.A},
		{"paths", `paths = ["/tmp/**"]` + "\n" + `caps = ["delete"]`, "rm -rf /tmp/x", review.A},
		{"reveal", `paths = ["**/.env"]`, "cat .env", review.A},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pol(t, "[[rules]]\nid = \"r\"\nallow = true\n"+tc.rule+"\n", "")
			v, out := run(t, p, tc.text)
			if out.Verdict.Level != tc.want {
				t.Errorf("level %s (from %s), want %s; %v", out.Verdict.Level, v.Level, tc.want, ruleIDs(out.Verdict))
			}
			if out.LoweredFromB != (v.Level == review.B && tc.want == review.A) {
				t.Errorf("LoweredFromB = %v", out.LoweredFromB)
			}
		})
	}
}

func TestGrants(t *testing.T) {
	p := pol(t, `
		[[rules]]
		id = "tool"
		command = "make *"
		grant_write = ["~/.cache/tool", "/srv/out", "~/.config/guard/x", "~/.config"]
		grant_net = [443]
		keep_env = ["NPM_TOKEN", "GH_TOKEN"]

		[[rules]]
		id = "tool2"
		command = "make *"
		grant_net = [80, 443]
	`, "")
	v, out := run(t, p, "make all")
	sb := out.Verdict.Sandbox
	if want := []string{"/home/u/.cache/tool", "/srv/out"}; !reflect.DeepEqual(sb.ExtraWrite, want) {
		t.Errorf("ExtraWrite = %q, want %q (never guard's own dirs)", sb.ExtraWrite, want)
	}
	if !sb.Net || v.Sandbox.Net {
		t.Errorf("Net = %v (was %v)", sb.Net, v.Sandbox.Net)
	}
	if !reflect.DeepEqual(out.NetPorts, []int{80, 443}) || !reflect.DeepEqual(out.KeepEnv, []string{"GH_TOKEN", "NPM_TOKEN"}) {
		t.Errorf("ports %v env %v", out.NetPorts, out.KeepEnv)
	}
	if out.Verdict.Level != review.A || !strings.Contains(out.Verdict.Explanation, "Sandbox: reads files except secrets and guard's own; writes the workspace, temp dirs, tool caches and /home/u/.cache/tool, /srv/out; network on") {
		t.Errorf("explanation:\n%s", out.Verdict.Explanation)
	}
	// A command that needs the network anyway has no port list.
	if _, out := run(t, p, "make all && curl https://e.com"); out.NetPorts != nil {
		t.Errorf("NetPorts = %v with a fetch", out.NetPorts)
	}
	// Grants follow the match.
	if _, out := run(t, p, "ls"); out.Verdict.Sandbox.Net || len(out.Matches) != 0 {
		t.Errorf("grant applied to ls")
	}
}

// TestApplyDeterministic: the same inputs give the same outcome.
func TestApplyDeterministic(t *testing.T) {
	p := pol(t, `
		min_level = "B"
		[[rules]]
		id = "a"
		caps = ["delete"]
		require = "C"
		[[rules]]
		id = "b"
		command = "git push *"
		allow = true
	`, "[[rules]]\nid = \"c\"\nregex = 'prod'\ndeny = true\n")
	text := "git push origin main && rm -rf build && echo prod"
	_, a := run(t, p, text)
	for i := 0; i < 20; i++ {
		if _, b := run(t, p, text); !reflect.DeepEqual(a, b) {
			t.Fatalf("outcomes differ:\n%+v\n%+v", a, b)
		}
	}
	if a.Verdict.Level != review.Deny || len(a.Matches) != 3 {
		t.Errorf("level %s, %d matches", a.Verdict.Level, len(a.Matches))
	}
}

func TestApplyNilPolicy(t *testing.T) {
	v, out := run(t, nil, "rm -rf build")
	if !reflect.DeepEqual(v, out.Verdict) || out.Matches != nil {
		t.Errorf("nil policy changed the verdict")
	}
}
