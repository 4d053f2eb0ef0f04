package sandbox

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/sandbox/confine"
)

// envRule is one row of the environment table: variables whose
// upper-cased name matches Pattern (a path.Match glob) are not passed to
// the command unless kept (Spec.KeepEnv).
type envRule struct {
	Pattern string
	// Socket: the value names a socket that reaches code outside the
	// sandbox (pathname unix sockets are not confined before Landlock
	// ABI 9). Dropped whatever the value.
	Socket bool
	// Code: the variable makes the shell, the loader or git run code
	// the review never saw. Dropped whatever the value.
	Code bool
	// File: the value names a file that holds a credential. Passed on
	// (the path is not the secret); the file is hidden (secretFiles).
	File bool
	// Dir: the value names a directory of credentials (a File row too).
	// Hidden whole, or only the files Inside it when listed (the rest is
	// a tool's ordinary state).
	Dir    bool
	Inside []string
	// For is the credential location in the home directory the variable
	// stands in for (KUBECONFIG for ~/.kube): a run whose review revealed
	// that location to a known client reveals what the variable names.
	For string
	// Why, for the table's reader.
	Why string
}

// envRules is the table of variables the sandbox does not pass on.
// A secret-named variable whose value is a plain path (AWS_CA_BUNDLE,
// GOOGLE_APPLICATION_CREDENTIALS) is passed: the path is not the secret,
// and the file it names is hidden or not on its own.
var envRules = []envRule{
	{Pattern: "*_TOKEN", Why: "tokens"},
	{Pattern: "*_TOKENS"},
	{Pattern: "*TOKEN_*"},
	{Pattern: "*_SECRET", Why: "secrets"},
	{Pattern: "*_SECRETS"},
	{Pattern: "*SECRET_*"},
	{Pattern: "*_KEY", Why: "keys"},
	{Pattern: "*_KEYS"},
	{Pattern: "*_API_KEY*"},
	{Pattern: "*ACCESS_KEY*", Why: "AWS_ACCESS_KEY_ID and kin"},
	{Pattern: "*PRIVATE_KEY*"},
	{Pattern: "*PASSWORD*", Why: "passwords"},
	{Pattern: "*PASSWD*"},
	{Pattern: "*_PWD", Why: "passwords (not PWD, OLDPWD)"},
	{Pattern: "*_PASS"},
	{Pattern: "*PASSPHRASE*"},
	{Pattern: "*_CREDENTIALS"},
	{Pattern: "*_CREDENTIAL"},
	{Pattern: "*_PAT", Why: "personal access tokens"},
	{Pattern: "*_JWT"},
	{Pattern: "*_AUTH", Why: "auth values (not *_AUTHOR*)"},
	{Pattern: "*_AUTH_*"},
	{Pattern: "*AUTHTOKEN*"},
	{Pattern: "*AUTHORIZATION*"},
	{Pattern: "*COOKIE*"},
	{Pattern: "*SESSION_TOKEN*"},
	{Pattern: "*CONNECTION_STRING*", Why: "database and queue connection strings"},
	{Pattern: "*WEBHOOK*", Why: "webhook URLs carry their secret"},
	{Pattern: "DATABASE_URL"},
	{Pattern: "*_DSN", Why: "Sentry and database DSNs hold keys"},
	// Files that hold credentials, named by the environment wherever
	// they are (GOOGLE_APPLICATION_CREDENTIALS, above, is one too).
	{Pattern: "*CREDENTIALS_FILE", File: true, Why: "AWS_SHARED_CREDENTIALS_FILE and kin"},
	{Pattern: "*CREDENTIALS_PATH", File: true},
	{Pattern: "*_KEY_FILE", File: true, Why: "TLS and signing keys"},
	{Pattern: "*_KEY_PATH", File: true},
	{Pattern: "*_KEYFILE", File: true},
	{Pattern: "*_TOKEN_FILE", File: true, Why: "AWS_WEB_IDENTITY_TOKEN_FILE, service account tokens"},
	{Pattern: "*_SECRET_FILE", File: true},
	{Pattern: "*PASSFILE", File: true, Why: "PGPASSFILE"},
	{Pattern: "*_PASS_FILE", File: true},
	{Pattern: "KUBECONFIG", File: true, For: ".kube", Why: "cluster credentials, a list of files"},
	{Pattern: "NETRC", File: true, For: ".netrc", Why: "passwords for hosts"},
	// The tools' own variables for their credential files and
	// directories, with the home location each stands in for.
	{Pattern: "GOOGLE_APPLICATION_CREDENTIALS", File: true, For: ".config/gcloud"},
	{Pattern: "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", File: true, For: ".config/gcloud"},
	{Pattern: "CLOUDSDK_CONFIG", File: true, Dir: true, For: ".config/gcloud", Why: "gcloud's directory: credentials.db, access tokens"},
	{Pattern: "AWS_SHARED_CREDENTIALS_FILE", File: true, For: ".aws"},
	{Pattern: "AWS_CONFIG_FILE", File: true, For: ".aws", Why: "keys and credential_process may be there too"},
	{Pattern: "AZURE_CONFIG_DIR", File: true, Dir: true, For: ".azure", Why: "az's tokens"},
	{Pattern: "AZURE_AUTH_LOCATION", File: true, For: ".azure"},
	{Pattern: "OCI_CLI_CONFIG_FILE", File: true, For: ".oci"},
	{Pattern: "DOCKER_CONFIG", File: true, Dir: true, Inside: []string{"config.json"}, For: ".docker", Why: "registry logins in config.json"},
	{Pattern: "DOCKER_CERT_PATH", File: true, Dir: true, Inside: []string{"key.pem"}, For: ".docker", Why: "the daemon's client key"},
	{Pattern: "REGISTRY_AUTH_FILE", File: true, Why: "podman, buildah and skopeo logins"},
	{Pattern: "GNUPGHOME", File: true, Dir: true, For: ".gnupg", Why: "private keys"},
	{Pattern: "CARGO_HOME", File: true, Dir: true, Inside: []string{"credentials.toml", "credentials"}, For: ".cargo", Why: "crates.io tokens (the rest is cargo's registry cache)"},
	{Pattern: "NPM_CONFIG_USERCONFIG", File: true, For: ".npmrc", Why: "registry tokens"},
	{Pattern: "TF_CLI_CONFIG_FILE", File: true, For: ".terraform.d", Why: "Terraform's credentials blocks"},
	{Pattern: "TERRAFORM_CONFIG", File: true, For: ".terraform.d"},
	{Pattern: "BOTO_CONFIG", File: true, For: ".boto", Why: "gsutil and boto keys"},
	{Pattern: "RCLONE_CONFIG", File: true, For: ".config/rclone", Why: "every remote's credentials"},
	{Pattern: "HELM_REGISTRY_CONFIG", File: true, Why: "OCI registry logins"},
	{Pattern: "PGSERVICEFILE", File: true, Why: "passwords of PostgreSQL services"},
	{Pattern: "PGSSLKEY", File: true, Why: "PostgreSQL client key"},
	{Pattern: "MYSQL_TEST_LOGIN_FILE", File: true, Why: "MySQL's obfuscated .mylogin.cnf"},
	{Pattern: "TALOSCONFIG", File: true, Why: "cluster credentials"},
	{Pattern: "GH_TOKEN"},
	{Pattern: "GITHUB_TOKEN"},
	{Pattern: "SSH_AUTH_SOCK", Socket: true, Why: "ssh-agent: sign in as you"},
	{Pattern: "GPG_AGENT_INFO", Socket: true},
	{Pattern: "TMUX", Socket: true, Why: "tmux server: type into your other panes"},
	{Pattern: "STY", Socket: true, Why: "screen session"},
	{Pattern: "DISPLAY", Socket: true, Why: "X11: read and send keystrokes"},
	{Pattern: "XAUTHORITY", Socket: true},
	{Pattern: "WAYLAND_DISPLAY", Socket: true},
	{Pattern: "DBUS_SESSION_BUS_ADDRESS", Socket: true, Why: "session bus: start programs outside the sandbox"},
	// Code the review never saw: the command line is what was reviewed,
	// and these make the shell, the loader or git run something else
	// (BASH_ENV=/tmp/x.sh guard -- bash -c ls ran x.sh).
	{Pattern: "BASH_ENV", Code: true, Why: "a file every bash script runs first"},
	{Pattern: "ENV", Code: true, Why: "a file sh runs first"},
	{Pattern: "BASH_FUNC_*", Code: true, Why: "exported functions: any command name can be redefined"},
	{Pattern: "SHELLOPTS", Code: true, Why: "xtrace with PS4 runs substitutions"},
	{Pattern: "BASHOPTS", Code: true},
	{Pattern: "PS4", Code: true},
	{Pattern: "PROMPT_COMMAND", Code: true},
	{Pattern: "LD_PRELOAD", Code: true, Why: "code loaded into every program"},
	{Pattern: "LD_AUDIT", Code: true},
	{Pattern: "GIT_CONFIG_PARAMETERS", Code: true, Why: "git configuration (core.fsmonitor, aliases) the line does not show"},
	{Pattern: "GIT_CONFIG_COUNT", Code: true},
	{Pattern: "GIT_CONFIG_KEY_*", Code: true},
	{Pattern: "GIT_CONFIG_VALUE_*", Code: true},
}

