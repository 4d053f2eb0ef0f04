package profile

import "strings"

// decodePrompt applies the backslash escapes bash decodes in a prompt
// string (PS0–PS4, ${x@P}) before it expands the result: an octal escape
// becomes its character unquoted, so '\044(cmd)' is a command
// substitution by the time the shell expands it, and '\140cmd\140' a
// backquoted one. \\ becomes one backslash, which then quotes the next
// character as it does in the expansion. Every other escape is left as
// it is: the shell either keeps it, quotes what it inserts (\w, \u, \D{…})
// or, for \$, inserts a quoted '$' (or '#' for root).
func decodePrompt(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == '\\':
			out.WriteByte('\\')
			i++
		case c >= '0' && c <= '7':
			n, j := 0, i+1
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			out.WriteByte(byte(n))
			i = j - 1
		default:
			out.WriteByte('\\')
		}
	}
	return out.String()
}
