package scan

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Reviewer reviews one command: text is the snippet's Text, workspace the
// repository root and cwd the directory it runs in (both absolute). It
// must be the same engine that reviews commands at run time, with the
// provenance of text read from a file. It is called from several
// goroutines, and once per distinct (text, cwd) in a scan: equal inputs
// must give equal verdicts, which the engine guarantees.
type Reviewer func(text, workspace, cwd string) (Review, error)

// Review is what a Reviewer returns: the engine's verdict and the effects
// of the profile it was computed from.
type Review struct {
	review.Verdict
	// Effects are the profile's effects behind the verdict's reasons.
	// Scan reads their capabilities and path classes to review Dockerfile
	// commands as changes to an image (see ContainerTable); without them
	// no Dockerfile reason is lowered.
	Effects []profile.Effect
}

// Rule ids scan reports itself.
const (
	// RuleUnparsable: a YAML or JSON file that does not parse, so the
	// shell in it cannot be found. It is C: what cannot be read is not
	// known to be safe.
	RuleUnparsable = "scan-unparsable"
	// RuleUnexplained: the verdict's level (B or above) is above every
	// reason's. The engine should not do that; the finding keeps the
	// level honest.
	RuleUnexplained = "scan-unexplained"
	// RuleUnreadable: a file that may hold shell could not be read
	// (permissions, a device, a race with a deletion). It is C for the
	// same reason as RuleUnparsable.
	RuleUnreadable = "scan-unreadable"
	// RuleUnreviewed: a file makes a tool run code guard has no
	// reviewer for (a .yarnrc.yml yarnPath, a cargo-make script of
	// another runner). It is B: it is reported, never dropped.
	RuleUnreviewed = "scan-unreviewed-code"
	// RuleAgentHooksOff: a coding agent's project settings turn its
	// hooks off (disableAllHooks, hooksConfig.enabled false): guard's
	// hook would not run in the repository. It is C.
	RuleAgentHooksOff = "scan-agent-hooks-off"
	// RuleAgentAutoApprove: a coding agent's project settings hold a
	// PermissionRequest hook, which answers the agent's permission
	// prompts: guard's asks would be approved without the user. It is C.
	RuleAgentAutoApprove = "scan-agent-auto-approve"
)

// Options configure a scan.
type Options struct {
	// Root is the repository root: the workspace for the reviewer and the
	// base of the paths of Files without Src.
	Root string
	// Review reviews each command found. Required.
	Review Reviewer
	// KnownRule reports whether a rule id exists, for checking
	// allowances; nil accepts any id.
	KnownRule func(id string) bool
	// Jobs bounds how many files are read and reviewed at once; 0 means
	// GOMAXPROCS.
	Jobs int
	// Trusted reports whether a line (an allowance comment, or a line of
	// the command it covers) was already in the file at path; nil trusts
	// every one. CI passes one that trusts only the lines already there
	// before the change under review (guard scan --trust-from REV): a
	// change cannot allow its own findings, by a comment of its own, by
	// a trusted comment copied above a new command, or by changing the
	// command under a trusted comment.
	Trusted func(path string, line []byte) bool
}

// File is one file to scan.
type File struct {
	// Path is the name reported in findings: relative to the root and
	// slash-separated when the file is inside it.
	Path string
	// OSPath is where to read the file; empty means Root/Path.
	OSPath string
	// Src is the content when it is already known (staged content);
	// nil means read it.
	Src []byte
	// Err says why the content cannot be known (a staged link that leads
	// out of the repository): a C finding, as for a file that cannot be
	// read.
	Err error
	// Exec says the commit records the file as executable (mode 100755):
	// it can be run as a program whatever its name.
	Exec bool
	// kind, when set, is the file's kind as another file says it (a
	// GitLab CI include); KindOf(Path) otherwise.
	kind Kind
	// context: a file the commit does not change, read (as staged) only
	// for what it includes (Staged). It is scanned only when a file of
	// the commit makes it a kind it is not by name (see Run).
	context bool
	// blob is the index's blob of a context file whose content is read
	// only when an include makes it a kind (Staged): most YAML files of
	// a repository are never needed.
	blob string
}

