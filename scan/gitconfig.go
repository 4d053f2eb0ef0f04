package scan

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Git configuration kept in a repository: .gitmodules (git submodule
// update runs a submodule's update = !command), .lfsconfig (git-lfs's
// settings) and config templates that a setup step or an include.path
// makes git read (.gitconfig, gitconfig, *.gitconfig, git/config). The
// drivers .gitattributes names (filter=x, diff=x, merge=x) are defined
// there: git runs their commands on checkout, add, diff and merge.

// isGitConfig reports whether name is git configuration kept in a
// repository.
func isGitConfig(name string) bool {
	lower := strings.ToLower(path.Base(name))
	switch {
	case lower == ".gitmodules" || lower == ".lfsconfig" || lower == ".gitconfig" || lower == "gitconfig":
		return true
	case strings.HasSuffix(lower, ".gitconfig"):
		return true
	}
	return lower == "config" && path.Base(path.Dir(name)) == "git"
}

// gitCommand is a git or git-lfs setting whose value is a command:
// section, subsection ("*" any, "" none) and key, lower-case; bang says
// the value is a command only after a leading '!' (an alias without it
// is a git subcommand; an update mode without it is checkout, rebase or
// merge). Values that are plain booleans are not commands (core.fsmonitor
// = true, pager.log = false).
type gitCommand struct {
	section, sub, key string
	bang              bool
}

// gitCommands is the one table of the settings whose value git (or a
// program git starts) runs as a command. Settings that only choose
// among built-in behaviours (ssh.variant, diff.tool, merge.tool) or name
// a directory whose hooks are read by name anyway (core.hooksPath) are
// not in it.
var gitCommands = []gitCommand{
	{"alias", "", "*", true},
	{"submodule", "*", "update", true},
	{"credential", "", "helper", true},
	{"credential", "*", "helper", true},
	{"core", "", "gitproxy", false},
	{"core", "", "alternaterefscommand", false},
	{"trailer", "*", "cmd", false},
	{"trailer", "*", "command", false},
	{"difftool", "*", "path", false},
	{"mergetool", "*", "path", false},
	{"interactive", "", "difffilter", false},
	{"sendemail", "", "tocmd", false},
	{"sendemail", "", "cccmd", false},
	{"sendemail", "", "headercmd", false},
	{"sendemail", "*", "tocmd", false},
	{"sendemail", "*", "cccmd", false},
	{"gpg", "*", "defaultkeycommand", false},
	{"man", "*", "cmd", false},
	{"man", "*", "path", false},
	{"browser", "*", "path", false},
	{"lfs", "*", "args", false}, // lfs.customtransfer.NAME.args: read with its path (gitConfig)
	{"filter", "*", "clean", false},
	{"filter", "*", "smudge", false},
	{"filter", "*", "process", false},
	{"diff", "*", "textconv", false},
	{"diff", "*", "command", false},
	{"diff", "", "external", false},
	{"merge", "*", "driver", false},
	{"core", "", "fsmonitor", false},
	{"core", "", "pager", false},
	{"core", "", "editor", false},
	{"core", "", "sshcommand", false},
	{"core", "", "askpass", false},
	{"sequence", "", "editor", false},
	{"pager", "", "*", false},
	{"gpg", "", "program", false},
	{"gpg", "*", "program", false},
	{"difftool", "*", "cmd", false},
	{"mergetool", "*", "cmd", false},
	{"uploadpack", "", "packobjectshook", false},
	{"sendemail", "", "sendmailcmd", false},
	{"browser", "*", "cmd", false},
	{"remote", "*", "uploadpack", false},
	{"remote", "*", "receivepack", false},
	{"lfs", "*", "path", false}, // lfs.customtransfer.NAME.path: its sub is "customtransfer.NAME"
	{"lfs", "*", "clean", false},
	{"lfs", "*", "smudge", false},
}

// gitCommandOf says whether section.sub.key holds a command, and whether
// it needs a leading '!'.
func gitCommandOf(section, sub, key string) (cmd, bang bool) {
	for _, c := range gitCommands {
		if c.section != section || c.key != "*" && c.key != key {
			continue
		}
		if c.sub == "*" && sub != "" || c.sub == "" && sub == "" {
			return true, c.bang
		}
	}
	return false, false
}

// gitConfig reads the commands of a git configuration file. Sections are
// [section], [section "subsection"] and [section.subsection]; a value's
// double quotes, escapes (\" \\ \n \t \b) and continuation lines are
// git's; # and ; outside quotes start a comment.
//
// A git-lfs custom transfer agent runs its path with its args appended:
// the two are read as one command line (args -c '…' to path sh is the
// code). A line git would refuse is a syntax error (scan-unparsable): guard
// does not guess what a config it cannot read runs.
func (x *extractor) gitConfig() error {
	// lfs.customtransfer.NAME's path and args, by NAME, in file order.
	type agent struct{ path, args *builder }
	agents := map[string]*agent{}
	var order []string
	err := gitSettings(x.src, func(section, sub, key string, b *builder, hadBang bool) {
		cmd, bang := gitCommandOf(section, sub, key)
		if !cmd {
			return
		}
		if section == "lfs" && strings.HasPrefix(sub, "customtransfer.") && (key == "path" || key == "args") {
			a := agents[sub]
			if a == nil {
				a = &agent{}
				agents[sub] = a
				order = append(order, sub)
			}
			if key == "path" {
				a.path = b
			} else {
				a.args = b
			}
			return
		}
		if key == "args" {
			return // another lfs section's args: not a command line
		}
		text := b.b.String()
		switch {
		case bang && !hadBang:
			if key != "helper" || !strings.Contains(text, "/") {
				return // a git subcommand, an update mode, a helper's name
			}
			// A credential helper named by its path runs that program.
		case slices.Contains(gitBools, strings.ToLower(strings.TrimSpace(text))):
			return
		}
		x.emit(GitConfig, x.dir, b)
	})
	for _, name := range order {
		a := agents[name]
		var line builder
		if a.path != nil {
			line.append(a.path)
		}
		if a.args != nil && a.args.len() > 0 {
			if a.path == nil {
				// Arguments with no program here: the agent's path is
				// set elsewhere; they are still what it runs with.
				line.put("git-lfs-transfer-agent", a.args.segs[0].src)
			}
			line.put(" ", a.args.segs[0].src)
			line.append(a.args)
		}
		x.emit(GitConfig, x.dir, &line)
	}
	x.inFileOrder() // the agents with the rest
	if se, ok := err.(*SyntaxError); ok {
		se.Path = x.name
	}
	return err
}

// gitIncludes are the configuration files (from the root) a git
// configuration includes: include.path and includeIf.*.path, relative to
// its directory. git reads them as configuration whatever their names.
func gitIncludes(name string, src []byte) []string {
	var paths []string
	// A line git refuses ends the file for git too; the including file's
	// own read reports it.
	_ = gitSettings(src, func(section, sub, key string, b *builder, _ bool) {
		if key == "path" && (section == "include" || section == "includeif") {
			paths = append(paths, b.b.String())
		}
	})
	return repoPaths(name, paths)
}

// gitSettings calls f with each setting of a git configuration file, its
// value read as git reads it (a leading '!' dropped when gitCommandOf says
// the setting takes one, and hadBang set).
//
// As git does, a setting may follow its section header on the same line
// ([core] fsmonitor = …). A line git refuses (a header without its ], a
// key that does not start with a letter, a key followed by anything but
// =) ends the reading with a *SyntaxError: git stops there too, and what
// guard cannot read it does not call safe.
func gitSettings(src []byte, f func(section, sub, key string, b *builder, hadBang bool)) error {
	var section, sub string
	bad := func(at int, what string) error {
		li := newLineIndex(src)
		return &SyntaxError{Pos: li.position(at), Msg: "git configuration: " + what}
	}
	start := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		start = 3 // git skips a UTF-8 byte order mark
	}
	for i := start; i < len(src); {
		// One logical line, from i.
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
			i++
		}
		if i >= len(src) {
			break
		}
		switch c := src[i]; {
		case c == '#' || c == ';':
			i = lineEnd(src, i)
			continue
		case c == '[':
			var ok bool
			section, sub, i, ok = gitHeader(src, i)
			if !ok {
				return bad(i, "a section header git cannot read")
			}
			continue // a setting may follow on the same line
		}
		start := i
		for i < len(src) && (isAlnum(src[i]) || src[i] == '-') {
			i++
		}
		key := strings.ToLower(string(src[start:i]))
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
			i++
		}
		if key == "" || !(key[0] >= 'a' && key[0] <= 'z') {
			return bad(start, "a line that is neither a section, a setting nor a comment")
		}
		if i >= len(src) || src[i] == '\n' || src[i] == '#' || src[i] == ';' {
			i = lineEnd(src, i)
			continue // a key set to true
		}
		if src[i] != '=' {
			return bad(i, fmt.Sprintf("the key %q is followed by something other than =", key))
		}
		i++
		_, bang := gitCommandOf(section, sub, key)
		var b builder
		var hadBang bool
		i, hadBang = gitValue(src, i, &b, bang)
		f(section, sub, key, &b, hadBang)
	}
	return nil
}

