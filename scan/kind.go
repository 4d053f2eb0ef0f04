package scan

import (
	"bytes"
	"path"
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
	case strings.HasSuffix(lower, ".sh") || strings.HasSuffix(lower, ".bash"):
		return Script
	case (dir == ".github/workflows" || strings.HasSuffix(dir, "/.github/workflows")) && isYAML(lower):
		return Workflow
	case lower == "action.yml" || lower == "action.yaml":
		return Workflow
	case lower == ".gitlab-ci.yml" || lower == ".gitlab-ci.yaml" || strings.HasSuffix(lower, ".gitlab-ci.yml"):
		return GitLab
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(lower, ".mk"):
		return Makefile
	case lower == "dockerfile" || lower == "containerfile" ||
		strings.HasPrefix(lower, "dockerfile.") || strings.HasPrefix(lower, "containerfile.") ||
		strings.HasSuffix(lower, ".dockerfile") || strings.HasSuffix(lower, ".containerfile"):
		return Dockerfile
	case base == "package.json":
		return NPM
	case base == ".envrc":
		// direnv sources it with bash on entering the directory.
		return Script
	case hookDir(dir) && !strings.HasPrefix(base, "_") && !strings.Contains(base, "."):
		// Hooks kept in the repository (husky, core.hooksPath=.githooks):
		// sh runs them, with or without a shebang.
		return Script
	case ciKeys(name) != nil:
		return CI
	case lower == "tasks.json" && path.Base(dir) == ".vscode":
		return VSCode
	case lower == ".devcontainer.json" || lower == "devcontainer.json" && (path.Base(dir) == ".devcontainer" || path.Base(path.Dir(dir)) == ".devcontainer"):
		return DevContainer
	}
	return ""
}

// hookDir reports whether dir holds git hooks kept in the repository.
func hookDir(dir string) bool {
	b := path.Base(dir)
	return b == ".husky" || b == ".githooks"
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

// shells are the interpreters whose scripts the reviewer can read: POSIX sh
// and bash. zsh and fish are different languages.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// isShebangShell reports whether the file starts with a #! line naming sh or
// bash, directly (#!/bin/sh) or through env (#!/usr/bin/env bash,
// #!/usr/bin/env -S bash -e).
func isShebangShell(head []byte) bool {
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
	prog := path.Base(fields[0])
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			prog = path.Base(f)
			break
		}
	}
	return shells[prog]
}
