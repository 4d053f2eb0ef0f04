// Package walkup lists the files programs find by walking up from the
// directory they run in (or the file they work on) and obey: a
// repository, a package manager's or a build tool's project files, a
// linter's config. In a directory every process shares, such as /tmp,
// one of them is code for everything run below it. The sandbox protects
// them in /tmp; the review rates writing them there as persistence.
package walkup

import "strings"

// Name is a name that programs look for in every parent directory of
// where they run (or of the file they work on), and obey: code, or a
// configuration that names code, runs for everything below it.
type Name struct {
	Name string
	Why  string
}

// Names are the names protected in the shared temp dir (the sandbox
// protects them in /tmp; the review rates writing them there as
// persistence): each
// is code or names code for every run of its program in a directory
// below /tmp that has none of its own, outside the sandbox. Each is
// protected whole (a directory, a file or a link): git follows a .git
// file's "gitdir:" line and a commondir file to the repository they name,
// jj a .jj/repo file, Mercurial a share's sharedpath, so protecting only
// the config inside leaves the pointer open. The cost: work done in /tmp
// itself (npm install with /tmp as its directory, not as the workspace)
// fails and its files there are removed; a directory of its own below
// /tmp (/tmp/x) is untouched. Names that only pick a version of a tool
// (.python-version, .nvmrc) or hold settings without code
// (.editorconfig, .clang-format) are not listed.
var Names = []Name{
	{".git", "a repository: core.fsmonitor, hooks, a gitdir: or commondir pointer to a planted one; shell prompts run git on every cd"},
	{"HEAD", "with objects and refs beside it, makes /tmp itself a bare repository's directory: git below it obeys /tmp/config (diff.external, core.pager, core.sshCommand run)"},
	{".hg", "Mercurial: hgrc hooks, a share's sharedpath"},
	{".sl", "Sapling: .sl/config hooks"},
	{".jj", "jj: repo/config.toml, or a repo file naming a planted repository"},
	{".cargo", "cargo reads .cargo/config.toml upward: build.rustc-wrapper runs for every build"},
	{"Cargo.toml", "cargo finds the manifest upward: a build below without one runs its build.rs, and a [workspace] there patches the dependencies of a crate below"},
	{"rust-toolchain.toml", "rustup finds it upward: a toolchain path runs its rustc and cargo"},
	{"rust-toolchain", "rustup's older name for the same"},
	{"go.work", "a Go workspace: replace directives swap the modules of every build"},
	{"go.mod", "a Go module: every go command in a directory below without one builds in it"},
	{"node_modules", "Node's require and import look upward: a package there is loaded by every script below that names it"},
	{"package.json", "npm, npx and yarn find the project upward: npm test runs its scripts"},
	{".npmrc", "the project's npm config: node-options and script-shell run code"},
	{".yarnrc.yml", "Yarn reads every parent's: yarnPath runs a planted JavaScript file"},
	{".yarnrc", "Yarn 1: yarn-path, the same"},
	{".pnpmfile.cjs", "pnpm's hooks, run on every install"},
	{"pnpm-workspace.yaml", "makes /tmp the workspace root pnpm finds upward"},
	{"deno.json", "Deno finds it upward: tasks and import maps swap modules"},
	{"deno.jsonc", "the same"},
	{"tsconfig.json", "TypeScript's language server finds it upward: compilerOptions.plugins load code"},
	{"jsconfig.json", "the same for JavaScript"},
	{"eslint.config.js", "ESLint finds its flat config upward and imports it"},
	{"eslint.config.mjs", "the same"},
	{"eslint.config.cjs", "the same"},
	{"eslint.config.ts", "the same"},
	{".eslintrc.js", "ESLint 8's eslintrc cascade reads every parent's config up to the root: a .js one is code"},
	{".eslintrc.cjs", "the same"},
	{".eslintrc", "the same: a parser or plugin path there loads code"},
	{".eslintrc.json", "the same"},
	{".eslintrc.yml", "the same"},
	{".eslintrc.yaml", "the same"},
	{"jest.config.js", "Jest finds its config upward and runs it"},
	{"jest.config.ts", "the same"},
	{"jest.config.mjs", "the same"},
	{"jest.config.cjs", "the same"},
	{"postcss.config.js", "postcss-load-config searches upward (Vite, webpack): the config is code"},
	{"postcss.config.cjs", "the same"},
	{"postcss.config.mjs", "the same"},
	{".prettierrc", "Prettier searches upward from each file it formats (format on save): plugins load code"},
	{".prettierrc.js", "a Prettier config that is code"},
	{".prettierrc.cjs", "the same"},
	{".prettierrc.mjs", "the same"},
	{"prettier.config.js", "the same"},
	{"prettier.config.cjs", "the same"},
	{"prettier.config.mjs", "the same"},
	{"conftest.py", "pytest imports conftest.py from the root it finds upward"},
	{"pytest.ini", "makes /tmp pytest's root (its conftest.py loads), addopts -p loads plugins"},
	{".pytest.ini", "the same"},
	{"pyproject.toml", "pytest, uv and poetry find it upward: [tool.pytest] addopts, uv's indexes"},
	{"tox.ini", "tox and pytest find it upward"},
	{"setup.cfg", "pytest's [tool:pytest] section, found upward"},
	{"uv.toml", "uv reads it upward: an index of packages of the planter's choice"},
	{"Pipfile", "pipenv finds it upward: pipenv run runs its scripts"},
	{"Gemfile", "Bundler finds it upward and runs it (Ruby)"},
	{".bundle", "Bundler's config: BUNDLE_GEMFILE names another Gemfile"},
	{"Rakefile", "rake looks upward for its Rakefile (Ruby)"},
	{"rakefile", "the same"},
	{"justfile", "just looks upward for its justfile"},
	{".justfile", "the same"},
	{"Justfile", "the same"},
	{"Taskfile.yml", "task looks upward for its Taskfile"},
	{"Taskfile.yaml", "the same"},
	{"taskfile.yml", "the same"},
	{"taskfile.yaml", "the same"},
	{"settings.gradle", "Gradle finds the settings script upward and runs it"},
	{"settings.gradle.kts", "the same"},
	{".mvn", "Maven finds .mvn upward: jvm.config's -javaagent, extensions.xml"},
	{"MODULE.bazel", "makes /tmp Bazel's workspace (found upward): its build files are code"},
	{"WORKSPACE", "the same"},
	{"WORKSPACE.bazel", "the same"},
	{"REPO.bazel", "the same"},
	{".bazelrc", "Bazel's options for that workspace"},
	{"build.zig", "zig build looks upward for build.zig (code)"},
	{"stack.yaml", "stack finds the project upward: its Setup.hs builds run"},
	{"cabal.project", "cabal finds the project upward"},
	{"dune-project", "dune finds its root upward: dune rules run"},
	{"dune-workspace", "the same"},
	{"Vagrantfile", "vagrant searches upward for its Vagrantfile and runs it (Ruby)"},
	{"Package.swift", "SwiftPM finds the package upward: the manifest is Swift code it runs"},
	{".env", "python-dotenv's find_dotenv looks upward: LD_PRELOAD or NODE_OPTIONS there reach what the program starts"},
	{"flake.nix", "nix develop and nix run find the flake upward"},
	{".golangci.yml", "golangci-lint finds its config upward: plugins load code"},
	{".golangci.yaml", "the same"},
	{".golangci.toml", "the same"},
	{".golangci.json", "the same"},
	{".tool-versions", "asdf and mise find it upward: a path: version runs the planted binaries"},
	{"mise.toml", "mise finds it upward: [env] and hooks"},
	{".mise.toml", "the same"},
}

// Dirs are the directories whose walk-up names count, for a workspace ws
// and the shared temp dir tmp: tmp itself, and each directory between it
// and a workspace below it (/tmp/a for /tmp/a/ws, where agents clone:
// tools in the workspace and its siblings walk up through it). None when
// the workspace is the temp dir itself (its project files are its own).
// The sandbox protects the names there and the review prices writing
// them as persistence, from this one list.
func Dirs(tmp, ws string) []string {
	if ws == tmp {
		return nil
	}
	out := []string{tmp}
	rel, ok := strings.CutPrefix(ws, tmp+"/")
	if !ok {
		return out
	}
	d := tmp
	parts := strings.Split(rel, "/")
	for _, c := range parts[:len(parts)-1] {
		d += "/" + c
		out = append(out, d)
	}
	return out
}

// Holds reports whether rel, a path relative to the shared temp dir
// (".git/config", "node_modules/x/index.js"), is one of Names or lies
// below one.
func Holds(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	for _, n := range Names {
		if n.Name == first {
			return true
		}
	}
	return false
}
