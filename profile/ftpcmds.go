package profile

import (
	"path"
	"strings"
	"sync"
)

// The command languages of file-transfer clients (ftp, sftp, lftp,
// smbclient), read from their input, a batch file or -c/-e: besides !CMD,
// put sends a local file (a key, a token) to the other side, get and
// mirror write what the other side sends into a local file or directory
// (~/.bashrc, ~/.config/autostart), lcd changes where. Each is priced as
// the read or write it is; the transfer itself is the program's row.

// ftpVerbs are what a transfer command does with its local files, by
// the command's name (built on first use: nothing at init).
var ftpVerbs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"put": "send", "mput": "send", "reput": "send", "append": "send", "send": "send",
		"get": "recv", "mget": "recv", "reget": "recv", "recv": "recv", "newer": "recv", "pget": "recv",
		"mirror": "mirror", "lcd": "lcd",
	}
})

func ftpVerb(w string) string { return ftpVerbs()[w] }

// transferCommand reviews one line of a transfer client's commands
// (b.lcds: the local directory each call's lcd set).
func (b *builder) transferCommand(c *call, line field) {
	w := strings.Fields(line.val)
	if len(w) == 0 {
		return
	}
	verb := ftpVerb(strings.ToLower(strings.TrimPrefix(w[0], "-")))
	var args []string
	out, base := "", ""
	for i := 1; i < len(w); i++ {
		switch {
		case w[i] == "-o" && i+1 < len(w): // lftp get -o LOCAL
			out = w[i+1]
			i++
		case (w[i] == "-O" || w[i] == "--target-directory") && i+1 < len(w): // lftp get/mget/mirror -O BASE
			base = b.localWord(c, w[i+1])
			i++
		case strings.HasPrefix(w[i], "--target-directory="):
			base = b.localWord(c, strings.TrimPrefix(w[i], "--target-directory="))
		case strings.HasPrefix(w[i], "-"):
		default:
			args = append(args, b.localWord(c, w[i]))
		}
	}
	local := func(p string) field {
		f := staticField(p, span{line.pos, line.end})
		if d := b.lcds[c]; d != "" && !strings.HasPrefix(p, "/") {
			f.val = path.Join(d, p)
		}
		f.glob = strings.ContainsAny(f.val, "*?[")
		return f
	}
	switch verb {
	case "lcd":
		if len(args) > 0 {
			if b.lcds == nil {
				b.lcds = map[*call]string{}
			}
			b.lcds[c] = local(args[0]).val
		}
	case "send":
		if len(args) > 0 {
			b.pathEffect(CapRead, "net.send-file", c.prog, local(args[0]), c.st, c.sp, "reads, to send,")
		}
	case "recv", "mirror":
		if base == "" || strings.Contains(line.val, " -R") || strings.Contains(line.val, " --reverse") {
			break
		}
		// -O BASE: what it fetches lands in BASE under the remote names
		// (any name for a mirror or a pattern).
		for _, a := range args {
			if verb == "mirror" || strings.ContainsAny(a, "*?[") {
				b.writeInto(c, local(base))
				break
			}
			b.pathEffect(CapWrite, "net.download", c.prog, local(path.Join(base, path.Base(a))), c.st, c.sp, "downloads into")
		}
		if len(args) == 0 {
			b.writeInto(c, local(base))
		}
		return
	}
	switch verb {
	case "recv":
		switch {
		case out != "":
			b.pathEffect(CapWrite, "net.download", c.prog, local(b.localWord(c, out)), c.st, c.sp, "downloads into")
		case len(args) >= 2 && strings.ToLower(w[0]) != "mget":
			b.pathEffect(CapWrite, "net.download", c.prog, local(args[1]), c.st, c.sp, "downloads into")
		case len(args) >= 1:
			b.pathEffect(CapWrite, "net.download", c.prog, local(path.Base(args[0])), c.st, c.sp, "downloads into")
		}
	case "mirror":
		reverse := strings.Contains(line.val, " -R") || strings.Contains(line.val, " --reverse")
		switch {
		case reverse && len(args) > 0:
			b.pathEffect(CapRead, "net.send-file", c.prog, local(args[0]), c.st, c.sp, "reads, to send,")
		case !reverse && len(args) >= 2:
			b.writeInto(c, local(args[1]))
		case !reverse && len(args) == 1:
			b.writeInto(c, local(path.Base(args[0])))
		}
	}
}

// localWord is a local file name as the client takes it: ~ is your home.
func (b *builder) localWord(c *call, v string) string {
	if home := c.st.vars["HOME"]; home != nil && (v == "~" || strings.HasPrefix(v, "~/")) {
		return *home + v[1:]
	}
	return v
}
