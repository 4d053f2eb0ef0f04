package profile

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/internal/walkup"
)

// Context is every fact about the world the profile may use. It is the only
// way the outside enters this package, so tests pass fakes and a verdict
// can be replayed from the facts recorded with it.
type Context struct {
	Cwd       string `json:"cwd"`
	Workspace string `json:"workspace"` // "" when there is none: everything is outside
	Home      string `json:"home"`
	User      string `json:"user"`
	// Env holds the variables the context knows (HOME, PWD, TMPDIR, USER…).
	// Any other variable is unknown.
	Env map[string]string `json:"env,omitempty"`
	// ConfigDir and StateDir are guard's own directories.
	ConfigDir string `json:"config_dir"`
	StateDir  string `json:"state_dir"`
	// Remote is set while analysing the remote command of ssh: paths there
	// are not on this machine.
	Remote bool `json:"-"`

	// ReadFile reads a script handed to bash/sh/source so its contents
	// can be reviewed. nil: scripts cannot be read (reviewed as unknown).
	ReadFile func(path string) ([]byte, error) `json:"-"`
	// EvalSymlinks resolves symlinks in an absolute path. nil: none.
	EvalSymlinks func(path string) (string, error) `json:"-"`
	// Readlink reads one symlink (os.Readlink), for links whose target
	// does not exist yet. nil: such links are taken for plain names.
	Readlink func(path string) (string, error) `json:"-"`
	// Links is the number of names (hard links) of the regular file at
	// path, 0 when it is not one or cannot be told. nil: not known.
	Links func(path string) int `json:"-"`

	once     sync.Once
	homeOnce sync.Once
	listOnce sync.Once
	locs     locations

	mu      sync.Mutex
	symlink map[string]string // EvalSymlinks results, per path

	candOnce sync.Once
	cands    []candidate // locations a pattern may name (secrets_v2.go)
}

// locations are the context's absolute location tables, computed once.
type locations struct {
	// home, ws, cfg, state are Home, Workspace, ConfigDir and StateDir,
	// cleaned ("" when unset).
	home, ws, cfg, state string
	persist, secret      []string
	hidden, protected    []string // SecretLocations, ProtectedLocations
	revealed             []string // RevealedLocations
}

func (c *Context) tables() *locations {
	c.once.Do(func() {
		clean := func(p string) string {
			if p == "" {
				return ""
			}
			return path.Clean(p)
		}
		c.locs.home, c.locs.ws, c.locs.cfg, c.locs.state = clean(c.Home), clean(c.Workspace), clean(c.ConfigDir), clean(c.StateDir)
	})
	return &c.locs
}

// homeLocs is tables with the locations under the home directory
// (startup files, secrets) filled in. Most commands name no path and
// never need them: a decision that does not pays nothing for them.
func (c *Context) homeLocs() *locations {
	t := c.tables()
	c.homeOnce.Do(func() {
		if t.home == "" {
			return
		}
		// The tables depend only on the home directory: computed once per
		// home for the process (a hook server reviews many commands).
		if v, ok := homeTables.Load(t.home); ok {
			h := v.(*locations)
			t.persist, t.secret = h.persist, h.secret
			return
		}
		h := &locations{persist: underHome(t.home, persistRel()), secret: underHome(t.home, secretRel())}
		homeTables.Store(t.home, h)
		t.persist, t.secret = h.persist, h.secret
	})
	return t
}

// underHome joins each of rels (clean relative paths,
// TestHomeRelativesClean) to the clean home directory: path.Join's
// cleaning is not needed, and was most of the cost.
func underHome(home string, rels []string) []string {
	if home != "/" {
		home += "/"
	}
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = home + r
	}
	return out
}

// homeTables caches the absolute location tables per home directory.
var homeTables sync.Map

// lists computes the hide and protect lists once.
func (c *Context) lists() *locations {
	t := c.homeLocs()
	c.listOnce.Do(func() {
		t.hidden = append([]string(nil), t.secret...)
		for _, d := range []string{c.ConfigDir, c.StateDir} {
			if d != "" {
				t.hidden = append(t.hidden, d)
			}
		}
		if c.ConfigDir != "" {
			for _, f := range guardReadable() {
				t.revealed = append(t.revealed, path.Join(c.ConfigDir, f))
			}
		}
		t.protected = append([]string(nil), t.persist...)
		if c.hasWorkspace() {
			for _, r := range workspacePersist() {
				t.protected = append(t.protected, path.Join(c.Workspace, r))
			}
		}
	})
	return t
}

// Class is what a path is to the user.
type Class string

const (
	ClassWorkspace   Class = "workspace"
	ClassWSRoot      Class = "workspace-root" // the workspace directory itself
	ClassTemp        Class = "temp"
	ClassOutside     Class = "outside" // the user's files outside the workspace
	ClassHome        Class = "home"    // the home directory itself
	ClassRoot        Class = "root"    // "/"
	ClassSystem      Class = "system"  // /etc, /usr, /boot, /var, /opt, …
	ClassDevice      Class = "device"  // a disk or other device node
	ClassNull        Class = "null"    // /dev/null and friends: harmless
	ClassTTY         Class = "tty"     // another terminal: /dev/pts/N
	ClassSecret      Class = "secret"
	ClassSensitive   Class = "sensitive" // .env and key files in the workspace
	ClassGuard       Class = "guard"     // guard's own config and state
	ClassPersistence Class = "persistence"
	ClassUnknown     Class = "unknown" // could not be resolved
	ClassRemote      Class = "remote"  // a path on another machine
)

