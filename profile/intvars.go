package profile

import "sync"

// bash evaluates a value assigned to some of its own variables as
// arithmetic, as it does for one declared -i: OPTIND='a[$(rm -rf ~)]'
// runs rm (bash 5.2; RANDOM, SRANDOM and HISTCMD too). Found by
// assigning each special variable a subscript whose command prints.
var arithVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"OPTIND": true, "RANDOM": true, "SRANDOM": true, "HISTCMD": true}
})

// isInt reports whether bash evaluates a value assigned to name as
// arithmetic: declared -i on the line, or one of arithVars.
func (s *state) isInt(name string) bool {
	if t := s.resolveRef(name); t != "" {
		name = t
	}
	return s.ints[name] || arithVars()[name]
}
