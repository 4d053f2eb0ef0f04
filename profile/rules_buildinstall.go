package profile

// Language build tools whose install verbs download packages and put
// programs on your PATH outside the workspace (cabal install into
// ~/.cabal/bin or ~/.local/bin, stack install, mix archive.install and
// escript.install, dotnet tool install -g, raco pkg install, nimble
// install, deno install -g into ~/.deno/bin): building and testing stay
// what they were (A, sandboxed), those verbs are the install they are
// (B, as cargo install and go install are), publishing is C. cabal,
// stack, mix, dotnet, raco and nimble had no rows (A); deno had none for
// its installs.

// hArgCommands: the tools of these tables run commands through verbs
// their rows do not list (mix cmd, cabal exec, dotnet run --, nimble
// exec); as for a program guard does not know, an argument that names a
// program followed by its arguments is reviewed as a command that may
// run (principle 7), so a row never loses what that rule saw.
func hArgCommands(b *builder, c *call) stream {
	// A row prices what guard knows of the program; what it is handed
	// beyond that is priced as for a program guard cannot describe
	// (unknownProgram): the row must not make it cheaper than no row.
	b.handedPaths(c.prog, c.fs, c.st, c.sp)
	b.argumentCommands(c.prog, c.fs, c.st, c.in, c.sp)
	return stream{}
}

// withArgCommands gives every entry of t the generic review of its
// arguments, after its own handler.
func withArgCommands(t map[string]*spec) map[string]*spec {
	for _, s := range t {
		onBuilt(s, func(s *spec) { s.fn = chain(s.fn, hArgCommands) })
	}
	return t
}

func buildInstallTable() map[string]*spec {
	install := func(cond, msg string) row { return row{"pkg.install-user", CapFetch, cond, "", msg} }
	publish := func(cond, msg string) row { return row{"pkg.publish", CapPublish, cond, "", msg} }
	return withArgCommands(map[string]*spec{
		"cabal": {rows: []row{
			install("op0~^(install|v1-install|v2-install|new-install|update|v2-update|get|unpack|fetch)$", "downloads Haskell packages, and installs programs into your bin directory (cabal install)"),
			publish("op0~^upload$ --publish", "publishes a package to Hackage"),
			{"net.upload", CapSend, "op0~^(upload|report)$ !--publish", "", "uploads a package candidate or build report to Hackage"},
		}},
		"stack": {fn: pkgManager{runs: map[string]int{"exec": 0}}.run, rows: []row{
			install("op0~^(install|upgrade|update|setup)$", "downloads a compiler or packages, and installs programs into your bin directory (stack install)"),
			publish("op0~^upload$", "publishes a package to Hackage"),
		}},
		"mix": {rows: []row{
			install(`op0~^(archive\.install|escript\.install|local\.hex|local\.rebar|local\.phx|archive\.uninstall|escript\.uninstall|deps\.get|deps\.update)$`, "downloads packages, or installs archives and escripts for your user, outside the workspace"),
			publish(`op0~^(hex\.publish|hex\.retire|hex\.owner|hex\.user)$`, "publishes to or changes a package or account on Hex"),
		}},
		"dotnet": {rows: []row{
			install("op0~^tool$ op1~^(install|update|uninstall|restore)$", "downloads and installs .NET tools (-g: onto your PATH, outside the workspace)"),
			install("op0~^(add|restore|workload)$", "downloads packages or SDK workloads"),
			install("op0~^new$ op1~^(install|uninstall|update)$", "downloads and installs project templates for your user"),
			publish("op0~^nuget$ op1~^(push|delete)$", "publishes or deletes a package on a NuGet feed"),
		}},
		"raco": {rows: []row{
			install("op0~^pkg$ op1~^(install|update|remove|migrate)$", "downloads and installs Racket packages for your user"),
		}},
		"nimble": {rows: []row{
			install("op0~^(install|uninstall|refresh|develop|upgrade|sync)$", "downloads and installs Nim packages and their programs for your user"),
			publish("op0~^publish$", "publishes a package to the Nimble registry"),
		}},
	})
}

// extendBuildInstall adds install rows to build tools that have entries.
func extendBuildInstall(t map[string]*spec) {
	addRows(t, map[string][]row{
		"deno": {
			{"pkg.install-user", CapFetch, "op0~^(install|i|uninstall)$ -g|--global", "", "installs a script as a program on your PATH (~/.deno/bin), outside the workspace"},
			{"pkg.install", CapFetch, "op0~^(install|i|add|remove|outdated|update)$", "", "downloads packages"},
		},
	})
}
