package decision

import (
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Access is what an agent's file tool does with a path.
type Access int

const (
	AccessRead   Access = iota + 1 // reads one file's contents
	AccessList                     // lists names (Glob, LS)
	AccessSearch                   // reads the contents of a tree (Grep)
	AccessWrite                    // creates, changes or deletes
)

// PathJudgement is the level of one path a file tool touches.
type PathJudgement struct {
	Path  string        // absolute, cleaned
	Class profile.Class // the class that set the level ("" when A)
	Level review.Level
	Why   string
}

// classWhy says, per class, why a path costs what it costs.
var classWhy = map[profile.Class]string{
	profile.ClassSecret:      "it is a secret location (keys, credentials, shell history)",
	profile.ClassGuard:       "it is guard's own configuration or state",
	profile.ClassPersistence: "it runs code later (shell startup files, autostart, git hooks and config)",
	profile.ClassSystem:      "it is a system location",
	profile.ClassRoot:        "it is the root directory",
	profile.ClassDevice:      "it is a device",
	profile.ClassTTY:         "it is a terminal",
	profile.ClassSensitive:   "it usually holds secrets (.env, keys)",
	profile.ClassOutside:     "it is outside the workspace",
	profile.ClassHome:        "it is your home directory, outside the workspace",
	profile.ClassUnknown:     "guard cannot tell where it is",
	profile.ClassRemote:      "it is on another machine",
}

// agentConfigDirs are the directories where agents keep their hooks,
// permissions, MCP servers, skills, sub-agents and the scripts their hooks
// run (.claude/hooks/*.sh, a skill's or sub-agent's hooks in its front
// matter, a Gemini extension's hooks and servers): an agent that writes
// anything there can remove guard's hook, allow itself anything, or have
// code run outside guard's sandbox later.
var agentConfigDirs = []string{".claude", ".codex", ".gemini"}

// JudgePath prices one path an agent's file tool touches with review's
// effect table (a read is profile.CapRead, a write profile.CapWrite, on
// the path's class, as written and with symlinks resolved: the worse
// counts). What differs from a shell command is stated here, once:
//
//   - a file tool does not run in guard's sandbox, so devices and other
//     terminals, and paths guard cannot place, are at least B even to
//     read (the sandbox would have refused or hidden them), and a
//     search of a tree that holds secrets is B;
//   - listing names in a sensitive place is A: a name is not the secret;
//   - writing into an agent's configuration directory (its hooks,
//     permissions, skills, the scripts its hooks run) is C.
func JudgePath(ctx *profile.Context, p string, acc Access) PathJudgement {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = ctx.Home + p[1:]
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(ctx.Cwd, p)
	}
	p = filepath.Clean(p)
	j := PathJudgement{Path: p, Level: review.A}
	if strings.ContainsRune(p, 0) {
		j.Level, j.Class, j.Why = review.C, profile.ClassUnknown, "the path holds a NUL byte"
		return j
	}
	resolved, ok := ctx.Resolve("", p)
	if !ok {
		resolved = p
	}
	// Any access but the three reads is priced as a write: an access
	// this function does not know fails closed.
	write := acc != AccessRead && acc != AccessList && acc != AccessSearch
	cap := profile.CapRead
	if write {
		cap = profile.CapWrite
	}
	for _, c := range []profile.Class{ctx.Classify(p), ctx.Classify(resolved)} {
		l := review.EffectLevel(profile.Effect{Cap: cap, Class: c})
		if cap == profile.CapRead && (c == profile.ClassDevice || c == profile.ClassTTY || c == profile.ClassUnknown || c == profile.ClassRemote) {
			l = review.Max(l, review.B) // no sandbox to refuse it
		}
		if acc == AccessList && c == profile.ClassSensitive {
			l = review.A // a name is not the secret
		}
		if l > j.Level {
			j.Level, j.Class, j.Why = l, c, classWhy[c]
		}
	}
	if write && (isAgentConfig(ctx, p) || isAgentConfig(ctx, resolved)) {
		j.Level, j.Class = review.C, "agent configuration"
		j.Why = "it configures an agent's hooks and permissions (guard's hook among them)"
		return j
	}
	if write && j.Level < review.B && ctx.Links != nil && ctx.Links(resolved) > 1 {
		// A hard link is the same file under another name, which may be
		// ~/.bashrc: guard cannot find the other names, and a file tool
		// has no sandbox to check them afterwards.
		j.Level, j.Class = review.B, "hard link"
		j.Why = "it has other names (hard links) guard cannot see, and a write changes them all"
	}
	if acc == AccessSearch && j.Level < review.B {
		// Searching a tree reads every file in it.
		for _, loc := range ctx.SecretLocations() {
			if paths.Within(loc, p) || paths.Within(loc, resolved) {
				j.Level, j.Class = review.B, "a tree holding secrets"
				j.Why = "searching it reads " + loc + " too"
				break
			}
		}
	}
	return j
}

// isAgentConfig reports whether p is, or is in, an agent's configuration
// directory (or ~/.claude.json).
func isAgentConfig(ctx *profile.Context, p string) bool {
	if ctx.Home != "" && p == filepath.Join(ctx.Home, ".claude.json") {
		return true
	}
	for _, d := range agentConfigDirs {
		if strings.Contains(p+"/", "/"+d+"/") {
			return true
		}
	}
	return false
}