// secretValue matches values shaped like well-known credentials
// wherever they appear, whatever the variable is called.
var secretValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`\bgh[opusr]_[A-Za-z0-9]{20,}`, // GitHub tokens
		`\bgithub_pat_[A-Za-z0-9_]{20,}`,
		`\bglpat-[A-Za-z0-9_-]{20,}`,      // GitLab
		`\bxox[abposr]-[A-Za-z0-9-]{10,}`, // Slack
		`\b(AKIA|ASIA)[0-9A-Z]{16}\b`,     // AWS access key ids
		`\bsk-[A-Za-z0-9_-]{20,}`,         // OpenAI, Anthropic (sk-ant-…)
		`\b[sr]k_(live|test)_[A-Za-z0-9]{16,}`,
		`\bnpm_[A-Za-z0-9]{30,}`,
		`\bpypi-[A-Za-z0-9_-]{30,}`,
		`\bAIza[0-9A-Za-z_-]{35}`,                        // Google API keys
		`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.`, // JWTs
		`-----BEGIN [A-Z ]*PRIVATE KEY-----`,
		`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`, // URL with user:password@
	}, "|"))
})

// filterEnv drops secret-looking variables and those naming sockets
// outside the sandbox (unless named in keep), and guard's own helper
// marker. It returns the kept entries in order and the sorted names
// dropped.
func filterEnv(env, keep []string) (kept, dropped []string) {
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if name == confine.Env {
			continue
		}
		if dropEnv(name, value) && !slices.Contains(keep, name) {
			if !slices.Contains(dropped, name) {
				dropped = append(dropped, name)
			}
			continue
		}
		kept = append(kept, kv)
	}
	slices.Sort(dropped)
	return kept, dropped
}

