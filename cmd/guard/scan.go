package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/policy"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
	"github.com/guard-sh/guard/scan"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitScanFindings: guard scan found a command above --max-level that no
// allowance covers (the check-style "1": the caller must not proceed).
const exitScanFindings = 1

// guardURI is where SARIF readers send people for the tool.
const guardURI = "https://github.com/guard-sh/guard"

type scanOptions struct {
	paths    []string
	maxLevel string
	report   string
	format   string
	staged   bool
	exclude  []string
	baseline string
	writeTo  string
	// trustFrom: allowances and the baseline count only as they are in
	// this commit, so a change cannot allow its own findings.
	trustFrom string
}

func newScanCmd(s *streams) *cobra.Command {
	opts := &scanOptions{}
	cmd := &cobra.Command{
		Use:   "scan [flags] [PATH...]",
		Short: "Review the shell in a repository, for pre-commit hooks and CI",
		Long: `guard scan finds the shell in a repository and reviews every command with
the same rules as 'guard check', as text read from a file: shell scripts (by
extension or shebang, .envrc, shell startup files, git hooks under any hooks
path), GitHub Actions run steps, .gitlab-ci.yml scripts, the commands of
CircleCI, Bitbucket, Azure Pipelines, Travis, Drone, Woodpecker, Buildkite,
Taskfile and Gitpod, Makefile recipes and $(shell) calls, justfile recipes
and backticks, Procfile processes, Jenkinsfile sh steps, Rakefile sh/system
calls and backticks, Vagrant provisioners and triggers, Dockerfile and
Earthfile RUN instructions (Dockerfiles a Compose file builds too, and
the commands its services run), package.json scripts, .npmrc's
script-shell, .yarnrc.yml's yarnPath and plugins (reported: JavaScript
guard does not review), VS Code tasks and the programs
its settings start, dev container lifecycle commands, mise hooks and tasks,
pyproject.toml tasks (Poe, PDM, Hatch, taskipy, tox), tox.ini commands,
devbox.json's init_hook, deno.json tasks, cargo-make's Makefile.toml,
netlify.toml's build commands, and the workflows of Gitea and Forgejo, and
the scripts of Semaphore, Cirrus CI, Cloud Build, Codemagic, Bitrise and
AppVeyor, Tekton and Argo Workflows steps (by apiVersion, or in .tekton/),
and the commands git runs from configuration kept in the
repository (.gitmodules, .lfsconfig, config templates: the drivers
.gitattributes names, ! aliases, pagers). CI configuration fetched from
elsewhere (remote GitLab includes, Azure templates of another repository,
CircleCI orbs) is reported as code guard cannot see. Coding agents' project
settings (.claude/, .gemini/, .codex/, .mcp.json) are read for the hooks,
MCP servers, helpers and env they run, and a setting that turns the
agent's hooks off is C. A committed symbolic link with
such a name is read through when it leads inside the repository. A
Dockerfile RUN changes the image, not this machine: its packages and system
paths are B there (code from the network stays C).

Without PATH it scans the repository the current directory is in (the git
top level, else the current directory); a PATH that names a file is scanned
as named. With --staged it scans what the next commit would record.

It exits 1 when a command is above --max-level (default B: any C fails),
0 otherwise, and 125 on usage errors. A reviewed exception is written in the
code, on the line of the finding or the line above:

    # guard:allow <rule-id> -- <why this is safe>

The rule id is one 'guard check' prints, or policy.<id> for a rule of the
policy in effect. An allowance covers the place it is written. In CI,
--trust-from REV (the branch a change is checked against) honours only the
allowances already in REV over commands unchanged since, and the baseline
and .guardignore as they are in REV: a change cannot allow its own
findings.

Files are left out by --exclude GLOB (repeatable) and by the lines of a
.guardignore file at the repository root: doublestar globs read like
gitignore lines ('testdata/', '**/fixtures/*.sh', '!keep.sh', # comments).
--write-baseline FILE records today's findings and exits 0; --baseline FILE
then counts only findings that are not in it (matched by a fingerprint of
the file, the rule and the line's text, so moved code stays matched).
'guard help ci' has hook and CI configurations.`,
		Example: `  guard scan
  guard scan --staged
  guard scan --format sarif > guard.sarif
  guard scan --exclude 'testdata/**' --baseline .guard-baseline.json
  guard scan --trust-from origin/main --baseline .guard-baseline.json
  guard scan --max-level A scripts/deploy.sh`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := optionNamingFile(c); err != nil {
				return err
			}
			opts.paths = args
			return runScan(s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.maxLevel, "max-level", "B", "highest level that passes: `A|B|C`")
	f.StringVar(&opts.report, "report-level", "B", "lowest level reported: `A|B|C`")
	f.StringVar(&opts.format, "format", "text", "output format: `text|json|sarif|github`")
	f.BoolVar(&opts.staged, "staged", false, "scan the staged content of the files the next commit changes")
	f.StringArrayVar(&opts.exclude, "exclude", nil, "leave out files matching a doublestar `GLOB` (repeatable)")
	f.StringVar(&opts.baseline, "baseline", "", "count only findings not recorded in the baseline `FILE`")
	f.StringVar(&opts.writeTo, "write-baseline", "", "record today's findings in `FILE` and pass")
	f.StringVar(&opts.trustFrom, "trust-from", "", "honour only the allowances and baseline already in commit `REV` (CI: the branch a change is checked against)")
	return cmd
}

// optionNamingFile refuses an option that is also the name of a file in
// the current directory. A hook runner that appends file names (the
// pre-commit framework's 'guard scan FILE…') hands guard a committed
// file named --max-level=C or --exclude=** as that option: the commit
// would choose how it is scanned. Paths after -- are paths.
func optionNamingFile(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		var forms []string
		for _, v := range values {
			forms = append(forms, "--"+f.Name+"="+v, "--"+f.Name, v)
			if f.Shorthand != "" {
				forms = append(forms, "-"+f.Shorthand+v, "-"+f.Shorthand)
			}
		}
		for _, name := range forms {
			if !strings.HasPrefix(name, "-") {
				continue
			}
			if _, e := os.Lstat(name); e == nil && err == nil {
				err = usagef("put file names after --: guard scan -- FILE…", "the option %s is also the name of a file here (%q); guard does not guess which was meant", "--"+f.Name, name)
			}
		}
	})
	return err
}

