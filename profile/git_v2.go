package profile

// Git's built-in commands that gitTable does not list yet. Git never lets
// an alias override a built-in, so a built-in is reviewed by what it does,
// never as "may be an alias" (LEVELS.md principle 8). Entries already in
// gitTable win.
func addGitBuiltins(t map[string]*spec) {
	read := func() *spec { return plain() }
	write := func(msg string) *spec { return whole("git.write", CapWrite, msg) }
	history := func(msg string) *spec { return whole("git.history", CapDiscard, msg) }
	fetch := func(msg string) *spec { return whole("git.fetch", CapFetch, msg) }
	send := func(msg string) *spec { return whole("git.push", CapSend, msg) }
	builtins := map[string]*spec{
		"annotate": read(), "check-mailmap": read(), "check-ref-format": read(), "column": read(), "diff-files": read(),
		"diff-index": read(), "diff-tree": read(), "fast-export": read(), "fmt-merge-msg": read(), "get-tar-commit-id": read(),
		"interpret-trailers": read(), "mailinfo": read(), "merge-tree": read(), "pack-redundant": read(), "patch-id": read(),
		"show-index": read(), "stripspace": read(), "verify-pack": read(), "last-modified": read(), "ls-remote": fetch("queries a remote repository"),
		"hash-object": write("writes objects into the repository"), "mktag": write("writes a tag object"), "mktree": write("writes a tree object"),
		"mailsplit": write("splits a mailbox into files"), "unpack-file": write("writes a blob to a temporary file"),
		"diagnose":  {val: "-o --output-directory -s --suffix --mode", rows: []row{{"git.write", CapWrite, "", "", "writes a diagnostics archive"}, {"fs.output", CapWrite, "", "-o|--output-directory", "writes a diagnostics archive into"}}},
		"bugreport": {val: "-o --output-directory -s --suffix", rows: []row{{"git.write", CapWrite, "", "", "writes a bug report file"}, {"fs.output", CapWrite, "", "-o|--output-directory", "writes a bug report file into"}}}, "stage": write("stages changes"), "init-db": write("creates a repository"),
		"rerere": write("records conflict resolutions"), "write-tree": write("writes a tree object"), "symbolic-ref": write("changes a symbolic ref such as HEAD"),
		"update-index": write("changes the index"), "merge-file": write("merges into a file"), "index-pack": write("writes a pack index"),
		"pack-objects": write("writes packs"), "unpack-objects": write("unpacks objects"), "prune-packed": write("removes packed loose objects"),
		"multi-pack-index": write("writes the multi-pack index"), "update-server-info": write("writes server info files"), "fast-import": write("imports history"),
		"cvsimport": write("imports history"), "archimport": write("imports history"), "quiltimport": write("applies patches"), "refs": write("changes the ref store"),
		"read-tree":      {rows: []row{{"git.write", CapWrite, "", "", "reads trees into the index"}, {"git.discard", CapDiscard, "-u|--reset|--trivial|-m", "", "overwrites files in the work tree"}}},
		"checkout-index": {rows: []row{{"git.write", CapWrite, "", "", "writes files from the index"}, {"git.discard", CapDiscard, "-f|--force|-a|--all", "", "overwrites files in the work tree"}}},
		"replay":         history("rewrites commits onto another base"),
		"merge-index":    whole("git.runs-program", CapDynamic, "runs a merge program for each file"),
		"merge-one-file": whole("git.runs-program", CapDynamic, "runs git's merge script"),
		"for-each-repo":  whole("git.runs-program", CapDynamic, "runs a git command in every repository a config key lists"),
		"citool":         whole("git.gui", CapDynamic, "opens git's GUI"), "gui": whole("git.gui", CapDynamic, "opens git's GUI"),
		"fetch-pack": fetch("downloads from a remote repository"), "http-fetch": fetch("downloads from a remote repository"), "backfill": fetch("downloads missing objects"),
		"send-pack": {rows: []row{
			{"git.push", CapSend, "", "", "pushes to a remote repository"},
			{"git.push-force", CapPublish, "-f|--force|--mirror", "", "force-pushes, overwriting the remote's history"},
			{"git.push-force", CapPublish, "op~^\\+", "", "force-pushes a ref (+ref)"},
		}},
		"http-push": send("pushes over HTTP"), "imap-send": whole("git.send-email", CapSend, "sends patches to an IMAP folder"),
		"upload-pack": whole("git.daemon", CapSend, "serves the repository to a client"), "receive-pack": whole("git.daemon", CapSend, "receives pushes"),
		"upload-archive":   whole("git.daemon", CapSend, "serves archives to a client"),
		"svn":              subs(fetch("talks to a Subversion server"), map[string]*spec{"dcommit": send("commits to a Subversion server"), "log": read(), "info": read(), "blame": read()}),
		"p4":               subs(fetch("talks to a Perforce server"), map[string]*spec{"submit": send("submits to a Perforce server")}),
		"credential":       subs(whole("secrets.git-credential", CapSecrets, "reads or changes stored git credentials"), map[string]*spec{}),
		"credential-store": whole("secrets.git-credential", CapSecrets, "reads or changes stored git credentials"),
		"credential-cache": whole("secrets.git-credential", CapSecrets, "reads or changes cached git credentials"),
		"bundle":           subs(whole("git.write", CapWrite, "writes or applies a bundle"), map[string]*spec{"verify": read(), "list-heads": read(), "create": {rows: []row{{"fs.output", CapWrite, "", "op0", "writes the bundle"}}}}),
	}
	for k, v := range builtins {
		if _, ok := t[k]; !ok {
			t[k] = v
		}
	}
}