// secretRel are secret locations relative to the home directory: the
// profile classes them as secrets and the sandbox hides them (see
// SecretLocations). One row per tool; a directory hides everything in
// it.
var secretRel = sync.OnceValue(func() []string {
	return []string{
		// Keys, cloud and cluster credentials.
		".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".oci",
		".config/containers/auth.json", ".password-store", ".local/share/keyrings",
		".config/sops", ".config/age", ".s3cfg", ".boto", ".config/rclone",
		".config/hcloud", ".config/doctl", ".fly", ".pulumi/credentials.json",
		".terraform.d/credentials.tfrc.json", ".vault-token", ".config/op",
		// Forges and git.
		".config/gh", ".config/hub", ".config/glab-cli", ".git-credentials",
		".config/git/credentials", ".netrc",
		// Package registries.
		".npmrc", ".pypirc", ".cargo/credentials.toml", ".cargo/credentials",
		".gem/credentials", ".local/share/gem/credentials", ".m2/settings.xml",
		".m2/settings-security.xml", ".gradle/gradle.properties", ".composer/auth.json",
		".config/composer/auth.json", ".config/configstore",
		// Databases.
		".pgpass", ".my.cnf",
		// Coding agents' tokens.
		".codex", ".claude", ".claude.json", ".claude.json.backup", ".gemini",
		// Browser profiles: cookies and saved passwords.
		".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
		// Shell and REPL histories.
		".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".local/share/atuin",
		".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
		".sqlite_history", ".lesshst",
		// More CLI logins, keyrings, wallets and browser stores.
		".config/github-copilot", ".config/netlify", ".config/heroku", ".netlify",
		".databrickscfg", ".terraformrc", ".config/ngrok", ".config/stripe",
		".config/fish/fish_history", ".irb_history", ".rediscli_history", ".dbshell",
		".histfile", ".zsh_sessions", ".config/Bitwarden CLI", ".config/keybase",
		".gnome2/keyrings", ".local/share/kwalletd", ".kde/share/apps/kwallet",
		"Library/Keychains", ".thunderbird", ".config/microsoft-edge", ".config/vivaldi",
		".config/opera", "snap/firefox/common/.mozilla", "snap/chromium/common/chromium",
		"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
		"Library/Cookies",
		// Deploy and data CLIs' tokens and connection passwords, editors'
		// stores of extension secrets, MCP configurations (which carry
		// API keys in their env blocks), REPL histories.
		".config/fly", ".wrangler", ".config/.wrangler", ".dbt/profiles.yml", ".databricks",
		".config/Code/User/globalStorage", ".config/VSCodium/User/globalStorage", ".config/Cursor/User/globalStorage",
		".cursor/mcp.json", ".codeium", ".viminfo",
		// More tokens and keys CLIs keep in plain files: secret managers,
		// error trackers, CI and artifact services, model hubs, object
		// stores, tunnels, device keys, mail and Emacs's authinfo, AI
		// tools' API keys, package feeds.
		".doppler", ".sentryclirc", ".circleci/cli.yml", ".travis/config.yml", ".jfrog",
		".huggingface/token", ".cache/huggingface/token", ".mc/config.json", ".passwd-s3fs",
		".cloudflared", ".android/adbkey", ".minikube", ".talos/config",
		".config/helm/repositories.yaml", ".config/scw", ".ovh.conf", ".config/linode-cli",
		".supabase/access-token", ".railway/config.json", ".vercel", ".local/share/com.vercel.cli",
		".snowsql/config", ".authinfo", ".authinfo.gpg", ".msmtprc", ".mbsyncrc", ".fetchmailrc",
		".config/aerc/accounts.conf", ".continue/config.json", ".continue/config.yaml", ".aider.conf.yml",
		".nuget/NuGet/NuGet.Config", ".ivy2/.credentials", ".config/lpass", ".local/share/lpass",
		".config/tea", ".config/fastly", ".config/twilio-cli", ".expo/state.json", ".awsvault",
		// Desktop messengers' sessions and cookies (a stolen session is the
		// account), password managers' desktop vaults and keys, remote-
		// desktop and FTP clients' saved passwords, Pidgin's plain-text
		// passwords, Syncthing's device key, Teleport's client keys, AI
		// coding tools' stored API keys.
		".config/Slack", ".config/discord", ".config/Signal", ".local/share/TelegramDesktop", ".config/Element",
		".config/Bitwarden", ".config/1Password", ".config/remmina", ".local/share/remmina", ".config/filezilla",
		".purple", ".config/syncthing", ".local/state/syncthing", ".tsh", ".aider/oauth-keys.env",
		".local/share/opencode/auth.json",
		// Session 8: API keys and tokens more CLIs keep in plain files —
		// time tracking, tunnels, data science and warehouses, Alibaba,
		// Tencent, IBM and Exoscale clouds, LLM command-line clients and
		// another coding agent's OAuth login.
		".wakatime.cfg", ".ngrok2", ".kaggle/kaggle.json", ".snowflake/config.toml", ".snowflake/connections.toml",
		".aliyun", ".tccli", ".bluemix", ".config/exoscale", ".config/io.datasette.llm/keys.json",
		".config/aichat/config.yaml", ".config/shell_gpt/.sgptrc", ".config/mods/mods.yml", ".qwen/oauth_creds.json",
	}
})

// guardReadable are the files in guard's config directory that guard's
// own read-only subcommands need inside the sandbox (a pre-commit hook
// running guard scan): the policy and the settings. The rest of the
// directory (the PIN) and the state directory (approvals, audit log)
// stay hidden.
var guardReadable = sync.OnceValue(func() []string {
	return []string{"policy.toml", "config.toml"}
})

