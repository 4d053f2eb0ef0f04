package profile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// echo and printf are emulated as bash runs them, so their output, piped
// into a shell or used as a command name, is reviewed as the text it is
// (principle 10). A format guard does not emulate makes the output
// unknown.

// hEcho: the output of echo and printf with static arguments is known
// text (so `echo 'rm -rf ~' | sh` is reviewed as rm -rf ~).
func hEcho(b *builder, c *call) stream {
	fs := c.fs
	// printf -v VAR FORMAT ARGS assigns instead of printing.
	var target *field
	if c.prog == "printf" && len(fs) >= 2 && fs[0].known && fs[0].val == "-v" {
		target, fs = &fs[1], fs[2:]
	}
	var args []string
	for _, f := range fs {
		if !f.known {
			if target != nil {
				b.builtinSet(c, *target, nil, f.taint)
				return stream{}
			}
			return worse(stream{kind: streamUnknown}, f.taint)
		}
		args = append(args, f.val)
	}
	if c.prog == "echo" {
		return stream{kind: streamText, text: echoOut(args)}
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	out, ok := printfOut(args)
	if target != nil {
		if ok {
			b.builtinSet(c, *target, &out, stream{})
		} else {
			b.builtinSet(c, *target, nil, stream{})
		}
		return stream{}
	}
	if !ok {
		return stream{kind: streamUnknown}
	}
	return stream{kind: streamText, text: out}
}

// hPwd: pwd prints the directory the line is in, when guard knows it
// (docker run -v "$(pwd)":/app mounts the workspace, not an unknown path).
// pwd -P prints it with symbolic links resolved, which guard does not
// know.
func hPwd(b *builder, c *call) stream {
	for _, f := range c.fs {
		if !f.known || f.val != "-L" {
			return stream{kind: streamUnknown}
		}
	}
	if c.st.cwd == "" || strings.Contains(c.st.cwd, anyParts) {
		return stream{kind: streamUnknown}
	}
	return stream{kind: streamText, text: c.st.cwd + "\n"}
}

// echoOut is bash's echo: leading words made only of n, e and E after a
// dash are options; -e turns escapes on.
func echoOut(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 {
		a := args[0]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, ch := range a[1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		s, stop = unescape(s, true)
		if stop {
			return s
		}
	}
	if newline {
		s += "\n"
	}
	return s
}

// unescape expands backslash escapes: echo -e and %b (echo: \0NNN octal,
// \c stops all output) or a printf format (\NNN octal).
func unescape(s string, echo bool) (string, bool) {
	return unescapeMode(s, echo, false)
}

// unescapeMode: pctB is printf's %b, which also takes \NNN without the
// leading 0.
func unescapeMode(s string, echo, pctB bool) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'c':
			if echo {
				return sb.String(), true
			}
			sb.WriteString(`\c`)
		case 'e', 'E':
			sb.WriteByte(0x1b)
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte('\v')
		case '\\':
			sb.WriteByte('\\')
		case '"', '\'', '?':
			if echo && ch != '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteByte(ch)
		case 'x':
			n, j := digits(s, i+1, 2, 16)
			if j == i+1 {
				sb.WriteString(`\x`)
				continue
			}
			sb.WriteByte(byte(n))
			i = j - 1
		case 'u', 'U':
			max := 4
			if ch == 'U' {
				max = 8
			}
			n, j := digits(s, i+1, max, 16)
			if j == i+1 {
				sb.WriteByte('\\')
				sb.WriteByte(ch)
				continue
			}
			sb.WriteRune(rune(n))
			i = j - 1
		default:
			if ch >= '0' && ch <= '7' {
				start, max := i, 3
				if echo && !(pctB && ch != '0') {
					// echo: \0 then up to three octal digits.
					if ch != '0' {
						sb.WriteByte('\\')
						sb.WriteByte(ch)
						continue
					}
					start = i + 1
				}
				n, j := digits(s, start, max, 8)
				sb.WriteByte(byte(n))
				i = j - 1
				continue
			}
			sb.WriteByte('\\')
			sb.WriteByte(ch)
		}
	}
	return sb.String(), false
}

