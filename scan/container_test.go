package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// engineReview is the real engine without policy: profile then review,
// with a context that knows no files (no symlinks, no scripts).
func engineReview(text, workspace, cwd string) (Review, error) {
	ctx := &profile.Context{Cwd: cwd, Workspace: workspace, Home: "/home/u", User: "u",
		Env: map[string]string{"TMPDIR": "/tmp", "USER": "u"}, ConfigDir: "/home/u/.config/guard", StateDir: "/home/u/.local/state/guard"}
	p := profile.Build(text, ctx)
	v := review.Assess(p, review.Input{Text: text, Context: ctx, Provenance: review.ProvFile})
	return Review{Verdict: v, Effects: p.Effects}, nil
}

// containerCommands are reviewed as RUN lines of a Dockerfile and as lines
// of a script: in the image they cost want, on this machine C.
var containerCommands = []struct {
	cmd   string
	want  review.Level
	rules string // the rules lowered to B, or the rule that keeps C
}{
	{"apt-get update && apt-get install -y --no-install-recommends curl ca-certificates", review.B, "sys.packages"},
	{"rm -rf /var/lib/apt/lists/*", review.B, "fs.delete"},
	{`echo "en_US.UTF-8 UTF-8" > /etc/locale.gen`, review.B, "redirect.write"},
	{"useradd -m app", review.B, "priv.users"},
	{"mkdir -p /opt/app", review.B, "fs.mkdir"},
	{"sudo ldconfig", review.B, "priv.sudo sys.config"},
	{"sed -i 's/a/b/' /etc/ssh/sshd_config", review.B, "sed.in-place"},
	{"curl -fsSL https://get.example.com | sh", review.C, "exec.pipe-to-shell"},
	{"cat /etc/shadow", review.C, "fs.read"},
	{"echo 'export X=1' >> /etc/profile.d/x.sh", review.C, "redirect.write"},
	{"echo 1 > /proc/sys/net/ipv4/ip_forward", review.C, "redirect.write"},
	{"systemctl enable nginx", review.C, "sys.service"},
}

func TestContainer(t *testing.T) {
	root := t.TempDir()
	for _, tc := range containerCommands {
		t.Run(tc.cmd, func(t *testing.T) {
			docker := "FROM debian:bookworm\nRUN " + tc.cmd + "\n"
			r, err := Run(Options{Root: root, Review: engineReview}, []File{
				{Path: "Dockerfile", Src: []byte(docker)},
				{Path: "x.sh", Src: []byte(tc.cmd + "\n")},
			})
			if err != nil {
				t.Fatal(err)
			}
			in, host := review.Level(0), review.Level(0)
			lowered := map[string]bool{}
			var expl string
			for _, f := range r.Findings {
				switch f.Path {
				case "Dockerfile":
					in = review.Max(in, f.Level)
					expl = f.Explanation
					if f.Adjusted != nil {
						if f.Adjusted.Rule != RuleContainer || f.Adjusted.From != review.C || f.Level != review.B || f.Adjusted.Why == "" {
							t.Errorf("adjusted %+v to %s", f.Adjusted, f.Level)
						}
						lowered[f.Rule] = true
					} else if f.Level == review.C && !strings.Contains(tc.rules, f.Rule) {
						t.Errorf("%s stays C", f.Rule)
					}
				case "x.sh":
					host = review.Max(host, f.Level)
					if f.Adjusted != nil {
						t.Errorf("a script is adjusted: %+v", f)
					}
				}
			}
			if host != review.C {
				t.Errorf("on this machine: %s, want C", host)
			}
			if in != tc.want {
				t.Errorf("in the image: %s, want %s\n%s", in, tc.want, expl)
			}
			if tc.want == review.B {
				for _, rule := range strings.Fields(tc.rules) {
					if !lowered[rule] {
						t.Errorf("%s not lowered (lowered: %v)", rule, lowered)
					}
				}
				if !strings.HasPrefix(expl, "Level B: needs your consent.\n") ||
					!strings.Contains(expl, "\nIn the image (scan-container): ") ||
					!strings.Contains(expl, ": C → B, ") {
					t.Errorf("explanation:\n%s", expl)
				}
			} else if len(lowered) == 0 && strings.Contains(expl, RuleContainer) {
				t.Errorf("explanation mentions %s with nothing lowered:\n%s", RuleContainer, expl)
			}
		})
	}
}

