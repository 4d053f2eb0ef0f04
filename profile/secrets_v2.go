package profile

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/internal/paths"
)

// Secrets v2 (LEVELS.md secrets row and principle 10): a glob or an
// unresolved part of a target is matched against the secret, guard-state
// and persistence locations and counts as naming one when it could; other
// users' homes and /root hold the same secrets as yours; and any file
// operand of any program (not only of the readers in the tables) that
// names a secret is a read of it.

// otherHomes are where other users' home directories are: the
// superuser's, and one level under /home and /Users ("*": any name).
var otherHomes = []string{"/root", "/home/*", "/Users/*"}

// otherHomeSecret reports whether p is a secret location in another
// user's home (otherHomes).
func otherHomeSecret(p string) bool {
	rel, ok := otherHomeRel(p)
	if !ok {
		return false
	}
	for _, r := range secretRel() {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

// secretPatterns are absolute secret locations with a wildcard component.
var secretPatterns = sync.OnceValue(func() [][]string {
	return [][]string{
		{"proc", "*", "environ"}, {"proc", "*", "task", "*", "environ"}, {"proc", "*", "mem"},
	}
})

// namedSecretPatterns are secret files in shared directories, matched only
// when a path names one: Kerberos ticket caches (FILE: type, the default)
// and a user's container registry logins in the runtime directory. A glob
// over /tmp is not taken for them (find /tmp -delete stays a temp delete).
var namedSecretPatterns = sync.OnceValue(func() [][]string {
	return [][]string{{"tmp", "krb5cc_*"}, {"run", "user", "*", "krb5cc*"}, {"run", "user", "*", "containers", "auth.json"}}
})

func matchSecretPattern(p string) bool {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/tmp/krb5cc") && !strings.HasPrefix(p, "/run/user/") {
		return false // the patterns' first components, without a split
	}
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	return matchComps(secretPatterns(), comps) || matchComps(namedSecretPatterns(), comps)
}

// matchComps reports whether the path components comps lie at or under a
// location one of the patterns names.
func matchComps(pats [][]string, comps []string) bool {
	for _, pat := range pats {
		if len(comps) < len(pat) {
			continue
		}
		ok := true
		for i, c := range pat {
			if m, _ := path.Match(c, comps[i]); !m {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// candidate is a location a pattern may name, as path components ("*"
// matches any one component).
type candidate struct {
	comps []string
	class Class
}

// candidates lists the guard, secret and persistence locations, worst
// first, for matching patterns against.
func (c *Context) candidates() []candidate {
	c.candOnce.Do(func() {
		key := c.Home + "\x00" + c.ConfigDir + "\x00" + c.StateDir + "\x00" + c.Workspace
		if v, ok := candCache.Load(key); ok {
			c.cands = v.([]candidate)
			return
		}
		defer func() { candCache.Store(key, c.cands) }()
		add := func(p string, cl Class) {
			c.cands = append(c.cands, candidate{comps: splitPath(p), class: cl})
		}
		for _, d := range []string{c.ConfigDir, c.StateDir} {
			if d != "" {
				add(d, ClassGuard)
			}
		}
		t := c.homeLocs()
		for _, s := range t.secret {
			add(s, ClassSecret)
		}
		for _, s := range secretAbs() {
			add(s, ClassSecret)
		}
		for _, r := range secretRel() {
			for _, h := range otherHomes {
				add(h+"/"+r, ClassSecret)
			}
		}
		for _, p := range secretPatterns() {
			add("/"+strings.Join(p, "/"), ClassSecret)
		}
		// Python start-up hooks in any site-packages (an unresolved
		// prefix, a *.pth name).
		for _, d := range []string{"site-packages", "dist-packages"} {
			c.cands = append(c.cands, candidate{comps: []string{"**", d, "*.pth"}, class: ClassPersistence})
		}
		for _, s := range t.persist {
			add(s, ClassPersistence)
		}
		for _, s := range persistAbs() {
			add(s, ClassPersistence)
		}
		// The workspace's own dot files that agents, editors and git run
		// (.git/hooks, .git/config, .envrc, .vscode/tasks.json…), and
		// the hooks and configs of the repositories git keeps inside
		// .git: cp x .gi?/hooks/pre-commit may write a hook. Only a
		// pattern that spells the leading dot reaches them (bash's * skips
		// dot files); the plain names (lefthook.yml, mise.toml) are left
		// out, so *.yml and rm -rf * keep their price.
		if c.hasWorkspace() {
			for _, r := range workspacePersist() {
				if strings.HasPrefix(r, ".") {
					add(path.Join(c.Workspace, r), ClassPersistence)
				}
			}
			for _, r := range []string{".git/modules/*/hooks", ".git/modules/*/config", ".git/worktrees/*/config.worktree"} {
				add(path.Join(c.Workspace, r), ClassPersistence)
			}
		}
	})
	return c.cands
}

func splitPath(p string) []string {
	p = strings.Trim(path.Clean(p), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// othersPersist are other users' start-up files (persistRel under each
// of otherHomes), the same for every context; worstCase matches them only
// against a pattern that may lie in another user's home.
var othersPersist = sync.OnceValue(func() []candidate {
	var out []candidate
	for _, r := range persistRel() {
		for _, h := range otherHomes {
			out = append(out, candidate{comps: splitPath(h + "/" + r), class: ClassPersistence})
		}
	}
	return out
})

// mayBeOtherHome reports whether a pattern may name a path in another
// user's home: its first component is unresolved or may be home, root
// or Users.
func mayBeOtherHome(pat []string) bool {
	if len(pat) == 0 {
		return false
	}
	for _, top := range []string{"home", "root", "Users"} {
		if pat[0] == "**" || componentMatch(pat[0], top) {
			return true
		}
	}
	return false
}

// candCache keeps the candidate lists per home and guard directories.
var candCache sync.Map

// anyParts marks an unresolved part of a word ($X, $(…)) in a pattern.
const anyParts = "\x00"

// anyDirs marks any directories, dot directories too, between a start
// and a name the word spells: the files find finds (find ~ -name
// .bashrc is ~/**/.bashrc). Matched as an unresolved part is: the
// location's own name must be spelled, so find . -name '*.o' is not
// taken for a file in .git/hooks.
const anyDirs = "\x01"

// anyDirsShown writes both markers as ** in what the user reads.
var anyDirsShown = strings.NewReplacer(anyParts, "**", anyDirs, "**")

var unresolvedPart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\$\\{[^}]*\\}|\\$\\([^)]*\\)|\\$[A-Za-z_][A-Za-z0-9_]*|\\$[0-9@*#?$!-]|`[^`]*`")
})

// worstCase classes a glob or a partly unresolved word by the worst
// location it could name. ok is false when it could name none of them,
// or when nothing in it is literal (a bare "$f" could be anything; reads
// of it stay A because the sandbox hides secrets).
func (b *builder) worstCase(f field, st *state) (string, Class, bool) {
	pat, ok := b.globPattern(f, st)
	if !ok {
		return "", "", false
	}
	fold, dot := st.globOpts()
	for _, cand := range b.ctx.candidates() {
		if couldNameUnder(pat, cand.comps, fold, dot) {
			return f.display(), cand.class, true
		}
	}
	if b.ctx.globShadows(pat, fold) {
		return f.display(), ClassPersistence, true
	}
	if mayBeOtherHome(pat) || fold && mayBeOtherHome(lowerAll(pat)) {
		for _, cand := range othersPersist() {
			if couldNameUnder(pat, cand.comps, fold, dot) {
				return f.display(), cand.class, true
			}
		}
	}
	return "", "", false
}

// globPattern is a glob or a partly unresolved word as the absolute
// path components it could name ("**" for an unresolved part); ok is
// false when nothing in it is literal.
func (b *builder) globPattern(f field, st *state) ([]string, bool) {
	if f.proc || b.ctx.Remote {
		return nil, false
	}
	v := f.val
	if !f.known {
		v = unresolvedPart().ReplaceAllString(v, anyParts)
	}
	if f.glob {
		v = extglobAsStar(v)
	}
	if !strings.HasPrefix(v, "/") {
		if st.cwd == "" || strings.HasPrefix(v, anyParts) {
			v = anyParts + "/" + v
		} else {
			v = st.cwd + "/" + v
		}
	}
	var pat []string
	literal := false
	for _, c := range strings.Split(v, "/") {
		switch {
		case c == "" || c == ".":
			continue
		case c == anyParts || c == anyDirs:
			pat = append(pat, "**")
		default:
			if strings.Contains(c, anyParts) {
				c = strings.ReplaceAll(c, anyParts, "*")
			}
			if strings.Trim(c, "*?") != "" {
				literal = true
			}
			pat = append(pat, bashBrackets(c))
		}
	}
	if !literal {
		return nil, false
	}
	// P under a process's root link (/proc/PID/root) is P, and P under
	// its cwd link is P under some directory, whatever process PID is.
	if len(pat) >= 3 && pat[0] == "proc" {
		switch pat[2] {
		case "root":
			pat = pat[3:]
		case "cwd":
			pat = append([]string{"**"}, pat[3:]...)
		}
	}
	return pat, true
}

// bashBrackets writes the bracket expressions of a glob component as
// path.Match reads them, or wider: bash's [!…] is [^…] (.[!.]* names
// .git), a ] first in the brackets is one of them, and a class path.Match
// does not know ([[:alpha:]], [[=a=]], [[.a.]]) matches any one
// character (.ss[[:alpha:]] names .ssh). A [ without its ] is itself.
func bashBrackets(c string) string {
	if !strings.Contains(c, "[") {
		return c
	}
	var sb strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' && i+1 < len(c) {
			sb.WriteString(c[i : i+2])
			i++
			continue
		}
		if c[i] != '[' {
			sb.WriteByte(c[i])
			continue
		}
		j := i + 1
		neg := j < len(c) && (c[j] == '!' || c[j] == '^')
		if neg {
			j++
		}
		start := j
		if j < len(c) && c[j] == ']' {
			j++ // a ] first is a member
		}
		posix := false
		for j < len(c) && c[j] != ']' {
			if c[j] == '[' && j+1 < len(c) && strings.IndexByte(":=.", c[j+1]) >= 0 {
				end := strings.Index(c[j+2:], string(c[j+1])+"]")
				if end < 0 {
					break
				}
				posix = true
				j += 2 + end + 2
				continue
			}
			j++
		}
		if j >= len(c) {
			sb.WriteString(`\[`) // no closing ]: a plain [
			continue
		}
		body := c[start:j]
		switch {
		case posix:
			sb.WriteByte('?')
		default:
			sb.WriteByte('[')
			if neg {
				sb.WriteByte('^')
			}
			if strings.HasPrefix(body, "]") {
				body = `\]` + body[1:]
			}
			sb.WriteString(body)
			sb.WriteByte(']')
		}
		i = j
	}
	return sb.String()
}

// globHolds is the class of what a glob deletes or moves with a
// directory it could name: a protected location or guard's own files
// below it (rm -rf .?it deletes .git/hooks, as rm -rf .git does;
// HeldClass for a path). "" when it could name no such directory.
func (b *builder) globHolds(f field, st *state) Class {
	pat, ok := b.globPattern(f, st)
	if !ok || slices.Contains(pat, "**") {
		return ""
	}
	fold, dot := st.globOpts()
	held := func(loc string) bool {
		comps := strings.Split(strings.Trim(loc, "/"), "/")
		return len(pat) < len(comps) && couldNameUnder(pat, comps[:len(pat)], fold, dot)
	}
	t := b.ctx.tables()
	for _, d := range []string{t.cfg, t.state} {
		if d != "" && held(d) {
			return ClassGuard
		}
	}
	for _, pr := range b.ctx.ProtectedLocations() {
		if held(pr) && !b.ctx.isCredentialShadow(pr) {
			return ClassPersistence
		}
	}
	return ""
}

// couldName reports whether some path that matches the pattern pat is
// the location loc or lies under it. "**" in pat is an unresolved part:
// any number of components, dot files included. A glob's "*" does not
// match a leading dot, as in bash.
func couldName(pat, loc []string) bool { return nameMatch(pat, loc, false) }

// nameMatch: lit says a part of the word (not an unresolved part) has
// matched the location's last component.
func nameMatch(pat, loc []string, lit bool) bool {
	if len(loc) == 0 {
		return lit
	}
	if len(pat) == 0 {
		return false
	}
	if pat[0] == "**" {
		return nameMatch(pat[1:], loc, lit) || nameMatch(pat, loc[1:], lit)
	}

	if loc[0] == "**" {
		// A location under any directory (**/site-packages/*.pth):
		// any number of the word's components lead to it.
		return nameMatch(pat, loc[1:], lit) || nameMatch(pat[1:], loc, lit)
	}
	if !componentMatch(pat[0], loc[0]) {
		return false
	}
	// The location's own name must be spelled by the word (a literal or a
	// glob), not only reached through an unresolved part: ~/$X/config is
	// not taken for ~/.kube/config, but $D/.ssh/id_rsa is ~/.ssh.
	return nameMatch(pat[1:], loc[1:], lit || len(loc) == 1)
}

func componentMatch(p, l string) bool {
	if l == "*" {
		return true
	}
	if strings.ContainsAny(l, "*?[") {
		// A location given as a name pattern (*.pth).
		if m, _ := path.Match(l, p); m {
			return true
		}
	}
	if strings.HasPrefix(l, ".") && !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "*") && p != l {
		return false
	}
	if strings.HasPrefix(l, ".") && strings.HasPrefix(p, "*") && !strings.Contains(p, anyParts) {
		// A glob's leading * skips dot files.
		return false
	}
	m, _ := path.Match(p, l)
	return m
}

// dataArgs are programs whose operands are text, not files they open.
var dataArgs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "which": true, "type": true, "whereis": true, "man": true, "help": true,
		"apt-cache": true, "basename": true, "dirname": true, "test": true, "[": true, "true": true, "false": true,
		":": true, "command": true, "hash": true, "alias": true, "unalias": true, "read": true, "set": true,
		"unset": true, "shift": true, "return": true, "exit": true, "getopts": true, "expr": true, "seq": true,
		"date": true, "sleep": true, "kill": true, "pkill": true, "pgrep": true, "trap": true,
		"cd": true, "pushd": true, "popd": true,
	}
})