// secretAbs are secret locations outside the home directory.
var secretAbs = sync.OnceValue(func() []string {
	return []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
		"/etc/ssh/ssh_host_dsa_key", "/run/secrets", "/var/run/secrets", "/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml", "/etc/krb5.keytab",
		// The password files' backup copies (same hashes), old hashes.
		"/etc/shadow-", "/etc/gshadow-", "/var/backups/shadow.bak", "/var/backups/gshadow.bak", "/etc/security/opasswd",
		// VPN, Wi-Fi and TLS private keys and shared secrets.
		"/etc/wireguard", "/etc/NetworkManager/system-connections", "/etc/letsencrypt", "/etc/pki/tls/private",
		"/etc/pki/CA/private", "/etc/openvpn", "/etc/ipsec.secrets", "/etc/ipsec.d/private", "/etc/ppp/chap-secrets",
		"/etc/ppp/pap-secrets",
		// Service passwords and cluster keys.
		"/etc/mysql/debian.cnf", "/etc/sssd/sssd.conf", "/var/lib/samba/private", "/etc/kubernetes/pki",
		"/var/lib/rancher/k3s/server/token", "/var/lib/rancher/k3s/server/tls", "/var/lib/kubelet/pki", "/var/lib/tailscale"}
})

// persistRel are files under home that run code at login, in new shells
// or on the user's behalf.
var persistRel = sync.OnceValue(func() []string {
	return []string{
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
		".zshenv", ".zlogin", ".zlogout", ".config/fish", ".ssh/authorized_keys", ".ssh/rc", ".ssh/config",
		".config/autostart", ".config/systemd", ".local/share/systemd", ".gitconfig", ".config/git",
		".vimrc", ".config/nvim", ".emacs", ".emacs.d", ".inputrc", ".xprofile", ".xinitrc", ".xsession",
		".pam_environment", ".config/environment.d",
		// Agent and editor settings that run commands or hooks: changing them
		// can switch guard's hook off for the next session.
		".claude/settings.json", ".claude/settings.local.json", ".claude.json", ".codex", ".gemini/settings.json",
		// Their hook scripts, skills, commands, subagents and extensions:
		// files the agent runs or obeys in a later session.
		".claude/hooks", ".claude/skills", ".claude/commands", ".claude/agents",
		".gemini/extensions", ".gemini/commands",
		".config/Code/User/settings.json", ".config/Code/User/tasks.json",
		// Tool configurations that choose what runs later (package indexes,
		// script shells, plugins), editor extensions, autostart entries.
		".config/pip", ".pip", ".condarc", ".config/conda", ".gemrc", ".bundle", ".cargo/config.toml", ".cargo/config",
		".yarnrc", ".yarnrc.yml", ".config/yarn", ".config/pnpm", ".bunfig.toml", ".config/direnv", ".tmux.conf", ".config/tmux",
		".screenrc", ".vscode", ".vscode-server", ".cursor", ".vim", ".local/share/nvim", ".ipython", ".pythonrc",
		".bash_aliases", ".oh-my-zsh", ".config/starship.toml", ".config/mimeapps.list", ".local/share/applications",
		".config/pypoetry", ".config/uv", ".gradle/init.d", ".gradle/init.gradle", ".npm-init.js", ".config/kitty", ".wezterm.lua",
		// Other shells' start-up files, and the drop-in directory and
		// completion files that bash start-up sources (Fedora's .bashrc
		// reads ~/.bashrc.d; bash-completion sources ~/.bash_completion
		// and loads the per-command files on first completion).
		".bashrc.d", ".bash_completion", ".local/share/bash-completion", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc",
		".login", ".logout", ".yashrc", ".xonshrc", ".config/xonsh", ".config/nushell", ".config/powershell",
		".config/elvish", ".elvish/rc.elv", ".config/ion",
		// Graphical sessions: files the session sources or whose exec lines
		// it runs at login, D-Bus services it starts on demand.
		".xsessionrc", ".config/plasma-workspace/env", ".config/plasma-workspace/shutdown", ".kde/Autostart", ".config/autostart-scripts",
		".config/openbox/autostart", ".config/i3", ".i3/config", ".config/sway", ".config/hypr",
		".config/lxsession", ".local/share/dbus-1/services",
		// Debuggers, REPLs and database shells that run their init file on
		// start (gdb's shell and python, sqlite3 .shell, psql \!, R, irb).
		".gdbinit", ".config/gdb", ".lldbinit", ".pdbrc", ".irbrc", ".pryrc", ".sqliterc", ".psqlrc", ".Rprofile",
		".octaverc", ".julia/config", ".ghci", ".config/ghc", ".erlang", ".sbclrc", ".guile", ".perldb",
		".jupyter", ".config/jupyter", ".mavenrc", ".lein/profiles.clj", ".sbt/1.0/plugins", ".sbt/1.0/global.sbt",
		// Editors' XDG and vi-compatible init files (the legacy spellings
		// are listed above), and terminals that start a configured program.
		".config/emacs", ".doom.d", ".config/doom", ".spacemacs", ".config/vim", ".exrc", ".nexrc", ".gvimrc",
		".config/micro", ".config/kak", ".config/wezterm", ".config/alacritty", ".config/foot", ".config/ghostty",
		".hyper.js",
		// Clients whose per-user config runs programs or sets what they
		// write and send: curl and wget options (output, upload, askpass),
		// less's key file (its #env section sets LESSOPEN), mailcap viewers,
		// Mercurial and Subversion hooks and diff commands, mail filters
		// and forwards that pipe mail to a program, mise's global hooks.
		// Session 8: more agents' and editors' settings whose MCP servers,
		// extensions, tasks or hooks are commands they start: Claude
		// Desktop, Goose, Qwen Code, opencode, Amp, Crush, Copilot CLI,
		// Zed, Cursor, VSCodium and VS Code's user MCP file.
		".config/Claude/claude_desktop_config.json", ".config/goose/config.yaml", ".qwen/settings.json",
		".config/opencode", ".config/amp/settings.json", ".config/crush", ".copilot/mcp-config.json",
		".config/zed/settings.json", ".config/zed/tasks.json", ".config/Cursor/User/settings.json",
		".config/Cursor/User/tasks.json", ".config/VSCodium/User/settings.json", ".config/VSCodium/User/tasks.json",
		".config/Code/User/mcp.json", ".config/Code - Insiders/User/settings.json", ".config/Code - Insiders/User/tasks.json",
		".curlrc", ".config/curlrc", ".wgetrc", ".lesskey", ".config/lesskey", ".mailcap", ".hgrc", ".config/hg",
		".subversion/config", ".muttrc", ".config/mutt", ".forward", ".procmailrc", ".qmail", ".config/mise",
		// asdf's global versions (a path: version runs the programs found
		// there for every shim) and the container engine's settings
		// (hooks, runtimes and the registries images are pulled from).
		".tool-versions", ".config/containers/containers.conf", ".config/containers/registries.conf", ".config/containers/registries.conf.d",
		// Remote login authorization: who may log in as the user.
		".ssh/authorized_keys2", ".rhosts", ".shosts", ".k5login", ".k5users",
		// Session 10: aria2c's default configuration, read by every
		// aria2c: its on-download-* options name programs it runs.
		".aria2/aria2.conf", ".config/aria2/aria2.conf",
	}
})

