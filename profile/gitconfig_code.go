package profile

import (
	"regexp"
	"strings"
	"sync"
)

// gitRunKeys are the git configuration keys whose value git runs as a
// command, or loads as more configuration, when it reads a repository's
// own config: what a repository's config must not hold unless its owner
// put it there (a fresh clone's config holds none of them). Narrower
// than gitProgramKeys, which prices setting a key on a command line
// (where url.* and remote.*.url matter too). Patterns are regular
// expressions over the lower-cased key; aliases count only with "!".
var gitRunKeys = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(` + strings.Join([]string{
		`core\.(fsmonitor|hookspath|pager|editor|sshcommand|gitproxy|askpass|alternaterefscommand|worktree)`,
		`sequence\.editor`, `diff\.external`, `diff\..*\.(textconv|command)`, `merge\..*\.driver`,
		`filter\..*\.(clean|smudge|process)`, `credential\.helper`, `credential\..*\.helper`,
		`include\.path`, `includeif\..*\.path`, `gpg\.program`, `gpg\..*\.program`, `pager\..*`,
		`interactive\.difffilter`, `uploadpack\.packobjectshook`, `remote\..*\.(uploadpack|receivepack|vcs)`,
		`hook\..*\.command`, `web\.browser`, `browser\..*\.(cmd|path)`, `man\..*\.(cmd|path)`,
		`sendemail\.(sendmailcmd|tocmd|cccmd|headercmd)`, `submodule\..*\.update`, `protocol\.ext\.allow`,
	}, "|") + `)$`)
})

// GitConfigRunsCode reports whether key = value in a repository's own
// config makes git run a command (core.fsmonitor=true is git's own
// daemon, and an alias without "!" is a git command).
func GitConfigRunsCode(key, value string) bool {
	k := strings.ToLower(key)
	switch {
	case strings.HasPrefix(k, "alias."):
		return strings.HasPrefix(strings.TrimSpace(value), "!")
	case k == "core.fsmonitor":
		v := strings.ToLower(strings.TrimSpace(value))
		return v != "" && v != "true" && v != "false" && v != "0" && v != "1" && v != "yes" && v != "no" && v != "on" && v != "off"
	case k == "submodule.update" || strings.HasSuffix(k, ".update") && strings.HasPrefix(k, "submodule."):
		return strings.HasPrefix(strings.TrimSpace(value), "!")
	case k == "protocol.ext.allow":
		return strings.ToLower(strings.TrimSpace(value)) == "always"
	}
	return gitRunKeys().MatchString(k)
}
