package profile

import (
	"path"
	"strings"
	"sync"
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

	once     sync.Once
	listOnce sync.Once
	locs     locations

	mu      sync.Mutex
	symlink map[string]string // EvalSymlinks results, per path

	candOnce sync.Once
	cands    []candidate // locations a pattern may name (secrets_v2.go)
}

// locations are the context's absolute location tables, computed once.
type locations struct {
	persist, secret   []string
	hidden, protected []string // SecretLocations, ProtectedLocations
}

func (c *Context) tables() *locations {
	c.once.Do(func() {
		if c.Home == "" {
			return
		}
		// The tables depend only on the home directory: computed once per
		// home for the process (a hook server reviews many commands).
		if v, ok := homeTables.Load(c.Home); ok {
			h := v.(*locations)
			c.locs.persist, c.locs.secret = h.persist, h.secret
			return
		}
		h := &locations{}
		for _, r := range persistRel {
			h.persist = append(h.persist, path.Join(c.Home, r))
		}
		for _, r := range secretRel {
			h.secret = append(h.secret, path.Join(c.Home, r))
		}
		homeTables.Store(c.Home, h)
		c.locs.persist, c.locs.secret = h.persist, h.secret
	})
	return &c.locs
}

// homeTables caches the absolute location tables per home directory.
var homeTables sync.Map

