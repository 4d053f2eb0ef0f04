package profile

import (
	"encoding/json"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/tailscale/hujson"
)

// Taint (LEVELS.md principle 9): what the line changes, the line cannot
// vouch for. Data keeps where it came from through filters; a program that
// talks to the network produces network data; files the line writes are
// remembered (by path, with what was written) so that a later run of them,
// or of a tool that reads them (make, npm, go test…), is reviewed as code
// the line made: at least B, C when the content came from the network or
// from decoding.

// netCaps are the capabilities that mean a program exchanged data with
// the network: whatever it prints is network data.
func netCap(c Cap) bool {
	switch c {
	case CapFetch, CapSend, CapPublish, CapNetCode, CapQuery:
		return true
	}
	return false
}

// contentWrites are the write rules that change what a file holds (not
// mkdir, touch, chmod or a formatter's rewrite of code already there).
var contentWrites = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"redirect.write": true, "fs.write": true, "fs.move": true, "fs.patch": true, "fs.link": true,
		"sed.in-place": true, "sed.write": true, "awk.write": true, "net.download": true, "fs.extract": true,
		"tar.extract": true, "fs.edit-in-place": true, "fs.decompress": true, "dd.write": true, "find.write": true,
		"git.archive": true, "pkg.manifest-edit": true, "fs.output": true, "fs.backup": true,
	}
})

// markWrite remembers that the line wrote f (unknown content unless a
// handler records what it was). A path already recorded keeps its taint.
// A file made with a name that starts with a dash is remembered however
// it was made (touch -- -x too): a glob may pass it as an option
// (unseenopt.go).
func (b *builder) markWrite(rule string, f field, st *state) {
	if (!contentWrites()[rule] && !strings.HasPrefix(path.Base(f.val), "-")) || st == nil || st.files == nil || b.ctx.Remote || !f.known || f.glob {
		return
	}
	p, ok := b.ctx.Resolve(st.cwd, f.val)
	if !ok {
		return
	}
	if w, ok := st.files[p]; ok && w.tainted() {
		return
	}
	st.files[p] = stream{kind: streamUnknown}
}

// written reports what the line wrote at p or at a directory above it (a
// clone or an extraction writes a whole tree).
func (s *state) written(p string) (stream, bool) {
	if s.files == nil {
		return stream{}, false
	}
	for d := p; ; d = path.Dir(d) {
		if w, ok := s.files[d]; ok {
			return w, true
		}
		if d == "/" || d == "." || d == "" {
			return stream{}, false
		}
	}
}

// urlBase is the file name a download of u gets by default (wget URL,
// curl -O): the last path element, or index.html for a bare host.
func urlBase(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		u = p.Path
	} else if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = ""
		}
	} else if !strings.Contains(u, "/") {
		// wget example.com: a host name.
		u = ""
	}
	base := path.Base(u)
	if base == "." || base == "/" || base == "" {
		return "index.html"
	}
	return base
}

// isURL reports whether an operand is a network address.
func isURL(v string) bool {
	l := strings.ToLower(v)
	for _, s := range []string{"http://", "https://", "ftp://", "ftps://", "sftp://"} {
		if strings.HasPrefix(l, s) {
			return true
		}
	}
	return false
}

// downloaded records that dir/name holds network data.
func (b *builder) downloaded(st *state, dir field, name string) {
	d := st.cwd
	if dir.known && dir.val != "" {
		p, ok := b.ctx.Resolve(st.cwd, dir.val)
		if !ok {
			return
		}
		d = p
	} else if !dir.known && dir.val != "" {
		return
	}
	if d == "" {
		return
	}
	if p, ok := b.ctx.Resolve(d, name); ok {
		st.wrote(p, stream{kind: streamNetwork})
	}
}

// defaultDownloads records the files wget, curl -O and aria2c write by
// default: the URL's base name, in -P/--output-dir/-d or the cwd.
// anyOperand: every operand is a URL, as wget and curl take it
// (example.com/i.sh is http://…); else only operands with a scheme
// (aria2c's others are local torrents).
func (b *builder) defaultDownloads(c *call, anyOperand bool, dirFlags ...string) {
	var dir field
	if ds := c.a.values(dirFlags...); len(ds) > 0 {
		dir = ds[len(ds)-1]
	}
	for _, op := range c.a.ops {
		if op.known && (anyOperand || isURL(op.val)) {
			name := urlBase(op.val)
			b.downloaded(c.st, dir, name)
			// The URL names the file it lands as: wget -P ~ URL/.bashrc
			// writes ~/.bashrc, which the directory's row does not say;
			// without a directory, it lands in the cwd (cd ~ && wget
			// URL/.bashrc, wget URL/.envrc in the workspace).
			at := dir
			if !dir.known && dir.val == "" && c.st.cwd != "" {
				at = staticField(c.st.cwd, c.sp)
			}
			if at.known && at.val != "" {
				if d, ok := b.ctx.Resolve(c.st.cwd, at.val); ok {
					p := path.Join(d, name)
					if cl := b.ctx.Classify(p); cl == ClassPersistence || cl == ClassSecret || cl == ClassGuard {
						b.pathEffect(CapWrite, "net.download", c.prog, staticField(p, span{op.pos, op.end}), c.st, c.sp, "downloads into")
					}
				}
			}
		}
	}
}