func runScan(s *streams, opts *scanOptions) error {
	maxLevel, err := scanLevel("--max-level", opts.maxLevel)
	if err != nil {
		return err
	}
	reportLevel, err := scanLevel("--report-level", opts.report)
	if err != nil {
		return err
	}
	if !contains(scan.Formats, opts.format) {
		return usagef("--format is one of "+strings.Join(scan.Formats, ", "), "unknown format %q", opts.format)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return failf(nil, "scan: %v", err)
	}
	root := scan.Toplevel(cwd)
	inGit := root != ""
	if !inGit {
		root = cwd
	}
	var files []scan.File
	if opts.staged {
		if !inGit {
			return usagef("run it inside a git repository, or drop --staged", "--staged: %s is not in a git repository", cwd)
		}
		files, err = scan.Staged(root, opts.paths)
	} else {
		files, err = scan.Files(root, opts.paths, inGit)
	}
	if err != nil {
		return usagef("name files or directories that exist, or run 'guard scan' with no path to scan the repository you are in", "%v", err)
	}
	if opts.trustFrom != "" {
		if !inGit {
			return usagef("run it inside a git repository, or drop --trust-from", "--trust-from: %s is not in a git repository", cwd)
		}
		if err := scan.VerifyRevision(root, opts.trustFrom); err != nil {
			return usagef("name the commit a change is checked against (origin/main, $GITHUB_BASE_REF's head)", "--trust-from: %v", err)
		}
	}
	var ignore scan.Ignore
	if err := readIgnore(s, &ignore, root, opts.trustFrom); err != nil {
		return usagef("fix the line: a doublestar glob per line, # for comments", "%v", err)
	}
	for _, x := range opts.exclude {
		if err := ignore.AddPattern(x, "--exclude"); err != nil {
			return usagef("write a doublestar glob such as 'testdata/**' or '*.sh'", "%v", err)
		}
	}
	files = ignore.Filter(files)
	var trusted func(string, []byte) bool
	if opts.trustFrom != "" {
		trusted = trustedAt(root, opts.trustFrom)
	}
	var base *scan.Baseline
	if opts.baseline != "" {
		data, err := safefile.Read(opts.baseline, 64<<20)
		if err == nil && opts.trustFrom != "" {
			// The baseline as it is in the trusted commit: a change that
			// adds its own findings to the baseline gains nothing.
			data = nil
			abs, _ := filepath.Abs(opts.baseline)
			if rel, rerr := filepath.Rel(root, abs); rerr == nil && !strings.HasPrefix(rel, "..") {
				data, _ = scan.AtRevision(root, opts.trustFrom, filepath.ToSlash(rel))
			}
			if data == nil {
				fmt.Fprintf(s.err, "guard: warning: --baseline %s is not in %s: every finding counts\n", opts.baseline, opts.trustFrom)
				data = []byte(fmt.Sprintf(`{"version":%d,"findings":[]}`, scan.BaselineVersion))
			}
		}
		if err != nil {
			return usagef("write one with 'guard scan --write-baseline "+opts.baseline+"'", "read baseline: %v", err)
		}
		if base, err = scan.ReadBaseline(data); err != nil {
			return usagef("write it again with 'guard scan --write-baseline "+opts.baseline+"'", "%s: %v", opts.baseline, err)
		}
	}
	eng, err := newScanEngine()
	if err != nil {
		return err
	}
	known, err := eng.knownRule(root, len(files) > 0)
	if err != nil {
		return err
	}
	rep, err := scan.Run(scan.Options{Root: root, Review: eng.review, KnownRule: known, Trusted: trusted}, files)
	if err != nil {
		return failf(nil, "scan: %v", err)
	}
	if base != nil {
		base.Apply(rep)
	}
	if opts.writeTo != "" {
		return writeBaseline(s, opts.writeTo, rep)
	}
	wo := scan.WriteOptions{Report: reportLevel, Max: maxLevel,
		Tool: scan.Tool{Name: "guard", Version: versionString(), InformationURI: guardURI, DocsURI: guardURI + "/blob/main/docs/"}}
	if err := scan.Write(s.out, rep, opts.format, wo); err != nil {
		return failf(nil, "scan: write %s: %v", opts.format, err)
	}
	// A problem names a file and quotes it: escaped, as findings are.
	for i, p := range rep.Untrusted {
		fmt.Fprintf(s.err, "guard: warning: %s\n", scan.TextSafe(p.Error()))
		if i == len(rep.Untrusted)-1 {
			fmt.Fprintf(s.err, "guard: hint: %s\n", p.Hint)
		}
	}
	if len(rep.Problems) > 0 {
		for _, p := range rep.Problems {
			fmt.Fprintf(s.err, "guard: error: %s\n", scan.TextSafe(p.Error()))
		}
		fmt.Fprintf(s.err, "guard: hint: %s\n", rep.Problems[0].Hint)
		return exitCode(exitGuardFailed)
	}
	if over := rep.Exceeding(maxLevel); len(over) > 0 {
		what := "finding"
		if len(over) > 1 {
			what = "findings"
		}
		fmt.Fprintf(s.err, "guard: error: %d %s above --max-level %s\n", len(over), what, maxLevel)
		if opts.staged {
			fmt.Fprintf(s.err, "guard: hint: the commit was not made; fix the commands above and stage them again\n")
		}
		fmt.Fprintf(s.err, "guard: hint: if a command is safe here, say why in the code: '# guard:allow <rule-id> -- <reason>' on its line or the line above\n")
		return exitCode(exitScanFindings)
	}
	return nil
}

