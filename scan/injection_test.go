package scan

import (
	"fmt"
	"strings"
	"testing"
)

// workflowRun wraps a run: script in a one-step workflow.
func workflowRun(script string, env string) string {
	return "on: [issues, pull_request_target]\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - " + env +
		"run: |\n          " + strings.ReplaceAll(script, "\n", "\n          ") + "\n"
}

func injections(t *testing.T, name, src string) []Injection {
	t.Helper()
	snips, err := Extract(name, []byte(src))
	if err != nil {
		t.Fatalf("extract %s: %v", name, err)
	}
	var out []Injection
	for _, s := range snips {
		out = append(out, s.Injections...)
	}
	return out
}

func TestWorkflowInjection(t *testing.T) {
	attacks := []string{
		"github.event.issue.title", "github.event.issue.body",
		"github.event.pull_request.title", "github.event.pull_request.body",
		"github.event.pull_request.head.ref", "github.event.pull_request.head.label",
		"github.event.pull_request.head.repo.default_branch",
		"github.event.comment.body", "github.event.review.body", "github.event.review_comment.body",
		"github.event.discussion.title", "github.event.discussion.body",
		"github.event.pages[0].page_name", "github.event.pages.*.page_name",
		"github.event.commits[0].message", "github.event.commits[1].author.email", "github.event.commits.*.author.name",
		"github.event.head_commit.message", "github.event.head_commit.author.email", "github.event.head_commit.author.name",
		"github.event.workflow_run.head_branch", "github.event.workflow_run.display_title",
		"github.event.workflow_run.head_commit.message", "github.event.workflow_run.pull_requests[0].head.ref",
		"github.head_ref",
		// Spelled other ways.
		"github.event['issue']['title']", `github.event["comment"].body`, "GITHUB.EVENT.ISSUE.TITLE",
		"github . event . issue . body",
		// Inside a function or an operator.
		"format('{0}', github.event.issue.title)", "github.event.issue.title || 'none'",
		// An object that holds attacker text expands to its JSON.
		"toJSON(github.event)", "toJSON(github.event.pull_request)", "toJSON(github)",
		"github.event.pull_request.head",
	}
	for _, expr := range attacks {
		src := workflowRun(fmt.Sprintf("echo \"${{ %s }}\"", expr), "")
		got := injections(t, ".github/workflows/w.yml", src)
		if len(got) != 1 || got[0].Rule != RuleWorkflowInjection {
			t.Errorf("%s: injections %+v, want one %s", expr, got, RuleWorkflowInjection)
			continue
		}
		// Reported where the ${{ is: line 7 of the workflow, after `echo "`.
		if got[0].Line != 7 || got[0].Col != 17 {
			t.Errorf("%s: at %d:%d, want 7:17", expr, got[0].Line, got[0].Col)
		}
	}
	controls := []string{
		"github.event.issue.number", "github.event.pull_request.head.sha", "github.sha", "github.ref",
		"github.event.pull_request.number", "github.repository", "github.event.issue.labels.*.name",
		"secrets.TOKEN", "env.TITLE", "steps.x.outputs.y", "matrix.os", "runner.os",
		"'github.event.issue.title'", // a string literal, not a reference
		"contains(github.event.pull_request.labels.*.name, 'github.event.issue.title')",
	}
	for _, expr := range controls {
		src := workflowRun(fmt.Sprintf("echo \"${{ %s }}\"", expr), "")
		if got := injections(t, ".github/workflows/w.yml", src); len(got) != 0 {
			t.Errorf("control %s: injections %+v, want none", expr, got)
		}
	}
}

// TestWorkflowInjectionThroughEnv: the standard fix, the same value
// passed through env: and quoted, is not a finding; neither are
// expressions outside run:.
func TestWorkflowInjectionThroughEnv(t *testing.T) {
	src := workflowRun(`echo "$TITLE"`, "env:\n          TITLE: ${{ github.event.issue.title }}\n        ")
	if got := injections(t, ".github/workflows/w.yml", src); len(got) != 0 {
		t.Errorf("through env: %+v", got)
	}
	src = "on: issues\njobs:\n  j:\n    if: ${{ github.event.issue.title == 'x' }}\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.head_ref }}\n"
	if got := injections(t, ".github/workflows/w.yml", src); len(got) != 0 {
		t.Errorf("outside run: %+v", got)
	}
	// A composite action's run steps are read the same way.
	src = "runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: git checkout ${{ github.head_ref }}\n"
	if got := injections(t, "action.yml", src); len(got) != 1 || got[0].Rule != RuleWorkflowInjection {
		t.Errorf("composite action: %+v", got)
	}
}