// hAria2c: aria2c URL writes URL's base name (or -o NAME) into -d DIR.
func hAria2c(b *builder, c *call) stream {
	var dir field
	if ds := c.a.values("-d", "--dir"); len(ds) > 0 {
		dir = ds[0]
	}
	if outs := c.a.values("-o", "--out"); len(outs) > 0 && outs[0].known {
		b.downloaded(c.st, dir, outs[0].val)
		return stream{}
	}
	b.defaultDownloads(c, false, "-d", "--dir")
	return stream{}
}

// hCopy: cp and mv give the destination the source's content, so running
// the copy is reviewed like running the source (text when readable,
// tainted when the source was downloaded on this line).
func hCopy(b *builder, c *call) stream {
	ops := c.a.ops
	var dest field
	srcs := ops
	if ts := c.a.values("-t", "--target-directory"); len(ts) > 0 {
		dest = ts[0]
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	} else {
		return stream{}
	}
	if !dest.known || c.st.files == nil {
		return stream{}
	}
	dp, ok := b.ctx.Resolve(c.st.cwd, dest.val)
	if !ok {
		return stream{}
	}
	for _, s := range srcs {
		content := stream{kind: streamUnknown}
		if s.known && !s.glob {
			if sp, ok := b.ctx.Resolve(c.st.cwd, s.val); ok {
				if w, ok := c.st.written(sp); ok {
					content = w
				} else if len(srcs) == 1 {
					content = b.fileStream([]field{s}, c.st)
				}
			}
		} else if s.taint.tainted() {
			content = s.taint
		}
		// The destination is the file, or a directory that receives it.
		c.st.wrote(dp, content)
		if s.known {
			c.st.wrote(path.Join(dp, path.Base(s.val)), content)
		}
	}
	return stream{}
}

// intoDir: cp, mv, install and ln put each source at DEST/NAME when DEST
// is a directory (cp .bashrc ~ writes ~/.bashrc). guard cannot see
// whether DEST is one, so where that name would be a protected location
// (persistence, secrets, guard's files) and DEST itself is not, the write
// is priced as that location too. Then prev.
func intoDir(prev handler) handler {
	return func(b *builder, c *call) stream {
		var dest field
		srcs := c.a.ops
		switch ts := c.a.values("-t", "--target-directory"); {
		case len(ts) > 0:
			dest = ts[0]
		case c.a.has("-T", "--no-target-directory") || len(srcs) < 2:
			return prev(b, c)
		default:
			dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
		}
		if dp, ok := b.ctx.Resolve(c.st.cwd, dest.val); ok && dest.known {
			b.intoHeld(c, dp, srcs, false)
			if len(srcs) == 1 && b.treeAt(c, dp) {
				// DEST may not exist yet: then SRC's tree becomes DEST,
				// its contents under DEST by their own names (mv dir
				// .venv/bin, cp -r d venv/bin).
				src := srcs[0]
				src.val = strings.TrimSuffix(src.val, "/") + "/."
				b.intoHeld(c, dp, []field{src}, false)
			}
			b.namesInto(c, dest, dp, srcs)
		} else if !dest.known {
			// A directory guard cannot see: each source lands under its
			// own name there, which may be a start-up file's
			// (cp x.pth $D/site-packages/).
			for _, s := range srcs {
				if s.known && !s.glob && path.Base(s.val) != "." && path.Base(s.val) != "/" {
					in := dest
					in.val = strings.TrimSuffix(dest.val, "/") + "/" + path.Base(s.val)
					in.raw = strings.TrimSuffix(dest.display(), "/") + "/" + path.Base(s.val)
					if _, cl, ok := b.worstCase(in, c.st); ok && (cl == ClassPersistence || cl == ClassSecret || cl == ClassGuard) {
						b.pathEffect(CapWrite, "fs.write", c.prog, in, c.st, c.sp, "writes")
					}
				}
			}
		}
		return prev(b, c)
	}
}

// namesInto prices each source landing at dp/NAME (dp the directory dest
// names) where that name is a protected location and dp itself is not.
func (b *builder) namesInto(c *call, dest field, dp string, srcs []field) {
	own := b.ctx.Classify(dp)
	for _, s := range srcs {
		if !s.known || s.glob || path.Base(s.val) == "." || path.Base(s.val) == "/" {
			continue
		}
		p := path.Join(dp, path.Base(s.val))
		if cl := b.ctx.Classify(p); cl != own && (cl == ClassPersistence || cl == ClassSecret || cl == ClassGuard) {
			b.pathEffect(CapWrite, "fs.write", c.prog, staticField(p, span{dest.pos, dest.end}), c.st, c.sp, "writes")
		}
	}
}

// treeAt reports whether c (cp -r/-a, mv, ln -s) would make dp a copy of
// its one source's tree when dp does not exist yet. The home directory,
// the workspace root and / always exist.
func (b *builder) treeAt(c *call, dp string) bool {
	switch {
	case dp == "/" || dp == path.Clean(b.ctx.Home) || dp == path.Clean(b.ctx.Workspace):
		return false
	case path.Base(c.prog) == "mv":
		return true
	case path.Base(c.prog) == "ln":
		return c.a.has("-s", "--symbolic")
	case path.Base(c.prog) == "cp":
		return c.a.has("-r", "-R", "-a", "--recursive", "--archive")
	}
	return false
}

