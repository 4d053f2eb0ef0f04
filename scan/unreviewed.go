package scan

import (
	"bytes"
	"path"
	"strings"
)

// unreviewedFile is a file a tool runs as code, in a language guard has
// no reviewer for (Python, Nix, Starlark, JSON5, an IDE's run
// configuration): scan cannot say what it does, so it says that it runs
// (RuleUnreviewed, B), never nothing. A repository's setup.py ran
// curl | sh on pip install with a clean scan.
type unreviewedFile struct {
	match func(name, lower, dir string) bool
	// ref names the code, how says which tool runs it and when.
	ref, how string
	// marker, when set, is where in the file the finding points: the
	// first line holding it (shellHook in a Nix file); else line 1.
	marker string
}

// unreviewedFiles is the table of such files, by name.
var unreviewedFiles = []unreviewedFile{
	{match: func(_, lower, _ string) bool { return lower == "setup.py" },
		ref: "setup.py:", how: "pip install and python setup.py run this Python file; guard does not review Python"},
	{match: func(_, lower, _ string) bool { return lower == "noxfile.py" },
		ref: "noxfile.py:", how: "nox runs its sessions from this Python file; guard does not review Python"},
	{match: func(_, lower, _ string) bool {
		return lower == "flake.nix" || lower == "shell.nix" || lower == "devenv.nix"
	}, ref: "Nix shell:", marker: "shellHook",
		how: "nix develop, nix-shell, devenv and direnv's use flake/use nix evaluate this Nix file and run its shellHook in your shell; guard does not review Nix"},
	{match: func(_, lower, _ string) bool { return lower == "tiltfile" },
		ref: "Tiltfile:", marker: "local",
		how: "tilt up runs this Starlark file, and the commands its local() and local_resource() calls name; guard does not review Starlark"},
	{match: func(_, lower, dir string) bool {
		// Where Renovate reads its config (the JSON row of ciSystems).
		return lower == "renovate.json5" && (dir == "." || dir == ".github" || dir == ".gitlab") || lower == ".renovaterc.json5" && dir == "."
	}, ref: "Renovate config:", marker: "postUpgradeTasks",
		how: "Renovate runs the postUpgradeTasks commands of this JSON5 file on its machine, with the repository's token; guard does not read JSON5"},
	{match: func(name, lower, dir string) bool {
		return strings.HasSuffix(lower, ".xml") && (path.Base(dir) == "runConfigurations" && path.Base(path.Dir(dir)) == ".idea" || path.Base(dir) == ".run")
	}, ref: "IDE run configuration:", marker: "SCRIPT_TEXT",
		how: "a JetBrains IDE runs this shared run configuration (a shell script, a program, a build tool) when it is picked; guard does not review its XML"},
	{match: func(_, lower, dir string) bool { return lower == "workspace.xml" && path.Base(dir) == ".idea" },
		ref: "IDE workspace:", marker: "RunManager",
		how: "a JetBrains IDE runs the run configurations this file holds (shell scripts, programs, their before-launch tasks) when they are picked; guard does not review its XML"},
	{match: func(_, lower, dir string) bool { return lower == "watchertasks.xml" && path.Base(dir) == ".idea" },
		ref: "IDE file watchers:", marker: "TaskOptions",
		how: "a JetBrains IDE runs the programs of these file watchers whenever a matching file changes, with nothing to pick; guard does not review its XML"},
	{match: func(_, lower, dir string) bool {
		return lower == "externaldependencies.xml" && path.Base(dir) == ".idea"
	},
		ref: "IDE required plugins:", marker: "plugin",
		how: "a JetBrains IDE asks to install the plugins this file requires (code from the marketplace that runs inside the IDE); guard does not review them"},
	{match: func(_, lower, _ string) bool { return lower == ".replit" },
		ref: ".replit:", marker: "run",
		how: "Replit runs its run and onBoot commands when the repl starts; guard does not review this file"},
}

// unreviewedKind is the row for name, or nil.
func unreviewedKind(name string) *unreviewedFile {
	base := path.Base(name)
	lower := strings.ToLower(base)
	dir := path.Dir(name)
	for i := range unreviewedFiles {
		if unreviewedFiles[i].match(name, lower, dir) {
			return &unreviewedFiles[i]
		}
	}
	return nil
}

// unreviewedCode reports the file as code a tool runs that guard does
// not review.
func (x *extractor) unreviewedCode() {
	row := unreviewedKind(x.name)
	if row == nil {
		return
	}
	off := 0
	if row.marker != "" {
		if i := bytes.Index(x.src, []byte(row.marker)); i >= 0 {
			off = x.lines.lineStart(x.lines.position(i).Line)
		}
	}
	x.unreviewed(Unreviewed, off, row.ref, row.how)
}