// readIgnore reads the repository's .guardignore into ig: as it is in
// the working tree, or with --trust-from as it is in that commit (a change
// that excludes its own files gains nothing; a warning says its version
// is not honoured).
func readIgnore(s *streams, ig *scan.Ignore, root, trustFrom string) error {
	if trustFrom == "" {
		return ig.ReadIgnore(root)
	}
	trusted, _ := scan.AtRevision(root, trustFrom, scan.IgnoreFile)
	cur, err := safefile.Read(filepath.Join(root, scan.IgnoreFile), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		cur, err = nil, nil
	}
	if err != nil || string(cur) != string(trusted) {
		fmt.Fprintf(s.err, "guard: warning: %s differs from %s: only its patterns in %s are honoured\n", scan.IgnoreFile, trustFrom, trustFrom)
	}
	return ig.ParseIgnore(trusted)
}

// trustedAt trusts an allowance comment in a file when the same line (blanks
// at either end aside) is in that file at commit rev: allowances a change
// adds are its author's word, not a reviewed exception.
func trustedAt(root, rev string) func(string, []byte) bool {
	var mu sync.Mutex
	lines := map[string]map[string]bool{}
	return func(path string, line []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		set, ok := lines[path]
		if !ok {
			set = map[string]bool{}
			if data, found := scan.AtRevision(root, rev, path); found {
				for _, l := range strings.Split(string(data), "\n") {
					set[strings.TrimSpace(l)] = true
				}
			}
			lines[path] = set
		}
		return set[strings.TrimSpace(string(line))]
	}
}

