package profile

// Tools that edit your shell's start-up files themselves, to put their
// directory on PATH or a hook in every new shell: conda init had a row;
// micromamba shell init, pipx ensurepath, uv tool update-shell, pnpm
// setup, volta setup, broot --install, opam init and
// activate-global-python-argcomplete write ~/.bashrc, ~/.profile or
// ~/.bash_completion the same way, and rcup and dotbot link a dotfiles
// repository into your home as stow does. Persistence (C), as conda
// init is.

func shellInit(tool string) *spec {
	return whole("persist.shell-init", CapPersistence, "edits your shell's startup files (~/.bashrc, ~/.profile…) so "+tool+" runs or is found in every new shell")
}

// shellInitTable are the entries of tools that had none.
func shellInitTable() map[string]*spec {
	return map[string]*spec{
		"broot": {rows: []row{{"persist.shell-init", CapPersistence, "--install", "", "edits your shell's startup files so broot's br function is defined in every new shell"}}},
		"opam": {fn: hAfterDashes, rows: []row{
			{"persist.shell-init", CapPersistence, "op0~^init$ !-n !--no-setup", "", "sets opam up and, unless told not to, edits your shell's startup files so its environment loads in every new shell"},
			{"pkg.install-user", CapFetch, "op0~^(init|install|reinstall|upgrade|update|pin|unpin|switch|repo|remove|uninstall|source)$", "", "downloads, builds or removes OCaml packages in your opam root, outside the workspace"},
			{"tool.unknown-subcommand", CapDynamic, "!op0~^(init|install|reinstall|upgrade|update|pin|unpin|switch|repo|remove|uninstall|source|list|show|search|info|config|var|env|exec|help|--version|--help)$ ops", "", "runs an opam subcommand guard does not know"},
		}},
		"activate-global-python-argcomplete": shellInit("Python's argcomplete"),
		"rcup":                               whole("persist.dotfiles", CapPersistence, "links your dotfiles repository's files into your home directory, start-up files among them (rcm)"),
		"dotbot":                             whole("persist.dotfiles", CapPersistence, "links and writes files in your home directory as its configuration says, start-up files among them (dotbot)"),
	}
}

// extendShellInit adds the subcommands that edit start-up files to the
// entries that have subcommands of their own.
func extendShellInit(t map[string]*spec) {
	for prog, sub := range map[string]string{"pipx": "ensurepath", "pnpm": "setup", "volta": "setup"} {
		onBuilt(t[prog], func(s *spec) {
			if s.subs != nil {
				s.subs[sub] = shellInit(prog)
			}
		})
	}
	onBuilt(t["uv"], func(s *spec) {
		if tool := s.subs["tool"]; tool != nil {
			if tool.subs == nil {
				tool.subs = map[string]*spec{}
			}
			tool.subs["update-shell"] = shellInit("uv's tools")
		}
	})
	for _, prog := range []string{"micromamba", "mamba", "conda"} {
		onBuilt(t[prog], func(s *spec) {
			if s.subs != nil && s.subs["shell"] == nil {
				s.subs["shell"] = subs(unknownSub(prog+" shell"), map[string]*spec{
					"init": shellInit(prog), "reinit": shellInit(prog), "hook": plain(), "activate": plain(), "deactivate": plain(), "reactivate": plain(),
				})
			}
		})
	}
}