// intoHeld: sources that land under dp by names the line does not show
// (a directory's contents, src/. or, for rsync, src/; a glob; a word
// guard cannot see) may land on the protected paths or guard's files dp
// holds: cp -r dotfiles/. ~ may write ~/.bashrc.
func (b *builder) intoHeld(c *call, dp string, srcs []field, slashIsContents bool) {
	held := b.ctx.writeHeldClass(dp)
	if held == "" {
		return
	}
	for _, s := range srcs {
		if !s.known || s.glob || path.Base(s.val) == "." || s.val == "/" || (slashIsContents && strings.HasSuffix(s.val, "/")) {
			b.add(Effect{Cap: CapWrite, Rule: "fs.write", Program: c.prog, Target: dp, Class: held,
				Msg: "writes, under names the line does not show, into " + describeTarget(dp, held)}, c.sp)
			return
		}
	}
}

// hRsyncInto: rsync writes its sources into the last operand, a
// source ending in / by its contents' names.
func hRsyncInto(b *builder, c *call) stream {
	if n := len(c.a.ops); n >= 2 {
		if dest := c.a.ops[n-1]; dest.known {
			if dp, ok := b.ctx.Resolve(c.st.cwd, dest.val); ok {
				b.intoHeld(c, dp, c.a.ops[:n-1], true)
				// A source without a trailing / lands by its own name
				// (rsync -a ssh .venv/bin/).
				var named []field
				for _, s := range c.a.ops[:n-1] {
					if !strings.HasSuffix(s.val, "/") {
						named = append(named, s)
					}
				}
				b.namesInto(c, dest, dp, named)
			}
		}
	}
	return stream{}
}

// runnerInputs are the files a build or test tool reads from its
// directory and runs as code: base-name patterns.
var runnerInputs = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"make": {"Makefile", "makefile", "GNUmakefile", "*.mk"}, "gmake": {"Makefile", "makefile", "GNUmakefile", "*.mk"},
		"npm": {"package.json", ".npmrc"}, "yarn": {"package.json", ".yarnrc*"}, "pnpm": {"package.json", ".npmrc"}, "bun": {"package.json", "bunfig.toml", "*.ts", "*.js"},
		"cargo": {"Cargo.toml", "build.rs", "*.rs", "config.toml"}, "go": {"*.go", "go.mod"},
		"pytest": {"*.py", "conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"}, "tox": {"tox.ini", "pyproject.toml", "*.py"}, "nox": {"noxfile.py"},
		"just": {"justfile", "Justfile", ".justfile"}, "task": {"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml"}, "rake": {"Rakefile", "*.rake"}, "gradle": {"*.gradle", "*.gradle.kts"}, "./gradlew": {"*.gradle", "*.gradle.kts", "gradlew"},
		"mvn": {"pom.xml"}, "cmake": {"CMakeLists.txt", "*.cmake"}, "ninja": {"build.ninja"}, "meson": {"meson.build"}, "bazel": {"BUILD", "BUILD.bazel", "WORKSPACE", "*.bzl", "MODULE.bazel"},
		"jest": {"*.js", "*.ts", "jest.config.*", "package.json"}, "vitest": {"*.js", "*.ts", "vitest.config.*", "package.json"}, "mocha": {"*.js", "*.ts", ".mocharc*"},
		"docker": {"Dockerfile", "*.dockerfile", "compose.y*ml", "docker-compose.y*ml"}, "docker-compose": {"compose.y*ml", "docker-compose.y*ml"},
		"composer": {"composer.json"}, "bundle": {"Gemfile"}, "poetry": {"pyproject.toml"}, "uv": {"pyproject.toml", "*.py"},
		// Task runners and build tools whose build file is code in the
		// language they are written in, and tools that load a config
		// file that is a program (eslint.config.js, vite.config.ts).
		"grunt": {"Gruntfile.*", "*.js"}, "gulp": {"gulpfile.*", "*.js"}, "invoke": {"tasks.py", "invoke.yaml", "*.py"}, "inv": {"tasks.py", "invoke.yaml", "*.py"},
		"fab": {"fabfile.py", "*.py"}, "doit": {"dodo.py", "*.py"}, "snakemake": {"Snakefile", "*.smk", "*.py"}, "scons": {"SConstruct", "SConscript", "*.py"},
		"mage": {"magefile.go", "*.go"}, "earthly": {"Earthfile"}, "sbt": {"build.sbt", "*.sbt", "*.scala"}, "ant": {"build.xml"}, "mix": {"mix.exs", "*.exs", "*.ex"},
		"lein": {"project.clj"}, "xmake": {"xmake.lua"}, "zig": {"build.zig"}, "swift": {"Package.swift"}, "rebar3": {"rebar.config"}, "dune": {"dune", "dune-project"},
		"cabal": {"*.cabal", "Setup.hs", "cabal.project"}, "stack": {"stack.yaml", "*.cabal", "Setup.hs"}, "dotnet": {"*.csproj", "*.fsproj", "*.props", "*.targets", "*.sln"},
		"deno": {"deno.json", "deno.jsonc", "*.ts", "*.js"}, "pipenv": {"Pipfile"}, "pdm": {"pyproject.toml"}, "hatch": {"pyproject.toml", "hatch.toml"}, "ctest": {"CTestTestfile.cmake"},
		"vite": {"vite.config.*"}, "webpack": {"webpack.config.*"}, "rollup": {"rollup.config.*"}, "next": {"next.config.*"}, "eslint": {"eslint.config.*", ".eslintrc.js", ".eslintrc.cjs"},
		"prettier": {"prettier.config.*", ".prettierrc.js", ".prettierrc.cjs"}, "babel": {"babel.config.*", ".babelrc.js"}, "playwright": {"playwright.config.*"}, "cypress": {"cypress.config.*"},
		"rspec": {".rspec", "*.rb"}, "phpunit": {"phpunit.xml*", "*.php"}, "lefthook": {"lefthook.y*ml", ".lefthook.y*ml"},
		// Start-up files read from the current directory: R's .Rprofile,
		// perl -d's .perldb; linters whose config loads code (pylint's
		// init-hook, mypy's plugins, rubocop's require); environments
		// built from a file of code or hooks (devbox, Vagrant).
		"node": {"package.json"}, "Rscript": {".Rprofile", ".Renviron"}, "R": {".Rprofile", ".Renviron"}, "perl": {".perldb"},
		"pylint": {".pylintrc", "pylintrc", "pyproject.toml", "setup.cfg", "tox.ini"}, "mypy": {"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"},
		"rubocop": {".rubocop.yml", ".rubocop_todo.yml"}, "devbox": {"devbox.json"}, "vagrant": {"Vagrantfile"},
	}
})

