package profile

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/guard-sh/guard/parse"
)

// git: global options first (-C changes the directory, -c sets config for
// this one command), then a subcommand from gitSubs.

// gitCodeKeys are configuration keys whose values git runs as commands or
// that point git at code: setting them is a code-execution hook.
var gitCodeKeys = sync.OnceValue(gitCodeKeyRE)

func hGit(b *builder, c *call) stream {
	st := c.st
	for _, d := range c.a.values("-C") {
		st = st.clone()
		if !d.known {
			st.cwd = ""
			continue
		}
		if p, ok := b.ctx.Resolve(st.cwd, d.val); ok {
			st.cwd = p
		}
	}
	repo := st.cwd // where git looks for its repository
	// GIT_WORK_TREE in the environment is --work-tree (the option wins).
	if v, ok := b.getenv(c.st, "GIT_WORK_TREE"); ok && !c.a.has("--work-tree") {
		st = st.clone()
		st.cwd = ""
		if v != nil {
			if p, ok := b.ctx.Resolve(c.st.cwd, *v); ok {
				st.cwd = p
			}
		}
	}
	for _, wt := range c.a.values("--work-tree") {
		// Paths git acts on (clean, checkout, rm) are in the work tree.
		st = st.clone()
		st.cwd = ""
		if wt.known {
			if p, ok := b.ctx.Resolve(c.st.cwd, wt.val); ok {
				st.cwd = p
			}
		}
	}
	for _, kv := range c.a.values("-c", "--config-env") {
		if !kv.known {
			b.add(Effect{Cap: CapDynamic, Rule: "git.config-dynamic", Program: "git", Target: kv.display(), Msg: "passes git a configuration value that is not static"}, c.sp)
			continue
		}
		key, val, _ := strings.Cut(kv.val, "=")
		if re(gitCodeKeys()).MatchString(key) || strings.HasPrefix(strings.ToLower(key), "core.") {
			b.add(Effect{Cap: CapPersistence, Rule: "git.config-code", Program: "git", Target: kv.val, Msg: fmt.Sprintf("runs git with %s set, a setting that makes git run other commands", key)}, c.sp)
			if strings.HasPrefix(val, "!") {
				b.text(strings.TrimPrefix(val, "!"), st.clone(), stream{}, "git alias "+key, span{kv.pos, kv.end})
			} else if strings.HasSuffix(strings.ToLower(key), "pager") || strings.HasSuffix(strings.ToLower(key), "editor") || strings.HasSuffix(strings.ToLower(key), "sshcommand") || strings.HasSuffix(strings.ToLower(key), "fsmonitor") {
				b.text(val, st.clone(), stream{}, "git "+key, span{kv.pos, kv.end})
			}
		}
	}
	if c.a.has("--exec-path", "--git-dir", "--work-tree") {
		for _, v := range c.a.values("--exec-path") {
			if v.known && v.val != "" {
				b.add(Effect{Cap: CapDynamic, Rule: "git.exec-path", Program: "git", Target: v.val, Msg: "points git at another directory of git programs"}, c.sp)
			}
		}
	}
	rest := c.a.rest
	if len(rest) == 0 {
		return stream{kind: streamText}
	}
	sub := rest[0]
	if !sub.known {
		b.add(Effect{Cap: CapDynamic, Rule: "git.dynamic-subcommand", Program: "git", Target: sub.display(), Msg: "runs git with a subcommand that is not static"}, c.sp)
		return stream{kind: streamUnknown}
	}
	s := gitSubTable()[sub.val]
	if s == nil {
		b.add(Effect{Cap: CapDynamic, Rule: "git.unknown-subcommand", Program: "git", Target: sub.val, Msg: fmt.Sprintf("runs 'git %s', which guard does not know (it may be an alias that runs a command)", sub.val)}, c.sp)
		return stream{kind: streamUnknown}
	}
	b.gitRepoOutside(c, repo, sub.val)
	b.gitTreeWrite(c, st, repo, sub.val, rest[1:])
	return b.apply(s, &call{prog: "git", sub: sub.val, fs: rest[1:], st: st, in: c.in, sp: c.sp, via: c.via})
}