// source reads f's content when Src is not known: its staged blob, or
// the file at OSPath (Root/Path when empty). known: f has a kind (see
// readCandidate).
func (f File) source(root string, known bool) ([]byte, error) {
	if f.blob != "" {
		b, err := catFiles(root, []string{f.blob})
		if err != nil {
			return nil, err
		}
		if b[0] == nil {
			return nil, fmt.Errorf("git cat-file: %s: no blob %s", f.Path, f.blob)
		}
		return b[0], nil
	}
	p := f.OSPath
	if p == "" {
		p = filepath.Join(root, filepath.FromSlash(f.Path))
	}
	return readCandidate(p, f.Path, root, known)
}

// Kind is the file's kind: as another file says it, or by its name.
func (f File) Kind() Kind {
	if f.kind != "" {
		return f.kind
	}
	return KindOf(f.Path)
}

// Finding is one reason of one verdict, placed in its file.
type Finding struct {
	Path string `json:"path"`
	Position
	Kind        Kind         `json:"kind"`
	Level       review.Level `json:"level"`
	Rule        string       `json:"rule"`
	Message     string       `json:"message"`
	Explanation string       `json:"explanation,omitempty"`
	// Suppressed is the allowance that covers the finding, if any. A
	// suppressed finding is reported but does not count.
	Suppressed *Allowance `json:"suppressed,omitempty"`
	// Adjusted is set when scan lowered the engine's level (a Dockerfile
	// command, reviewed as a change to the image: see ContainerTable).
	Adjusted *Adjustment `json:"adjusted,omitempty"`
	// Fingerprint identifies the finding across scans without line
	// numbers: a hash of the path, the rule and the text of the finding's
	// line (white space collapsed), then ":n" for the n-th (from 0) finding
	// of the file with the same hash. Baselines and SARIF's
	// partialFingerprints use it.
	Fingerprint string `json:"fingerprint"`
	// Baselined is set when a baseline recorded the finding: it is
	// reported but does not count.
	Baselined bool `json:"baselined,omitempty"`

	snippet  int    // index of the snippet in its file, to group findings
	col16    int    // column in UTF-16 code units, for SARIF
	lineHash string // see Fingerprint
}

// Report is the outcome of a scan.
type Report struct {
	// Findings in path, line, column, rule order.
	Findings []Finding
	// Problems are malformed allowances, in path and line order.
	Problems []Problem
	// Untrusted are allowances Options.Trusted refused: not honoured,
	// reported so the author knows why a finding still counts.
	Untrusted []Problem
	// Files counts the files that held shell, Commands the snippets
	// reviewed.
	Files, Commands int
	// Baseline is set when a baseline was applied (Baseline.Apply): SARIF
	// then gives every result a baselineState.
	Baseline bool
}

// counts reports whether a finding counts against a threshold: neither an
// allowance nor a baseline covers it.
func (f *Finding) counts() bool { return f.Suppressed == nil && !f.Baselined }

// Exceeding returns the findings that count against max: not suppressed
// or baselined, with a level above it.
func (r *Report) Exceeding(max review.Level) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.counts() && f.Level > max {
			out = append(out, f)
		}
	}
	return out
}

// Run scans files: reads each (in parallel, Jobs at a time), extracts its
// shell and reviews every command. The report does not depend on the order
// the work finished in. An error is returned only when a file cannot be
// read or the reviewer fails; what the files say is in the report.
func Run(opts Options, files []File) (*Report, error) {
	if opts.Review == nil {
		return nil, fmt.Errorf("scan: no reviewer")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("scan: root %s: %w", opts.Root, err)
	}
	opts.Root = root
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	// The same command in the same directory gets the same verdict: review
	// it once (CI files repeat `npm ci` and `make test` everywhere).
	reviewer := opts.Review
	var cache sync.Map // reviewKey → *cached
	opts.Review = func(text, workspace, cwd string) (Review, error) {
		e, _ := cache.LoadOrStore(reviewKey{text, cwd}, &cached{})
		c := e.(*cached)
		c.once.Do(func() { c.v, c.err = reviewer(text, workspace, cwd) })
		return c.v, c.err
	}
	files = gitlabIncluded(opts.Root, files)
	files = included(opts.Root, files, Makefile, makeIncludes)
	files = includedAs(opts.Root, files, Compose, Dockerfile, composeDockerfiles)
	files = includedAs(opts.Root, files, Vagrant, Script, vagrantPaths)
	files = includedAs(opts.Root, files, Mise, Script, miseScripts)
	files = includedAs(opts.Root, files, CargoMake, Script, cargoMakeScripts)
	files = included(opts.Root, files, GitConfig, gitIncludes)
	files = included(opts.Root, files, CI, ciIncludes)
	files = withoutContext(files)
	results := make([]fileResult, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = scanFile(opts, files[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()

	// Files in path order, findings in position order within each: the
	// report is sorted without moving every finding around.
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(files[a].Path, files[b].Path) })
	r := &Report{}
	n := 0
	for _, res := range results {
		if res.err != nil {
			return nil, res.err
		}
		n += len(res.findings)
	}
	r.Findings = make([]Finding, 0, n)
	for _, i := range order {
		res := results[i]
		slices.SortStableFunc(res.findings, func(a, b Finding) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
				cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
		})
		fingerprint(res.findings)
		r.Findings = append(r.Findings, res.findings...)
		r.Problems = append(r.Problems, res.problems...)
		r.Untrusted = append(r.Untrusted, res.untrusted...)
		r.Commands += res.commands
		if res.commands > 0 || len(res.findings) > 0 {
			r.Files++
		}
	}
	return r, nil
}