// workspacePersist are files in a workspace that agents, editors or
// direnv run or obey: writing them can run code later or switch guard's
// agent hook off. They are protected in the sandbox too.
var workspacePersist = sync.OnceValue(func() []string {
	return append([]string{
		// The agents' whole project directories: settings, hook scripts,
		// skills, commands, subagents, extensions (the hook's file tools
		// treat a write anywhere in them the same way).
		".claude", ".codex", ".gemini",
		".envrc", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
		".git/hooks", ".git/config",
		// Other version control systems' repository configs: Mercurial
		// runs the hooks of .hg/hgrc on every hg command, jj its aliases,
		// pager and diff tools.
		".hg/hgrc", ".jj/repo/config.toml",
		// Project configs of editors and agents that start programs when
		// the project is opened: Zed's and Helix's language servers and
		// tasks, vim's and nvim's exrc files, and more agents' MCP
		// servers and commands (Continue, Roo Code, Kilo Code, Amazon Q,
		// Kiro, Junie; aider's lint and test commands).
		".zed/settings.json", ".zed/tasks.json", ".helix/languages.toml", ".helix/config.toml", ".exrc", ".nvimrc", ".nvim.lua",
		".continue", ".roo/mcp.json", ".kilocode/mcp.json", ".amazonq/mcp.json", ".amazonq/default.json", ".kiro/settings/mcp.json", ".junie/mcp",
		".aider.conf.yml",
		// MCP servers the project declares: agents and editors start
		// their commands.
		".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json",
		// Project configs of more agents that start MCP servers and
		// language servers (session 8), and a dev container's
		// initializeCommand, which the editor runs on this machine
		// before it builds the container.
		".qwen/settings.json", "opencode.json", "opencode.jsonc", ".opencode", "crush.json", ".crush.json",
		".devcontainer/devcontainer.json", ".devcontainer.json",
		// Hooks git runs on commit through a hooks manager: husky,
		// pre-commit, lefthook (its main and -local configs in YAML, the
		// other formats and .config/ spellings, and its script dirs) and
		// overcommit.
		".husky", ".pre-commit-config.yaml",
		"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "lefthook.toml", "lefthook.json",
		"lefthook-local.yml", ".lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yaml",
		".config/lefthook.yml", ".config/lefthook.yaml", ".config/lefthook-local.yml",
		".lefthook", ".lefthook-local", ".overcommit.yml",
		// Tool-version managers' project configs run their hooks and
		// env scripts in the user's shell on cd (mise activate).
		"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml", ".config/mise",
		// asdf's and mise's .tool-versions (a "path:" version makes the
		// shims run any directory's programs) and rustup's toolchain file
		// (its path key: every cargo and rustc the user runs in the
		// project).
		".tool-versions", "rust-toolchain.toml", "rust-toolchain",
		// Package-manager configuration that runs code on the next
		// install or script: npm's script-shell and node-options, yarn's
		// yarnPath and plugins, pnpm's hooks, bun's preload.
		".npmrc", ".yarnrc", ".yarnrc.yml", ".yarn/releases", ".yarn/plugins", ".pnpmfile.cjs", "bunfig.toml",
		// cargo's project config: build.rustc-wrapper, target.*.runner
		// and [alias] run programs at the next cargo build, test or run.
		".cargo/config.toml", ".cargo/config",
		// guard's own files in the project: its policy (a floor another
		// command could lower by rewriting or deleting it) and the files
		// its scan skips (a pre-commit hook that then reads nothing).
		".guard.toml", ".guardignore",
		// guard's own checkpoints (guard undo) kept in the repository.
		".git/refs/guard", ".git/guard-checkpoints",
	}, credentialShadows()...)
})

