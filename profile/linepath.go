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

// Programs planted in the directories tools and activated environments
// put first on PATH: node_modules/.bin (npx, npm exec, pnpm exec, yarn
// run it), a virtualenv's bin (.venv/bin after activate; uv run, poetry
// run), tox's and nox's environments, composer's vendor/bin. A line that
// writes, copies, downloads or links a file there and then runs that name
// runs the file, not the program the name says (cp evil .venv/bin/pip;
// pip install x), so the name is reviewed as the file's path would be.

// plantedBin is the path of a file the line wrote or linked in such a
// directory under the name prog, and whether there is one (the first in
// order of path when there are several).
func plantedBin(prog string, st *state) (string, bool) {
	if prog == "" || prog == "." || prog == ".." || strings.Contains(prog, "/") {
		return "", false
	}
	best := ""
	consider := func(p string) {
		if path.Base(p) == prog && localBinDir(path.Dir(p)) && (best == "" || p < best) {
			best = p
		}
	}
	for p := range st.files {
		consider(p)
	}
	for p := range st.links {
		consider(p)
	}
	return best, best != ""
}

// plantedRun: npx NAME, npm exec NAME, yarn NAME and bunx NAME run NAME
// from node_modules/.bin before they download anything; a file the line
// planted there is reviewed as that file run with the words after NAME.
func (b *builder) plantedRun(name field, args []field, c *call) {
	if !name.known || b.ctx.Remote {
		return
	}
	if p, ok := plantedBin(name.val, c.st); ok {
		nf := name
		nf.val = p
		b.exec(append([]field{nf}, args...), c.st.clone(), c.in, c.prog+" "+name.val, c.sp)
	}
}

// plantedOperand is plantedRun for the first operand of c.
func (b *builder) plantedOperand(c *call) {
	if len(c.a.ops) > 0 {
		op := c.a.ops[0]
		b.plantedRun(op, c.fs[indexOf(c.fs, op)+1:], c)
	}
}

// hPlanted is the handler of runners that only do that and download
// (bunx, bun x, pnpx): their rows price the download.
func hPlanted(b *builder, c *call) stream {
	b.plantedOperand(c)
	return stream{kind: streamUnknown}
}

// localBinDir: a directory of programs that a project's tools or its
// activated environment put on PATH before the system's.
func localBinDir(dir string) bool {
	base, parent := path.Base(dir), path.Base(path.Dir(dir))
	switch {
	case base == ".bin":
		return parent == "node_modules"
	case base != "bin":
		return false
	}
	switch parent {
	case ".venv", "venv", ".env", "env", "virtualenv", ".virtualenv", "vendor", ".bundle", ".pixi":
		return true
	}
	switch path.Base(path.Dir(path.Dir(dir))) {
	case ".tox", ".nox", ".direnv", "envs", ".virtualenvs":
		return true
	}
	return false
}