// messageFlags take text (a message, a pattern, a format), not a file.
var messageFlags = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-m": true, "--message": true, "--grep": true, "--format": true, "--pretty": true, "--author": true,
		"--title": true, "--body": true, "--description": true, "--comment": true, "-e": true, "--regexp": true,
		"--subject": true, "--match": true, "--pattern": true, "--include": true, "--exclude": true, "--glob": true,
		"-g": true, "--iglob": true, "-name": true, "-iname": true, "-path": true, "-regex": true, "--label": true,
	}
})

// fileOperands: any operand or option value of any program that names a
// secret or guard's own files is a read of it (gzip -c, sqlite3, git diff
// --no-index, python3 -m json.tool, gh gist create, wget --post-file,
// curl file://…). Effects the program's rows already gave are not
// repeated.
func (b *builder) fileOperands(c *call) { b.fileArgs(c, true) }

// fileArgs checks option values, and operands when ops is set (a tool's
// global options, before its subcommand, are checked with ops unset).
func (b *builder) fileArgs(c *call, ops bool) {
	if dataArgs()[c.prog] || b.ctx.Remote {
		return
	}
	check := func(f field) {
		if f.proc {
			return
		}
		v := f.val
		if f.known {
			v = strings.TrimPrefix(v, "@")
			if i := strings.Index(v, "file://"); i >= 0 {
				v = v[i+len("file://"):]
			} else if i := strings.IndexByte(v, '='); i > 0 && strings.HasPrefix(v[i+1:], "@") {
				v = v[i+2:]
			} else if i := strings.IndexByte(v, '@'); i > 0 && !strings.ContainsAny(v[:i], "/:=") && strings.HasPrefix(v[i+1:], "/") {
				// httpie's and xh's form file field: name@/path.
				v = v[i+1:]
			}
		}
		if v == "" || f.known && !f.glob && !strings.HasPrefix(v, "/") && !strings.Contains(v, "..") && b.plainInWorkspace(c.st) {
			// A plain relative name in the workspace is not a secret
			// location (reads of workspace files are classed by the rows).
			return
		}
		g := f
		g.val = v
		t, cl := b.classify(g, c.st)
		if cl != ClassSecret && cl != ClassGuard {
			return
		}
		for i := len(b.prof.Effects) - 1; i >= 0; i-- {
			e := b.prof.Effects[i]
			if e.Target == t && e.Class == cl {
				return
			}
			if e.Cap == CapQuery && e.Program == c.prog && e.Target != "" && paths.Within(t, e.Target) {
				return // the client's own credential, granted read-only for its query
			}
		}
		b.add(Effect{Cap: CapRead, Rule: "secrets.file-operand", Program: c.prog, Target: t, Class: cl, Msg: "opens " + describeTarget(t, cl)}, c.sp)
	}
	if ops {
		for _, f := range c.a.ops {
			check(f)
		}
	}
	for _, name := range c.a.order {
		if messageFlags()[name] {
			continue
		}
		for _, f := range c.a.flags[name] {
			if f.end > 0 && (f.known && f.val != "" || !f.known) {
				check(f)
			}
		}
	}
}