// runnerShortFile are the short options that name the build file for the
// runners whose letter means that (task -t, tox -c).
var runnerShortFile = map[string]string{"task": "-t", "tox": "-c"}

// runnerCheck reviews a build or test tool run after the same line wrote
// one of the files it reads: unknown code at least B, C from the network.
// runnerOutside: a build or test tool runs the build files of its
// directory (-C, --dir, -f, or the cwd the line moved to): outside the
// workspace they are code this review did not read, as a program run
// there by path is (cd ~/other && make is B). So are build files under
// the system trees (make -C /etc).
func (b *builder) runnerOutside(prog string, c *call) {
	if b.ctx.Remote || !b.ctx.WorkspaceUsable() {
		return
	}
	dir := c.st.cwd
	for _, d := range c.a.values(append(runnerOpts(), "-d", "--conf", runnerShortFile[prog])...) {
		if !d.known {
			dir = ""
			break
		}
		if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok {
			dir = p
		}
	}
	if dir == "" {
		// cd "$X" && make, make -C "$X": build files in a directory this
		// line does not name, which the review cannot have read.
		b.add(Effect{Cap: CapExec, Rule: "exec.runner-outside", Program: prog, Class: ClassUnknown,
			Msg: "runs the build files of a directory guard cannot resolve, which this review did not read"}, c.sp)
		return
	}
	switch cl := b.ctx.Classify(dir); cl {
	case ClassOutside, ClassHome:
		b.add(Effect{Cap: CapExec, Rule: "exec.runner-outside", Program: prog, Target: dir, Class: cl,
			Msg: "runs the build files of " + describeTarget(dir, cl) + ", which this review did not read"}, c.sp)
	case ClassSystem, ClassRoot:
		// Running a system program is A; running the build files found
		// in a system tree is code nobody reviewed (unanalysed: B).
		b.add(Effect{Cap: CapDynamic, Rule: "exec.runner-outside", Program: prog, Target: dir, Class: cl,
			Msg: "runs the build files of " + describeTarget(dir, cl) + ", which this review did not read"}, c.sp)
	}
}

func (b *builder) runnerCheck(prog string, c *call) {
	pats := runnerInputs()[prog]
	if pats == nil || c.st.files == nil || len(c.st.files) == 0 || b.ctx.Remote {
		return
	}
	dir := c.st.cwd
	for _, d := range c.a.values(runnerOpts()...) {
		if !d.known {
			return
		}
		if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok {
			if runnerFileFlag(d, c) {
				b.runnerFile(prog, p, c)
				continue
			}
			dir = p
		}
	}
	if dir == "" {
		return
	}
	if w, ok := c.st.written(dir); ok {
		b.runnerFound(prog, dir, w, c)
		return
	}
	var hits []string
	for p := range c.st.files {
		if !paths.Within(p, dir) {
			continue
		}
		for _, pat := range pats {
			if ok, _ := path.Match(pat, path.Base(p)); ok {
				hits = append(hits, p)
				break
			}
		}
	}
	sort.Strings(hits) // map order is random; the verdict must not be
	for _, p := range hits {
		b.runnerFound(prog, p, c.st.files[p], c)
	}
}

