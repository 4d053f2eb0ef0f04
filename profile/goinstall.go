package profile

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// Programs installed under a name the package chooses. go install writes
// each main package it builds to $GOBIN/NAME (else $GOPATH/bin, else
// ~/go/bin), NAME being the last element of the package path (the one
// before a /vN major-version suffix; the directory's name for "."):
// go install ./cmd/ls puts a program named ls in a directory on PATH, which
// every later shell runs for ls. The write is priced like cp x
// ~/go/bin/ls (a known name there is C). A pattern (./...) names programs
// guard cannot see: the install stays what its row says.

// goMajor is a module path's major-version suffix (example.com/x/v2).
var goMajor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v[0-9]+$`) })

// hGoInstall prices the program files go install writes.
func hGoInstall(b *builder, c *call) stream {
	if b.ctx.Remote {
		return stream{}
	}
	dir := c.st.cwd
	for _, f := range c.a.values("-C") {
		dir = ""
		if f.known {
			if p, ok := b.ctx.Resolve(c.st.cwd, f.val); ok {
				dir = p
			}
		}
	}
	for _, op := range c.a.ops {
		if !op.known || op.glob || strings.Contains(op.val, "...") {
			continue
		}
		name := goInstallName(op.val, dir)
		if name == "" {
			continue
		}
		f := goBinDir(c.st, b.ctx.Home)
		if f.known {
			f.val = path.Join(f.val, name)
		} else {
			f.raw = "$GOBIN/" + name
		}
		f.pos, f.end = op.pos, op.end
		b.pathEffect(CapWrite, "dev.install-bin", c.prog, f, c.st, c.sp, "installs the program "+name+" as")
	}
	return stream{}
}

// goInstallName is the file name go install gives the program built from
// pkg (run in dir), or "" when it cannot tell.
func goInstallName(pkg, dir string) string {
	pkg, _, _ = strings.Cut(pkg, "@")
	pkg = strings.TrimRight(pkg, "/")
	if pkg == "." || pkg == "" {
		pkg = dir
	} else if strings.HasPrefix(pkg, "./") || strings.HasPrefix(pkg, "../") || pkg == ".." {
		if dir == "" {
			return ""
		}
		pkg = path.Join(dir, pkg)
	}
	elems := strings.Split(pkg, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && goMajor().MatchString(name) && !strings.HasPrefix(pkg, "/") {
		name = elems[len(elems)-2]
	}
	if name == "" || name == "." || name == ".." {
		return ""
	}
	return name
}

// goBinDir is where go install puts programs: GOBIN, GOPATH's first
// entry's bin, else ~/go/bin. A value the line set to something guard
// cannot see is unknown.
func goBinDir(st *state, home string) field {
	if v, set := st.vars["GOBIN"]; set {
		if v == nil {
			return field{}
		}
		if *v != "" {
			return field{val: *v, known: true}
		}
	}
	if v, set := st.vars["GOPATH"]; set {
		if v == nil {
			return field{}
		}
		if first, _, _ := strings.Cut(*v, ":"); first != "" {
			return field{val: path.Join(first, "bin"), known: true}
		}
	}
	if home == "" {
		return field{}
	}
	return field{val: path.Join(home, "go", "bin"), known: true}
}