// hSftp: the batch file (-b FILE) is read; its commands (and those on
// stdin) are reviewed as transfer commands (stdinlang.go, ftpcmds.go).
func hSftp(b *builder, c *call) stream {
	b.sshOptions(c)
	for _, f := range c.a.values("-b") {
		if f.known && f.val != "-" {
			b.pathEffect(CapRead, "net.send-file", "sftp", f, c.st, c.sp, "reads the batch")
		}
	}
	return stream{kind: streamNetwork}
}

// secretsTable: token printers and secret stores.
func secretsTable() map[string]*spec {
	token := func(msg string) *spec { return whole("secrets.token-print", CapSecrets, msg) }
	// Secret managers' runners put secrets in the environment of the
	// command they run, which can print or send them: C, and the command
	// is reviewed too (after their options, or after --).
	inject := func(name string, skip int) *spec {
		return &spec{posix: true, fn: wrap(skip), rows: []row{{"secrets.inject", CapSecrets, "", "", "runs a command with secrets from " + name + " in its environment, where it can read them"}}}
	}
	return map[string]*spec{
		"doppler":                subs(unknownSub("doppler"), map[string]*spec{"run": inject("Doppler", 0), "secrets": token("prints secrets from Doppler")}),
		"infisical":              subs(unknownSub("infisical"), map[string]*spec{"run": inject("Infisical", 0), "secrets": token("prints secrets from Infisical"), "export": token("prints secrets from Infisical")}),
		"aws-vault":              subs(unknownSub("aws-vault"), map[string]*spec{"exec": inject("aws-vault", 1), "export": token("prints AWS credentials"), "login": token("opens the AWS console with your credentials"), "list": plain(), "ls": plain()}),
		"chamber":                subs(unknownSub("chamber"), map[string]*spec{"exec": inject("chamber", 1), "read": token("prints a secret"), "export": token("prints secrets"), "env": token("prints secrets"), "list": plain()}),
		"teller":                 subs(unknownSub("teller"), map[string]*spec{"run": inject("teller", 0), "show": token("prints secrets"), "env": token("prints secrets"), "export": token("prints secrets")}),
		"envchain":               inject("envchain", 1),
		"summon":                 inject("summon", 0),
		"berglas":                subs(unknownSub("berglas"), map[string]*spec{"exec": inject("berglas", 0), "access": token("prints a secret")}),
		"bw":                     {rows: []row{{"secrets.store", CapSecrets, "op0~^(get|list|export|unlock|login|serve|send)$", "", "reads or exports secrets from Bitwarden"}}},
		"lpass":                  {rows: []row{{"secrets.store", CapSecrets, "op0~^(show|export|ls|login)$", "", "reads secrets from LastPass"}}},
		"gopass":                 {rows: []row{{"secrets.store", CapSecrets, "op0~^(show|cat|ls|list|find|otp|clone|insert|edit|generate|rm)$|^[^-]", "", "reads or changes secrets in gopass"}}},
		"keyring":                {rows: []row{{"secrets.keyring", CapSecrets, "op0~^(get|set|del)$", "", "reads or changes passwords in the keyring"}}},
		"kwallet-query":          token("reads passwords from KWallet"),
		"docker-credential-pass": token("prints registry credentials"), "docker-credential-secretservice": token("prints registry credentials"),
		"docker-credential-osxkeychain": token("prints registry credentials"), "docker-credential-desktop": token("prints registry credentials"),
		"docker-credential-ecr-login": token("prints registry credentials"), "docker-credential-gcloud": token("prints registry credentials"),
		"git-credential-store": token("prints stored git credentials"), "git-credential-cache": token("prints cached git credentials"),
		"getent": {rows: []row{{"secrets.shadow", CapSecrets, "op0~^g?shadow$", "", "prints password hashes (the shadow database)"}}},
		"sftp":   {val: "-b -P -i -o -F -J -l -c -S -B -D -R -s", fn: hSftp, rows: []row{{"net.upload", CapSend, "", "", "transfers files with another machine (sftp)"}, {"net.ssh-key", CapRead, "", "-i", "uses the key"}}},
	}
}