// writeBaseline records the report's findings in path (atomically) and
// says how many on stderr.
func writeBaseline(s *streams, path string, rep *scan.Report) error {
	b := scan.NewBaseline(rep)
	var buf strings.Builder
	if err := b.Write(&buf); err != nil {
		return failf(nil, "write baseline: %v", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(buf.String()), 0o644); err != nil {
		return failf(nil, "write baseline: %v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return failf(nil, "write baseline: %v", err)
	}
	what := "findings"
	if len(b.Findings) == 1 {
		what = "finding"
	}
	fmt.Fprintf(s.err, "guard: wrote %d %s to %s\n", len(b.Findings), what, path)
	fmt.Fprintf(s.err, "guard: hint: commit it and run 'guard scan --baseline %s' in CI: only new findings fail\n", path)
	return nil
}

// scanLevel reads a threshold flag: A, B or C (deny is not a threshold).
func scanLevel(flag, v string) (review.Level, error) {
	l, err := review.ParseLevel(v)
	if err != nil || l == review.Deny {
		return 0, usagef(flag+" is one of A, B, C", "%s: unknown level %q", flag, v)
	}
	return l, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scanEngine is the decision engine as guard scan uses it: assess with
// provenance "file", for many commands in a few directories. What assess
// gathers for every command is gathered once per scan instead: the context
// and the policy of each (workspace, cwd), the symlinks resolved and the
// scripts read on the way (the tree is taken not to change while it is
// scanned). A verdict is the one 'guard check --provenance file' gives for
// the same text and cwd.
type scanEngine struct {
	e     *decision.Engine
	mu    sync.Mutex
	dirs  map[[2]string]*scanDir
	links sync.Map // path → scanLink
	files sync.Map // path → scanRead
}

type scanDir struct {
	once sync.Once
	ctx  *profile.Context
	pol  *policy.Policy
	err  error
	// ctxs are copies of ctx for reviews to use one at a time: a copy
	// keeps the tables the profile computes once per context, and reviews
	// running in parallel must not share those caches' locks.
	ctxs sync.Pool
}

type scanLink struct {
	path string
	err  error
}

type scanRead struct {
	data []byte
	err  error
}

func newScanEngine() (*scanEngine, error) {
	se := &scanEngine{dirs: map[[2]string]*scanDir{}}
	env := decision.OS()
	read := env.ReadFile
	env.ReadFile = func(p string, limit int64) ([]byte, error) { return se.readFile(read, p, limit) }
	env.EvalSymlinks = se.evalSymlinks
	e, err := decision.New(env)
	if err != nil {
		return nil, err
	}
	se.e = e
	return se, nil
}

// dir returns the context and policy of commands run in cwd.
func (e *scanEngine) dir(workspace, cwd string) *scanDir {
	e.mu.Lock()
	d := e.dirs[[2]string{workspace, cwd}]
	if d == nil {
		d = &scanDir{}
		e.dirs[[2]string{workspace, cwd}] = d
	}
	e.mu.Unlock()
	d.once.Do(func() {
		d.ctx, d.err = e.e.Context(cwd, workspace)
		if d.err != nil {
			return
		}
		d.pol, d.err = e.e.Policy(d.ctx)
	})
	return d
}

// evalSymlinks is filepath.EvalSymlinks, remembered for the scan.
func (e *scanEngine) evalSymlinks(p string) (string, error) {
	if l, ok := e.links.Load(p); ok {
		return l.(scanLink).path, l.(scanLink).err
	}
	r, err := filepath.EvalSymlinks(p)
	e.links.Store(p, scanLink{r, err})
	return r, err
}

// readFile is the engine's safe read, remembered for the scan: `npm run`
// reads package.json and `bash x.sh` the script for every command that
// says so.
func (e *scanEngine) readFile(read func(string, int64) ([]byte, error), p string, limit int64) ([]byte, error) {
	if r, ok := e.files.Load(p); ok {
		return r.(scanRead).data, r.(scanRead).err
	}
	data, err := read(p, limit)
	e.files.Store(p, scanRead{data, err})
	return data, err
}

// review is scan's Reviewer.
func (e *scanEngine) review(text, workspace, cwd string) (scan.Review, error) {
	d := e.dir(workspace, cwd)
	if d.err != nil {
		return scan.Review{}, d.err
	}
	ctx, _ := d.ctxs.Get().(*profile.Context)
	if ctx == nil {
		ctx = d.ctx.Copy()
	}
	a := decision.AssessIn(text, ctx, d.pol, assessOptions{Cwd: cwd, Workspace: workspace, Provenance: review.ProvFile})
	d.ctxs.Put(ctx)
	return scan.Review{Verdict: a.Verdict, Effects: a.Profile.Effects}, nil
}

// knownRule is what a guard:allow may name: a rule of the engine
// (review.RuleIDs), a rule of the policy in effect at the root as
// "policy.<id>", or one of scan's own. load false (nothing to scan)
// skips loading the policy; every policy id is then unknown.
func (e *scanEngine) knownRule(root string, load bool) (func(string) bool, error) {
	ids := map[string]bool{}
	if load {
		d := e.dir(root, root)
		if d.err != nil {
			return nil, d.err
		}
		for _, r := range d.pol.Rules() {
			ids["policy."+r.ID] = true
		}
	}
	return func(id string) bool { return review.KnownRule(id) || ids[id] }, nil
}