// dropEnv reports whether name=value must not reach the command.
func dropEnv(name, value string) bool {
	up := strings.ToUpper(name)
	secret := false
	for _, m := range envMatchers() {
		if m.match(up) {
			if m.rule.Socket || m.rule.Code {
				return true
			}
			secret = secret || !m.rule.File
		}
	}
	if secret {
		return !plainPath(value)
	}
	if f, ok := codeFlags[up]; ok && loadsCode(value, f) {
		return true
	}
	return secretShaped(value)
}

// envFile is a credential file (or directory) the environment names.
type envFile struct {
	Path string
	// Dir: a directory of credentials, hidden whole or only the files
	// Inside it.
	Dir    bool
	Inside []string
	// For are the home locations its variable stands in for.
	For []string
}

// secretFiles returns the files env names as credentials by path: the
// value of a variable with a secret's name (GOOGLE_APPLICATION_
// CREDENTIALS=/keys/sa.json) or of a File row (KUBECONFIG=a:b, lists
// split at colons). A value the tools take relative to where they run
// (keys/sa.json) is joined to dir, one that starts with ~ to home (the
// tools expand either). The variable reaches the command (when its
// value is a plain absolute path); the file is hidden (validate), so a
// command that finds the key through its environment finds nothing to
// read.
func secretFiles(env []string, dir, home string) []envFile {
	var out []envFile
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		named := false
		var f envFile
		for _, m := range envMatchers() {
			if m.match(up) && !m.rule.Socket && !m.rule.Code {
				named = true
				f.Dir = f.Dir || m.rule.Dir
				f.Inside = append(f.Inside, m.rule.Inside...)
				if m.rule.For != "" {
					f.For = append(f.For, filepath.Join(home, m.rule.For))
				}
			}
		}
		if !named {
			continue
		}
		for _, p := range strings.Split(value, ":") {
			if p = filePath(p, dir, home); p != "" && !slices.ContainsFunc(out, func(o envFile) bool { return o.Path == p }) {
				f.Path = p
				out = append(out, f)
			}
		}
	}
	return out
}

// filePath is the absolute path a variable's value v names, as the
// tools read it: ~ and ~/… in home, a relative path in dir. "" when v
// is not a path (empty, a URL, spaces, a credential's shape).
func filePath(v, dir, home string) string {
	switch {
	case !pathText(v):
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		return filepath.Join(home, v[1:])
	case strings.HasPrefix(v, "/"):
		return filepath.Clean(v)
	}
	return filepath.Join(dir, v)
}