// gitHeader reads the section header at src[i] ('[') as git does: a name
// of letters, digits, - and . ("core", "branch.main", lower-cased; the
// part after the first dot is the old form's subsection), optionally
// white space and a quoted, case-sensitive subsection (\ escapes the next
// character; a ] inside the quotes is part of it), then ]. next is just
// after the ]; ok is false for a header git refuses, next then where.
func gitHeader(src []byte, i int) (section, sub string, next int, ok bool) {
	i++ // [
	start := i
	for i < len(src) && (isAlnum(src[i]) || src[i] == '-' || src[i] == '.') {
		i++
	}
	name := strings.ToLower(string(src[start:i]))
	if i < len(src) && src[i] == ']' {
		section, sub, _ = strings.Cut(name, ".")
		return section, sub, i + 1, name != ""
	}
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if name == "" || strings.Contains(name, ".") || i >= len(src) || src[i] != '"' {
		return "", "", i, false
	}
	var b strings.Builder
	for i++; ; i++ {
		switch {
		case i >= len(src) || src[i] == '\n':
			return "", "", i, false
		case src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n':
			i++
		case src[i] == '"':
			if i+1 >= len(src) || src[i+1] != ']' {
				return "", "", i, false
			}
			return name, b.String(), i + 2, true
		}
		b.WriteByte(src[i])
	}
}

