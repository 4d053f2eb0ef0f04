package scan

import (
	"bytes"
	"path"
	"slices"
	"strings"
)

// KindOf says which kind of shell-bearing file name is, from its name alone
// (slash-separated, relative to the repository root). It returns "" when
// only the content can tell (a script with a shebang and no extension) or
// when the file holds no shell.
func KindOf(name string) Kind {
	base := path.Base(name)
	lower := strings.ToLower(base)
	dir := path.Dir(name)
	switch {
	case scriptExt(lower):
		return Script
	case startupFile(lower):
		// Shell startup files kept in a repository (dotfiles): the shell
		// sources them, no shebang needed.
		return Script
	case slices.Contains(gitHookNames, base):
		// A git hook under any hooks path (core.hooksPath=hooks,
		// scripts/git-hooks): git runs it, with or without a shebang.
		return Script
	case workflowDir(dir) && isYAML(lower):
		// GitHub Actions, and Gitea's and Forgejo's, which run workflows
		// of the same syntax from their own directories.
		return Workflow
	case lower == "action.yml" || lower == "action.yaml":
		return Workflow
	case lower == ".gitlab-ci.yml" || lower == ".gitlab-ci.yaml" || strings.HasSuffix(lower, ".gitlab-ci.yml"):
		return GitLab
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || makeInclude(lower):
		return Makefile
	case lower == "dockerfile" || lower == "containerfile" ||
		strings.HasPrefix(lower, "dockerfile.") || strings.HasPrefix(lower, "containerfile.") ||
		strings.HasSuffix(lower, ".dockerfile") || strings.HasSuffix(lower, ".containerfile"):
		return Dockerfile
	case base == "package.json":
		return NPM
	case base == "composer.json":
		return Composer
	case base == ".npmrc":
		return NPMRC
	case base == ".yarnrc.yml" || base == ".yarnrc.yaml" || base == ".yarnrc":
		return Yarnrc
	case lower == "justfile" || lower == ".justfile" || strings.HasSuffix(lower, ".just"):
		return Just
	case base == "Procfile" || strings.HasPrefix(base, "Procfile."):
		return Procfile
	case base == ".envrc":
		// direnv sources it with bash on entering the directory.
		return Script
	case hookDir(dir) && !strings.HasPrefix(base, "_") && !strings.Contains(base, "."):
		// Hooks kept in the repository (husky, core.hooksPath=.githooks):
		// sh runs them, with or without a shebang.
		return Script
	case isAppVeyor(lower):
		return AppVeyor
	case isGitConfig(name):
		return GitConfig
	case isCompose(lower):
		return Compose
	case isRakefile(lower):
		return Rake
	case base == "Vagrantfile":
		return Vagrant
	case ciKeys(name) != nil || isJenkinsfile(lower):
		return CI
	case isAgentConfig(name):
		return AgentConfig
	case lower == "tasks.json" && path.Base(dir) == ".vscode":
		return VSCode
	case lower == "settings.json" && path.Base(dir) == ".vscode":
		return VSCodeSettings
	case isMiseConfig(name):
		return Mise
	case base == "pyproject.toml":
		return Pyproject
	case isToxConfig(lower):
		return Tox
	case lower == "devbox.json":
		return Devbox
	case base == "Earthfile":
		return Earthly
	case lower == "deno.json" || lower == "deno.jsonc":
		return Deno
	case base == "Makefile.toml":
		return CargoMake
	case lower == "netlify.toml":
		return Netlify
	case lower == ".devcontainer.json" || lower == "devcontainer.json" && (path.Base(dir) == ".devcontainer" || path.Base(path.Dir(dir)) == ".devcontainer"):
		return DevContainer
	case tektonDir(dir) && isYAML(lower):
		// Tekton Pipelines-as-Code runs these on a pull request.
		return KubeWorkflow
	case unreviewedKind(name) != nil:
		return Unreviewed
	}
	return ""
}

// workflowDirs hold GitHub Actions workflows, or Gitea's and Forgejo's
// (the same syntax).
var workflowDirs = []string{".github/workflows", ".gitea/workflows", ".forgejo/workflows"}

// workflowDir reports whether dir is a workflow directory, at the root or
// below it.
func workflowDir(dir string) bool {
	for _, w := range workflowDirs {
		if dir == w || strings.HasSuffix(dir, "/"+w) {
			return true
		}
	}
	return false
}