// runnerFileOpts are the options by which build and task runners name
// the build file they run (make -f, rake --rakefile, gulp --gulpfile);
// runnerDirOpts those that name the directory they run in.
var (
	runnerFileOpts = []string{"-f", "--file", "--makefile", "--manifest-path", "--rakefile", "--gulpfile", "--gruntfile", "--fabfile", "--snakefile", "--sconstruct", "--buildfile", "-buildfile", "--justfile", "--taskfile"}
	runnerDirOpts  = []string{"-C", "--directory", "--cwd", "--prefix", "--dir", "--working-directory", "--root", "--base", "--search-root"}
)

// runnerOpts are runnerDirOpts and runnerFileOpts in a new slice.
func runnerOpts() []string {
	return append(append([]string(nil), runnerDirOpts...), runnerFileOpts...)
}

// runnerFileFlag: the options of runnerFileOpts name a file, the others
// a directory.
func runnerFileFlag(d field, c *call) bool {
	for _, n := range runnerFileOpts {
		for _, v := range c.a.values(n) {
			if v.pos == d.pos && v.end == d.end && v.val == d.val {
				return true
			}
		}
	}
	return false
}

func (b *builder) runnerFile(prog, p string, c *call) {
	if w, ok := c.st.written(p); ok {
		b.runnerFound(prog, p, w, c)
		// The file an option names is prog's build file whatever its
		// name (make -f mk reads mk as a Makefile): reviewed as one.
		if pats := runnerInputs()[prog]; len(pats) > 0 && pats[0] != path.Base(p) && w.kind == streamText {
			b.writtenCode(pats[0], w.text, c)
		}
	}
}

// projectBuildFiles: prog builds the project in dir, running its build
// files (names, in dir): one this line wrote, or dir itself written
// (cloned, extracted), is priced by runnerFound.
func (b *builder) projectBuildFiles(prog, dir string, names []string, c *call) {
	if w, ok := c.st.written(dir); ok {
		b.runnerFound(prog, dir, w, c)
		return
	}
	for _, n := range names {
		if w, ok := c.st.written(path.Join(dir, n)); ok {
			b.runnerFound(prog, path.Join(dir, n), w, c)
		}
	}
}

func (b *builder) runnerFound(prog, p string, w stream, c *call) {
	if w.tainted() {
		b.add(Effect{Cap: CapNetCode, Rule: "exec.runs-downloaded", Program: prog, Target: p, Msg: "reads " + p + ", which this line wrote from the network or from decoded data, and runs what it says"}, c.sp)
		return
	}
	b.add(Effect{Cap: CapDynamic, Rule: "exec.runs-written", Program: prog, Target: p, Msg: "reads " + p + ", which this line wrote or changed, and runs what it says: guard cannot vouch for it"}, c.sp)
	if w.kind == streamText {
		b.writtenCode(path.Base(p), w.text, c)
	}
}

// hMakefileText reviews makefile text the line hands make itself: --eval
// TEXT, and -f - / -f /dev/stdin / -f <(…) read from its input. Known
// text is reviewed as the recipes it holds; anything else is code guard
// cannot see (C from the network).
func hMakefileText(b *builder, c *call) stream {
	// NAME=VALUE operands override the makefile's variables: SHELL runs
	// every recipe line, CC and the other tool variables run in recipes.
	for _, f := range c.a.ops {
		name, val, ok := strings.Cut(f.display(), "=")
		if ok && validName(name) && name != "SHELL" && !codeVars()[name] {
			// make exports the variables set on its command line to
			// every recipe's environment: make LD_PRELOAD=./x.so loads
			// x.so into every program a recipe runs.
			b.envAssigns([]field{f}, c.st, span{f.pos, f.end})
		}
		if !ok || (name != "SHELL" && !codeVars()[name]) {
			continue
		}
		if !f.known {
			b.dynamicCode(f, c, c.prog+" "+name+"=")
			continue
		}
		_, val, _ = strings.Cut(f.val, "=")
		if name == "SHELL" {
			// The shell make runs each recipe line with: SHELL -c LINE.
			val += " -c :"
		}
		b.reviewCodeVar(name, &val, c.st, span{f.pos, f.end})
	}
	b.makeShellFlags(c)
	for _, f := range c.a.values("--eval", "-E") {
		if !f.known {
			b.dynamicCode(f, c, c.prog+" --eval")
			continue
		}
		b.writtenCode("Makefile", f.val, c)
	}
	for _, f := range c.a.values("-f", "--file", "--makefile") {
		var in stream
		switch {
		case f.proc:
			in = f.taint
		case f.known && isStdinPath(f.val):
			in = c.in
		default:
			continue
		}
		if in.kind == streamText {
			b.writtenCode("Makefile", in.text, c)
		} else {
			b.dynamicCode(field{raw: f.display(), taint: in}, c, c.prog+" -f "+f.display())
		}
	}
	return stream{}
}