// gitBools are the values git reads as booleans (and an empty one).
var gitBools = []string{"", "true", "false", "yes", "no", "on", "off", "1", "0"}

// gitValue reads a value from src[i:] into b, as git does, and returns
// where the next line starts. With dropBang, a '!' before anything else is
// left out of b, and bang says there was one.
func gitValue(src []byte, i int, b *builder, dropBang bool) (next int, bang bool) {
	quoted := false
	spaces := -1 // where unquoted trailing white space started in b
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			return i + 1, bang
		case dropBang && !bang && b.len() == 0 && c == '!':
			bang = true
			i++
			continue
		case c == '\r' && i+1 < len(src) && src[i+1] == '\n':
			i++
			continue
		case !quoted && (c == '#' || c == ';'):
			if spaces >= 0 {
				b.truncate(spaces)
			}
			return lineEnd(src, i), bang
		case c == '"':
			quoted = !quoted
			spaces = -1
			i++
			continue
		case c == '\\' && i+1 < len(src):
			e := src[i+1]
			if e == '\n' {
				i += 2 // a continuation line
				continue
			}
			// \n, \t, \b, and any other character as itself.
			if k := strings.IndexByte("ntb", e); k >= 0 {
				b.put("\n\t\b"[k:k+1], i)
			} else {
				b.put(string(e), i)
			}
			spaces = -1
			i += 2
			continue
		case !quoted && (c == ' ' || c == '\t'):
			if b.len() == 0 {
				i++
				continue // leading white space
			}
			if spaces < 0 {
				spaces = b.len()
			}
		default:
			spaces = -1
		}
		b.copy(src, i, i+1)
		i++
	}
	if spaces >= 0 {
		b.truncate(spaces)
	}
	return i, bang
}

// lineEnd is where the line holding src[i] ends (its newline, or the end).
func lineEnd(src []byte, i int) int {
	for i < len(src) && src[i] != '\n' {
		i++
	}
	return i
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