// gitTreeWrite records what git puts into the work tree for the runners
// later on the line (principle 9): another branch, a stash, a patch, the
// commits a merge or a pick brings — content this line does not show,
// from the network for pull. git mv moves a file to the name a script
// is then run by.
func (b *builder) gitTreeWrite(c *call, st *state, repo, sub string, args []field) {
	a := parseArgs(args, "", false)
	if sub == "mv" {
		if n := len(a.ops); n >= 2 && a.ops[n-1].known {
			if p, ok := b.ctx.Resolve(st.cwd, a.ops[n-1].val); ok {
				c.st.wrote(p, stream{kind: streamUnknown})
			}
		}
		return
	}
	// git rm only takes files away: it puts no content in.
	if !gitWritesWorkTree(sub, a) {
		return
	}
	// It writes, by principle 10, any name in the work tree — one
	// outside the workspace (git --work-tree ~ stash pop, git -C ~ reset
	// --hard) may hold .bashrc.
	b.writeAnyName(&call{prog: "git", st: st, sp: c.sp}, staticField(".", c.sp), "git.worktree-write", "may write any name in (the work tree it checks files out into)")
	if sub == "rm" {
		return
	}
	kind := streamUnknown
	if sub == "pull" {
		kind = streamNetwork
	}
	dir := repo
	if ws := b.ctx.Workspace; ws != "" && b.ctx.WorkspaceUsable() && (dir == ws || strings.HasPrefix(dir, ws+"/")) {
		dir = ws // the whole work tree, not only the cwd's part of it
	}
	if dir != "" {
		c.st.wrote(dir, stream{kind: kind})
		// A work tree that is, or holds, start-up files or hooks (a
		// shell framework's clone, a dotfiles repository in ~): what
		// the command puts there is code that runs later.
		// The workspace's own hooks are priced where they are written.
		if cl := b.ctx.Classify(dir); !b.ctx.Remote && cl != ClassWorkspace && cl != ClassTemp && (cl == ClassPersistence || b.ctx.HeldClass(dir) == ClassPersistence) {
			b.add(Effect{Cap: CapPersistence, Rule: "git.worktree-write", Program: "git", Target: dir, Class: ClassPersistence,
				Msg: "changes the files of " + dir + ", which hold code that runs later (start-up files, hooks), with content the line does not show"}, c.sp)
		}
	}
}

// gitNoRepo are the subcommands that do not read the configuration of
// the repository they are run in (or make a new one; apply outside a
// repository is a patch program).
var gitNoRepo = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"clone": true, "init": true, "help": true, "version": true, "config": true, "apply": true}
})

// gitRepoOutside: git reads the configuration of the repository it runs
// in and runs what it names (core.fsmonitor on status, core.pager on
// log, hooks on commit); the workspace's own are guarded by the
// checkpoint, but one outside the workspace holds code this review did
// not read, as a Makefile there does (cd ~/other && make is B).
func (b *builder) gitRepoOutside(c *call, dir, sub string) {
	if b.ctx.Remote || !b.ctx.WorkspaceUsable() || gitNoRepo()[sub] {
		return
	}
	for _, d := range c.a.values("--git-dir") {
		dir = ""
		if p, ok := b.ctx.Resolve(c.st.cwd, d.val); ok && d.known {
			dir = p
		}
	}
	if dir == "" {
		b.add(Effect{Cap: CapExec, Rule: "exec.runner-outside", Program: "git", Class: ClassUnknown,
			Msg: "runs git in a repository guard cannot resolve, whose config and hooks (commands git runs) this review did not read"}, c.sp)
		return
	}
	dir = strings.TrimSuffix(dir, "/.git") // --git-dir=DIR/.git: the repository at DIR
	ws := path.Clean(b.ctx.Workspace)
	if dir == ws || strings.HasPrefix(dir, ws+"/") {
		return
	}
	switch cl := b.ctx.Classify(dir); cl {
	case ClassTemp, ClassNull:
	default:
		b.add(Effect{Cap: CapDynamic, Rule: "exec.runner-outside", Program: "git", Target: dir, Class: cl,
			Msg: "runs git in " + describeTarget(dir, cl) + ", whose repository's config and hooks (commands git runs) this review did not read"}, c.sp)
	}
}

var (
	gitOnce    sync.Once
	gitSubsMap map[string]*spec
)