// writtenCode reviews the commands in a Makefile or package.json whose
// text the line wrote: the level is at least what they would run.
func (b *builder) writtenCode(base, text string, c *call) {
	var cmds []string
	switch {
	case base == "package.json":
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal([]byte(text), &pkg) != nil {
			return
		}
		names := make([]string, 0, len(pkg.Scripts))
		for n := range pkg.Scripts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			cmds = append(cmds, pkg.Scripts[n])
		}
	case strings.EqualFold(base, "makefile") || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		b.makeFunctions(text, c)
		for _, line := range strings.Split(text, "\n") {
			if r, ok := strings.CutPrefix(line, "\t"); ok {
				r = strings.TrimLeft(r, "@-+ ")
				cmds = append(cmds, strings.ReplaceAll(r, "$$", "$"))
			} else if _, after, ok := strings.Cut(line, ";"); ok && strings.Contains(line, ":") {
				cmds = append(cmds, strings.TrimSpace(after)) // target: prereqs; recipe
			}
		}
	}
	for _, cmd := range cmds {
		if cmd != "" {
			b.text(cmd, c.st.clone(), stream{}, c.prog+" (written on this line)", c.sp)
		}
	}
}

// hDeno: deno run/install/compile of a URL runs code from the network;
// deno eval runs inline code.
func hDeno(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) == 0 {
		return stream{kind: streamUnknown}
	}
	switch ops[0].val {
	case "task":
		return b.denoTask(c, ops[1:])
	case "eval":
		b.add(Effect{Cap: CapDynamic, Rule: "interp.inline-code", Program: "deno", Msg: "runs inline deno code, which guard does not review"}, c.sp)
	case "run", "install", "compile", "test", "bench", "x", "serve":
		if len(ops) > 1 && !ops[1].known {
			// A script guard cannot see may be a URL: code it cannot
			// review, from the network when the word is.
			b.dynamicCode(ops[1], c, "deno "+ops[0].val)
		}
		for _, op := range ops[1:] {
			if op.known && isURL(op.val) {
				b.add(Effect{Cap: CapNetCode, Rule: "exec.remote-code", Program: "deno", Target: op.val, Msg: "downloads code from " + op.val + " and runs it, unreviewed"}, c.sp)
			} else if op.known && (strings.HasPrefix(op.val, "jsr:") || strings.HasPrefix(op.val, "npm:")) {
				b.add(Effect{Cap: CapFetch, Rule: "pkg.exec", Program: "deno", Target: op.val, Msg: "downloads and runs a package"}, c.sp)
			}
		}
	default:
		if isURL(ops[0].val) {
			b.add(Effect{Cap: CapNetCode, Rule: "exec.remote-code", Program: "deno", Target: ops[0].val, Msg: "downloads code from " + ops[0].val + " and runs it, unreviewed"}, c.sp)
		}
	}
	return stream{kind: streamUnknown}
}

// denoTask: deno task NAME runs the task NAME of the nearest deno.json or
// deno.jsonc (JSON with comments), with deno's bash-like task shell: its
// text is reviewed as shell text. A task guard cannot read is not A.
func (b *builder) denoTask(c *call, ops []field) stream {
	if len(ops) == 0 {
		return stream{kind: streamText} // lists the tasks
	}
	if !ops[0].known {
		return b.dynamicCode(ops[0], c, "deno task")
	}
	name := ops[0].val
	if b.ctx.ReadFile != nil && !b.ctx.Remote && c.st.cwd != "" {
		for d := c.st.cwd; ; d = path.Dir(d) {
			for _, f := range []string{"deno.json", "deno.jsonc"} {
				p := path.Join(d, f)
				data, err := b.readFile(p)
				if err != nil {
					continue
				}
				var cfg struct {
					Tasks map[string]json.RawMessage `json:"tasks"`
				}
				std, err := hujson.Standardize(data)
				if err != nil || json.Unmarshal(std, &cfg) != nil {
					b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: "deno", Target: name, Msg: "runs a deno task from " + p + ", which guard cannot parse"}, c.sp)
					return stream{kind: streamUnknown}
				}
				var text string
				raw, has := cfg.Tasks[name]
				if has && json.Unmarshal(raw, &text) != nil {
					// The object form: {"command": "…", "dependencies": […]}.
					var obj struct {
						Command string `json:"command"`
					}
					if json.Unmarshal(raw, &obj) == nil {
						text = obj.Command
					}
				}
				if text != "" {
					inner := c.st.clone()
					inner.cwd = d
					return b.text(text, inner, c.in, "deno task "+name, c.sp)
				}
				b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: "deno", Target: name, Msg: "runs a deno task guard cannot read to review"}, c.sp)
				return stream{kind: streamUnknown}
			}
			if d == "/" || d == "." {
				break
			}
		}
	}
	b.add(Effect{Cap: CapDynamic, Rule: "pkg.script-unreadable", Program: "deno", Target: name, Msg: "runs a deno task guard cannot read to review"}, c.sp)
	return stream{kind: streamUnknown}
}

// hRemoteRun: uv run / pipx run of a URL runs code from the network.
func hRemoteRun(b *builder, c *call) stream {
	for _, op := range c.a.ops {
		if op.known && isURL(op.val) {
			b.add(Effect{Cap: CapNetCode, Rule: "exec.remote-code", Program: c.prog, Target: op.val, Msg: "downloads code from " + op.val + " and runs it, unreviewed"}, c.sp)
			break
		}
	}
	return stream{kind: streamUnknown}
}

