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
// column.
//
// What it does not do: it does not decide levels (that is the Reviewer's),
// read included Makefiles or GitLab include: files, or follow GitLab
// !reference tags (what they point to is scanned where it is written).
// Dockerfile commands are reviewed as if they ran here, not in the build
// container. Columns are byte columns, except in SARIF, which counts
// UTF-16 code units. Library code never prints: Write renders a report
// into the writer it is given.
package scan
