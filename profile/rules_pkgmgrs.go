package profile

import (
	"slices"
	"strings"
)

// Version managers and package managers that had no rows: every command
// of theirs was an unknown program rated A, though they download
// toolchains and packages from the network and install them outside
// the workspace (~/.ghcup, ~/.pyenv, ~/.local/share/fnm, a Perl or Lua
// tree), change which version every shim runs, or install into the
// system (MacPorts' /opt/local, pkgsrc). As for the tools that have rows
// (principle 8): the read-only verbs are listed; any other verb is the
// tool's install (B), the system's for a system package manager (C);
// exec-like verbs run the command after them, which is reviewed.

// pkgManager is one tool: its read-only verbs (operand 0, a regexp
// alternation), whether it installs into the system, and the verbs
// after which the words are a command it runs (with how many words to
// skip first).
type pkgManager struct {
	readOnly string
	system   bool
	runs     map[string]int
	// always: the tool installs or fetches whatever its operands are
	// (cpanm MODULE, n VERSION, webi TOOL); bare, it is read-only.
	always bool
	// fetches: running a command through it may download what it needs
	// first (pkgx, devbox, pixi); runAll: its operands are that command
	// (pkgx [+PKG…] CMD ARGS).
	fetches, runAll bool
}

func pkgManagers() map[string]pkgManager {
	return map[string]pkgManager{
		"ghcup":      {readOnly: "list|whereis|debug-info|changelog|--version|--help"},
		"juliaup":    {readOnly: "status|st|list|ls|--version|--help"},
		"elan":       {readOnly: "show|which|--version|--help", runs: map[string]int{"run": 1}, fetches: true},
		"swiftly":    {readOnly: "list|list-available|--version|--help", runs: map[string]int{"run": 0}, fetches: true},
		"tfenv":      {readOnly: "list|list-remote|version-name|version-file|--version|--help"},
		"tfswitch":   {readOnly: "-l|--list-all|-v|--version|-h|--help", always: true},
		"goenv":      {readOnly: envManagerRead, runs: map[string]int{"exec": 0}},
		"pyenv":      {readOnly: envManagerRead, runs: map[string]int{"exec": 0}},
		"rbenv":      {readOnly: envManagerRead, runs: map[string]int{"exec": 0}},
		"nodenv":     {readOnly: envManagerRead, runs: map[string]int{"exec": 0}},
		"jenv":       {readOnly: envManagerRead + "|doctor", runs: map[string]int{"exec": 0}},
		"n":          {readOnly: "ls|list|ls-remote|lsr|list-remote|which|bin|--version|-V|--help|-h", always: true},
		"fnm":        {readOnly: "list|ls|list-remote|ls-remote|current|env|completions|--version|--help", runs: map[string]int{"exec": 0}},
		"proto":      {readOnly: "list|ls|list-remote|ls-remote|bin|debug|status|--version|--help", runs: map[string]int{"run": 1}, fetches: true},
		"aqua":       {readOnly: "list|which|version|-v|--version|help|--help", runs: map[string]int{"exec": 0}, fetches: true},
		"pkgx":       {readOnly: "--version|--help|-v|-h|--query|-Q", always: true, fetches: true, runAll: true},
		"webi":       {readOnly: "--version|--help", always: true},
		"eget":       {readOnly: "--version|-v|--help|-h", always: true},
		"stew":       {readOnly: "list|ls|--version|--help"},
		"scoop":      {readOnly: "list|info|search|status|which|home|cat|prefix|help|checkup|export|--version"},
		"cpan":       {readOnly: "-l|-h|-v|-V|-D|-a", always: true},
		"cpanm":      {readOnly: "--version|-V|--help|-h|--info|--look", always: true},
		"luarocks":   {readOnly: "list|search|show|doc|path|config|which|help|lint|--version|--help"},
		"vcpkg":      {readOnly: "list|search|help|version|depend-info|owns|--version|--help"},
		"spack":      {readOnly: "list|find|info|spec|versions|location|arch|compilers|help|--version|--help|providers|dependents|dependencies|graph|debug|url|blame|checksum|style|audit|tags|maintainers|solve"},
		"guix":       {readOnly: "search|show|describe|--version|--help|help|size|graph|lint|hash|weather|challenge", runs: map[string]int{"shell": -1, "environment": -1}, fetches: true},
		"port":       {readOnly: "list|info|search|installed|outdated|deps|rdeps|contents|provides|echo|version|help|variants|location|file|dir|work|cat|usage|lint|notes|log|logfile|-v", system: true},
		"pkgin":      {readOnly: "list|ls|avail|av|search|se|show-deps|sd|show-rev-deps|srd|show-full-deps|sfd|pkg-content|pc|pkg-descr|pd|pkg-build-defs|pbd|stats|st|provides|prov|requires|req|-v|-h", system: true},
		"conan":      {readOnly: "search|list|inspect|graph|profile|version|--version|--help|cache|remote|config"},
		"flox":       {readOnly: "list|search|show|envs|--version|--help", runs: map[string]int{"activate": -1}, fetches: true},
		"devbox":     {readOnly: "info|search|version|--version|--help|list", runs: map[string]int{"run": 0, "shell": -1}, fetches: true},
		"rye":        {readOnly: "show|list|version|--version|--help", runs: map[string]int{"run": 0}},
		"pixi":       {readOnly: "list|info|search|tree|--version|--help", runs: map[string]int{"run": 0, "exec": 0}, fetches: true},
		"conda-lock": {readOnly: "--version|--help"},
	}
}