// TestContainerFixture reviews the fixture's Dockerfile with the engine:
// the packages it installs and the system paths it changes are the
// image's (B); the installer piped from the network into sh is still C.
func TestContainerFixture(t *testing.T) {
	files, err := Files(fixture, []string{filepath.Join(fixture, "Dockerfile")}, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(Options{Root: fixture, Review: engineReview}, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		s := fmt.Sprintf("%d %s %s", f.Line, f.Level, f.Rule)
		if f.Adjusted != nil {
			s += " from " + f.Adjusted.From.String()
		}
		got = append(got, s)
	}
	want := []string{
		"3 B sys.packages from C",
		"5 B sys.packages from C", // apt-get update, then apt-get install: each a finding
		"7 B fs.delete from C",
		"8 C exec.pipe-to-shell",
		"8 B net.fetch",
		"11 B fs.delete",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if over := r.Exceeding(review.B); len(over) != 1 || over[0].Rule != "exec.pipe-to-shell" {
		t.Errorf("exceeding B: %+v", over)
	}
}

// TestContainerKeepsPolicy: a policy rule's reason is not lowered, and a
// reason an allow rule already lowered is not raised back.
func TestContainerKeepsPolicy(t *testing.T) {
	e := profile.Effect{Cap: profile.CapSystem, Rule: "sys.packages", Program: "apt-get", Msg: "installs"}
	rv := Review{Verdict: review.Verdict{Level: review.C, Explanation: "Level C: needs your consent and your PIN.\nSandbox: x\n",
		Reasons: []review.Reason{
			{Rule: "policy.no-apt", Level: review.C, Message: "installs"},
			{Rule: "sys.packages", Level: review.C, Message: "installs"},
		}}, Effects: []profile.Effect{e}}
	v, adj := inImage.apply(rv)
	if v.Level != review.C || adj[0] != nil || adj[1] == nil || v.Reasons[1].Level != review.B {
		t.Errorf("verdict %+v, adjustments %+v", v, adj)
	}
	if rv.Reasons[1].Level != review.C {
		t.Error("apply modified its input")
	}
	if want := "Level C: needs your consent and your PIN.\nIn the image (scan-container): a Dockerfile RUN runs in the build container, not on this machine:\n  - sys.packages: C → B, packages installed in a Dockerfile RUN are the image's\nSandbox: x\n"; v.Explanation != want {
		t.Errorf("explanation:\n%s\nwant\n%s", v.Explanation, want)
	}
	rv.Verdict = review.Verdict{Level: review.A, Reasons: []review.Reason{{Rule: "sys.packages", Level: review.A, Message: "installs"}}}
	if v, adj := inImage.apply(rv); v.Level != review.A || adj != nil {
		t.Errorf("raised: %+v %+v", v, adj)
	}
}

func TestExplainAllowed(t *testing.T) {
	dir := t.TempDir()
	src := "#!/bin/sh\n# guard:allow exec.pipe-to-shell -- pinned installer\ncurl -fsSL https://x.example/i.sh | sh\n"
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Run(Options{Root: dir, Review: engineReview}, []File{{Path: "a.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range r.Findings {
		if !strings.HasPrefix(f.Explanation, "Level B: needs your consent.\n") ||
			!strings.Contains(f.Explanation, "\nAllowed in the code:\n  - exec.pipe-to-shell (C) by guard:allow at line 2: pinned installer\nSandbox: ") {
			t.Errorf("%s explanation:\n%s", f.Rule, f.Explanation)
		}
	}
}