func gitSubTable() map[string]*spec {
	gitOnce.Do(func() {
		gitSubsMap = gitTable()
		addGitBuiltins(gitSubsMap)
		addGitProgramOptions(gitSubsMap)
		addGitExtURLs(gitSubsMap)
		addGitWorkTree(gitSubsMap)
	})
	return gitSubsMap
}

// gitURLSubs name repositories by URL in their operands (and archive in
// --remote). An ext:: URL is a command git runs to reach the repository
// (once protocol.ext.allow lets it): git ls-remote 'ext::sh -c rm% -rf% ~'
// runs rm -rf ~.
var gitURLSubs = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"clone": nil, "fetch": nil, "pull": nil, "ls-remote": nil, "push": nil, "submodule": nil,
		"archive": {"--remote"},
	}
})

func addGitExtURLs(t map[string]*spec) {
	for sub, opts := range gitURLSubs() {
		s := t[sub].ready()
		if s == nil {
			continue
		}
		prev := s.fn
		s.fn = func(b *builder, c *call) stream {
			for _, f := range append(c.a.values(opts...), c.a.ops...) {
				if f.known && strings.HasPrefix(f.val, "ext::") {
					g := f
					g.val = extCommand(f.val[len("ext::"):])
					b.commandText(g, c, "git "+sub+" ext:: URL")
				}
			}
			if prev != nil {
				return prev(b, c)
			}
			return stream{}
		}
	}
}

// extCommand turns the body of an ext:: URL into the command line git
// runs: words split at spaces, "% " a space within a word, "%%" a percent
// sign, %s, %S and %G placeholders git fills with a service name.
func extCommand(body string) string {
	var words []string
	var w strings.Builder
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch == ' ':
			words = append(words, w.String())
			w.Reset()
		case ch == '%' && i+1 < len(body):
			i++
			switch body[i] {
			case ' ':
				w.WriteByte(' ')
			case 's', 'S', 'G':
				w.WriteString("git-upload-pack")
			default:
				w.WriteByte(body[i])
			}
		default:
			w.WriteByte(ch)
		}
	}
	words = append(words, w.String())
	line, err := parse.Quote(words)
	if err != nil {
		// A NUL byte: nothing git could run as it reads; the text as
		// it is stays reviewed.
		return body
	}
	return line
}

// gitProgramOptions are options whose value is a command git runs through
// the shell: the upload-pack or receive-pack program (for a remote on this
// machine, a path or file://, it runs here) and grep's pager for the
// matching files. Their value is reviewed as the command line it is.
var gitProgramOptions = map[string]string{
	"ls-remote": "-u --upload-pack", "fetch": "--upload-pack", "pull": "--upload-pack",
	"archive": "--exec", "grep": "-O --open-files-in-pager",
}

func addGitProgramOptions(t map[string]*spec) {
	for sub, opts := range gitProgramOptions {
		s := t[sub]
		if s == nil {
			continue
		}
		s = s.ready()
		s.val = strings.TrimSpace(s.val + " " + opts)
		prev := s.fn
		names := strings.Fields(opts)
		s.fn = func(b *builder, c *call) stream {
			for _, f := range c.a.values(names...) {
				b.commandText(f, c, "git "+sub+" "+names[len(names)-1])
			}
			if prev != nil {
				return prev(b, c)
			}
			return stream{}
		}
	}
}

