package sandbox

import (
	"path"
	"slices"
	"strings"
)

// secretEnv are glob patterns (matched against the upper-cased name) of
// environment variables that are not passed to the child unless kept.
// SSH_AUTH_SOCK is a capability rather than a secret: with it a command
// could sign in as you through your agent.
var secretEnv = []string{
	"*_TOKEN",
	"*_TOKENS",
	"*_SECRET",
	"*_SECRETS",
	"*_KEY",
	"*_KEYS",
	"*_API_KEY",
	"*PASSWORD*",
	"*PASSWD*",
	"*_CREDENTIALS",
	"AWS_*",
	"GH_TOKEN",
	"GITHUB_TOKEN",
	"SSH_AUTH_SOCK",
}

// filterEnv drops secret-looking variables (unless named in keep) and
// guard's own helper marker. It returns the kept entries in order and
// the sorted names dropped.
func filterEnv(env, keep []string) (kept, dropped []string) {
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if name == helperEnv {
			continue
		}
		if secretName(name) && !slices.Contains(keep, name) {
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

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, pat := range secretEnv {
		if ok, _ := path.Match(pat, up); ok {
			return true
		}
	}
	return false
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

// lookEnv returns the last value of name in env.
func lookEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if n, v, _ := strings.Cut(env[i], "="); n == name {
			return v, true
		}
	}
	return "", false
}
