// Package scan finds the shell in a repository and reviews it with the same
// engine that reviews commands at run time, for pre-commit hooks and CI.
//
// What it decides: where shell is (scripts by extension or shebang, GitHub
// Actions run steps and composite actions, GitLab CI scripts, Makefile
// recipes, Dockerfile RUN instructions, package.json scripts), what text
// the shell would be given (after YAML decoding, Make's $$ and variable
// references, Dockerfile continuations and heredocs), and where each byte
// of that text came from, so that a reason the reviewer gives at a byte
// offset is reported at the file's line and column. It also reads
// `# guard:allow <rule-id> -- <reason>` allowances and decides which
// findings they suppress; an allowance without a reason, or naming a rule
// that does not exist, is a Problem that fails the scan.
//
// What it guarantees: extraction never fails on what a file says. Shell
// that does not parse is passed to the reviewer, whose verdict for it is C;
// YAML or JSON that does not parse is a C finding of rule RuleUnparsable.
// A reference whose value the file does not decide (a GitHub ${{ … }}
// expression, $(shell …), a Make variable assigned twice or not at all)
// becomes a shell parameter, so the reviewer treats it as unknown rather
// than as literal text; a Make variable assigned once to a plain value,
// and $@, $< and $^ of plain rules, become what Make substitutes. Files are
// scanned in parallel, each distinct command reviewed once, and a report
// depends only on its input: findings are ordered by path, line and
// column. A finding an allowance suppresses is still reported (JSON,
// SARIF) and the explanation its command's findings share says so: its
// "Level X" heading gives the level of what is left, and an "Allowed in
// the code" section names the rule, the allowance's line and its reason.
//
// It also finds script injection that no review of the shell can see: a
// GitHub Actions ${{ }} expression of event data an outsider writes in a
// run: step (RuleWorkflowInjection, by the UntrustedGitHub table; inputs
// are RuleWorkflowInput), and a GitLab variable a merge request's author
// sets, expanded unquoted or evaluated (RuleGitLabInjection, by
// UntrustedGitLab). Describe gives every rule a fixed description, help
// and tags for SARIF. Ignore reads .guardignore and --exclude globs;
// Baseline records findings by Fingerprint (path, rule and the line's
// text, not its number) so that CI fails only on new ones.
//
// A Dockerfile RUN runs in the build container, not on the machine that
// runs guard, so its system paths, packages and accounts are the image's.
// Scan lowers those effects to B by ContainerTable (rule RuleContainer):
// the finding keeps the engine's rule, Adjusted records the level it had,
// and the explanation has an "In the image" section. Everything else, code
// from the network first (curl … | sh baked into an image is still C),
// keeps the engine's level. A command of a CI file (a workflow run step, a
// GitLab script) runs on a throw-away runner: CITable lowers its system
// package installs and sudo to B the same way (RuleCI).
//
// What it does not do: it does not decide levels (that is the Reviewer's;
// ContainerTable only lowers what the Reviewer's effects show to be the
// image's), read included Makefiles or GitLab include: files, or follow
// GitLab !reference tags (what they point to is scanned where it is
// written). A Dockerfile's relative paths are resolved against its
// directory here, not against the image's WORKDIR. Columns are byte
// columns, except in SARIF, which counts UTF-16 code units. Library code
// never prints: Write renders a report into the writer it is given.
package scan