// credentialShadows are the workspace's command directories (an
// activated virtual environment's, npm's) under the names of programs
// that ask for your password or key (sudo, ssh, git's credential
// prompt…). A program planted there runs outside guard the next time
// you type that name with the directory on your PATH, and reads what
// you type: writing one is persistence, and the sandbox removes one a
// command made. (Other names planted there run outside guard too, as
// the workspace's own programs do; see the threat model.)
var credentialShadows = sync.OnceValue(func() []string {
	var out []string
	for _, dir := range shadowDirs() {
		for _, name := range []string{"sudo", "su", "doas", "pkexec", "ssh", "git", "gpg"} {
			out = append(out, dir+"/"+name)
		}
	}
	return out
})

// shadowDirs are the workspace's command directories of credentialShadows.
var shadowDirs = sync.OnceValue(func() []string { return []string{".venv/bin", "venv/bin", "node_modules/.bin"} })

// holdsCredentialShadow reports whether p is one of the workspace's
// shadowDirs or a directory of one (.venv, node_modules), but not the
// workspace root: a tree written there (mv DIR .venv/bin, cp -r, tar -C,
// unzip -d, rsync, ln -s DIR) may put a credential shadow there under a
// name the line does not show. (An archive extracted at the root is left
// to the sandbox, which removes a shadow a command made.)
func (c *Context) holdsCredentialShadow(p string) bool {
	ws := c.tables().ws
	rel, ok := strings.CutPrefix(p, ws+"/")
	if ws == "" || !ok {
		return false
	}
	for _, d := range shadowDirs() {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			return true
		}
	}
	return false
}

// writeHeldClass is HeldClass for a write that puts a whole tree at
// directory p (a move, a link, a recursive copy or an extraction into
// it): what it holds is replaced, and a workspace command directory
// receives programs by names the line does not show, so a credential
// shadow counts too (deleting node_modules is no persistence; writing a
// tree into node_modules/.bin is).
func (c *Context) writeHeldClass(p string) Class {
	if held := c.HeldClass(p); held != "" {
		return held
	}
	if c.holdsCredentialShadow(p) {
		return ClassPersistence
	}
	return ""
}

// isCredentialShadow reports whether p is one of the workspace's
// credentialShadows: only writing one is persistence; deleting the
// directory that would hold it (rm -rf node_modules) is not.
func (c *Context) isCredentialShadow(p string) bool {
	ws := c.tables().ws
	return ws != "" && strings.HasPrefix(p, ws+"/") && slices.Contains(credentialShadows(), p[len(ws)+1:])
}

