package profile

// Nix and the tools built on it. Nix fetches and builds what an
// installable names (nixpkgs#hello, a flake URL, a channel attribute)
// through its daemon or its store, then runs it (nix run, nix shell -c,
// nix-shell --run), installs it into your profile outside the workspace
// (nix profile install, nix-env -i) or switches the whole user or system
// configuration to it (nixos-rebuild switch; home-manager has its row
// with the dotfile managers). The read-only verbs are listed; any other
// verb fetches or changes state (principle 8).

// nixTable is the nix family's entries.
func nixTable() map[string]*spec {
	return map[string]*spec{
		"nix": later(nixSpec), "nix-env": later(nixEnvSpec), "nix-shell": later(nixShellSpec),
		"nix-build":           whole("pkg.nix-build", CapFetch, "downloads and builds Nix packages (their build code runs)"),
		"nix-instantiate":     whole("pkg.nix-build", CapFetch, "evaluates Nix code, which can download and build what it imports"),
		"nix-store":           later(nixStoreSpec),
		"nix-channel":         later(nixChannelSpec),
		"nix-collect-garbage": whole("pkg.uninstall-user", CapDelete, "deletes unused packages from the Nix store (with -d, your profile's old generations too)"),
		"nix-prefetch-url":    whole("pkg.nix-build", CapFetch, "downloads a file into the Nix store"),
		"nixos-rebuild":       later(nixosRebuildSpec), "darwin-rebuild": later(nixosRebuildSpec),
	}
}

func nixSpec() *spec {
	fetch := func(msg string) *spec { return whole("pkg.nix-build", CapFetch, msg) }
	run := func(msg string) *spec {
		return &spec{fn: hNixCommand, rows: []row{{"pkg.exec", CapFetch, "", "", msg}}}
	}
	gc := whole("pkg.uninstall-user", CapDelete, "deletes paths from the Nix store")
	s := subs(unknownSub("nix"), map[string]*spec{
		"run":     run("downloads (if needed), builds and runs a Nix package"),
		"shell":   run("downloads (if needed) and builds Nix packages, then runs a shell or the --command with them"),
		"develop": {fn: hNixCommand, rows: []row{{"pkg.nix-build", CapFetch, "", "", "downloads and builds a development environment, then runs its shell hook and a shell or the --command"}}},
		"build":   fetch("downloads and builds Nix packages (their build code runs)"), "eval": fetch("evaluates Nix code, which can download and build what it imports"),
		"print-dev-env": fetch("downloads and builds a development environment"), "bundle": fetch("downloads and builds a package bundle"),
		"fmt": run("downloads and runs the flake's formatter on the workspace"), "repl": whole("exec.interactive", CapDynamic, "starts the Nix REPL, which can build and run anything"),
		"search": fetch("queries a package set from the network"), "edit": whole("exec.interactive", CapDynamic, "opens a package's source in your editor"),
		"copy": whole("net.upload", CapSend, "copies store paths to another store (a remote machine or cache)"),
		"profile": subs(whole("pkg.install-user", CapFetch, "changes your Nix profile, outside the workspace (installs, removes, upgrades or rolls back packages)"), map[string]*spec{
			"list": plain(), "history": plain(), "diff-closures": plain(),
		}),
		"flake": subs(fetch("fetches a flake and its inputs from the network"), map[string]*spec{
			"update": fetch("fetches new versions of the flake's inputs and rewrites flake.lock"), "lock": fetch("fetches the flake's inputs and writes flake.lock"),
		}),
		"registry": subs(whole("pkg.config-code", CapPersistence, "changes the flake registry, which decides what later nix commands fetch and run"), map[string]*spec{"list": plain(), "resolve": plain()}),
		"store": subs(unknownSub("nix store"), map[string]*spec{
			"ls": plain(), "cat": plain(), "diff-closures": plain(), "path-from-hash-part": plain(), "ping": plain(), "info": plain(), "verify": plain(),
			"gc": gc, "delete": gc, "optimise": whole("pkg.uninstall-user", CapWrite, "rewrites the Nix store"), "repair": fetch("downloads store paths again"),
			"add": whole("pkg.nix-build", CapWrite, "adds files to the Nix store"), "add-file": whole("pkg.nix-build", CapWrite, "adds a file to the Nix store"), "add-path": whole("pkg.nix-build", CapWrite, "adds a path to the Nix store"),
			"prefetch-file": fetch("downloads a file into the Nix store"),
		}),
		"config":     subs(unknownSub("nix config"), map[string]*spec{"show": plain(), "check": plain()}),
		"derivation": subs(unknownSub("nix derivation"), map[string]*spec{"show": plain()}),
		"nar":        subs(unknownSub("nix nar"), map[string]*spec{"ls": plain(), "cat": plain(), "dump-path": plain(), "pack": plain()}),
		"hash":       plain(), "log": plain(), "path-info": plain(), "why-depends": plain(), "show-config": plain(), "show-derivation": plain(), "doctor": plain(), "help": plain(), "--version": plain(),
		"upgrade-nix": whole("sys.packages", CapSystem, "upgrades Nix itself"), "daemon": whole("sys.packages", CapSystem, "runs the Nix daemon"),
	})
	// Options with a value: -f/--file and --expr name the Nix code that
	// is evaluated; --option and the --arg/--override forms take two
	// words, so the second would be read as the subcommand: a line that
	// sets a setting (which can name a program nix runs) is priced by
	// that row.
	s.val = "-f --file --expr -I --include --store --eval-store --log-format -j --max-jobs --cores --profile --inputs-from --extra-experimental-features --experimental-features --substituters --extra-substituters --access-tokens --builders --nix-path"
	s.global = []row{{"pkg.nix-option", CapDynamic, "--option|--arg|--argstr|--override-input|--override-flake|--accept-flake-config|--impure", "", "passes nix settings or arguments the review does not model (a setting can name a program nix runs)"}}
	return s
}

