package profile

import (
	"regexp"
	"strings"
	"sync"
)

// extglobGroup is one of bash's extended patterns: ?(…), *(…), +(…),
// @(…) or !(…), innermost first.
var extglobGroup = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[?*+@!]\(([^()/]*)\)`)
})

// extglobAsStar widens each extended pattern in a glob to what it could
// match, for principle 10: ~/.@(ssh)/id_* could name ~/.ssh/id_*, so it
// counts as naming it. A group becomes *, or .* when one of its
// alternatives spells a leading dot (a group that does not cannot match a
// dot file, as bash's * cannot).
func extglobAsStar(v string) string {
	re := extglobGroup()
	for range 16 {
		next := re.ReplaceAllStringFunc(v, func(g string) string {
			for _, alt := range strings.Split(g[2:len(g)-1], "|") {
				if strings.HasPrefix(alt, ".") {
					return ".*"
				}
			}
			return "*"
		})
		if next == v {
			break
		}
		v = next
	}
	return v
}