// persistAbs are system locations that run code later.
var persistAbs = sync.OnceValue(func() []string {
	return []string{"/etc/cron.d", "/etc/cron.daily", "/etc/cron.hourly", "/etc/cron.weekly", "/etc/cron.monthly", "/etc/crontab", "/var/spool/cron", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd", "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/environment", "/etc/ld.so.preload", "/etc/rc.local", "/etc/init.d", "/etc/sudoers"}
})

// systemDirs are the system trees.
var systemDirs = sync.OnceValue(func() []string {
	return []string{"/etc", "/usr", "/boot", "/var", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/srv", "/sys", "/proc", "/snap", "/root", "/dev", "/run", "/nix", "/efi"}
})

// tempDirs are shared temporary directories; TMPDIR is added from Env.
var tempDirs = sync.OnceValue(func() []string {
	return []string{"/tmp", "/var/tmp", "/dev/shm"}
})

// nullDevices are harmless to read and write.
var nullDevices = sync.OnceValue(func() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd", "/proc/self/fd"}
})

// sensitiveNames are workspace files that usually hold secrets: reading
// them may reveal secrets (B).
var sensitiveNames = sync.OnceValue(func() []string {
	return []string{".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "credentials*", "secrets.*", "*.p12", "*.pfx", "*.keystore", "*.jks", ".npmrc", ".pypirc", "*.tfvars", ".git-credentials", ".netrc"}
})

// SecretLocations lists the absolute paths the sandbox must hide for this
// home directory: the secret table, shell histories and guard's own dirs.
// The slice is shared: do not modify it.
func (c *Context) SecretLocations() []string { return c.lists().hidden }

// RevealedLocations lists the files inside hidden locations that every
// run may read (not write): guard's policy and settings. The slice is
// shared: do not modify it.
func (c *Context) RevealedLocations() []string { return c.lists().revealed }

// ProtectedLocations lists what must stay unchanged even inside writable
// trees: shell rc files and the workspace's git hooks and config. The
// slice is shared: do not modify it.
func (c *Context) ProtectedLocations() []string { return c.lists().protected }

// HeldClass is the class of what lies below directory p when that is
// guard's own files (ClassGuard) or a protected location (ClassPersistence):
// moving or deleting p moves or deletes them too (mv .claude x takes the
// agent's settings, mv ~/.config x guard's own). "" when nothing is.
func (c *Context) HeldClass(p string) Class {
	t := c.tables()
	for _, d := range []string{t.cfg, t.state} {
		if d != "" && d != p && paths.Within(d, p) {
			return ClassGuard
		}
	}
	for _, pr := range c.ProtectedLocations() {
		if pr != p && paths.Within(pr, p) && !c.isCredentialShadow(pr) {
			return ClassPersistence
		}
	}
	return ""
}

// WorkspaceUsable reports whether the workspace may be granted to a
// sandbox: "/" and the home directory never are.
func (c *Context) WorkspaceUsable() bool { return c.hasWorkspace() }

// Copy is a context with c's facts and none of its caches, for a caller
// that reviews in parallel (each goroutine its own copy).
func (c *Context) Copy() *Context {
	return &Context{
		Cwd: c.Cwd, Workspace: c.Workspace, Home: c.Home, User: c.User, Env: c.Env,
		ConfigDir: c.ConfigDir, StateDir: c.StateDir, Remote: c.Remote,
		ReadFile: c.ReadFile, EvalSymlinks: c.EvalSymlinks, Readlink: c.Readlink, Links: c.Links,
	}
}

// remoteView is c for the remote command of ssh: the same facts, with
// paths on another machine.
func (c *Context) remoteView() *Context {
	r := c.Copy()
	r.Remote = true
	return r
}

func (c *Context) hasWorkspace() bool {
	// "/", the home directory and any directory above it are never a
	// workspace: with them everything counts as outside.
	t := c.tables()
	return t.ws != "" && t.ws != "/" && (t.home == "" || !paths.Within(t.home, t.ws))
}

func (c *Context) tempDirs() []string {
	out := tempDirs()
	if t := c.Env["TMPDIR"]; strings.HasPrefix(t, "/") {
		out = append(append([]string(nil), tempDirs()...), path.Clean(t))
	}
	return out
}

// Resolve makes p absolute against dir and resolves symlinks where the
// context can. dir "" means the directory is unknown: a relative path then
// cannot be resolved.
func (c *Context) Resolve(dir, p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		if dir == "" {
			return "", false
		}
		p = dir + "/" + p
	}
	if cp := path.Clean(p); cp == "/dev/stdin" || cp == "/dev/stdout" || cp == "/dev/stderr" || strings.HasPrefix(cp, "/dev/fd/") {
		// The command's own descriptors, not guard's: following the links
		// would price where guard's stderr goes (a pipe in /proc: C) and
		// differ from run to run.
		return cp, true
	}
	if r, ok, self := procSelf(dir, p); self {
		if !ok || r == "" {
			return r, ok
		}
		if !strings.HasPrefix(r, "/proc/") {
			return c.Resolve(dir, r)
		}
		return r, true
	}
	if c.EvalSymlinks == nil {
		return procRoot(path.Clean(p)), true
	}
	if !hasDotDot(p) {
		return c.resolveExisting(procRoot(path.Clean(p))), true
	}
	// The kernel takes .. from where a symlink leads, not from its name:
	// with src/l -> /tmp/x, src/l/../a.go is /tmp/a.go. Each .. climbs
	// from the resolved path so far.
	cur := "/"
	for _, name := range strings.Split(p, "/") {
		switch name {
		case "", ".":
		case "..":
			cur = path.Dir(c.resolveExisting(cur))
		default:
			cur = procRoot(path.Join(cur, name))
		}
	}
	return c.resolveExisting(cur), true
}

// procSelf handles /proc/self and /proc/thread-self, which name the
// process that opens them — the command, not guard: resolving them in
// guard would print guard's PID in the verdict (not the same twice) and
// take guard's directory for the line's. /proc/self/cwd/P is P in dir,
// the line's own directory (unknown when dir is ""); /proc/self/root is
// left to procRoot; anything else stays as it is spelled. self is false
// for other paths.
func procSelf(dir, p string) (r string, ok, self bool) {
	var comps []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			comps = append(comps, s)
		}
	}
	if len(comps) < 2 || comps[0] != "proc" || comps[1] != "self" && comps[1] != "thread-self" {
		return "", false, false
	}
	switch {
	case len(comps) >= 3 && comps[2] == "root":
		return "", false, false // procRoot, as for any PID
	case len(comps) >= 3 && comps[2] == "cwd":
		if dir == "" {
			return "", false, true
		}
		return strings.Join(append([]string{dir}, comps[3:]...), "/"), true, true
	}
	return path.Clean(p), true, true
}

// procRoot rewrites a path through a process's root link, /proc/PID/root
// or /proc/PID/task/TID/root, to the path it names from the root: every
// process here shares the one root, whether or not the link can be read
// by the analysing process (it cannot for another user's PID).
func procRoot(p string) string {
	if !strings.HasPrefix(p, "/proc/") {
		return p
	}
	comps := strings.Split(p[1:], "/")
	n := 0
	switch {
	case len(comps) >= 3 && comps[2] == "root":
		n = 3
	case len(comps) >= 5 && comps[2] == "task" && comps[4] == "root":
		n = 5
	default:
		return p
	}
	return "/" + strings.Join(comps[n:], "/")
}

// hasDotDot reports whether p has a .. component.
func hasDotDot(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../") || strings.HasSuffix(p, "/..") || strings.Contains(p, "/../")
}

// resolveExisting resolves symlinks in the longest existing prefix of p,
// remembering answers: one command names the same paths again and again.
func (c *Context) resolveExisting(p string) string {
	c.mu.Lock()
	r, ok := c.symlink[p]
	c.mu.Unlock()
	if ok {
		return r
	}
	r = c.resolveUncached(p)
	c.mu.Lock()
	if c.symlink == nil {
		c.symlink = map[string]string{}
	}
	c.symlink[p] = r
	c.mu.Unlock()
	return r
}

func (c *Context) resolveUncached(p string) string {
	rest := ""
	cur := p
	// Climbing to a parent ends at /; only link hops are bounded (a cycle).
	for hops := 0; hops < 64; {
		if r, err := c.EvalSymlinks(cur); err == nil {
			return path.Join(r, rest)
		}
		// A symlink whose target does not exist: writing through it
		// creates the target (echo x >> link), so the path is the
		// target's. Links to links are followed the same way, at most 64.
		if c.Readlink != nil {
			if t, err := c.Readlink(cur); err == nil {
				if !strings.HasPrefix(t, "/") {
					t = path.Join(path.Dir(cur), t)
				}
				cur = path.Clean(t)
				hops++
				continue
			}
		}
		if cur == "/" || cur == "." {
			break
		}
		rest = path.Join(path.Base(cur), rest)
		cur = path.Dir(cur)
	}
	return p
}

