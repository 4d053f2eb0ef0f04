package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// hookMarker marks a pre-commit hook written by guard, so that install can
// update it and uninstall can recognise it.
const hookMarker = "# guard-pre-commit-hook v1"

// ChainedSuffix names where install keeps a pre-commit hook that was there
// before: pre-commit.guard-chained, run before the scan.
const ChainedSuffix = ".guard-chained"

// preCommitHook runs the hook guard replaced, then guard scan --staged.
// git runs hooks from the top of the work tree.
const preCommitHook = `#!/bin/sh
` + hookMarker + `: reviews the shell a commit adds or changes.
# Written by 'guard install pre-commit'; 'guard uninstall pre-commit' removes
# it and puts back the hook it chained (pre-commit` + ChainedSuffix + `), if any.
hooks=$(dirname -- "$0")
if [ -x "$hooks/pre-commit` + ChainedSuffix + `" ]; then
	"$hooks/pre-commit` + ChainedSuffix + `" "$@" || exit $?
fi
if ! command -v guard >/dev/null 2>&1; then
	echo "guard: error: guard is not in PATH, so this commit cannot be reviewed" >&2
	echo "guard: hint: install guard, or remove this hook with 'guard uninstall pre-commit'" >&2
	exit 1
fi
exec guard scan --staged
`

// HookChange says what InstallPreCommit or UninstallPreCommit did.
type HookChange struct {
	Hook    string // the pre-commit hook's path
	Chained string // the previous hook, kept and run first (install) or put back (uninstall); "" if none
	Updated bool   // install: guard's hook was there already and was rewritten
}

// ErrNoHook is returned by UninstallPreCommit when guard's hook is not
// installed.
var ErrNoHook = errors.New("no guard pre-commit hook is installed")

// InstallPreCommit writes guard's pre-commit hook into hooksDir. A hook
// that is already there and is not guard's is moved to
// pre-commit.guard-chained and run first. Installing again rewrites guard's
// hook and keeps the chain as it is.
func InstallPreCommit(hooksDir string) (HookChange, error) {
	hook := filepath.Join(hooksDir, "pre-commit")
	chained := hook + ChainedSuffix
	ch := HookChange{Hook: hook}
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	mine, exists, err := isGuardHook(hook)
	if err != nil {
		return ch, err
	}
	switch {
	case mine:
		ch.Updated = true
	case exists:
		if _, err := os.Lstat(chained); err == nil {
			return ch, fmt.Errorf("install pre-commit hook: %s exists and so does %s; move one of them away", hook, chained)
		}
		if err := os.Rename(hook, chained); err != nil {
			return ch, fmt.Errorf("install pre-commit hook: keep the existing hook: %w", err)
		}
	}
	if _, err := os.Lstat(chained); err == nil {
		ch.Chained = chained
	}
	tmp, err := os.CreateTemp(hooksDir, ".pre-commit.guard-*")
	if err != nil {
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(preCommitHook); err != nil {
		tmp.Close()
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	if err := os.Rename(tmp.Name(), hook); err != nil {
		return ch, fmt.Errorf("install pre-commit hook: %w", err)
	}
	return ch, nil
}

// UninstallPreCommit removes guard's pre-commit hook from hooksDir and
// puts back the hook it chained. A hook that is not guard's is left alone
// (an error); with no hook at all it returns ErrNoHook.
func UninstallPreCommit(hooksDir string) (HookChange, error) {
	hook := filepath.Join(hooksDir, "pre-commit")
	chained := hook + ChainedSuffix
	ch := HookChange{Hook: hook}
	mine, exists, err := isGuardHook(hook)
	if err != nil {
		return ch, err
	}
	switch {
	case exists && !mine:
		return ch, fmt.Errorf("uninstall pre-commit hook: %s was not written by guard; leaving it", hook)
	case !exists:
		return ch, ErrNoHook
	}
	if err := os.Remove(hook); err != nil {
		return ch, fmt.Errorf("uninstall pre-commit hook: %w", err)
	}
	if _, err := os.Lstat(chained); err == nil {
		if err := os.Rename(chained, hook); err != nil {
			return ch, fmt.Errorf("uninstall pre-commit hook: restore %s: %w", chained, err)
		}
		ch.Chained = chained
	}
	return ch, nil
}

// isGuardHook reports whether path exists and is guard's hook.
func isGuardHook(path string) (mine, exists bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return false, true, nil // a dangling link is still someone's hook
		}
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read %s: %w", path, err)
	}
	return bytes.Contains(b, []byte(hookMarker)), true, nil
}