// scriptExt reports whether a (lower-case) name's extension is a shell
// script's. zsh and ksh scripts are read as bash: what differs either
// parses the same or does not parse (a C finding), so nothing is skipped.
func scriptExt(lower string) bool {
	for _, ext := range []string{".sh", ".bash", ".zsh", ".ksh", ".mksh", ".ash", ".dash"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// startupFiles are the files (without their leading dot) that shells
// source at start: a dotfiles repository's .bashrc runs on every login.
var startupFiles = []string{
	"bashrc", "bash_profile", "bash_login", "bash_logout", "bash_aliases",
	"profile", "zshrc", "zshenv", "zprofile", "zlogin", "zlogout", "kshrc", "mkshrc", "shrc",
}

// startupFile reports whether a (lower-case) base name is a shell
// startup file: .bashrc, or bashrc as dotfiles repositories keep it
// (profile and shrc only with their dot: alone, they name other things).
func startupFile(lower string) bool {
	name, dotted := strings.CutPrefix(lower, ".")
	return slices.Contains(startupFiles, name) && (dotted || name != "profile" && name != "shrc")
}

// gitHookNames are the hooks git runs (githooks(5)); a file so named,
// without an extension, is a hook wherever core.hooksPath points.
var gitHookNames = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
	"pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
	"post-index-change",
}

// hookDir reports whether dir holds git hooks kept in the repository.
func hookDir(dir string) bool {
	b := path.Base(dir)
	return b == ".husky" || b == ".githooks"
}

// makeInclude reports whether a file's (lower-case) name is one a Makefile
// includes by convention (include Makefile.common, -include
// makefile.local, include rules.mk, build/defs.mak, rules.make): make
// reads it as a Makefile, $(shell …) and recipes included. Automake's
// Makefile.am/.in and data or text files that merely start with the name
// are not.
func makeInclude(lower string) bool {
	for _, ext := range []string{".mk", ".mak", ".make"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(lower, "makefile.")
	if !ok {
		rest, ok = strings.CutPrefix(lower, "gnumakefile.")
	}
	return ok && rest != "" && !slices.Contains(notMakeExts, path.Ext("."+rest))
}

// notMakeExts end names that start as a Makefile's but are not one.
var notMakeExts = []string{".am", ".in", ".toml", ".json", ".yml", ".yaml", ".md", ".txt", ".rst", ".orig", ".bak", ".swp", ".sample", ".example", ".j2", ".tmpl", ".template",
	// Source files named after what they handle (scan/makefile.go).
	".go", ".py", ".rs", ".js", ".ts", ".rb", ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".cs", ".php", ".pl", ".lua", ".swift", ".scala", ".html", ".css"}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

// shells are the interpreters whose scripts the reviewer reads: POSIX sh
// and bash, and the sh-family shells read as bash (zsh, ksh: what differs
// either parses the same or does not parse, a C finding). fish is a
// different language.
var shells = []string{"sh", "bash", "dash", "ash", "rbash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "yash", "posh"}

// launchers run the program named later on the #! line: env (with its
// options, some of which take a value: -u NAME, -C DIR, -S 'bash -e') and
// the multicall binaries (#!/bin/busybox sh).
var launchers = []string{"env", "busybox", "toybox"}

// isShebangShell reports whether the file starts with a #! line naming a
// shell, directly (#!/bin/sh) or through a launcher (#!/usr/bin/env bash,
// #!/usr/bin/env -S bash -e, #!/usr/bin/env -u X bash, #!/bin/busybox
// sh). A UTF-8 byte order mark before #! does not hide it: the kernel
// refuses such a file and the shell that tried it runs it as a script.
func isShebangShell(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(head, []byte("#!")) {
		return false
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(strings.TrimSuffix(string(line), "\r"))
	if len(fields) == 0 {
		return false
	}
	if !slices.Contains(launchers, path.Base(fields[0])) {
		return slices.Contains(shells, path.Base(fields[0]))
	}
	// Any word after the launcher that names a shell: an option's value
	// (-u NAME) is not a shell, and a shell named anywhere is what the
	// line most likely runs.
	for _, f := range fields[1:] {
		f = strings.Trim(f, `'"`)
		if _, v, ok := strings.Cut(f, "="); ok && strings.HasPrefix(f, "-") {
			f = v // --split-string=bash
		}
		if slices.Contains(shells, path.Base(f)) {
			return true
		}
	}
	return false
}
