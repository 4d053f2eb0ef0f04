package profile

import (
	"regexp"
	"strings"
	"sync"
)

// clientFileRule is a database client's way to write, read or load a
// local file from the text it runs: a meta-command at the start of a line
// (sqlite3 .output FILE, psql \o FILE, mysql tee FILE) or SQL the client
// itself carries out (sqlite3 writefile(), duckdb COPY … TO, mysql LOAD
// DATA LOCAL INFILE). The file is priced where it lies, as a redirection
// would be: ~/.bashrc is persistence, ~/.ssh/id_rsa a secret.
type clientFileRule struct {
	progs string // the clients that carry it out, space-separated
	re    *regexp.Regexp
	cap   Cap // CapWrite, CapRead, or CapDynamic for native code
	rule  string
	verb  string
	// operand picks the file from a meta-command's words after the name
	// ("first" or "last", options skipped); "" when re's group 1 is it.
	operand string
}

// clientFileRules is the table. Meta-commands are matched per line,
// SQL anywhere in the text.
var clientFileRules = sync.OnceValue(func() []clientFileRule {
	meta := func(progs, names string, c Cap, rule, verb, operand string) clientFileRule {
		return clientFileRule{progs: progs, re: regexp.MustCompile(`^\s*(?:` + names + `)(?:\s+(.*))?$`), cap: c, rule: rule, verb: verb, operand: operand}
	}
	sql := func(progs, expr string, c Cap, rule, verb string) clientFileRule {
		return clientFileRule{progs: progs, re: regexp.MustCompile(`(?is)` + expr), cap: c, rule: rule, verb: verb}
	}
	const lite = "sqlite3 duckdb"
	return []clientFileRule{
		// sqlite3 and duckdb dot-commands: output and logs, database
		// copies, a database file opened (created) anywhere, imports.
		meta(lite, `\.output|\.once|\.log|\.backup|\.save|\.open`, CapWrite, "db.file-write", "writes", "last"),
		meta(lite, `\.import`, CapRead, "db.file-read", "reads", "first"),
		// psql: query output, the query buffer, the history (psql expands ~).
		meta("psql", `\\o|\\out|\\g|\\w|\\write|\\s`, CapWrite, "db.file-write", "writes", "first"),
		meta("psql", `\\i|\\include|\\ir|\\include_relative`, CapRead, "db.file-read", "reads", "first"),
		// mysql and mariadb: tee appends everything printed to a file.
		meta("mysql mariadb", `tee|\\T`, CapWrite, "db.file-write", "writes", "first"),
		meta("mysql mariadb", `source|\\\.`, CapRead, "db.file-read", "reads", "first"),
		// psql \copy … TO|FROM 'FILE' is the client's own file.
		sql("psql", `(?m)^\s*\\copy\b[^\n]*?\bto\s+'([^'\n]*)'`, CapWrite, "db.file-write", "writes"),
		sql("psql", `(?m)^\s*\\copy\b[^\n]*?\bfrom\s+'([^'\n]*)'`, CapRead, "db.file-read", "reads"),
		// SQL the client runs on the local machine.
		sql("sqlite3", `\bwritefile\s*\(\s*'([^']*)'`, CapWrite, "db.file-write", "writes"),
		sql("sqlite3", `\breadfile\s*\(\s*'([^']*)'`, CapRead, "db.file-read", "reads"),
		sql(lite, `\battach\s+(?:database\s+)?(?:if\s+not\s+exists\s+)?'([^']*)'`, CapWrite, "db.file-write", "opens (creating it)"),
		sql(lite, `\bvacuum\s+(?:\w+\s+)?into\s+'([^']*)'`, CapWrite, "db.file-write", "writes"),
		sql("duckdb", `\bcopy\b[^;]*?\bto\s+'([^']*)'`, CapWrite, "db.file-write", "writes"),
		sql("duckdb", `\bexport\s+database\s+'([^']*)'`, CapWrite, "db.file-write", "writes"),
		sql("duckdb", `\bread_(?:text|blob|csv|csv_auto|json|json_auto|json_objects|ndjson|parquet)\s*\(\s*'([^']*)'`, CapRead, "db.file-read", "reads"),
		sql("duckdb", `\bfrom\s+'([^']*)'`, CapRead, "db.file-read", "reads"),
		sql("mysql mariadb", `\bload\s+data\s+local\s+infile\s+'([^']*)'`, CapRead, "db.file-read", "reads, and sends to the server,"),
		// sqlite3's edit(TEXT, EDITOR) runs EDITOR on a temporary file:
		// a command line (CapExec: group 1 is reviewed as one).
		sql("sqlite3", `\bedit\s*\([^,)]*,\s*'([^']*)'`, CapExec, "db.editor", ""),
		// Native extensions: code guard cannot see.
		sql("sqlite3", `\bload_extension\s*\(`, CapDynamic, "exec.dynamic-code", ""),
		sql("duckdb", `\bload\s+'`, CapDynamic, "exec.dynamic-code", ""),
	}
})

// clientFiles prices the files a database client's text writes, reads or
// loads (see clientFileRules).
func (b *builder) clientFiles(c *call, t field) {
	for _, r := range clientFileRules() {
		if !strings.Contains(" "+r.progs+" ", " "+c.prog+" ") {
			continue
		}
		var files []string
		if r.operand == "" {
			for _, m := range r.re.FindAllStringSubmatch(t.val, -1) {
				if len(m) < 2 {
					files = append(files, "")
					continue
				}
				files = append(files, m[1])
			}
		} else {
			for _, line := range strings.Split(t.val, "\n") {
				m := r.re.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				if f, ok := clientOperand(m[1], r.operand); ok {
					files = append(files, f)
				}
			}
		}
		for _, f := range files {
			if r.cap == CapDynamic {
				b.add(Effect{Cap: CapDynamic, Rule: r.rule, Program: c.prog, Target: shorten(t.val), Msg: "loads a native extension into " + c.prog + ", code guard cannot review"}, c.sp)
				continue
			}
			if r.cap == CapExec {
				b.add(Effect{Cap: CapExec, Rule: r.rule, Program: c.prog, Target: shorten(f), Msg: c.prog + " runs " + shorten(f) + " as an editor (reviewed as a command line)"}, c.sp)
				b.text(f, c.st.clone(), stream{}, c.prog+" edit()", c.sp)
				continue
			}
			if c.prog == "psql" && (f == "~" || strings.HasPrefix(f, "~/")) && b.ctx.Home != "" {
				f = b.ctx.Home + f[1:]
			}
			b.pathEffect(r.cap, r.rule, c.prog, staticField(f, c.sp), c.st, c.sp, c.prog+" "+r.verb)
		}
	}
}

// clientOperand picks the file operand of a meta-command from the words
// after its name (split as xargs splits, quotes removed): the first or
// the last word that is not an option. Words that name no file (on, off,
// stdout, a pipe) give none.
func clientOperand(rest, which string) (string, bool) {
	var words []string
	for _, w := range xargsWords(rest) {
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return "", false
	}
	w := words[0]
	if which == "last" {
		w = words[len(words)-1]
	}
	switch strings.ToLower(w) {
	case "", "on", "off", "stdout", "stderr", "stdin", "-":
		return "", false
	}
	if strings.HasPrefix(w, "|") {
		return "", false // a pipe: clientEscapes reviews its command
	}
	return w, true
}
