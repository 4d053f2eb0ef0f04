package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMakeIncludes: each way a Makefile names a file it reads is found,
// and what is not an include is not taken for one.
func TestMakeIncludes(t *testing.T) {
	for _, c := range []struct {
		name, file, src string
		want            []string
	}{
		{"include", "Makefile", "include ci/defs\n", []string{"ci/defs"}},
		{"-include", "Makefile", "-include local.conf\n", []string{"local.conf"}},
		{"sinclude", "Makefile", "sinclude rules.inc\n", []string{"rules.inc"}},
		{"several names", "Makefile", "include a.conf b.conf\n", []string{"a.conf", "b.conf"}},
		{"a glob", "Makefile", "include ci/*.rules\n", []string{"ci/*.rules"}},
		// Relative to the directory make runs in: the file's own, or one
		// above it (an include of an include, read from the top).
		{"every directory above", "a/b/Makefile", "include defs\n", []string{"a/b/defs", "a/defs", "defs"}},
		{"a comment after the name", "Makefile", "include ci/defs # shared\n", []string{"ci/defs"}},
		// Not includes: a recipe line (the shell's, not make's), a
		// commented line.
		{"recipe line", "Makefile", "all:\n\tinclude x\n", nil},
		{"commented", "Makefile", "# include ci/defs\n", nil},
		// A name that is only a variable the file does not decide could
		// be any file: nothing is singled out.
		{"unknown name", "Makefile", "include $(DEPS)\ninclude $(shell ls)\n", nil},
		// Variables: the file's own value, $(wildcard …)'s pattern, and
		// an unknown part as the glob of what it could be.
		{"variable the file sets", "Makefile", "DIR := build/ci\nNAME = defs\ninclude $(DIR)/$(NAME)\n", []string{"build/ci/defs"}},
		{"wildcard", "Makefile", "-include $(wildcard rules/*.rules)\n", []string{"rules/*.rules"}},
		{"unknown part of a name", "Makefile", "include ci/$(OS).mk\n", []string{"ci/*.mk"}},
		{"unknown directory", "Makefile", "X += more\ninclude $(X)/defs ${TOP}/local.conf\n", []string{"**/defs", "**/local.conf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := makeIncludes(c.file, []byte(c.src))
			if !slices.Equal(got, c.want) {
				t.Fatalf("makeIncludes = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMakeIncludedKind: a file a Makefile includes, whatever its name, is
// a Makefile (and so are the files it includes); a file nothing includes,
// and a file with a kind of its own, keep theirs.
func TestMakeIncludedKind(t *testing.T) {
	files := []File{
		{Path: "Makefile", Src: []byte("include ci/defs\n-include deploy.sh\n")},
		{Path: "ci/defs", Src: []byte("sinclude ci/more.rules\n")},
		{Path: "ci/more.rules", Src: []byte("x:\n\ttrue\n")},
		{Path: "deploy.sh", Src: []byte("echo hi\n")},
		{Path: "docs/notes", Src: []byte("include ci/defs\n")},
	}
	got := included("", files, Makefile, makeIncludes)
	want := map[string]Kind{"Makefile": Makefile, "ci/defs": Makefile, "ci/more.rules": Makefile, "deploy.sh": Script, "docs/notes": ""}
	for _, f := range got {
		if f.Kind() != want[f.Path] {
			t.Errorf("%s: kind %q, want %q", f.Path, f.Kind(), want[f.Path])
		}
	}
	if files[1].kind != "" {
		t.Error("included changed the caller's slice")
	}
}

// TestScriptsByPath: the scripts mise (an [env] _.source, a file task)
// and cargo-make (script = { file = … } under the shell) run by path are
// scripts whatever their names, relative to the config's directory and
// only inside the repository. They were not read.
func TestScriptsByPath(t *testing.T) {
	mise := "[env]\n_.source = [\"./env/setup\", { path = \"env/more\" }, \"/etc/profile\", \"{{ config_root }}/x\"]\n[tasks.build]\nfile = \"scripts/build\"\n"
	if got, want := miseScripts("tools/mise.toml", []byte(mise)), []string{"tools/env/setup", "tools/env/more", "tools/scripts/build"}; !slices.Equal(got, want) {
		t.Errorf("miseScripts = %q, want %q", got, want)
	}
	cm := "[tasks.a]\nscript = { file = \"ci/a\" }\n[tasks.b]\nscript_runner = \"@rust\"\nscript = { file = \"ci/b.rs\" }\n[tasks.c]\nscript = { file = \"../../out\" }\n"
	if got, want := cargoMakeScripts("Makefile.toml", []byte(cm)), []string{"ci/a"}; !slices.Equal(got, want) {
		t.Errorf("cargoMakeScripts = %q, want %q", got, want)
	}
	files := []File{{Path: "tools/mise.toml", Src: []byte(mise)}, {Path: "tools/env/setup", Src: []byte("x\n")}, {Path: "tools/other", Src: []byte("x\n")}}
	kinds := map[string]Kind{}
	for _, f := range includedAs("", files, Mise, Script, miseScripts) {
		kinds[f.Path] = f.Kind()
	}
	if kinds["tools/env/setup"] != Script || kinds["tools/other"] != "" {
		t.Errorf("kinds %v: want the sourced file, and only it, read as a script", kinds)
	}
}

// TestTaskfileIncludes: a Taskfile's includes (a path, or a mapping's
// taskfile) are Taskfiles whatever their names: Task runs their tasks.
// They were not read on 17c6cc7 (their commands passed the scan). A
// remote include and a Taskfile's own name are left to their readers;
// a file nothing includes stays unread.
func TestTaskfileIncludes(t *testing.T) {
	main := "version: '3'\nincludes:\n  build: ./taskfiles/build.yml\n  docs:\n    taskfile: taskfiles/Docs.yaml\n    optional: true\n  remote: https://example.com/Taskfile.yml\n"
	r, err := Run(Options{Root: t.TempDir(), Review: fakeReview, KnownRule: fakeKnown, Jobs: 1}, []File{
		{Path: "Taskfile.yml", Src: []byte(main)},
		{Path: "taskfiles/build.yml", Src: []byte("version: '3'\ntasks:\n  b:\n    cmds:\n      - curl https://x | sh\n")},
		{Path: "taskfiles/Docs.yaml", Src: []byte("version: '3'\ntasks:\n  d:\n    cmds:\n      - cmd: rm -rf /\n")},
		{Path: "taskfiles/other.yml", Src: []byte("tasks:\n  o:\n    cmds:\n      - rm -rf /\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, f := range r.Findings {
		paths[f.Path] = true
	}
	if !paths["taskfiles/build.yml"] || !paths["taskfiles/Docs.yaml"] || paths["taskfiles/other.yml"] {
		t.Fatalf("findings in %v: want the two included Taskfiles, and only them", paths)
	}
}

// TestAzureTemplates: an Azure pipeline's templates (template: PATH, at
// any depth, relative to the file that names it, nested templates too)
// are steps Azure runs, whatever their names; PATH@repo is another
// repository's. None was read on 17c6cc7.
func TestAzureTemplates(t *testing.T) {
	r, err := Run(Options{Root: t.TempDir(), Review: fakeReview, KnownRule: fakeKnown, Jobs: 1}, []File{
		{Path: "azure-pipelines.yml", Src: []byte("jobs:\n  - job: a\n    steps:\n      - template: ci/steps.yml\n        parameters:\n          x: 1\n      - template: other.yml@tools\n")},
		{Path: "ci/steps.yml", Src: []byte("steps:\n  - script: curl https://x | sh\n  - template: nested.yml\n")},
		{Path: "ci/nested.yml", Src: []byte("steps:\n  - bash: rm -rf /\n  - pwsh: Remove-Item -Recurse C:\\\n")},
		{Path: "other.yml", Src: []byte("steps:\n  - script: rm -rf /\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, f := range r.Findings {
		paths[f.Path] = true
	}
	if !paths["ci/steps.yml"] || !paths["ci/nested.yml"] || paths["other.yml"] {
		t.Fatalf("findings in %v: want the two templates, and only them", paths)
	}
	// A pwsh step (PowerShell) is reviewed as the pwsh -Command that runs
	// it (it was dropped): the script, the bash and the pwsh step.
	if r.Commands != 3 {
		t.Errorf("%d commands, want 3 (script, bash and pwsh steps of the templates)", r.Commands)
	}
}

// TestLFSPointerIncluded: an LFS pointer that a Makefile includes under a
// name that says nothing (ci/defs) is unreadable like one named as a
// script: its kind comes from the include. A pointer nothing runs stays
// clean.
func TestLFSPointerIncluded(t *testing.T) {
	ptr := []byte("version https://git-lfs.github.com/spec/v1\noid sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\nsize 80\n")
	r, err := Run(Options{Root: t.TempDir(), Review: fakeReview, KnownRule: fakeKnown, Jobs: 1}, []File{
		{Path: "Makefile", Src: []byte("include ci/defs\nall:\n\ttrue\n")},
		{Path: "ci/defs", Src: ptr},
		{Path: "assets/logo.png", Src: ptr},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Path+" "+f.Rule)
	}
	if want := []string{"ci/defs scan-unreadable"}; !slices.Equal(got, want) {
		t.Fatalf("findings %q, want %q", got, want)
	}
}

// TestLFSPointer: what is a Git LFS pointer, and when the work tree holds
// the content it names.
func TestLFSPointer(t *testing.T) {
	content := []byte("curl -fsSL https://example.com/x | sh\n")
	sum := sha256.Sum256(content)
	ptr := "version https://git-lfs.github.com/spec/v1\noid sha256:" + hex.EncodeToString(sum[:]) + "\nsize 38\n"
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"pointer", ptr, true},
		{"first release's pointer", strings.Replace(ptr, "git-lfs.github.com/spec/v1", "hawser.github.com/spec/v1", 1), true},
		{"no oid", "version https://git-lfs.github.com/spec/v1\nsize 38\n", false},
		{"no size", "version https://git-lfs.github.com/spec/v1\noid sha256:ab\n", false},
		{"spec mentioned later", "# see\n" + ptr, false},
		{"too long to be one", ptr + strings.Repeat("#\n", 600), false},
	} {
		if got := isLFSPointer([]byte(c.src)); got != c.want {
			t.Errorf("%s: isLFSPointer = %v, want %v", c.name, got, c.want)
		}
	}

	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "install.sh"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.sh"), []byte("echo other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := lfsContent(root, File{Path: "install.sh"}, []byte(ptr)); !ok || string(got) != string(content) {
		t.Errorf("lfsContent of the matching work tree file = %q, %v; want its content", got, ok)
	}
	if _, ok := lfsContent(root, File{Path: "other.sh"}, []byte(ptr)); ok {
		t.Error("lfsContent took a work tree file whose hash is not the pointer's")
	}
	if _, ok := lfsContent(root, File{Path: "missing.sh"}, []byte(ptr)); ok {
		t.Error("lfsContent took a missing file")
	}
	if _, ok := lfsContent("", File{Path: "install.sh"}, []byte(ptr)); ok {
		t.Error("lfsContent read a file with no root")
	}
}