// tokenRows are rows added to existing cloud clients: commands that print
// an access token.
var tokenRows = sync.OnceValue(func() map[string][]row {
	return map[string][]row{
		"gcloud": {{"secrets.token-print", CapSecrets, "any~^(print-access-token|print-identity-token|print-refresh-token|config-helper)$", "", "prints a Google Cloud access token"},
			{"cloud.secrets", CapSecrets, "op0~^secrets$ any~^access$", "", "prints a secret from Google Secret Manager"},
			// Who can access the cloud's resources, and credentials made
			// for it: account settings (C), as npm owner add is.
			{"cloud.access", CapPublish, "any~^(add-iam-policy-binding|set-iam-policy|remove-iam-policy-binding)$", "", "changes who can access Google Cloud resources"},
			{"cloud.access", CapPublish, "op0~^iam$ any~^keys$ any~^(create|upload)$", "", "creates a credential for a Google Cloud service account"},
			{"cloud.delete", CapPublish, "any~^(rm|rb|remove|purge)$", "", "deletes Google Cloud resources, which cannot be undone"}},
		"az": {{"secrets.token-print", CapSecrets, "any~^get-access-token$|^--expose-token$", "", "prints an Azure access token"},
			{"cloud.secrets", CapSecrets, "op0~^keyvault$ op1~^secret$ any~^(show|download|backup)$", "", "prints a secret from Azure Key Vault"},
			{"cloud.access", CapPublish, "op0~^role$ op1~^assignment$ any~^(create|delete|update)$", "", "changes who can access Azure resources"},
			{"cloud.access", CapPublish, "op0~^ad$ any~^(credential|create-for-rbac|owner)$", "", "creates or resets an Azure credential, or changes its owners"},
			{"cloud.access", CapPublish, "op0~^keyvault$ any~^set-policy$", "", "changes who can read an Azure key vault"},
			{"cloud.delete", CapPublish, "any~^(delete-batch|remove)$", "", "deletes Azure resources, which cannot be undone"}},
		"aws": {{"secrets.token-print", CapSecrets, "any~^(export-credentials|get-authorization-token|get-login-password|get-session-token|assume-role)$", "", "prints AWS credentials"},
			{"cloud.access", CapPublish, "any~^(create-access-key|create-login-profile|update-login-profile|attach-(user|group|role)-policy|put-(user|group|role)-policy|add-user-to-group|update-assume-role-policy|create-policy-version|set-default-policy-version|create-service-specific-credential|upload-ssh-public-key|put-bucket-policy|put-bucket-acl|put-object-acl|delete-public-access-block|put-public-access-block|modify-image-attribute|modify-snapshot-attribute|authorize-security-group-ingress|put-key-policy|create-grant|add-permission|put-resource-policy)$", "", "changes who can access AWS resources, or creates a credential"}},
		"kubectl": {{"k8s.access", CapPublish, "op0~^create$ op1~^(clusterrolebinding|rolebinding|clusterrole|role)$", "", "changes who can do what in the Kubernetes cluster"},
			{"secrets.token-print", CapSecrets, "op0~^create$ op1~^token$", "", "prints a new Kubernetes service-account token"}},
		"ps": {{"secrets.proc-environ", CapSecrets, "op~^[a-zA-Z]*e[a-zA-Z]*$", "", "prints the environment of every process (ps e), which holds other programs' secrets"}},
		// Cloud secret stores read by the cloud's own CLI (aws's is in its
		// table), a forge CLI's token, and the outputs and state of
		// infrastructure tools, which hold its passwords in plain text.
		"glab":      {{"gh.token", CapSecrets, "any~^(-t|--show-token)$", "", "prints your GitLab token"}},
		"terraform": {{"secrets.token-print", CapSecrets, "op0~^output$ -json|-raw", "", "prints the infrastructure's outputs, sensitive ones included"}},
		"tofu":      {{"secrets.token-print", CapSecrets, "op0~^output$ -json|-raw", "", "prints the infrastructure's outputs, sensitive ones included"}},
		"heroku":    {{"secrets.token-print", CapSecrets, "op0~^config(:get)?$", "", "prints the app's config vars, which hold its secrets"}},
	}
})

// plainInWorkspace reports whether the cwd is known and inside the
// workspace, where a relative name without ".." stays in the workspace.
func (b *builder) plainInWorkspace(st *state) bool {
	return st.cwd != "" && b.ctx.hasWorkspace() && paths.Within(st.cwd, b.ctx.Workspace) && len(st.links) == 0
}

// otherHomeRel is p relative to the other user's home it lies in.
func otherHomeRel(p string) (string, bool) {
	for _, h := range otherHomes {
		dir, any := strings.CutSuffix(h, "/*")
		rest, ok := strings.CutPrefix(p, dir+"/")
		if !ok {
			continue
		}
		if !any {
			return rest, true
		}
		_, rel, ok := strings.Cut(rest, "/")
		return rel, ok
	}
	return "", false
}