// codeFlags are the interpreters' option variables and the options in
// them that load code (NODE_OPTIONS=--require /tmp/x.js runs x.js in
// every node the command starts). The variables themselves are common
// (--max-old-space-size, -Xmx): only a value that loads code is dropped.
var codeFlags = map[string][]string{
	"NODE_OPTIONS":      {"-r", "--require", "--import", "--loader", "--experimental-loader", "--experimental-specifier-resolution"},
	"PERL5OPT":          {"-M", "-m", "-d"},
	"RUBYOPT":           {"-r", "--require"},
	"JAVA_TOOL_OPTIONS": {"-javaagent", "-agentpath", "-agentlib", "-Xbootclasspath"},
	"_JAVA_OPTIONS":     {"-javaagent", "-agentpath", "-agentlib", "-Xbootclasspath"},
	"JDK_JAVA_OPTIONS":  {"-javaagent", "-agentpath", "-agentlib", "-Xbootclasspath"},
}

// loadsCode reports whether an option variable's value holds one of the
// code-loading options, alone, attached (-rfoo, -Mfoo) or with = or :.
func loadsCode(value string, flags []string) bool {
	for _, w := range strings.Fields(value) {
		w = strings.Trim(w, `"'`)
		for _, f := range flags {
			if strings.HasPrefix(w, f) {
				return true
			}
		}
	}
	return false
}

// globMatch is path.Match for the table's patterns, with the shapes
// they take (NAME, *SUFFIX, PREFIX*, *PART*) matched without it.
func globMatch(pattern, name string) bool { return compileGlob(pattern).match(name) }

// Shapes of a compiled pattern.
const (
	globExact = iota
	globSuffix
	globPrefix
	globPart
	globOther // path.Match
)

// glob is a pattern of the table compiled to its shape: the table is
// matched against every variable of every run, so the shape is worked
// out once, not for each variable.
type glob struct {
	pattern string
	shape   int
	inner   string // the pattern without its leading and trailing *
	rule    *envRule
}

func compileGlob(pattern string) glob {
	g := glob{pattern: pattern, inner: strings.Trim(pattern, "*")}
	lead, trail := strings.HasPrefix(pattern, "*"), strings.HasSuffix(pattern, "*") && len(pattern) > 1
	switch {
	case strings.ContainsAny(g.inner, "*?[\\"):
		g.shape = globOther
	case lead && trail:
		g.shape = globPart
	case lead:
		g.shape = globSuffix
	case trail:
		g.shape = globPrefix
	default:
		g.shape = globExact
	}
	return g
}

func (g glob) match(name string) bool {
	switch g.shape {
	case globPart:
		return strings.Contains(name, g.inner)
	case globSuffix:
		return strings.HasSuffix(name, g.inner)
	case globPrefix:
		return strings.HasPrefix(name, g.inner)
	case globExact:
		return name == g.pattern
	}
	ok, _ := path.Match(g.pattern, name)
	return ok
}

// envMatchers are envRules compiled, in the table's order.
var envMatchers = sync.OnceValue(func() []glob {
	out := make([]glob, len(envRules))
	for i := range envRules {
		out[i] = compileGlob(envRules[i].Pattern)
		out[i].rule = &envRules[i]
	}
	return out
})

// secretMarks are literals one of which every secretValue match holds:
// most values hold none, and are not given to the regexp.
var secretMarks = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "AKIA", "ASIA", "sk-", "k_live_", "k_test_",
	"npm_", "pypi-", "AIza", "eyJ", "PRIVATE KEY", "://"}

// secretShaped reports whether a value looks like a known credential.
func secretShaped(v string) bool {
	for _, m := range secretMarks {
		if strings.Contains(v, m) {
			return secretValue().MatchString(v)
		}
	}
	return false
}

// plainPath reports whether a value is an absolute path and nothing
// else (pathText).
func plainPath(v string) bool { return strings.HasPrefix(v, "/") && pathText(v) }

// pathText reports whether a value can be a path and nothing else: not
// empty, no spaces, no @, no scheme, no credential's shape.
func pathText(v string) bool {
	return v != "" && !strings.ContainsAny(v, " \t\n@") && !strings.Contains(v, "://") && !secretShaped(v)
}

// envValue is name's value in env ("" when unset).
func envValue(env []string, name string) string {
	for _, kv := range env {
		if n, v, _ := strings.Cut(kv, "="); n == name {
			return v
		}
	}
	return ""
}

// setEnv replaces or adds name=value.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if n, _, _ := strings.Cut(kv, "="); n != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