// lists computes the hide and protect lists once.
func (c *Context) lists() *locations {
	t := c.tables()
	c.listOnce.Do(func() {
		t.hidden = append([]string(nil), t.secret...)
		for _, d := range []string{c.ConfigDir, c.StateDir} {
			if d != "" {
				t.hidden = append(t.hidden, d)
			}
		}
		t.protected = append([]string(nil), t.persist...)
		if c.hasWorkspace() {
			for _, r := range workspacePersist {
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

// secretRel are secret locations relative to the home directory. The
// sandbox hides the same list (see SecretLocations).
var secretRel = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub",
	".kube", ".docker", ".git-credentials", ".netrc", ".npmrc", ".pypirc", ".password-store",
	".local/share/keyrings", ".pgpass", ".my.cnf", ".vault-token", ".terraform.d/credentials.tfrc.json",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".sqlite_history", ".lesshst", ".config/op", ".cargo/credentials.toml",
	".cargo/credentials",
	// Agent and CLI tokens, git's XDG credentials, other tools' logins.
	".codex", ".claude", ".claude.json", ".gemini", ".config/git/credentials", ".config/containers/auth.json",
	".gem/credentials", ".config/rclone", ".config/glab-cli", ".pulumi/credentials.json", ".config/github-copilot",
	".config/doctl", ".fly", ".config/netlify", ".config/heroku", ".netlify", ".databrickscfg", ".oci", ".terraformrc",
	".config/ngrok", ".config/stripe", ".m2/settings.xml", ".gradle/gradle.properties", ".config/sops", ".config/age",
	".local/share/fish/fish_history", ".config/fish/fish_history", ".local/share/atuin", ".irb_history", ".rediscli_history",
	".dbshell", ".histfile", ".zsh_sessions", ".config/Bitwarden CLI", ".config/keybase",
	// Keyrings and wallets.
	".gnome2/keyrings", ".local/share/kwalletd", ".kde/share/apps/kwallet", "Library/Keychains",
	// Browser cookie and password stores.
	".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	".config/vivaldi", ".config/opera", "snap/firefox/common/.mozilla", "snap/chromium/common/chromium",
	"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox", "Library/Cookies",
}

// secretAbs are secret locations outside the home directory.
var secretAbs = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
	"/etc/ssh/ssh_host_dsa_key", "/run/secrets", "/var/run/secrets", "/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml", "/etc/krb5.keytab", "/root/.ssh"}

// persistRel are files under home that run code at login, in new shells
// or on the user's behalf.
var persistRel = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".zlogout", ".config/fish", ".ssh/authorized_keys", ".ssh/rc", ".ssh/config",
	".config/autostart", ".config/systemd", ".local/share/systemd", ".gitconfig", ".config/git",
	".vimrc", ".config/nvim", ".emacs", ".emacs.d", ".inputrc", ".xprofile", ".xinitrc", ".xsession",
	".pam_environment", ".config/environment.d",
	// Agent and editor settings that run commands or hooks: changing them
	// can switch guard's hook off for the next session.
	".claude/settings.json", ".claude/settings.local.json", ".claude.json", ".codex", ".gemini/settings.json",
	".config/Code/User/settings.json", ".config/Code/User/tasks.json",
	// Tool configurations that choose what runs later (package indexes,
	// script shells, plugins), editor extensions, autostart entries.
	".config/pip", ".pip", ".condarc", ".config/conda", ".gemrc", ".bundle", ".cargo/config.toml", ".cargo/config",
	".yarnrc", ".yarnrc.yml", ".config/yarn", ".config/pnpm", ".bunfig.toml", ".config/direnv", ".tmux.conf", ".config/tmux",
	".screenrc", ".vscode", ".vscode-server", ".cursor", ".vim", ".local/share/nvim", ".ipython", ".pythonrc",
	".bash_aliases", ".oh-my-zsh", ".config/starship.toml", ".config/mimeapps.list", ".local/share/applications",
	".config/pypoetry", ".config/uv", ".gradle/init.d", ".gradle/init.gradle", ".npm-init.js", ".config/kitty", ".wezterm.lua",
}

// workspacePersist are files in a workspace that agents, editors or
// direnv run or obey: writing them can run code later or switch guard's
// agent hook off. They are protected in the sandbox too.
var workspacePersist = []string{
	".claude/settings.json", ".claude/settings.local.json", ".codex", ".gemini/settings.json",
	".envrc", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
	".git/hooks", ".git/config",
}

// persistAbs are system locations that run code later.
var persistAbs = []string{"/etc/cron.d", "/etc/cron.daily", "/etc/cron.hourly", "/etc/cron.weekly", "/etc/cron.monthly", "/etc/crontab", "/var/spool/cron", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd", "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/environment", "/etc/ld.so.preload", "/etc/rc.local", "/etc/init.d", "/etc/sudoers"}

// systemDirs are the system trees.
var systemDirs = []string{"/etc", "/usr", "/boot", "/var", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/srv", "/sys", "/proc", "/snap", "/root", "/dev", "/run", "/nix", "/efi"}

// tempDirs are shared temporary directories; TMPDIR is added from Env.
var tempDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// nullDevices are harmless to read and write.
var nullDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd", "/proc/self/fd"}

// sensitiveNames are workspace files that usually hold secrets: reading
// them may reveal secrets (B).
var sensitiveNames = []string{".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "credentials*", "secrets.*", "*.p12", "*.pfx", "*.keystore", "*.jks", ".npmrc", ".pypirc", "*.tfvars", ".git-credentials", ".netrc"}

// SecretLocations lists the absolute paths the sandbox must hide for this
// home directory: the secret table, shell histories and guard's own dirs.
// The slice is shared: do not modify it.
func (c *Context) SecretLocations() []string { return c.lists().hidden }

// ProtectedLocations lists what must stay unchanged even inside writable
// trees: shell rc files and the workspace's git hooks and config. The
// slice is shared: do not modify it.
func (c *Context) ProtectedLocations() []string { return c.lists().protected }

// WorkspaceUsable reports whether the workspace may be granted to a
// sandbox: "/" and the home directory never are.
func (c *Context) WorkspaceUsable() bool { return c.hasWorkspace() }

func (c *Context) hasWorkspace() bool {
	// "/", the home directory and any directory above it are never a
	// workspace: with them everything counts as outside.
	return c.Workspace != "" && c.Workspace != "/" && (c.Home == "" || !within(path.Clean(c.Home), c.Workspace))
}

func (c *Context) tempDirs() []string {
	out := tempDirs
	if t := c.Env["TMPDIR"]; strings.HasPrefix(t, "/") {
		out = append(append([]string(nil), tempDirs...), path.Clean(t))
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
		p = path.Join(dir, p)
	}
	p = path.Clean(p)
	if c.EvalSymlinks != nil {
		p = c.resolveExisting(p)
	}
	return p, true
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
	for i := 0; i < 64; i++ {
		if r, err := c.EvalSymlinks(cur); err == nil {
			return path.Join(r, rest)
		}
		if cur == "/" || cur == "." {
			break
		}
		rest = path.Join(path.Base(cur), rest)
		cur = path.Dir(cur)
	}
	return p
}

// Classify says what an absolute, cleaned path is to the user.
func (c *Context) Classify(p string) Class {
	if c.Remote {
		return ClassRemote
	}
	if p == "" || !strings.HasPrefix(p, "/") {
		return ClassUnknown
	}
	for _, d := range []string{c.ConfigDir, c.StateDir} {
		if d != "" && within(p, d) {
			return ClassGuard
		}
	}
	for _, n := range nullDevices {
		if within(p, n) {
			return ClassNull
		}
	}
	if strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty") || p == "/dev/console" {
		return ClassTTY
	}
	if c.Home != "" && within(p, c.Home) {
		// Secrets first: agent settings (~/.codex, ~/.claude) also hold
		// tokens, and reading those is what matters. A persistence file
		// inside a secret directory (~/.ssh/authorized_keys) is
		// persistence: the more specific wins. Looked up by the path's
		// prefixes under home (a few map lookups, not a scan of the
		// tables).
		secret, persist := homeRelClass(strings.TrimPrefix(p[len(path.Clean(c.Home)):], "/"))
		if persist > secret {
			return ClassPersistence
		}
		if secret > 0 {
			return ClassSecret
		}
	}
	for _, s := range secretAbs {
		if within(p, s) {
			return ClassSecret
		}
	}
	if otherHomeSecret(p) || matchSecretPattern(p) {
		return ClassSecret
	}
	if persistPattern(p) {
		return ClassPersistence
	}
	for _, s := range persistAbs {
		if within(p, s) {
			return ClassPersistence
		}
	}
	if i := strings.Index(p+"/", "/.git/hooks/"); i >= 0 || strings.HasSuffix(p, "/.git/config") || strings.HasSuffix(p, "/.git/hooks") {
		return ClassPersistence
	}
	if c.hasWorkspace() && within(p, c.Workspace) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, path.Clean(c.Workspace)), "/")
		for _, r := range workspacePersist {
			if rel == r || strings.HasPrefix(rel, r+"/") {
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
		if dir != "" && within(p, dir) && len(path.Clean(dir)) > len(best) {
			best, bestClass = path.Clean(dir), class
		}
	}
	if c.hasWorkspace() {
		consider(c.Workspace, ClassWorkspace)
	}
	for _, t := range c.tempDirs() {
		consider(t, ClassTemp)
	}
	consider(c.Home, ClassOutside)
	switch bestClass {
	case ClassWorkspace:
		if isSensitive(path.Base(p)) {
			return ClassSensitive
		}
		return ClassWorkspace
	case ClassTemp:
		return ClassTemp
	case ClassOutside:
		if p == path.Clean(c.Home) {
			return ClassHome
		}
		return ClassOutside
	}
	if p == "/" {
		return ClassRoot
	}
	for _, s := range systemDirs {
		if within(p, s) {
			return ClassSystem
		}
	}
	if path.Dir(p) == "/" {
		// A new top-level directory is a system change.
		return ClassSystem
	}
	return ClassOutside
}

func isSensitive(base string) bool {
	for _, pat := range sensitiveNames {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if !isClean(dir) {
		dir = path.Clean(dir)
	}
	if dir == "/" {
		return true
	}
	return p == dir || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// isClean reports, without allocating, whether path.Clean would leave an
// absolute path unchanged (the tables are clean; Clean dominated Classify).
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if rest == "" || rest[0] == '/' || rest == "." || rest == ".." ||
			strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}

var (
	relSetsOnce                 sync.Once
	secretRelSet, persistRelSet map[string]bool
)

// homeRelClass returns the length of the longest secretRel and persistRel
// entry that rel (a path relative to home) is or lies under; 0 for none.
func homeRelClass(rel string) (secret, persist int) {
	relSetsOnce.Do(func() {
		secretRelSet, persistRelSet = map[string]bool{}, map[string]bool{}
		for _, r := range secretRel {
			secretRelSet[r] = true
		}
		for _, r := range persistRel {
			persistRelSet[r] = true
		}
	})
	if rel == "" {
		return 0, 0
	}
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