func gitTable() map[string]*spec {
	read := func() *spec {
		// --output (log, show, diff…) writes the output to a file.
		return &spec{val: "-n -L -S -G --format --pretty --author --since --until --grep -U --max-count --output",
			rows: []row{{"fs.output", CapWrite, "", "--output", "writes"}}}
	}
	write := func(msg string) *spec { return &spec{rows: []row{{"git.write", CapWrite, "", "", msg}}} }
	fetch := func(msg string) *spec { return whole("git.fetch", CapFetch, msg) }
	discard := func(msg string) row { return row{"git.discard", CapDiscard, "", "", msg} }
	history := func(msg, codeFlags string) *spec {
		return &spec{val: codeFlags, rows: []row{{"git.history", CapDiscard, "", "", msg}}, fn: func(b *builder, c *call) stream {
			for _, f := range c.a.values(strings.Fields(codeFlags)...) {
				if !f.known {
					b.dynamicCode(f, c, "git "+c.sub+" code")
					continue
				}
				b.text(f.val, c.st.clone(), stream{}, "git "+c.sub, span{f.pos, f.end})
			}
			return stream{}
		}}
	}
	t := map[string]*spec{
		"status": read(), "log": read(), "diff": read(), "show": read(), "blame": read(), "shortlog": read(), "describe": read(),
		"rev-parse": read(), "rev-list": read(), "ls-files": read(), "ls-tree": read(), "cat-file": read(), "grep": read(),
		"whatchanged": read(), "for-each-ref": read(), "show-ref": read(), "name-rev": read(), "merge-base": read(),
		"count-objects": read(), "version": read(), "check-ignore": read(), "check-attr": read(),
		// help -w/--web opens the manual in a web browser (help.browser,
		// web.browser, BROWSER).
		"help": {rows: []row{{"desktop.open", CapDesktop, "-w|--web", "", "opens a web browser"}}},
		"var":  read(), "cherry": read(), "range-diff": read(), "show-branch": read(), "verify-commit": read(), "verify-tag": read(),
		"fsck": read(), "archive": {val: "-o --output --format --prefix --remote", rows: []row{{"git.archive", CapWrite, "", "-o|--output", "writes"}, {"git.fetch", CapFetch, "--remote", "", "fetches an archive from another repository"}}},
		"format-patch": {val: "-o --output-directory", rows: []row{{"git.write", CapWrite, "", "", "writes patch files"}, {"fs.output", CapWrite, "", "-o|--output-directory", "writes patch files into"}}},
		"add":          write("stages changes"), "commit": {val: "-m -F -C -c --message --file --author --date --fixup --squash --trailer", rows: []row{{"git.write", CapWrite, "", "", "records a commit"}}},
		"switch": {val: "-c -C --create --force-create", rows: []row{{"git.write", CapWrite, "", "", "switches branch"}, {"git.discard", CapDiscard, "--discard-changes|-f|--force|-C|--force-create", "", "switches branch, throwing away local changes or resetting a branch"}}},
		"merge":  write("merges branches"), "cherry-pick": write("applies commits"), "revert": write("records a revert commit"),
		"mv": write("moves files"), "init": {val: "--template --separate-git-dir -b --initial-branch --object-format --ref-format", rows: []row{{"git.template", CapPersistence, "--template", "", "copies hooks from a template directory this line does not show into the new repository"}, {"git.write", CapWrite, "", "ops.", "creates a repository in"}, {"git.write", CapWrite, "", "--separate-git-dir", "puts the repository's git directory in"}}}, "notes": write("changes notes"), "apply": {fn: hGitApply, rows: []row{{"git.write", CapWrite, "", "", "applies a patch"}, {"fs.extract-anywhere", CapPersistence, "--unsafe-paths", "", "writes to the paths the patch names, outside the work tree too (a startup file, guard's own files)"}}},
		"am": write("applies patches"), "bisect": subs(write("checks out commits to bisect"), map[string]*spec{"run": {posix: true, fn: wrap(0)}}), "sparse-checkout": write("changes the checkout"),
		"worktree": subs(write("changes worktrees"), map[string]*spec{"list": read(), "add": {val: "-b -B --reason", rows: []row{{"git.write", CapWrite, "", "op0", "checks out a worktree into"}}}, "remove": {rows: []row{{"git.discard", CapDiscard, "", "", "removes a worktree and its uncommitted changes"}, {"fs.delete", CapDelete, "", "op0", "deletes the worktree directory"}}}, "prune": write("prunes worktrees")}),
		"tag":      {val: "-m -F -u --message --file", rows: []row{{"git.write", CapWrite, "ops", "", "creates or changes tags"}}},
		"gc":       {rows: []row{{"git.write", CapWrite, "", "", "packs the repository"}, {"git.discard", CapDiscard, "--prune", "", "deletes unreachable objects now: commits reset away and dropped stashes can no longer be recovered"}}},
		"repack":   write("packs the repository"),
		// mergetool runs the configured merge tool on conflicted files
		// (as difftool runs the diff tool); --tool-help only lists them.
		"mergetool":   {val: "-t --tool", rows: []row{{"git.write", CapWrite, "!--tool-help", "", "runs the merge tool on the conflicted files, which rewrites them"}}},
		"prune":       {rows: []row{{"git.discard", CapDiscard, "!-n !--dry-run", "", "deletes unreachable objects: commits reset away and dropped stashes can no longer be recovered"}}},
		"maintenance": subs(write("maintains the repository"), map[string]*spec{"start": whole("git.maintenance-schedule", CapPersistence, "schedules git maintenance to run later (cron, systemd timer or launchd) and registers the repository in your global config"), "register": whole("git.config-global", CapPersistence, "registers the repository for scheduled maintenance in your global git config"), "unregister": whole("git.config-global", CapPersistence, "changes your global git config"), "stop": whole("git.maintenance-schedule", CapPersistence, "removes the scheduled maintenance jobs")}), "commit-graph": write("writes the commit graph"), "pack-refs": write("packs refs"),
		"stash": subs(write("saves changes to the stash"), map[string]*spec{
			"list": read(), "show": read(), "push": write("saves changes to the stash"), "save": write("saves changes to the stash"),
			"pop": write("applies the stash"), "apply": write("applies the stash"), "branch": write("creates a branch from the stash"),
			"drop":  {rows: []row{discard("deletes a stash entry, losing those changes")}},
			"clear": {rows: []row{discard("deletes every stash entry, losing those changes")}},
		}),
		"checkout": {val: "-b -B --orphan --conflict", rows: []row{
			{"git.write", CapWrite, "", "", "switches branch or restores files"},
			{"git.discard", CapDiscard, "op~^\\.$|^:/$|^\\*", "", "overwrites files with the committed version, discarding uncommitted work"},
			{"git.discard", CapDiscard, "-f|--force|-B", "", "forces a checkout, discarding uncommitted work"},
		}, fn: func(b *builder, c *call) stream {
			// git checkout [<tree>] -- <paths>: restores paths, discarding changes.
			for _, f := range c.fs {
				if f.known && f.val == "--" {
					b.add(Effect{Cap: CapDiscard, Rule: "git.discard", Program: "git", Msg: "overwrites files with the committed version, discarding uncommitted work"}, c.sp)
					break
				}
			}
			return stream{}
		}},
		"restore": {val: "-s --source", rows: []row{
			{"git.write", CapWrite, "", "", "restores files"},
			{"git.discard", CapDiscard, "!-S !--staged", "", "overwrites files with the committed version, discarding uncommitted work"},
			{"git.discard", CapDiscard, "-W|--worktree", "", "overwrites files with the committed version, discarding uncommitted work"},
		}},
		"reset": {rows: []row{
			{"git.write", CapWrite, "", "", "moves the branch or unstages changes"},
			{"git.discard", CapDiscard, "--hard|--keep|--merge", "", "resets the working tree, discarding uncommitted work and possibly commits"},
		}},
		"clean": {val: "-e --exclude", rows: []row{
			{"git.clean", CapDelete, "-f|--force !-n !--dry-run", "", "deletes untracked files in the workspace, which git cannot bring back"},
		}, fn: func(b *builder, c *call) stream {
			if c.a.has("-f", "--force") && !c.a.has("-n", "--dry-run") {
				under := staticField("*", c.sp)
				under.glob = true
				b.pathEffect(CapDelete, "git.clean", "git", under, c.st, c.sp, "deletes untracked files in")
			}
			return stream{}
		}},
		"rm": {rows: []row{
			{"git.rm", CapDelete, "!--cached", "ops", "deletes"},
			{"git.write", CapWrite, "--cached", "", "unstages files"},
		}},
		"branch": {val: "-u --set-upstream-to --contains --merged --no-merged --sort --format", rows: []row{
			{"git.write", CapWrite, "ops", "", "creates or changes branches"},
			{"git.discard", CapDiscard, "-D", "", "force-deletes a branch, losing commits that are only on it"},
			{"git.discard", CapDiscard, "-d|--delete -f|--force", "", "force-deletes a branch, losing commits that are only on it"},
			{"git.discard", CapDiscard, "-M|-C", "", "overwrites an existing branch"},
		}},
		"rebase":        history("rewrites local history (rebase)", "-x --exec -s --strategy -X --onto"),
		"filter-branch": history("rewrites the repository's history (filter-branch)", "--tree-filter --index-filter --msg-filter --commit-filter --env-filter --parent-filter --tag-name-filter --subdirectory-filter"),
		"filter-repo":   {rows: []row{{"git.history", CapDiscard, "", "", "rewrites the repository's history (filter-repo)"}}},
		"replace":       {rows: []row{{"git.history", CapDiscard, "", "", "replaces objects in history"}}},
		"reflog":        subs(read(), map[string]*spec{"expire": {rows: []row{discard("expires reflog entries, losing the way back to old commits")}}, "delete": {rows: []row{discard("deletes reflog entries")}}}),
		"update-ref":    {rows: []row{{"git.history", CapDiscard, "", "", "moves or deletes refs directly"}}},
		"commit-tree":   read(),
		"fetch":         fetch("downloads from a remote repository"), "pull": {rows: []row{{"git.fetch", CapFetch, "", "", "downloads from a remote and merges into your branch"}, {"git.write", CapWrite, "", "", "merges into your branch"}}},
		"clone": {val: "-b -o -c --branch --origin --depth --reference --template --config -u --upload-pack --separate-git-dir --jobs -j", fn: hGitClone, rows: []row{
			{"git.fetch", CapFetch, "", "", "downloads a repository"},
			{"git.clone-write", CapWrite, "", "ops1", "writes the clone into"},
			{"git.config-code", CapPersistence, "-u|--upload-pack|--template", "", "runs git with a custom upload-pack or template, code git runs"},
			{"git.config-code", CapPersistence, "-c|--config=~^(core|alias|credential|filter|include)", "", "clones with a setting that makes git run other commands"},
		}},
		"ls-remote": query("queries a remote repository"), "remote": subs(read(), map[string]*spec{
			"add":     {rows: []row{{"git.remote", CapDiscard, "", "", "changes the repository's remotes (.git/config)"}, {"git.remote-ext", CapPersistence, "op~^ext::|^fd::", "", "adds a remote whose URL runs a command (ext::)"}}},
			"set-url": {rows: []row{{"git.remote", CapDiscard, "", "", "changes where the repository pushes and fetches (.git/config)"}, {"git.remote-ext", CapPersistence, "op~^ext::|^fd::", "", "sets a remote URL that runs a command (ext::)"}}},
			"remove":  {rows: []row{{"git.remote", CapDiscard, "", "", "removes a remote (.git/config)"}}}, "rm": {rows: []row{{"git.remote", CapDiscard, "", "", "removes a remote (.git/config)"}}},
			"rename": {rows: []row{{"git.remote", CapDiscard, "", "", "renames a remote (.git/config)"}}},
			"update": fetch("downloads from remotes"), "prune": fetch("prunes remote branches"), "show": fetch("queries a remote"),
			"-v": read(), "get-url": read(),
		}),
		"submodule": subs(fetch("downloads submodules"), map[string]*spec{"status": read(), "foreach": {fn: func(b *builder, c *call) stream {
			return b.shellText(c.a.ops, c, "git submodule foreach")
		}}}),
		"push": {val: "-o --push-option --repo --receive-pack --exec", rows: []row{
			{"git.push", CapSend, "", "", "pushes commits to a remote, where others see them"},
			{"git.push-force", CapPublish, "-f|--force|--force-with-lease|--force-if-includes", "", "force-pushes, overwriting the remote branch's history for everyone"},
			{"git.push-delete", CapPublish, "-d|--delete|--prune", "", "deletes branches or tags on the remote"},
			{"git.push-mirror", CapPublish, "--mirror", "", "mirrors every ref to the remote, deleting and overwriting what is there"},
			{"git.push-force", CapPublish, "op~^\\+", "", "force-pushes a ref (+ref), overwriting the remote's history"},
			{"git.push-delete", CapPublish, "op~^:", "", "deletes a ref on the remote (:ref)"},
			{"git.config-code", CapPersistence, "--receive-pack|--exec", "", "runs a custom receive-pack program"},
		}},
		"send-email":   {val: "--to --cc --bcc --from --subject --in-reply-to --to-cmd --cc-cmd --header-cmd --sendmail-cmd --smtp-server --smtp-server-port --smtp-user --smtp-pass --smtp-encryption --smtp-domain --identity --reply-to", fn: hSendEmail, rows: []row{{"git.send-email", CapSend, "", "", "sends patches by email"}}},
		"request-pull": read(),
		"lfs":          subs(read(), map[string]*spec{"push": whole("git.push", CapSend, "uploads large files to a remote"), "pull": fetch("downloads large files"), "fetch": fetch("downloads large files"), "install": whole("git.hooks", CapPersistence, "installs git hooks")}),
		"config":       {val: "-f --file --type --default --blob", fn: hGitConfig},
		"hook":         whole("git.hook-run", CapExec, "runs a git hook"),
		"daemon":       whole("git.daemon", CapSend, "serves the repository over the network"),
		// instaweb runs --httpd and --browser as command lines.
		"instaweb": {val: "-d --httpd -b --browser -p --port -m --module-path", fn: hPagerOption("--httpd", "-d", "--browser", "-b"), rows: []row{{"git.daemon", CapSend, "", "", "serves the repository over the network"}}},
	}
	extendGitLaunch(t)
	return t
}