// digits reads up to max digits in base from s[i:].
func digits(s string, i, max, base int) (int, int) {
	n, j := 0, i
	for j < len(s) && j-i < max {
		d, err := strconv.ParseUint(s[j:j+1], base, 8)
		if err != nil {
			break
		}
		n = n*base + int(d)
		j++
	}
	return n, j
}

// maxEmulated bounds the output guard builds for echo and printf.
const maxEmulated = 1 << 20

// printfOut is bash's printf FORMAT ARGS: the format is reused while
// arguments remain. It reports false for a conversion it does not emulate.
func printfOut(args []string) (string, bool) {
	if len(args) == 0 {
		return "", true
	}
	format, args := args[0], args[1:]
	var sb strings.Builder
	for pass := 0; ; pass++ {
		used := 0
		next := func() (string, bool) {
			if used < len(args) {
				used++
				return args[used-1], true
			}
			return "", false
		}
		for i := 0; i < len(format); i++ {
			ch := format[i]
			if ch == '\\' {
				j := i + 1
				for j < len(format) && j-i <= 3 && format[j] >= '0' && format[j] <= '7' {
					j++
				}
				if j == i+1 {
					j = i + 2
					if j <= len(format) && (format[i+1] == 'x' || format[i+1] == 'u' || format[i+1] == 'U') {
						for j < len(format) && j-i < 10 && strings.IndexByte("0123456789abcdefABCDEF", format[j]) >= 0 {
							j++
						}
					}
				}
				j = min(j, len(format))
				u, stop := unescape(format[i:j], false)
				sb.WriteString(u)
				if stop {
					return sb.String(), true
				}
				i = j - 1
				continue
			}
			if ch != '%' {
				sb.WriteByte(ch)
				continue
			}
			// %[flags][width][.precision]conv
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
				j++
			}
			spec := format[i:j]
			for _, part := range []string{"width", "precision"} {
				if part == "precision" {
					if j >= len(format) || format[j] != '.' {
						break
					}
					spec += "."
					j++
				}
				if j < len(format) && format[j] == '*' {
					a, _ := next()
					n, err := strconv.Atoi(a)
					if err != nil && a != "" || n > 9999 || n < -9999 {
						// A width or precision that large is not emulated
						// (it would only build a huge string).
						return "", false
					}
					spec += strconv.Itoa(n)
					j++
					continue
				}
				k := j
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				if j-k > 4 {
					return "", false
				}
				spec += format[k:j]
			}
			if j >= len(format) {
				return "", false
			}
			conv := format[j]
			i = j
			switch conv {
			case '%':
				sb.WriteByte('%')
			case 's':
				a, _ := next()
				sb.WriteString(fmt.Sprintf(spec+"s", a))
			case 'b':
				a, _ := next()
				u, stop := unescapeMode(a, true, true)
				sb.WriteString(fmt.Sprintf(spec+"s", u))
				if stop {
					return sb.String(), true
				}
			case 'c':
				a, _ := next()
				if a != "" {
					r, _ := utf8.DecodeRuneInString(a)
					sb.WriteString(fmt.Sprintf(spec+"s", string(r)))
				} else {
					sb.WriteString(fmt.Sprintf(spec+"s", ""))
				}
			case 'd', 'i', 'u', 'x', 'X', 'o':
				a, _ := next()
				n, ok := printfInt(a)
				if !ok {
					return "", false
				}
				v := map[byte]string{'d': "d", 'i': "d", 'u': "d", 'x': "x", 'X': "X", 'o': "o"}[conv]
				sb.WriteString(fmt.Sprintf(spec+v, n))
			default:
				return "", false
			}
		}
		if sb.Len() > maxEmulated {
			return "", false
		}
		if used == 0 || used >= len(args) {
			break
		}
		args = args[used:]
		if pass > 1000 {
			return "", false
		}
	}
	return sb.String(), true
}

// printfInt reads a printf integer argument: decimal, 0x hex, 0 octal,
// or 'c (the character's code).
func printfInt(a string) (int64, bool) {
	if a == "" {
		return 0, true
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) < 2 {
			return 0, true
		}
		r, _ := utf8.DecodeRuneInString(a[1:])
		return int64(r), true
	}
	n, err := strconv.ParseInt(a, 0, 64)
	return n, err == nil
}