// hGoRun: go run pkg@version downloads a module and runs it.
func hGoRun(b *builder, c *call) stream {
	hGoExec(b, c)
	for _, op := range c.a.ops {
		if op.known && strings.Contains(op.val, "@") && !strings.HasPrefix(op.val, "-") {
			b.add(Effect{Cap: CapFetch, Rule: "pkg.exec", Program: "go", Target: op.val, Msg: "downloads the Go module " + op.val + " and runs it"}, c.sp)
			break
		}
	}
	return stream{}
}

// hGoExec: go build/test/run -exec CMD and -toolexec CMD make go run CMD
// with the binary or the compiler's command line after it, as GOFLAGS
// does: CMD is reviewed as the command it is.
func hGoExec(b *builder, c *call) stream {
	for _, flag := range goCodeFlags {
		for _, f := range c.a.values("-" + flag) {
			b.goCodeFlag(flag, f, c.st, c.sp)
		}
	}
	return stream{}
}

// goCodeFlags are the go command's flags that run or compile code the
// package does not hold, whether on its command line or in GOFLAGS.
var goCodeFlags = []string{"exec", "toolexec", "vettool", "ldflags", "overlay", "modfile"}

// goCodeFlag prices go's flag -NAME=f (goCodeFlags): -exec, -toolexec and
// -vettool CMD make go run CMD with the binary or the compiler's command
// line after it; -ldflags=-extld=CMD links with CMD; -overlay=FILE
// compiles the files a JSON map names, wherever they are, in place of the
// package's own; -modfile=FILE outside the workspace can replace any
// module with a directory anywhere.
func (b *builder) goCodeFlag(name string, f field, st *state, sp span) {
	code := func(msg string) {
		b.add(Effect{Cap: CapDynamic, Rule: "dev.compiler-code", Program: "go", Target: f.display(), Msg: msg}, sp)
	}
	switch name {
	case "exec", "toolexec", "vettool":
		if !f.known {
			b.dynamicCode(f, &call{prog: "go", st: st, sp: sp}, "go -"+name)
			return
		}
		b.text(f.val+` "$@"`, st.clone(), stream{}, "go -"+name, span{f.pos, f.end})
	case "ldflags":
		if !f.known || strings.Contains(f.val, "-extld") {
			code("links with a program named in -ldflags (-extld), which guard does not review")
		}
	case "overlay":
		code("compiles the files an overlay map names, which may lie outside the workspace, in place of the package's own")
	case "modfile":
		if p, ok := b.ctx.Resolve(st.cwd, f.val); !f.known || !ok || b.ctx.Classify(p) != ClassWorkspace {
			code("builds with a go.mod outside the workspace, whose replace directives can name code anywhere")
		}
	}
}

// hPkgManifest: npm pkg set/delete and npm init change package.json:
// scripts run later on the line are not the ones guard can read.
func hPkgManifest(b *builder, c *call) stream {
	if c.st.cwd == "" {
		return stream{}
	}
	f := staticField("package.json", c.sp)
	b.pathEffect(CapWrite, "pkg.manifest-edit", c.prog, f, c.st, c.sp, "changes")
	return stream{}
}

// taintTable: network sources and remote-code runners.
func taintTable() map[string]*spec {
	query := func(msg string) *spec {
		return &spec{out: streamNetwork, rows: []row{{"net.query", CapQuery, "", "", msg}}}
	}
	viaNet := func(msg string) *spec {
		return &spec{posix: true, fn: wrap(0), out: streamNetwork, rows: []row{{"net.proxy", CapFetch, "", "", msg}}}
	}
	return map[string]*spec{
		// DNS and other lookups: read-only queries whose answers are
		// network data.
		// dig -f reads the names to query from a file (or stdin); nslookup
		// without a name reads them from its input.
		"dig":      {val: "-f", fn: hQuerySending(nil, []string{"-f"}), out: streamNetwork, rows: []row{{"net.query", CapQuery, "", "", "queries DNS (read-only, with the network for this command only)"}}},
		"nslookup": {fn: hQuery, out: streamNetwork, rows: []row{{"net.query", CapQuery, "", "", "queries DNS (read-only, with the network for this command only)"}, {"net.query-data", CapSend, "noops", "", "sends the names on its input as DNS queries"}}},
		"host":     query("queries DNS"), "drill": query("queries DNS"),
		"delv": query("queries DNS"), "whois": query("queries a whois server"),
		"lynx": {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "downloads from the network"}}},
		"w3m":  {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "downloads from the network"}}},
		"xh":   {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "makes an HTTP request"}}},
		"tftp": {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "transfers files over TFTP"}}},
		// Wrappers that route a command through a proxy: the command runs.
		"torsocks": viaNet("runs a command through Tor"), "torify": viaNet("runs a command through Tor"),
		"proxychains": viaNet("runs a command through a proxy"), "proxychains4": viaNet("runs a command through a proxy"), "tsocks": viaNet("runs a command through a proxy"),
		// Remote-code runners: they download a package and run it.
		"uvx":  {fn: chain(hRemoteRun, hPackageCommand), rows: []row{{"pkg.exec", CapFetch, "", "", "downloads (if needed) and runs a Python package"}}},
		"bunx": {fn: chain(hPlanted, hPackageCommand), rows: []row{{"pkg.exec", CapFetch, "", "", "downloads (if needed) and runs a package"}}},
		"deno": {val: "--config -c --import-map --location --cert", fn: hDeno},
	}
}