// hNixCommand: nix shell and nix develop run the words after -c or
// --command as a command (nix run runs the installable's own program,
// with the words after -- as its arguments).
func hNixCommand(b *builder, c *call) stream {
	for i, f := range c.fs {
		if !f.known {
			b.argumentCommands(c.prog+" "+c.sub, c.fs[i:], c.st, c.in, c.sp)
			break
		}
		if f.val == "--" {
			break
		}
		if f.val == "-c" || f.val == "--command" {
			if i+1 < len(c.fs) {
				return b.exec(c.fs[i+1:], c.st.clone(), c.in, c.prog+" "+c.sub+" --command", c.sp)
			}
			break
		}
	}
	return stream{kind: streamUnknown}
}

// nixEnvSpec: nix-env's operation is its first option; only the queries
// only read.
func nixEnvSpec() *spec {
	return &spec{rows: []row{{"pkg.install-user", CapFetch, "!any~^(-q[A-Za-z]*|--query|--list-generations)$", "", "changes your Nix profile, outside the workspace (installs, upgrades, removes packages or switches generations)"}}}
}

// nixShellSpec: nix-shell downloads and builds the packages of -p or of
// shell.nix, runs its shell hook, then --run/--command through bash.
func nixShellSpec() *spec {
	return &spec{val: "--run --command -A --attr -I --arg --argstr -E --expr", fn: func(b *builder, c *call) stream {
		for _, f := range c.a.values("--run", "--command") {
			b.commandText(f, c, "nix-shell --run")
		}
		return stream{kind: streamUnknown}
	}, rows: []row{{"pkg.nix-build", CapFetch, "", "", "downloads and builds Nix packages, then runs their shell hook and a shell"}}}
}

func nixStoreSpec() *spec {
	return &spec{rows: []row{
		{"pkg.uninstall-user", CapDelete, "--gc|--delete", "", "deletes paths from the Nix store"},
		{"pkg.nix-build", CapFetch, "!any~^(-q[A-Za-z]*|--query|--verify|--verify-path|--dump|--read-log|-l|--print-env|--export)$ !--gc !--delete", "", "builds, downloads or changes paths of the Nix store"},
	}}
}

func nixChannelSpec() *spec {
	return &spec{rows: []row{
		{"pkg.config-code", CapPersistence, "--add|--remove|--rollback", "", "changes your Nix channels, which decide what later installs fetch and run"},
		{"pkg.install-user", CapFetch, "--update", "", "downloads new versions of your Nix channels"},
	}}
}

func nixosRebuildSpec() *spec {
	fetch := whole("pkg.nix-build", CapFetch, "downloads and builds the system configuration")
	return subs(whole("sys.packages", CapSystem, "builds and activates a new system configuration"), map[string]*spec{
		"build": fetch, "dry-build": fetch, "dry-run": fetch, "build-vm": fetch, "build-vm-with-bootloader": fetch,
		"list-generations": plain(), "repl": whole("exec.interactive", CapDynamic, "starts the Nix REPL on the system configuration"),
	})
}
