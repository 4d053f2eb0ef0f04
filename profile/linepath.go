package profile

import (
	"path"
	"strings"
)

// Directories the line puts on PATH: PATH=scripts:$PATH; evil.sh runs
// scripts/evil.sh, which the program name alone does not show. The
// entries of the value that the line spells (an unresolved part such as
// $PATH is left out; an empty entry is the current directory) are kept
// in the state, and a command name found in one of them is reviewed as
// that file, as ./scripts/evil.sh would be. guard does this whether the
// entry comes before or after the rest of PATH: the worse of the two.

// setPathDirs records the entries of a new PATH value (val when known,
// else the partly resolved text of the field it came from).
func (s *state) setPathDirs(val *string, fs []field) {
	text := ""
	switch {
	case val != nil:
		text = *val
	case len(fs) == 1:
		text = fs[0].val
	default:
		s.pathDirs = nil
		return
	}
	var dirs []string
	for _, e := range strings.Split(text, ":") {
		if strings.ContainsAny(e, "$`\x00") {
			continue
		}
		if e == "" {
			e = "."
		}
		dirs = append(dirs, e)
	}
	s.pathDirs = dirs
}

// onLinePath finds prog in the directories the line put on PATH: the
// absolute path of an existing file, when there is one.
func (b *builder) onLinePath(prog string, st *state) (string, bool) {
	if len(st.pathDirs) == 0 || prog == "." || prog == ".." || strings.Contains(prog, "/") || b.ctx.EvalSymlinks == nil || b.ctx.Remote {
		return "", false
	}
	for _, d := range st.pathDirs {
		if !path.IsAbs(d) && st.cwd == "" {
			continue
		}
		dir, ok := b.ctx.Resolve(st.cwd, d)
		if !ok || inBinDir(dir) {
			continue // the system's programs are the known ones
		}
		p := path.Join(dir, prog)
		if _, err := b.ctx.EvalSymlinks(p); err != nil {
			continue
		}
		if b.ctx.Links != nil && b.ctx.Links(p) == 0 {
			continue // a directory or a device: not a program bash runs
		}
		return p, true
	}
	return "", false
}