// envManagerRead are the queries of pyenv and the *env family.
const envManagerRead = "versions|version|version-name|version-file|version-origin|version-file-read|which|whence|commands|completions|root|prefix|help|--version|--help|init|shims|hooks|virtualenvs"

// pkgManagerTable is their entries.
func pkgManagerTable() map[string]*spec {
	t := map[string]*spec{}
	for name, m := range pkgManagers() {
		t[name] = m.spec(name)
	}
	return withArgCommands(t)
}

func (m pkgManager) spec(name string) *spec {
	id, c, msg := "pkg.install-user", CapFetch, "downloads or installs tools or packages, or changes their versions, outside the workspace ("+name+")"
	if m.system {
		id, c, msg = "sys.packages", CapSystem, "installs, removes or changes the system's packages ("+name+")"
	}
	var ops, flags []string
	for _, w := range strings.Split(m.readOnly, "|") {
		if strings.HasPrefix(w, "-") {
			flags = append(flags, "!"+w)
		}
		ops = append(ops, w)
	}
	for v := range m.runs {
		ops = append(ops, v)
	}
	slices.Sort(ops)
	cond := "ops !op0~^(" + strings.Join(ops, "|") + ")$"
	if m.always {
		cond = strings.Join(append(flags, "!op0~^("+strings.Join(ops, "|")+")$"), " ")
	}
	s := &spec{rows: []row{{id, c, cond, "", msg}}}
	if len(m.runs) > 0 || m.runAll {
		s.fn = m.run
	}
	return s
}

// run reviews the command a run-like verb (or, for runAll, the
// operands) stands for: after the verb and skip more words, or after --.
func (m pkgManager) run(b *builder, c *call) stream {
	if len(c.a.ops) == 0 || !c.a.ops[0].known {
		return stream{}
	}
	first, skip, ok := 0, 0, m.runAll
	if !ok {
		skip, ok = m.runs[c.a.ops[0].val]
		first = 1
	}
	if !ok {
		return stream{}
	}
	if m.fetches {
		b.add(Effect{Cap: CapFetch, Rule: "pkg.exec", Program: c.prog, Msg: "runs a command with tools " + c.prog + " installs, downloading them if needed"}, c.sp)
	}
	if skip < 0 {
		return hAfterDashes(b, c)
	}
	idx := indexOf(c.fs, c.a.ops[0]) + first + skip
	for m.runAll && idx < len(c.fs) && strings.HasPrefix(c.fs[idx].val, "+") {
		idx++ // pkgx +PKG
	}
	if idx < len(c.fs) {
		return b.exec(c.fs[idx:], c.st.clone(), c.in, c.prog+" "+c.a.ops[0].val, c.sp)
	}
	return stream{}
}
