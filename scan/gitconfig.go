package scan

import (
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

var gitCommands = []gitCommand{
	{"alias", "", "*", true},
	{"submodule", "*", "update", true},
	{"credential", "", "helper", true},
	{"credential", "*", "helper", true},
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
func (x *extractor) gitConfig() {
	gitSettings(x.src, func(section, sub, key string, b *builder, hadBang bool) {
		cmd, bang := gitCommandOf(section, sub, key)
		if !cmd {
			return
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
}

// gitIncludes are the configuration files (from the root) a git
// configuration includes: include.path and includeIf.*.path, relative to
// its directory. git reads them as configuration whatever their names.
func gitIncludes(name string, src []byte) []string {
	var paths []string
	gitSettings(src, func(section, sub, key string, b *builder, _ bool) {
		if key == "path" && (section == "include" || section == "includeif") {
			paths = append(paths, b.b.String())
		}
	})
	return repoPaths(name, paths)
}

// gitSettings calls f with each setting of a git configuration file, its
// value read as git reads it (a leading '!' dropped when gitCommandOf says
// the setting takes one, and hadBang set).
func gitSettings(src []byte, f func(section, sub, key string, b *builder, hadBang bool)) {
	var section, sub string
	for i := 0; i < len(src); {
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
			end := lineEnd(src, i)
			section, sub = gitSection(string(src[i+1 : end]))
			i = end
			continue
		}
		start := i
		for i < len(src) && (isAlnum(src[i]) || src[i] == '-') {
			i++
		}
		key := strings.ToLower(string(src[start:i]))
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if key == "" || i >= len(src) || src[i] != '=' {
			i = lineEnd(src, i)
			continue // a line guard cannot read, or a key set to true
		}
		i++
		_, bang := gitCommandOf(section, sub, key)
		var b builder
		var hadBang bool
		i, hadBang = gitValue(src, i, &b, bang)
		f(section, sub, key, &b, hadBang)
	}
}

// gitSection reads a section header's inside ("core]", `filter "lfs"]`,
// "branch.main]") as its lower-case section and its subsection ("" for
// none; subsections are case-sensitive, except the old dotted form).
func gitSection(h string) (section, sub string) {
	h, _, _ = strings.Cut(h, "]")
	name, rest, quoted := strings.Cut(h, `"`)
	if quoted {
		var b strings.Builder
		for i := 0; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			b.WriteByte(rest[i])
		}
		return strings.ToLower(strings.TrimSpace(name)), b.String()
	}
	section, sub, _ = strings.Cut(strings.TrimSpace(h), ".")
	return strings.ToLower(section), strings.ToLower(sub)
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
