package profile

import (
	"path"
	"strings"
	"sync"
)

// Output directories. A packager, compiler or generator told where to put
// its output (pyinstaller --distpath, nuitka --output-dir, cargo
// --artifact-dir) writes names of its own choosing there: the program's
// name into ~/.local/bin shadows a command, a dot file into ~ is a
// start-up file. Programs with rows say so with an into: selector;
// programs guard has no row for (and those whose rows keep the generic
// review, hArgCommands) are read by the options' conventional names.

// outputDirOption reports whether an option conventionally names the
// directory a program writes its output into.
func outputDirOption(name string) bool {
	switch strings.ToLower(strings.TrimLeft(name, "-")) {
	case "distpath", "workpath", "specpath", "output-dir", "output_dir", "outdir", "out-dir", "outputdir", "output-directory",
		"artifact-dir", "target-dir", "dest-dir", "destdir", "destination-dir", "install-dir", "bin-dir", "bindir", "build-dir", "builddir":
		return true
	}
	return false
}

// hJar: jar x (xf, -xf, --extract) extracts the archive's names into the
// current directory (or --dir), as unzip does.
func hJar(b *builder, c *call) stream {
	mode := ""
	if len(c.fs) > 0 && c.fs[0].known {
		mode = c.fs[0].val
	}
	// A mode word guard cannot see may be x.
	unseen := len(c.fs) > 0 && !c.fs[0].known
	if unseen || c.a.has("-x", "--extract") || re(`^-?[a-z0-9]*x[a-z0-9]*$`).MatchString(mode) && !strings.HasPrefix(mode, "--") {
		return hExtractInto("", -1, "--dir")(b, c)
	}
	return stream{}
}

// venvPrograms are the files python -m venv, virtualenv and uv venv put
// in the environment's bin directory under fixed names: its programs and
// the activation scripts a shell sources.
var venvPrograms = sync.OnceValue(func() []string {
	return []string{"python", "python3", "pip", "pip3", "activate", "activate.csh", "activate.fish", "Activate.ps1"}
})

// hVenv: python -m venv DIR, virtualenv DIR and uv venv DIR write
// DIR/bin/python, pip and the rest: a DIR of ~/.local or ~ puts them in
// your bin directories, in front of the real ones. def is the directory
// without an operand (uv's .venv).
func hVenv(def string) handler {
	return func(b *builder, c *call) stream {
		dirs := c.a.ops
		if len(dirs) == 0 && def != "" {
			dirs = []field{staticField(def, c.sp)}
		}
		for _, d := range dirs {
			if !d.known {
				continue
			}
			for _, p := range venvPrograms() {
				g := d
				g.val = path.Join(d.val, "bin", p)
				b.pathEffect(CapWrite, "fs.write", c.prog, g, c.st, c.sp, "creates the virtual environment's program")
			}
		}
		return stream{}
	}
}

// hPrefixBin: an installer told to install into the prefix an option
// names writes programs of the packages' choosing into PREFIX/bin.
func hPrefixBin(opts ...string) handler {
	return func(b *builder, c *call) stream {
		for _, p := range c.a.values(opts...) {
			g := p
			if g.known {
				g.val = path.Join(p.val, "bin")
			}
			b.pathEffect(CapWrite, "fs.output", c.prog, g, c.st, c.sp, "installs programs into")
			b.writeAnyName(c, g, "fs.output", "may install any name into")
		}
		return stream{}
	}
}

// outputDirs prices the output directories a program guard cannot
// describe is handed (--output-dir DIR, --distpath=DIR) as directories it
// writes any name into.
func (b *builder) outputDirs(prog string, fs []field, st *state, sp span) {
	c := &call{prog: prog, st: st, sp: sp}
	for i, f := range fs {
		if !f.known || !strings.HasPrefix(f.val, "-") {
			continue
		}
		name, v, eq := strings.Cut(f.val, "=")
		if !outputDirOption(name) {
			continue
		}
		d := f
		switch {
		case eq:
			d.val = v
		case i+1 < len(fs):
			d = fs[i+1]
		default:
			continue
		}
		b.pathEffect(CapWrite, "fs.output", prog, d, st, sp, "writes its output into")
		b.writeAnyName(c, d, "fs.output", "may write any name into")
	}
}