// taintOut is what a program prints, given where its data came from: a
// program that talked to the network prints network data, and one that
// read network or decoded data on stdin may print it on.
func (b *builder) taintOut(out stream, c *call) stream {
	if b.net {
		out = worse(out, stream{kind: streamNetwork})
	}
	return worse(out, taintOf(c.in))
}

// taintOf is the taint a stream carries on to whatever reads it.
func taintOf(in stream) stream {
	if in.tainted() {
		return stream{kind: in.kind}
	}
	return stream{}
}

// extracted records what an extraction wrote into dir: network data when
// an archive came from the network on this line, else unknown content.
func (b *builder) extracted(c *call, archives []field, dir field) {
	if !dir.known {
		return
	}
	d, ok := b.ctx.Resolve(c.st.cwd, dir.val)
	if !ok {
		return
	}
	b.extractAny(c, dir)
	if c.st.files == nil {
		return
	}
	content := stream{kind: streamUnknown}
	for _, a := range archives {
		if !a.known {
			continue
		}
		if p, ok := b.ctx.Resolve(c.st.cwd, a.val); ok {
			if w, ok := c.st.written(p); ok && w.tainted() {
				content = w
			}
		}
	}
	if c.in.tainted() {
		content = c.in // curl … | tar x
	}
	c.st.wrote(d, content)
}

// extractAny prices an extraction into dir by principle 10: an archive may
// hold any name, dotfiles included, so extracted into ~ it may hold
// .bashrc or .ssh/authorized_keys. Only outside the workspace: inside it
// the sandbox restores the protected paths.
func (b *builder) extractAny(c *call, dir field) {
	b.writeAnyName(c, dir, "fs.extract", "may extract any name into")
}

// writeAnyName prices a write of names this line does not show into dir
// (see extractAny) under rule; verb says how.
func (b *builder) writeAnyName(c *call, dir field, rule, verb string) {
	if !dir.known {
		return
	}
	d, ok := b.ctx.Resolve(c.st.cwd, dir.val)
	if !ok {
		return
	}
	switch b.ctx.Classify(d) {
	case ClassWorkspace, ClassWSRoot, ClassTemp, ClassNull:
		// The sandbox keeps the workspace's hooks and guard's files; a
		// workspace command directory (tar -C node_modules/.bin) may
		// receive a credential shadow.
		if b.ctx.holdsCredentialShadow(d) {
			b.add(Effect{Cap: CapWrite, Rule: rule, Program: c.prog, Target: d, Class: ClassPersistence,
				Msg: verb + " " + describeTarget(d, ClassPersistence)}, c.sp)
		}
	default:
		// Any other directory, a start-up or hook directory
		// (~/.config/autostart) and a secret store among them.
		for _, pat := range []string{"/*", "/.*"} {
			b.pathEffect(CapWrite, rule, c.prog, field{val: strings.TrimSuffix(d, "/") + pat, known: true, glob: true, pos: dir.pos, end: dir.end}, c.st, c.sp, verb)
		}
	}
}

// extractAnywhere: an archiver told to keep absolute and ../ names (tar
// -P, unzip -:, cpio without --no-absolute-filenames, git apply
// --unsafe-paths) writes wherever its entries say, which this line does
// not show: a startup file or guard's own files may be among them
// (principle 10). No write grant follows: approved, the sandbox still
// lets it write only where it could before.
func (b *builder) extractAnywhere(c *call) {
	b.add(Effect{Cap: CapPersistence, Rule: "fs.extract-anywhere", Program: c.prog, Target: "(paths in the archive)",
		Msg: "writes to the absolute or ../ paths its input names, which may be anywhere (a startup file, guard's own files)"}, c.sp)
}

// hExtractInto is an archiver's handler: the directory it extracts into
// (the value of one of opts, else an operand at index op, else the cwd) is
// priced by extractAny.
func hExtractInto(when string, op int, opts ...string) handler {
	return func(b *builder, c *call) stream {
		if when != "" && !c.a.holds(when) {
			return stream{}
		}
		dir := staticField(".", c.sp)
		if vs := c.a.values(opts...); len(vs) > 0 {
			dir = vs[len(vs)-1]
		} else if op >= 0 && op < len(c.a.ops) {
			dir = c.a.ops[op]
		}
		b.extractAny(c, dir)
		return stream{}
	}
}

// hGitClone: the clone's directory holds what the network sent.
func hGitClone(b *builder, c *call) stream {
	var dest field
	switch {
	case len(c.a.ops) >= 2:
		dest = c.a.ops[1]
	case len(c.a.ops) == 1 && c.a.ops[0].known:
		name := strings.TrimSuffix(urlBase(strings.TrimSuffix(c.a.ops[0].val, "/")), ".git")
		if i := strings.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:] // git@host:repo
		}
		dest = staticField(name, c.sp)
	default:
		return stream{}
	}
	if dest.known {
		b.downloaded(c.st, field{}, dest.val)
	}
	return stream{}
}