// sharedTmp is the temp dir every process of the user shares.
const sharedTmp = "/tmp"

// inWalkUpDir reports whether p is a walk-up name (internal/walkup) in
// the shared temp dir, or in a directory between it and a workspace below
// it (/tmp/a for /tmp/a/ws, where agents clone): programs run below find
// it by walking up and obey it. These are the directories the sandbox
// protects the names in (walkup.Dirs, as sandbox.sharedTmpDirs), so the review prices a
// write there as the kernel will treat it. None when the workspace is the
// temp dir itself (its project files are the workspace's).
func inWalkUpDir(p, ws string) bool {
	if !strings.HasPrefix(p, sharedTmp+"/") {
		return false // every such directory is in the temp dir
	}
	for _, dir := range walkup.Dirs(sharedTmp, ws) {
		if rel, ok := strings.CutPrefix(p, dir+"/"); ok && walkup.Holds(rel) {
			return true
		}
	}
	return false
}

// Classify says what an absolute, cleaned path is to the user.
func (c *Context) Classify(p string) Class {
	if c.Remote {
		return ClassRemote
	}
	if p == "" || !strings.HasPrefix(p, "/") {
		return ClassUnknown
	}
	t := c.tables()
	for _, d := range []string{t.cfg, t.state} {
		if d != "" && paths.Within(p, d) {
			return ClassGuard
		}
	}
	for _, n := range nullDevices() {
		if paths.Within(p, n) {
			return ClassNull
		}
	}
	if strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty") || p == "/dev/console" {
		return ClassTTY
	}
	if inWalkUpDir(p, t.ws) {
		// A repository or project file in the shared temp dir itself,
		// or in a directory between it and a workspace below it:
		// every program run below finds it by walking up and obeys it
		// (internal/walkup). The sandbox protects them there.
		return ClassPersistence
	}
	if t.home != "" && paths.Within(p, t.home) {
		// Secrets first: agent settings (~/.codex, ~/.claude) also hold
		// tokens, and reading those is what matters. A persistence file
		// inside a secret directory (~/.ssh/authorized_keys) is
		// persistence: the more specific wins. Looked up by the path's
		// prefixes under home (a few map lookups, not a scan of the
		// tables).
		rel := strings.TrimPrefix(p[len(t.home):], "/")
		secret, persist := homeRelClass(rel)
		if persist > secret || shadowsProgram(rel) {
			return ClassPersistence
		}
		if secret > 0 {
			return ClassSecret
		}
	}
	for _, s := range secretAbs() {
		if paths.Within(p, s) {
			return ClassSecret
		}
	}
	if rel, ok := otherHomeRel(p); ok && (t.home == "" || !paths.Within(p, t.home)) {
		// Another user's home holds the same start-up files as yours:
		// code that user runs at login (the more specific of the two
		// tables wins, as in your home).
		if secret, persist := homeRelClass(rel); persist > secret {
			return ClassPersistence
		}
	}
	if otherHomeSecret(p) || matchSecretPattern(p) {
		return ClassSecret
	}
	if persistPattern(p) {
		return ClassPersistence
	}
	for _, s := range persistAbs() {
		if paths.Within(p, s) {
			return ClassPersistence
		}
	}
	if gitCodePath(p) {
		return ClassPersistence
	}
	if c.hasWorkspace() && paths.Within(p, t.ws) {
		rel := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(p, t.ws), "/")) // see homeRelClass
		for _, r := range workspacePersist() {
			if r = strings.ToLower(r); rel == r || strings.HasPrefix(rel, r+"/") {
				return ClassPersistence
			}
		}
	}
	if strings.HasPrefix(p, "/dev/") {
		return ClassDevice
	}
	// The most specific of workspace, temp dirs and home wins, so a home
	// or workspace under /tmp (as in tests) is still what it is.
	best, bestClass := "", Class("")
	consider := func(dir string, class Class) {
		if dir != "" && paths.Within(p, dir) && len(dir) > len(best) {
			best, bestClass = dir, class
		}
	}
	if c.hasWorkspace() {
		consider(t.ws, ClassWorkspace)
	}
	for _, d := range c.tempDirs() {
		consider(d, ClassTemp)
	}
	consider(t.home, ClassOutside)
	switch bestClass {
	case ClassWorkspace:
		if isSensitive(path.Base(p)) {
			return ClassSensitive
		}
		return ClassWorkspace
	case ClassTemp:
		return ClassTemp
	case ClassOutside:
		if p == t.home {
			return ClassHome
		}
		return ClassOutside
	}
	if p == "/" {
		return ClassRoot
	}
	for _, s := range systemDirs() {
		if paths.Within(p, s) {
			return ClassSystem
		}
	}
	if path.Dir(p) == "/" {
		// A new top-level directory is a system change.
		return ClassSystem
	}
	return ClassOutside
}

// gitCodePath reports whether p is where git finds code to run: a .git
// entry itself (a gitdir: file there points git at another repository),
// and inside a git directory any hooks directory (its own, submodules'
// under modules/, worktrees'), any config or config.worktree, and the
// commondir and gitdir pointers.
func gitCodePath(p string) bool {
	p = strings.ToLower(p) // see homeRelClass
	if path.Base(p) == ".git" {
		return true
	}
	i := strings.Index(p, "/.git/")
	if i < 0 {
		return false
	}
	for _, part := range strings.Split(p[i+len("/.git/"):], "/") {
		switch part {
		case "hooks", "config", "config.worktree", "commondir", "gitdir":
			return true
		}
	}
	return false
}