// TestWorkflowInjectionOtherLanguages: ${{ }} is substituted into a
// python or pwsh step's script too; the injection is reported, and the
// text is reviewed not as shell but as the command line that runs it
// (python3 -c, pwsh -Command): one command per step.
func TestWorkflowInjectionOtherLanguages(t *testing.T) {
	src := "on: issues\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - shell: python\n        run: print(\"${{ github.event.issue.body }}\")\n" +
		"  w:\n    runs-on: windows-latest\n    steps:\n      - run: Write-Host \"${{ github.event.comment.body }}\"\n      - shell: python\n        run: print(1)\n"
	reviewed := 0
	r, err := Run(Options{Review: func(text, ws, cwd string) (Review, error) { reviewed++; return fakeReview(text, ws, cwd) }},
		[]File{{Path: ".github/workflows/w.yml", Src: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%d:%d %s %s", f.Line, f.Col, f.Rule, f.Level))
	}
	want := "7:21 scan-workflow-injection C|11:26 scan-workflow-injection C"
	if strings.Join(got, "|") != want || reviewed != 3 || r.Commands != 3 {
		t.Errorf("findings %v (want %s), %d reviewed, %d commands", got, want, reviewed, r.Commands)
	}
}

func TestWorkflowInputs(t *testing.T) {
	for _, expr := range []string{"inputs.version", "github.event.inputs.version", "toJSON(inputs)"} {
		src := workflowRun(fmt.Sprintf("./release.sh ${{ %s }}", expr), "")
		got := injections(t, ".github/workflows/w.yml", src)
		if len(got) != 1 || got[0].Rule != RuleWorkflowInput {
			t.Errorf("%s: %+v, want one %s", expr, got, RuleWorkflowInput)
		}
	}
	// Event data wins over an input in the same expression.
	src := workflowRun("echo ${{ inputs.x || github.event.issue.title }}", "")
	if got := injections(t, ".github/workflows/w.yml", src); len(got) != 1 || got[0].Rule != RuleWorkflowInjection {
		t.Errorf("mixed: %+v", got)
	}
}

func TestGitLabInjection(t *testing.T) {
	attacks := []string{
		"echo $CI_MERGE_REQUEST_TITLE",
		"git checkout ${CI_COMMIT_BRANCH}",
		"git checkout $CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
		"echo ${CI_COMMIT_MESSAGE:-none}",
		"for w in $CI_COMMIT_TITLE; do echo \"$w\"; done",
		"echo x > $CI_COMMIT_REF_NAME",
		`eval "echo $CI_MERGE_REQUEST_DESCRIPTION"`,
		`sh -c "echo $CI_COMMIT_MESSAGE"`,
		`bash -ec "notify '$CI_COMMIT_TAG_MESSAGE'"`,
		`echo "$(echo $CI_COMMIT_AUTHOR)"`,
		`test -n "$X" && echo $CI_EXTERNAL_PULL_REQUEST_SOURCE_BRANCH_NAME`,
		"(( n = CI_COMMIT_DESCRIPTION )) || eval $CI_COMMIT_DESCRIPTION",
		// Arithmetic evaluates a value again: a title of a[$(id)] runs
		// id, quoted or not, named with $ or bare.
		"(( n = CI_COMMIT_DESCRIPTION ))",
		"let n=CI_MERGE_REQUEST_TITLE+1",
		"a[$CI_COMMIT_MESSAGE]=1",
		"echo $(( CI_COMMIT_TITLE + 1 ))",
		`echo "${x[$CI_COMMIT_BRANCH]}"`,
		`echo "${s:CI_COMMIT_AUTHOR}"`,
		`sh -c "exit $(( CI_COMMIT_TAG_MESSAGE ))"`,
		// What a shell reads from stdin is its script: quoting does not
		// keep the value data there.
		`echo "$CI_COMMIT_MESSAGE" | sh`,
		`printf '%s\n' "$CI_MERGE_REQUEST_TITLE" | tr a-z A-Z | bash -o pipefail -s x`,
		`{ echo set -e; echo "$CI_COMMIT_TITLE"; } | sh -`,
		`sh <<< "$CI_COMMIT_BRANCH"`,
		// A declaration reads a computed NAME[INDEX]=value at run time.
		`declare "$CI_COMMIT_MESSAGE"`,
		`export $CI_COMMIT_TITLE`,
		`local -a "x$CI_MERGE_REQUEST_TITLE"`,
		// So do builtins that take a variable's name.
		`unset "$CI_COMMIT_BRANCH"`,
		`printf -v "$CI_COMMIT_TITLE" '%s' x`,
		`read -r "$CI_COMMIT_AUTHOR" < name.txt`,
	}
	for _, cmd := range attacks {
		src := "job:\n  script:\n    - " + yamlQuote(cmd) + "\n"
		got := injections(t, ".gitlab-ci.yml", src)
		if len(got) == 0 || got[0].Rule != RuleGitLabInjection || got[0].Line != 3 {
			t.Errorf("%s: %+v, want %s on line 3", cmd, got, RuleGitLabInjection)
		}
	}
	controls := []string{
		`echo "$CI_MERGE_REQUEST_TITLE"`,
		`git checkout -- "${CI_COMMIT_BRANCH}"`,
		`msg="$CI_COMMIT_MESSAGE"; printf '%s\n' "$msg"`,
		"msg=$CI_COMMIT_MESSAGE",
		`[[ $CI_COMMIT_BRANCH == main ]] && make release`,
		`case $CI_COMMIT_REF_NAME in main) make;; esac`,
		"echo $CI_COMMIT_REF_SLUG $CI_COMMIT_SHA $CI_PIPELINE_ID",
		`bash ./notify.sh "$CI_COMMIT_MESSAGE"`,
		"echo '$CI_COMMIT_MESSAGE'",
		`echo "$(( ${#CI_COMMIT_MESSAGE} + 1 ))"`,
		"(( CI_PIPELINE_ID > 0 )) && echo CI_COMMIT_MESSAGE",
		// Data for a script that comes from a file, or for another program.
		`echo "$CI_COMMIT_MESSAGE" | sh ./lint-message.sh`,
		`echo "$CI_COMMIT_MESSAGE" | grep -q skip`,
		`sh notify.sh <<< "$CI_COMMIT_BRANCH"`,
		`export MSG="$CI_COMMIT_MESSAGE"`,
		`declare -r BRANCH=$CI_COMMIT_BRANCH`,
		`printf '%s\n' "$CI_COMMIT_TITLE"`,
		`printf -v msg '%s' "$CI_COMMIT_TITLE"`,
		`unset CI_COMMIT_MESSAGE`,
	}
	for _, cmd := range controls {
		src := "job:\n  script:\n    - " + yamlQuote(cmd) + "\n"
		if got := injections(t, ".gitlab-ci.yml", src); len(got) != 0 {
			t.Errorf("control %s: %+v, want none", cmd, got)
		}
	}
}

// TestGitHubScript: actions/github-script substitutes ${{ }} into the
// JavaScript it runs, as a run: step does into shell.
func TestGitHubScript(t *testing.T) {
	step := func(uses, key, expr string) string {
		return "on: issues\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: " + uses +
			"\n        with:\n          " + key + ": |\n            console.log(\"${{ " + expr + " }}\")\n"
	}
	for _, c := range []struct {
		uses, key, expr string
		want            int
	}{
		{"actions/github-script@v7", "script", "github.event.issue.title", 1},
		{"actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea", "script", "github.event.comment.body", 1},
		{"actions/github-script@v7", "script", "github.sha", 0},
		{"actions/github-script@v7", "github-token", "github.event.issue.title", 0},
		{"someone/other-action@v1", "script", "github.event.issue.title", 0},
	} {
		got := injections(t, ".github/workflows/w.yml", step(c.uses, c.key, c.expr))
		if len(got) != c.want || c.want == 1 && (got[0].Rule != RuleWorkflowInjection || got[0].Line != 9) {
			t.Errorf("%s with %s: ${{ %s }}: %+v, want %d on line 9", c.uses, c.key, c.expr, got, c.want)
		}
	}
}

// TestGitLabHeredoc: a heredoc's body is a shell's script when the shell
// reads stdin, and data for anything else.
func TestGitLabHeredoc(t *testing.T) {
	for cmd, want := range map[string]int{
		"bash": 1, "sh -s --": 1, "cat > msg.txt": 0, "sh ./check.sh": 0,
	} {
		src := "job:\n  script:\n    - |\n      " + cmd + " <<EOF\n      echo \"$CI_COMMIT_MESSAGE\"\n      EOF\n"
		if got := injections(t, ".gitlab-ci.yml", src); len(got) != want {
			t.Errorf("%s <<EOF: %+v, want %d injections", cmd, got, want)
		}
	}
}

// yamlQuote writes s as a single-quoted YAML scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestInjectionFindings: scan reports injections as findings of their
// rule and level, with the fix in the explanation, and an allowance
// covers them like any other rule.
func TestInjectionFindings(t *testing.T) {
	wf := workflowRun(`echo "${{ github.event.issue.title }}"`, "")
	gl := "job:\n  script:\n    - eval $CI_COMMIT_MESSAGE\n    # guard:allow scan-gitlab-injection -- the message is checked by the hook above\n    - echo $CI_COMMIT_TITLE\n"
	r, err := Run(Options{Review: fakeReview, KnownRule: fakeKnown}, []File{
		{Path: ".github/workflows/w.yml", Src: []byte(wf)}, {Path: ".gitlab-ci.yml", Src: []byte(gl)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Rule, "scan-") {
			got = append(got, fmt.Sprintf("%s:%d:%d %s %s %v %s", f.Path, f.Line, f.Col, f.Level, f.Rule, f.Suppressed != nil, f.Message))
			if !strings.Contains(f.Explanation, "Fix: ") {
				t.Errorf("%s: no fix in %q", f.Rule, f.Explanation)
			}
		}
	}
	want := []string{
		".github/workflows/w.yml:7:17 C scan-workflow-injection false github.event.issue.title is written into the script before the shell starts",
		".gitlab-ci.yml:3:12 C scan-gitlab-injection false $CI_COMMIT_MESSAGE is run as shell code",
		".gitlab-ci.yml:5:12 C scan-gitlab-injection true $CI_COMMIT_TITLE is expanded unquoted: split into words and globbed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