// withoutContext drops the context files (Staged) that are not to be
// scanned: one is kept when an include made it a kind it is not by its
// name and the commit changes a file of a kind that includes others (a
// .gitlab-ci.yml that now includes an old docs/x.yml makes that file CI
// code). The rest only said what the commit's files are.
func withoutContext(files []File) []File {
	includer := false
	for _, f := range files {
		if !f.context && slices.Contains(includerKinds, f.Kind()) {
			includer = true
			break
		}
	}
	out := files[:0:0]
	for _, f := range files {
		if !f.context || includer && f.kind != "" && f.kind != KindOf(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// includerKinds are the kinds whose files include others by path (Run's
// included and includedAs calls).
var includerKinds = []Kind{GitLab, Makefile, Compose, Vagrant, Mise, CargoMake, GitConfig, CI}

type reviewKey struct{ text, cwd string }

// cached is one review, shared by every snippet with the same key: what
// is done with it afterwards (container adjustment, allowances) works on
// copies.
type cached struct {
	once sync.Once
	v    Review
	err  error
}

type fileResult struct {
	findings  []Finding
	problems  []Problem
	untrusted []Problem
	commands  int
	err       error
}

func scanFile(opts Options, f File) fileResult {
	src := f.Src
	if src == nil {
		err := f.Err
		if err == nil {
			src, err = f.source(opts.Root, f.kind != "")
		}
		if err != nil {
			// Not known to be safe: a finding, and the scan goes on.
			why := errors.Unwrap(err)
			if why == nil {
				why = err // f.Err, said as it is
			}
			var pe *fs.PathError
			if errors.As(err, &pe) {
				why = pe.Err
			}
			return unreadable(f, why)
		}
		if src == nil {
			return fileResult{}
		}
	}
	if (f.Kind() != "" || f.Exec) && isLFSPointer(src) {
		// What runs is the file Git LFS puts there on checkout (CI that
		// pulls LFS objects, a developer with git-lfs); the repository
		// holds only its hash. The work tree's file is that content when
		// its hash is the pointer's (a commit staging an LFS file).
		content, ok := lfsContent(opts.Root, f, src)
		if !ok {
			return unreadable(f, errLFSPointer)
		}
		src = content
	}
	snippets, xerr := ExtractKind(f.Path, f.kind, src)
	if len(snippets) == 0 && xerr == nil {
		return fileResult{}
	}
	var li *lineIndex
	if len(snippets) > 0 {
		li = snippets[0].lines
	} else {
		li = newLineIndex(src)
	}
	allows, problems, untrusted := allowances(f.Path, li, opts.KnownRule, opts.Trusted)
	res := fileResult{problems: problems, untrusted: untrusted, commands: len(snippets)}
	add := func(fd Finding, snippetLine int) {
		fd.Path = f.Path
		fd.col16 = li.utf16Col(fd.Position)
		cmd, cmdLine := logicalLine(li, fd.Line)
		fd.Suppressed = allowed(allows, fd.Rule, fd.Line, cmdLine, snippetLine)
		if fd.Suppressed != nil && opts.Trusted != nil && !allTrusted(opts.Trusted, f.Path, cmd) {
			// A trusted comment binds the command it was written over:
			// copied above a new command, or left above a changed one,
			// it covers nothing.
			res.untrusted = append(res.untrusted, Problem{Path: f.Path, Position: fd.Position,
				Msg:  fmt.Sprintf("guard:allow %s (line %d) covers a command that is new or changed in this change: not honoured", fd.Rule, fd.Suppressed.Line),
				Hint: "an allowance counts for the command it was reviewed with; ask a reviewer to allow the new command on the branch the change is checked against (--trust-from)"})
			fd.Suppressed = nil
		}
		fd.lineHash = lineHash(f.Path, fd.Rule, cmd)
		res.findings = append(res.findings, fd)
	}
	for i := range snippets {
		s := &snippets[i]
		if s.NotShell {
			addInjections(s, add)
			res.commands--
			continue
		}
		cwd := filepath.Join(opts.Root, filepath.FromSlash(s.Dir))
		rv, err := opts.Review(s.Text, opts.Root, cwd)
		if err != nil {
			p := s.Start()
			return fileResult{err: fmt.Errorf("review %s:%d:%d: %w", f.Path, p.Line, p.Col, err)}
		}
		v, adj := rv.Verdict, []*Adjustment(nil)
		if a := adjustments[s.Kind]; a != nil {
			v, adj = a.apply(rv)
		}
		first := len(res.findings)
		start := s.Start().Line
		top := review.Level(0)
		for j, r := range v.Reasons {
			top = review.Max(top, r.Level)
			fd := Finding{Position: s.Pos(r.Pos), Kind: s.Kind, Level: r.Level, Rule: r.Rule,
				Message: r.Message, Explanation: v.Explanation, snippet: i}
			if adj != nil {
				fd.Adjusted = adj[j]
			}
			add(fd, start)
			// The verdict names a rule and message once, where it first
			// happens; every other place it happens is a finding of its
			// own, so an allowance for the first does not cover the rest.
			at := map[int]bool{r.Pos: true}
			for _, e := range rv.Effects {
				if e.Rule == r.Rule && e.Msg == r.Message && !at[e.Pos] {
					at[e.Pos] = true
					dup := fd
					dup.Position = s.Pos(e.Pos)
					add(dup, start)
				}
			}
		}
		if v.Level > top && v.Level > review.A {
			add(Finding{Position: s.Start(), Kind: s.Kind, Level: v.Level, Rule: RuleUnexplained,
				Message:     fmt.Sprintf("reviewed as %s without a reason at that level", v.Level),
				Explanation: v.Explanation, snippet: i}, start)
		}
		explainAllowed(res.findings[first:])
		addInjections(s, add)
	}
	if se, ok := xerr.(*SyntaxError); ok {
		add(Finding{Position: se.Pos, Kind: f.Kind(), Level: review.C, Rule: RuleUnparsable, Explanation: ownExplanation(RuleUnparsable),
			Message: se.Msg, snippet: -1}, se.Pos.Line)
	} else if xerr != nil {
		return fileResult{err: xerr}
	}
	return res
}

// allTrusted reports whether every line of text is a line trusted finds
// in the file at the trusted revision.
func allTrusted(trusted func(string, []byte) bool, path string, text []byte) bool {
	for _, l := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		if !trusted(path, l) {
			return false
		}
	}
	return true
}

// addInjections reports a snippet's injections as findings of their rule,
// with the rule's description and fix as the explanation.
func addInjections(s *Snippet, add func(Finding, int)) {
	for _, in := range s.Injections {
		info := Describe(in.Rule)
		add(Finding{Position: in.Position, Kind: s.Kind, Level: info.Level, Rule: in.Rule,
			Message: fmt.Sprintf("%s %s", in.Ref, in.How), Explanation: ownExplanation(in.Rule), snippet: -1}, s.Start().Line)
	}
}

// ownExplanation explains a finding of scan's own rules: what the rule
// means and its fix.
func ownExplanation(rule string) string {
	info := Describe(rule)
	return info.Full + "\nFix: " + info.Fix + "\n"
}

// MaxFileRead bounds what scan reads of one file. A larger file, or one
// that is not a regular file when it is read (a FIFO swapped in after the
// listing), is a C finding (scan-unreadable), never skipped.
const MaxFileRead = 16 << 20

// unreadable is the finding for a file that may hold shell and cannot be
// read (why): not known to be safe.
func unreadable(f File, why error) fileResult {
	fd := Finding{Path: f.Path, Position: Position{Line: 1, Col: 1}, Kind: f.Kind(), Level: review.C,
		Rule: RuleUnreadable, Message: fmt.Sprintf("cannot read the file: %v", why), Explanation: ownExplanation(RuleUnreadable), snippet: -1}
	fd.lineHash = lineHash(f.Path, fd.Rule, nil)
	return fileResult{findings: []Finding{fd}}
}

// errLFSPointer is why a Git LFS pointer with a shell file's name, or an
// executable one, is not read: its content is stored outside the
// repository.
var errLFSPointer = errors.New("it is a Git LFS pointer: the content that runs is stored outside the repository, where guard cannot review it")

// isLFSPointer reports whether src is a Git LFS pointer file: the spec's
// version line first, then oid and size lines, and nothing long.
func isLFSPointer(src []byte) bool {
	// git-lfs still reads the pointers of its first release
	// (hawser.github.com) as well as today's.
	if len(src) > 1024 || !bytes.HasPrefix(src, []byte("version https://git-lfs.github.com/spec/")) && !bytes.HasPrefix(src, []byte("version https://hawser.github.com/spec/v1")) {
		return false
	}
	return bytes.Contains(src, []byte("\noid sha256:")) && bytes.Contains(src, []byte("\nsize "))
}

// lfsContent is the content the LFS pointer ptr of f stands for, when the
// work tree's file under root has it (its SHA-256 is the pointer's oid).
func lfsContent(root string, f File, ptr []byte) ([]byte, bool) {
	_, rest, ok := bytes.Cut(ptr, []byte("\noid sha256:"))
	if !ok || root == "" {
		return nil, false
	}
	oid, _, _ := bytes.Cut(rest, []byte("\n"))
	src, err := readCandidate(filepath.Join(root, filepath.FromSlash(f.Path)), f.Path, root, true)
	if err != nil || src == nil {
		return nil, false
	}
	sum := sha256.Sum256(src)
	return src, hex.EncodeToString(sum[:]) == string(bytes.TrimSpace(oid))
}

// errLinkOutside is why a symbolic link that leads out of the repository
// is not read: its content is not the repository's (a secret, a device),
// and a scan must not print it.
var errLinkOutside = errors.New("it is a symbolic link to a file outside the repository; guard does not read it")

// readCandidate reads a file if it may hold shell: by its name, or by a
// shebang in its first bytes. It returns nil, nil for other files. A
// symbolic link is read through (its name says what runs it) when it
// leads to a file inside root; one that leads out is an error. known: the
// file's kind is known from another file (read it whatever its name).
func readCandidate(osPath, name, root string, known bool) ([]byte, error) {
	if fi, err := os.Lstat(osPath); err == nil && fi.Mode()&fs.ModeSymlink != 0 && root != "" {
		target, err := filepath.EvalSymlinks(osPath)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		top, err := filepath.Abs(root)
		if err == nil {
			if r, err := filepath.EvalSymlinks(top); err == nil {
				top = r
			}
		}
		if err != nil || !paths.Within(target, top) {
			return nil, fmt.Errorf("read %s: %w", name, errLinkOutside)
		}
	}
	fh, err := safefile.Open(osPath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer fh.Close()
	if !known && KindOf(name) == "" {
		size := 256
		if isYAML(strings.ToLower(path.Base(name))) {
			size = kubeHeadSize // a Tekton or Argo apiVersion, after a licence
		}
		head := make([]byte, size)
		n, err := io.ReadFull(fh, head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if !isShebangShell(head[:n]) && !isKubeWorkflow(name, head[:n]) {
			if isLFSPointer(head[:n]) && executable(fh) {
				// An executable stored in LFS: a program whose content
				// the repository does not hold.
				return nil, fmt.Errorf("read %s: %w", name, errLFSPointer)
			}
			return nil, nil
		}
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
	src, err := safefile.ReadAll(fh, name, MaxFileRead)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return src, nil
}

// executable reports whether the open file f has an execute bit.
func executable(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&0o111 != 0
}

// relPath names p (absolute) relative to root with forward slashes, or p
// itself when it is outside root.
func relPath(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return filepath.ToSlash(p)
	}
	return path.Clean(filepath.ToSlash(rel))
}