func isSensitive(base string) bool {
	for _, pat := range sensitiveNames() {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}

var (
	relSetsOnce                 sync.Once
	secretRelSet, persistRelSet map[string]bool
)

// homeRelClass returns the length of the longest secretRel and persistRel
// entry that rel (a path relative to home) is or lies under; 0 for none.
// Compared without case: on a case-insensitive file system (macOS's,
// a casefold directory, a vfat or SMB mount) ~/.SSH/ID_RSA is the key and
// ~/.BASHRC the start-up file, and an approval to write the one is a
// grant to write the other.
// userBinDirs are directories under home that installers and version
// managers put on PATH ahead of the system's.
var userBinDirs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		".local/bin": true, "bin": true, "go/bin": true, ".cargo/bin": true, ".npm-global/bin": true, ".npm-packages/bin": true,
		".deno/bin": true, ".bun/bin": true, ".volta/bin": true, ".local/share/pnpm": true, ".yarn/bin": true, ".nix-profile/bin": true,
		".pyenv/shims": true, ".pyenv/bin": true, ".rbenv/shims": true, ".asdf/shims": true, ".local/share/mise/shims": true,
		".dotnet/tools": true, ".krew/bin": true, ".poetry/bin": true, ".linuxbrew/bin": true, ".local/share/flatpak/exports/bin": true,
	}
})

// userBinPatterns are the bin directories version managers put on PATH
// under a version's name (nvm's node, sdkman's candidates, pyenv's and
// rbenv's versions, asdf's installs, rustup's toolchains).
var userBinPatterns = sync.OnceValue(func() []string {
	return []string{".nvm/versions/node/*/bin", ".sdkman/candidates/*/*/bin", ".pyenv/versions/*/bin", ".rbenv/versions/*/bin",
		".asdf/installs/*/*/bin", ".rustup/toolchains/*/bin", ".local/share/fnm/node-versions/*/installation/bin",
		".nodenv/shims", ".goenv/shims", ".jenv/shims", ".local/share/mise/installs/*/*/bin"}
})

// isUserBinDir reports whether rel (relative to home) is one of the
// user's bin directories (userBinDirs, userBinPatterns).
func isUserBinDir(rel string) bool {
	if userBinDirs()[rel] {
		return true
	}
	for _, p := range userBinPatterns() {
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// shadowsProgram: a file in one of the user's bin directories named like
// a program guard knows (git, ls, sudo, python3) is what every later
// shell runs for that name, outside any review: a code-execution hook.
// A new name there is a write outside the workspace (cp tool ~/bin/ is
// B). guard itself is such a name: the agent hooks and the shell shim run
// the guard found there, so replacing it switches every later review off
// (install -m 755 build/guard ~/bin/ is C, like writing guard's config).
//
// Names are compared without case too (a case-insensitive file system
// finds ~/.local/bin/GIT for git), and the names other programs run from
// PATH by themselves count as known (pathHelpers).
func shadowsProgram(rel string) bool {
	dir, name := path.Split(rel)
	if !isUserBinDir(strings.TrimSuffix(dir, "/")) || name == "" {
		return false
	}
	lower := strings.ToLower(name)
	return specFor(name) != nil || specFor(lower) != nil || pathHelper(lower)
}

// globShadows reports whether a pattern (worstCase's components) names
// a file in one of the user's bin directories with a name pattern that
// a program guard knows matches: cp x ~/.local/bin/g* may write
// ~/.local/bin/git (shadowsProgram). A name guard cannot see at all
// ($N) is not matched, as ~/$X/config is not taken for ~/.kube/config.
func (c *Context) globShadows(pat []string, fold bool) bool {
	if c.Home == "" || len(pat) == 0 {
		return false
	}
	name := pat[len(pat)-1]
	if name == "**" || !strings.ContainsAny(name, "*?[") {
		return false
	}
	if fold {
		name = strings.ToLower(name)
	}
	home := splitPath(c.Home)
	for d := range userBinDirs() {
		dir := append(slices.Clone(home), strings.Split(d, "/")...)
		if len(dir) != len(pat)-1 || !couldNameUnder(pat[:len(pat)-1], dir, fold, false) {
			continue
		}
		for _, n := range tableNames {
			if m, _ := path.Match(name, n); m {
				return true
			}
		}
		for _, n := range pathHelperNames() {
			if m, _ := path.Match(name, n); m {
				return true
			}
		}
	}
	return false
}

// pathHelpers are names programs look up in PATH and run by themselves,
// with no command line naming them: Debian's alternatives that git, man
// and other tools run as their default editor, pager, browser and
// terminal.
func pathHelper(name string) bool { return slices.Contains(pathHelperNames(), name) }

// pathHelperNames are pathHelper's names, for patterns.
func pathHelperNames() []string {
	return []string{"editor", "pager", "sensible-editor", "sensible-pager", "sensible-browser",
		"x-www-browser", "www-browser", "x-terminal-emulator", "gnome-www-browser"}
}

func homeRelClass(rel string) (secret, persist int) {
	relSetsOnce.Do(func() {
		secretRelSet, persistRelSet = map[string]bool{}, map[string]bool{}
		for _, r := range secretRel() {
			secretRelSet[strings.ToLower(r)] = true
		}
		for _, r := range persistRel() {
			persistRelSet[strings.ToLower(r)] = true
		}
	})
	if rel == "" {
		return 0, 0
	}
	rel = strings.ToLower(rel)
	check := func(prefix string) {
		if secretRelSet[prefix] {
			secret = len(prefix)
		}
		if persistRelSet[prefix] {
			persist = len(prefix)
		}
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			check(rel[:i])
		}
	}
	check(rel)
	return secret, persist
}