// hGitConfig: reading config is A; setting a key that runs code is C
// (persistence); setting another key changes .git/config (B), and
// --global/--system changes config for every repository (C).
func hGitConfig(b *builder, c *call) stream {
	a := c.a
	reading := a.has("--get", "--get-all", "--get-regexp", "-l", "--list", "--get-urlmatch", "--show-origin", "--show-scope", "-e", "--edit") && !a.has("-e", "--edit")
	ops := a.ops
	if len(ops) > 0 && ops[0].known {
		switch ops[0].val {
		case "get", "list":
			reading = true
		case "set", "unset", "rename-section", "remove-section", "edit":
			ops = ops[1:]
		}
	}
	if a.has("-e", "--edit") {
		b.add(Effect{Cap: CapPersistence, Rule: "git.config-edit", Program: "git", Msg: "opens git's configuration in an editor (any setting, including ones that run code)"}, c.sp)
		return stream{}
	}
	if reading || len(ops) <= 1 && !a.has("--unset", "--unset-all", "--add", "--replace-all", "--remove-section", "--rename-section") {
		return stream{kind: streamText}
	}
	// -f FILE writes FILE in git's config format, wherever it is: into
	// ~/.bashrc it is a line the shell runs.
	for _, f := range a.values("-f", "--file") {
		if !f.known || f.val != "-" {
			b.pathEffect(CapWrite, "git.config-file", "git", f, c.st, c.sp, "writes git settings into")
		}
	}
	if len(ops) == 0 {
		// A section or setting change without its name (git config
		// --remove-section, or an abbreviation of it): worst case.
		b.add(Effect{Cap: CapPersistence, Rule: "git.config-code", Program: "git", Msg: "changes git settings it does not name"}, c.sp)
		return stream{}
	}
	key := ops[0]
	if !key.known {
		b.add(Effect{Cap: CapPersistence, Rule: "git.config-code", Program: "git", Target: key.display(), Msg: "sets a git setting whose name is not static"}, c.sp)
		return stream{}
	}
	if re(gitCodeKeys()).MatchString(key.val) {
		b.add(Effect{Cap: CapPersistence, Rule: "git.config-code", Program: "git", Target: key.val, Msg: fmt.Sprintf("sets %s, which makes git run a command later", key.val)}, c.sp)
		return stream{}
	}
	if pushKey := strings.ToLower(key.val); strings.HasPrefix(pushKey, "remote.") && strings.HasSuffix(pushKey, ".push") && len(ops) > 1 {
		// A refspec with + makes every later plain git push a force
		// push (remote.origin.push +refs/heads/*:refs/heads/*), which
		// is C on the command line; one guard cannot see may be one.
		if v := ops[1]; !v.known || strings.HasPrefix(strings.TrimSpace(v.val), "+") {
			b.add(Effect{Cap: CapPublish, Rule: "git.config-force-push", Program: "git", Target: key.val, Msg: fmt.Sprintf("sets %s to a forced refspec: every later git push overwrites the remote's history", key.val)}, c.sp)
			return stream{}
		}
	}
	if a.has("--global", "--system") {
		b.add(Effect{Cap: CapPersistence, Rule: "git.config-global", Program: "git", Target: key.val, Msg: fmt.Sprintf("changes %s in your global git configuration, for every repository", key.val)}, c.sp)
		return stream{}
	}
	b.add(Effect{Cap: CapDiscard, Rule: "git.config-set", Program: "git", Target: key.val, Msg: fmt.Sprintf("changes %s in the repository's .git/config", key.val)}, c.sp)
	return stream{}
}
