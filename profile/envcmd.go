package profile

import (
	"strings"
	"sync"
)

// envOptionCommands are variables whose value a program applies as if it
// were on its command line: options (TAR_OPTIONS, MANOPT, LESS) or editor
// commands run at start (VIMINIT, EXINIT). A static value is reviewed as
// that command line, so what the options run is priced as on the command
// line (TAR_OPTIONS='--to-command=CMD' is tar --to-command=CMD); the
// variable's table row keeps the line at least B whatever the value.
// Each entry is the text before the value and the text after it. Built
// on first use (TestInitBudget).
var envOptionCommands = sync.OnceValue(func() map[string][2]string {
	return map[string][2]string{
		"TAR_OPTIONS": {"tar ", " -xf /dev/null"},
		"MANOPT":      {"man ", " ls"},
		"LESS":        {"less ", " /dev/null"},
		"VIMINIT":     {"vim -c ", " /dev/null"},
		"EXINIT":      {"ex -c ", " /dev/null"},
		// fzf's default options: --bind actions run commands.
		"FZF_DEFAULT_OPTS": {"fzf ", ""},
	}
})

// envOptionCommand reviews a static value of an envOptionCommands
// variable as the command line it amounts to. Editor commands are one
// argument (quoted); options are split as the programs split them, on
// blanks with shell-like quotes, so the value is spliced in as shell text.
func (b *builder) envOptionCommand(name string, val *string, st *state, at span) {
	parts, ok := envOptionCommands()[name]
	if !ok || val == nil || strings.TrimSpace(*val) == "" {
		return
	}
	v := *val
	if strings.HasSuffix(parts[0], "-c ") {
		v = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	b.text(parts[0]+v+parts[1], st.clone(), stream{}, name, at)
}
