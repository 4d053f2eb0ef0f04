package profile

import (
	"slices"
	"strings"
	"sync"
)

// The command table: what guard knows about each program. A new program is
// a new entry; a new behaviour is a new row with its own rule id. Rule ids
// are stable: policies, allowances and audit records refer to them.

// specs is built on first use (a thousand small allocations that a guard
// process which reviews nothing, like the sandbox helper, never needs).
var (
	specsOnce sync.Once
	specsMap  map[string]*spec
)

func specTable() map[string]*spec {
	specsOnce.Do(func() { specsMap = table() })
	return specsMap
}

// Shorthands for common row shapes.
func reader(id string, val string) *spec {
	return &spec{val: val, rows: []row{{id, CapRead, "", "ops", "reads"}}, filter: true}
}

func readerAfterPattern(id string, val string) *spec {
	// grep PATTERN FILE…; with -e/-f the pattern is an option.
	return &spec{val: val, filter: true, rows: []row{
		{id, CapRead, "-e|--regexp|-f|--file", "ops", "reads"},
		{id, CapRead, "!-e !--regexp !-f !--file", "ops1", "reads"},
	}}
}

func plain() *spec { return &spec{filter: true} }

// roffVal are groff's, troff's and nroff's options that take a value.
const roffVal = "-T -m -M -F -I -P -d -f -n -o -r -w -W -L -K -D"

// hardLinkVerb says what a hard link does to the file it links to.
const hardLinkVerb = "hard-links (a write to the link writes it)"

// hContentsInto: cp -rT SRC DEST and mv -T SRC DEST make DEST what SRC
// is: a directory's contents land in DEST under their own names (as cp
// -r SRC/. DEST does), which the line does not show.
func hContentsInto(b *builder, c *call) stream {
	if !c.a.has("-T", "--no-target-directory") || len(c.a.ops) != 2 || !c.a.ops[1].known {
		return stream{}
	}
	if dp, ok := b.ctx.Resolve(c.st.cwd, c.a.ops[1].val); ok {
		src := c.a.ops[0]
		src.val = strings.TrimSuffix(src.val, "/") + "/."
		b.intoHeld(c, dp, []field{src}, false)
	}
	return stream{}
}

// hCopyHardLinks: cp -l/--link makes hard links, not copies: each source
// is then written by a write to its new name. A word guard cannot see
// that may be an option may be -l (cp $L ~/.bashrc x; echo y >> x).
func hCopyHardLinks(b *builder, c *call) stream {
	given := c.a.has("-l", "--link")
	srcs := c.a.ops
	if !given {
		// The word may be -l only if what is left still names a source
		// and a destination.
		unseen := slices.ContainsFunc(c.fs, func(f field) bool { return !f.known && b.mayBeOption(f, c.st) })
		srcs = slices.DeleteFunc(slices.Clone(srcs), func(f field) bool { return !f.known })
		if !unseen || len(srcs) < 2 {
			return stream{}
		}
	}
	if len(c.a.values("-t", "--target-directory")) == 0 && len(srcs) > 0 {
		srcs = srcs[:len(srcs)-1]
	}
	for _, f := range srcs {
		b.pathEffect(CapWrite, "fs.link", c.prog, f, c.st, c.sp, hardLinkVerb)
	}
	return stream{}
}

func whole(id string, c Cap, msg string) *spec {
	return &spec{rows: []row{{id, c, "", "", msg}}}
}

func subs(def *spec, m map[string]*spec) *spec {
	if def == nil {
		def = &spec{}
	}
	def.subs = m
	return def
}

// baseTable: shell builtins, readers, writers, interpreters.
func baseTable() map[string]*spec {
	return map[string]*spec{
		// Shell builtins and plain data tools: no effect beyond reading.
		"echo": {fn: hEcho}, "printf": {fn: hEcho, val: "-v"}, "true": plain(), "false": plain(), ":": plain(),
		"test": plain(), "[": plain(), "pwd": {fn: hPwd}, "which": plain(), "type": plain(), "whereis": plain(),
		"uname": plain(), "whoami": plain(), "id": plain(),
		// date -s and hostname NAME set the clock and the host name; date
		// -f reads dates from a file (and prints the lines it cannot parse).
		"date": {val: "-d -f -r -s --date --file --reference --set", filter: true, rows: []row{
			{"fs.read", CapRead, "", "-f|--file", "reads dates from"}, {"sys.clock", CapSystem, "-s|--set", "", "sets the system clock"}}},
		"hostname": {val: "-F --file", filter: true, rows: []row{{"sys.config", CapSystem, "op0", "", "sets the host name"}, {"sys.config", CapSystem, "-F|--file", "", "sets the host name"}}},
		"basename": plain(), "dirname": plain(), "seq": plain(), "sleep": plain(), "yes": plain(),
		"nproc": plain(), "free": plain(), "uptime": plain(), "ps": {val: "-p -C -u -U -g -G -o -O -t -q -k --pid --ppid --sort --format --user --group", filter: true}, "top": plain(), "htop": plain(),
		"df": plain(), "lsblk": plain(), "lscpu": plain(), "lsof": plain(), "help": plain(),
		// man -P/--pager runs its pager as a command line (like MANPAGER).
		"man": {filter: true, val: "-P --pager -M --manpath -L --locale -S -s --sections -m --systems -C --config-file -E --encoding -R --recode -H --html", fn: hPagerOption("-P", "--pager", "-H", "--html")},
		"tty": plain(), "locale": plain(), "getconf": plain(), "expr": plain(), "bc": plain(), "clear": plain(),
		"read": {fn: hRead, val: "-p -d -n -N -t -u -a"},
		// mapfile ARRAY fills ARRAY from its input; -C CALLBACK is code
		// the shell evaluates every -c lines.
		"mapfile": {fn: hMapfile, val: "-d -n -O -s -u -C -c"}, "readarray": {fn: hMapfile, val: "-d -n -O -s -u -C -c"},
		// Printing the environment is A: the sandbox never passes
		// secret-looking variables, so there is nothing to reveal.
		"set":      {fn: hSet, rows: []row{{"env.print-all", CapRead, "noops !-e !-u !-x !-o !-f !-v", "", "prints all shell variables"}}},
		"printenv": {fn: hPrintenv, rows: []row{{"env.print-all", CapRead, "noops", "", "prints all environment variables"}, {"env.print-secret", CapRead, `op~(token|secret|key|pass|credential)`, "", "prints an environment variable (the sandbox does not pass secret-looking ones)"}}},
		"alias":    {rows: []row{{"shell.alias", CapEnvHijack, "op~=", "", "defines an alias, changing what a command name runs in this shell"}}, fn: hAlias},
		"unalias":  {fn: hUnalias},
		"enable":   {val: "-f", rows: []row{{"exec.dynamic-code", CapDynamic, "-f", "", "loads a shared library into the shell (enable -f): native code guard cannot review"}}},
		"hash":     plain(), "shopt": {fn: hShopt}, "ulimit": plain(), "umask": plain(), "wait": {val: "-p"}, "jobs": plain(),
		"trap":  {rows: []row{{"shell.trap", CapDynamic, "ops", "", "sets a trap: code the shell runs later on a signal or exit"}}},
		"unset": {fn: hUnset},
		"shift": {fn: hShift}, "return": plain(), "exit": plain(), "break": plain(), "continue": plain(), "getopts": {fn: hGetopts},
		"cd": {fn: hCd}, "pushd": {fn: hPushd}, "popd": {fn: hPopd}, "dirs": {fn: hDirs},

		// Readers.
		"cat": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: hCat}, "less": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: hLess}, "more": reader("fs.read", ""),
		"head": reader("fs.read", "-n -c"), "tail": reader("fs.read", "-n -c -s --pid"), "wc": reader("fs.read", ""),
		"ls": reader("fs.read", "-I -w --hide --ignore --color --format --sort --time-style"), "stat": reader("fs.read", "-c --format --printf"),
		"file": reader("fs.read", "-m -f"), "diff": reader("fs.read", "-U -C -x -X --label"), "cmp": reader("fs.read", ""),
		"sort": {val: "-k -t -S -T -o --output --compress-program", fn: hProgramOption("--compress-program"), filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}, {"fs.write", CapWrite, "", "-o|--output", "writes"}}},
		// xmllint: --shell reads a command language from stdin whose
		// write and save commands write any file.
		"xmllint": {val: "-o --output --xpath --path --encode --maxmem --pattern --schema --relaxng --dtdvalid --dtdvalidfpi --schematron --pretty --xmlout", filter: true, rows: []row{
			{"fs.read", CapRead, "", "ops", "reads"}, {"fs.write", CapWrite, "", "-o|--output", "writes"},
			{"exec.dynamic-code", CapDynamic, "--shell", "", "runs xmllint's shell, whose commands (read from its input) can write any file"}}},
		"uniq": reader("fs.read", "-f -s -w"), "cut": reader("fs.read", "-d -f -b -c"), "tr": plain(), "jq": readerAfterPattern("fs.read", "--arg --argjson --slurpfile --rawfile --indent -L"),
		"yq": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops1", "reads"}, {"fs.edit-in-place", CapWrite, "-i|--inplace", "ops1", "edits in place"}}}, "xxd": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: decoder("-r", "--revert")},
		"od": reader("fs.read", "-A -t -N -j -w"), "hexdump": reader("fs.read", "-n -s -e"), "strings": reader("fs.read", "-n"),
		"md5sum": reader("fs.read", ""), "sha1sum": reader("fs.read", ""), "sha256sum": reader("fs.read", ""), "sha512sum": reader("fs.read", ""), "cksum": reader("fs.read", ""), "b2sum": reader("fs.read", ""),
		"tree": reader("fs.read", "-L -I -P"), "du": reader("fs.read", "-d --max-depth --exclude"), "realpath": reader("fs.read", ""), "readlink": reader("fs.read", ""),
		"column": reader("fs.read", "-s -t"), "paste": reader("fs.read", "-d"), "join": reader("fs.read", "-t -1 -2 -o"), "comm": reader("fs.read", ""),
		"fold": reader("fs.read", "-w"), "fmt": reader("fs.read", "-w"), "nl": reader("fs.read", "-b -d -f -h -i -l -n -s -v -w --body-numbering --section-delimiter --footer-numbering --header-numbering --line-increment --join-blank-lines --number-format --number-separator --starting-line-number --number-width"), "rev": reader("fs.read", ""), "tac": reader("fs.read", ""),
		"shuf": reader("fs.read", "-n -i"), "iconv": reader("fs.read", "-f -t"), "zcat": decompressed(), "bat": reader("fs.read", "-l --style --theme"),
		"grep":  readerAfterPattern("fs.read", "-e -f -m -A -B -C -d -D --include --exclude --exclude-dir --color --regexp --file --context"),
		"egrep": readerAfterPattern("fs.read", "-e -f -m -A -B -C"), "fgrep": readerAfterPattern("fs.read", "-e -f -m -A -B -C"),
		"rg": readerAfterPattern("fs.read", "-e -f -g -t -T -m -A -B -C -M --glob --type --type-not --max-count --context --regexp --file --sort --color --max-depth -j --threads"),
		"ag": readerAfterPattern("fs.read", "-G --ignore -A -B -C"), "ack": readerAfterPattern("fs.read", ""),
		"base64": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: decoder("-d", "--decode", "-D")},
		"base32": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: decoder("-d", "--decode")},
		"gunzip": unpacker(), "bunzip2": unpacker(), "unxz": unpacker(), "unlzma": unpacker(), "unzstd": unpacker(), "unlz4": unpacker(), "uncompress": unpacker(),
		"bzcat": decompressed(), "xzcat": decompressed(), "lzcat": decompressed(), "zstdcat": decompressed(), "lz4cat": decompressed(),
		"basenc": {filter: true, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}, fn: decoder("-d", "--decode")},
		// uudecode writes the file its input names (begin MODE NAME), an
		// absolute name too, unless -o names it.
		"uudecode": {val: "-o --output-file", filter: true, out: streamDecoded, fn: hUudecode, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}, {"fs.output", CapWrite, "", "-o|--output-file", "writes"}}},

		// Writers in the workspace.
		"touch": {val: "-d -r -t --date --reference", rows: []row{{"fs.create", CapWrite, "", "ops", "creates or touches"}}},
		"mkdir": {val: "-m --mode", rows: []row{{"fs.mkdir", CapWrite, "", "ops", "creates the directory"}}},
		// Writers whose file is an operand: sponge FILE, mkfifo NAME, mknod NAME TYPE.
		"sponge":  {filter: false, rows: []row{{"fs.write", CapWrite, "", "ops", "writes its input to"}}},
		"mkfifo":  {val: "-m --mode -Z --context", rows: []row{{"fs.create", CapWrite, "", "ops", "creates the pipe"}}},
		"mknod":   {val: "-m --mode -Z --context", rows: []row{{"fs.create", CapWrite, "", "op0", "creates the node"}}},
		"cp":      {val: "-t --target-directory -S --suffix", fn: chain(chain(chain(intoDir(hCopyLinks), hBackups), hCopyHardLinks), hContentsInto), rows: []row{{"fs.copy", CapRead, "-t|--target-directory", "ops", "copies"}, {"fs.copy", CapRead, "!-t !--target-directory", "init", "copies"}, {"fs.write", CapWrite, "!-t !--target-directory", "last", "writes"}, {"fs.write", CapWrite, "", "-t|--target-directory", "writes into"}}},
		"mv":      {val: "-t --target-directory -S --suffix", fn: chain(chain(intoDir(hCopy), hBackups), hContentsInto), rows: []row{{"fs.move", CapWrite, "-t|--target-directory", "ops", "moves"}, {"fs.move", CapWrite, "!-t !--target-directory", "init", "moves"}, {"fs.write", CapWrite, "!-t !--target-directory", "last", "writes"}, {"fs.write", CapWrite, "", "-t|--target-directory", "writes into"}}},
		"install": {val: "-m -o -g -t --mode --owner --group --target-directory -S --suffix", fn: chain(intoDir(func(*builder, *call) stream { return stream{} }), hBackups), rows: []row{{"fs.copy", CapRead, "!-d", "init", "copies"}, {"fs.write", CapWrite, "!-d !-t", "last", "installs into"}, {"fs.write", CapWrite, "-d", "ops", "creates the directory"}, {"fs.write", CapWrite, "", "-t|--target-directory", "installs into"}}},
		"ln": {val: "-t --target-directory -S --suffix", fn: chain(intoDir(hLn), hBackups), rows: []row{{"fs.link", CapWrite, "!-t", "last", "creates a link at"}, {"fs.link", CapWrite, "", "-t|--target-directory", "creates links in"},
			// A hard link is the same file under a second name: a later
			// write to the link writes the file (ln ~/.bashrc x).
			{"fs.link", CapWrite, "!-s !--symbolic !-t !--target-directory", "init", hardLinkVerb}, {"fs.link", CapWrite, "!-s !--symbolic -t|--target-directory", "ops", hardLinkVerb}}},
		"tee":    {rows: []row{{"fs.write", CapWrite, "", "ops", "writes"}}, filter: true, fn: hTee},
		"sed":    {val: "-e -f -l --expression --file --line-length", fn: hSed, filter: true},
		"gsed":   {val: "-e -f -l --expression --file --line-length", fn: hSed, filter: true},                                              // GNU sed's name where sed is another
		"awk":    {val: "-f -v -F -i -l -e -E --file --assign --field-separator --include --load --source --exec", fn: hAwk, filter: true}, // awk may be gawk
		"gawk":   {val: "-f -v -F -i -l -e -E --file --assign --field-separator --include --load --source --exec", fn: hAwk, filter: true},
		"mawk":   {val: "-f -v -F", fn: hAwk, filter: true},
		"nawk":   {val: "-f -v -F", fn: hAwk, filter: true},
		"patch":  {val: "-p -i -o -d -r --input --output --directory -B --prefix -Y --basename-prefix -z --suffix -V --version-control", fn: chain(hPatch, hPatchBackups), rows: []row{{"fs.patch", CapWrite, "", "ops", "patches"}, {"fs.patch", CapWrite, "noops !-d !--directory", "ops.", "patches files the patch names in"}, {"fs.patch", CapWrite, "", "-d|--directory", "patches files in"}}},
		"csplit": {val: "-f --prefix -b --suffix-format -n --digits", fn: hSplit, rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.output", CapWrite, "", "-f|--prefix", "writes files named"}}},
		"split":  {val: "-l -b -n -a -C -t --additional-suffix --filter --lines --bytes --number --suffix-length --line-bytes --separator", fn: hSplit, rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.write", CapWrite, "", "ops1", "writes files named"}}},
		"gzip":   {val: "-S", rows: []row{{"fs.compress", CapWrite, "!-c !--stdout", "ops", "compresses (replacing)"}}, filter: true, fn: decoder("-d", "--decompress", "--uncompress")},
		"bzip2":  {rows: []row{{"fs.compress", CapWrite, "!-c", "ops", "compresses (replacing)"}}, filter: true, fn: decoder("-d", "--decompress")},
		"xz":     {rows: []row{{"fs.compress", CapWrite, "!-c", "ops", "compresses (replacing)"}}, filter: true, fn: decoder("-d", "--decompress", "--uncompress")},
		"lzma":   {rows: []row{{"fs.compress", CapWrite, "!-c !--stdout", "ops", "compresses (replacing)"}}, filter: true, fn: decoder("-d", "--decompress", "--uncompress")},
		"zip":    {val: "-x -i", rows: []row{{"fs.write", CapWrite, "", "op0", "writes"}, {"fs.read", CapRead, "", "ops1", "reads"}}},
		"unzip": {val: "-d -x", fn: func(b *builder, c *call) stream {
			dir := staticField(".", c.sp)
			if ds := c.a.values("-d"); len(ds) > 0 {
				dir = ds[0]
			}
			if len(c.a.ops) > 0 && !c.a.has("-l") {
				b.extracted(c, c.a.ops[:1], dir)
				if c.a.has("-:") {
					// unzip -: keeps ../ in entry names.
					b.extractAnywhere(c)
				}
			}
			return stream{}
		}, rows: []row{{"fs.read", CapRead, "", "op0", "reads"}, {"fs.extract", CapWrite, "", "-d", "extracts into"}, {"fs.extract", CapWrite, "!-d !-l", "", "extracts files into the current directory"}}},
		"tar":      {val: "-f -C -T -X --file --directory --exclude -I --use-compress-program", fn: hTar},
		"bsdtar":   {val: "-f -C -T -X --file --directory --exclude -I --use-compress-program", fn: hTar},
		"ar":       {val: "--output", fn: hExtractInto("op0~^x", -1, "--output"), rows: []row{{"fs.output", CapWrite, "op0~^[rqd]", "op1", "writes"}, {"fs.read", CapRead, "op0~^[xtp]", "op1", "reads"}}},
		"dd":       {fn: hDD},
		"chmod":    {val: "--reference", fn: hChmod},
		"chown":    {val: "--reference --from", fn: hChmod},
		"chgrp":    {val: "--reference", fn: hChmod},
		"truncate": {val: "-s -r --size --reference", rows: []row{{"fs.truncate", CapDelete, "", "ops", "truncates (erases the contents of)"}}},
		"gofmt":    {rows: []row{{"fs.format", CapWrite, "-w", "ops", "rewrites"}, {"fs.read", CapRead, "!-w", "ops", "reads"}}},
		"prettier": {rows: []row{{"fs.format", CapWrite, "-w|--write", "ops", "rewrites"}}},

		// Deleters.
		"rm":     {val: "--interactive", rows: []row{{"fs.delete", CapDelete, "", "ops", "deletes"}}},
		"rmdir":  {rows: []row{{"fs.delete", CapDelete, "", "ops", "deletes the directory"}}},
		"unlink": {rows: []row{{"fs.delete", CapDelete, "", "ops", "deletes"}}},
		"shred":  {val: "-n -s --iterations --size", rows: []row{{"fs.shred", CapSystem, "", "", "shreds files: overwrites them so they can never be recovered"}, {"fs.delete", CapDelete, "", "ops", "shreds"}}},
		"srm":    {rows: []row{{"fs.shred", CapSystem, "", "", "securely erases files so they can never be recovered"}, {"fs.delete", CapDelete, "", "ops", "erases"}}},
		"wipe":   {rows: []row{{"fs.shred", CapSystem, "", "", "wipes files so they can never be recovered"}}},

		// Running other programs.
		"sudo":     {val: "-u -g -p -C -h -U -D -r -t -T --user --group --prompt --chdir", posix: true, rows: []row{{"priv.sudo", CapPrivilege, "", "", "runs a command as root (sudo)"}}, fn: wrap(0)},
		"doas":     {val: "-u -C", posix: true, rows: []row{{"priv.doas", CapPrivilege, "", "", "runs a command as root (doas)"}}, fn: wrap(0)},
		"pkexec":   {val: "--user", posix: true, rows: []row{{"priv.pkexec", CapPrivilege, "", "", "runs a command as root (pkexec)"}}, fn: wrap(0)},
		"run0":     {val: "-u --user", posix: true, rows: []row{{"priv.run0", CapPrivilege, "", "", "runs a command as root (run0)"}}, fn: wrap(0)},
		"sudoedit": whole("priv.sudo", CapPrivilege, "edits a file as root (sudoedit)"),
		// Session 12: sudo's rewrite and other privilege tools; gosu,
		// su-exec and chpst take the user, then the command.
		"sudo-rs": {val: "-u -g -p -C -h -U -D -r -t -T --user --group --prompt --chdir", posix: true, rows: []row{{"priv.sudo", CapPrivilege, "", "", "runs a command as root (sudo-rs)"}}, fn: wrap(0)},
		"please":  {val: "-u -t -d --user --target --dir", posix: true, rows: []row{{"priv.sudo", CapPrivilege, "", "", "runs a command as root (please)"}}, fn: wrap(0)},
		"gosu":    {posix: true, rows: []row{{"priv.su", CapPrivilege, "", "", "runs a command as another user (gosu)"}}, fn: wrap(1)},
		"su-exec": {posix: true, rows: []row{{"priv.su", CapPrivilege, "", "", "runs a command as another user (su-exec)"}}, fn: wrap(1)},
		"vipw":    whole("priv.sudoers", CapPrivilege, "edits the system's user accounts (vipw)"),
		"vigr":    whole("priv.sudoers", CapPrivilege, "edits the system's groups (vigr)"),
		"su":      {val: "-c -s -g -G --command --shell --group", rows: []row{{"priv.su", CapPrivilege, "", "", "switches user (su), usually to root"}}, fn: hSu},
		"runuser": {val: "-c -u -g -s --command --user", rows: []row{{"priv.su", CapPrivilege, "", "", "runs a command as another user"}}, fn: hSu},
		"env":     {val: "-u -C -S --unset --chdir --split-string", posix: true, fn: hEnv},
		"timeout": {val: "-s -k --signal --kill-after", posix: true, fn: wrap(1)},
		"nice":    {val: "-n --adjustment", posix: true, fn: wrap(0)},
		"ionice":  {val: "-c -n -p -P -u --class --classdata", posix: true, fn: wrap(0)},
		"chrt":    {posix: true, fn: wrap(1)},
		"taskset": {posix: true, fn: wrap(1)},
		"nohup":   {posix: true, fn: wrap(0)},
		"command": {posix: true, fn: func(b *builder, c *call) stream {
			if c.a.has("-v", "-V") {
				return stream{kind: streamText}
			}
			return wrap(0)(b, c)
		}},
		"builtin":    {posix: true, fn: wrap(0)},
		"exec":       {val: "-a", posix: true, fn: wrap(0)},
		"time":       {val: "-f -o --format --output", posix: true, fn: wrap(0), rows: []row{{"fs.output", CapWrite, "", "-o|--output", "writes its timings to"}}}, // GNU time -o FILE
		"stdbuf":     {val: "-i -o -e --input --output --error", posix: true, fn: wrap(0)},
		"setsid":     {posix: true, fn: wrap(0)},
		"unbuffer":   {posix: true, fn: wrap(0)},
		"caffeinate": {posix: true, fn: wrap(0)},
		"xvfb-run":   {val: "-n -s -f -e --server-num --server-args", posix: true, fn: wrap(0)},
		"flock": {val: "-w -E --timeout --conflict-exit-code -c --command", posix: true, fn: func(b *builder, c *call) stream {
			if codes := c.a.values("-c", "--command"); len(codes) > 0 {
				return hSu(b, c)
			}
			return wrap(1)(b, c)
		}},
		"watch":    {val: "-n -d --interval --differences", posix: true, fn: hWatch},
		"xargs":    {val: "-I -n -L -P -d -E -s -a --max-args --replace --delimiter --arg-file --max-procs --max-lines", posix: true, fn: hXargs},
		"parallel": {val: "-j -S --jobs --sshlogin -d --delimiter -a --arg-file -I --block --recstart --recend", posix: true, fn: hParallel, rows: []row{{"net.parallel-remote", CapSend, "-S|--sshlogin", "", "runs commands on remote machines"}}},
		"find":     {fn: hFind},
		"eval":     {fn: hEval},
		"source":   {fn: hSource},
		".":        {fn: hSource},
		"bash":     {val: "-c -o -O --rcfile --init-file", fn: hShell},
		"sh":       {val: "-c -o", fn: hShell},
		"dash":     {val: "-c -o", fn: hShell},
		"zsh":      {val: "-c -o", fn: hShell},
		"ksh":      {val: "-c -o", fn: hShell},
		"fish": {val: "-c -C --command --init-command", fn: func(b *builder, c *call) stream {
			if codes := c.a.values("--command"); len(codes) > 0 {
				c.a.flags["-c"] = codes
			}
			return hShell(b, c)
		}},
		"python":  {val: "-c -m -W -X", fn: chain(hInterp("-c"), hPythonWarnings), rows: pythonRows()},
		"python3": {val: "-c -m -W -X", fn: chain(hInterp("-c"), hPythonWarnings), rows: pythonRows()},
		"python2": {val: "-c -m -W", fn: chain(hInterp("-c"), hPythonWarnings), rows: pythonRows()},
		"pypy3":   {val: "-c -m -W", fn: chain(hInterp("-c"), hPythonWarnings), rows: pythonRows()},
		"node":    {val: "-e -p -r --eval --print --require --import --loader --experimental-loader --run", fn: hNode},

		"perl": {val: "-e -E -M -I", fn: chain(hInPlace(hInterp("-e -E"), "eEFIMmxdCV", "-e", "-E"), hPerlArgv)},
		"ruby": {val: "-e -r -I -C", fn: chain(hInPlace(hInterp("-e"), "eIrCEFKTWx", "-e"), hRubyUn)},
		"php":  {val: "-r -f -d -c -S -t", fn: hInterp("-r"), rows: []row{{"net.serve", CapSend, "-S", "", "serves files over the network (php -S)"}}},
		"lua":  {val: "-e -l", fn: hInterp("-e")},
		// More languages and math tools whose inline code can start
		// programs and write files (gnuplot and octave system(), Prolog
		// shell/1, Lua's os.execute).
		"luajit":     {val: "-e -l -j -O", fn: hInterp("-e")},
		"gnuplot":    {val: "-e -c", fn: hInterp("-e")},
		"octave":     {val: "--eval -p --path", fn: hInterp("--eval")},
		"octave-cli": {val: "--eval -p --path", fn: hInterp("--eval")},
		"swipl":      {val: "-g -t -f -s -x -F -p", fn: hInterp("-g -t")},
		"raku":       {val: "-e -I -M", fn: hInterp("-e")},
		"rakudo":     {val: "-e -I -M", fn: hInterp("-e")},
		"perl6":      {val: "-e -I -M", fn: hInterp("-e")},
		"janet":      {val: "-e -l", fn: hInterp("-e")},
		"fennel":     {val: "-e --eval", fn: hInterp("-e --eval")},
		"hy":         {val: "-c -m", fn: hInterp("-c")},
		"csi":        {val: "-e -p -P -eval -print", fn: hInterp("-e -p -P -eval -print")},
		"gosh":       {val: "-e -u -l -I -A", fn: hInterp("-e")},
		"maxima":     {val: "--batch-string -r --run-string -b --batch", fn: hInterp("--batch-string -r --run-string")},
		"sage":       {val: "-c", fn: hInterp("-c")},
		// More interpreters and their inline-code options: the code is not
		// reviewed (B), a script operand is read like python's.
		"ipython":    {val: "-c -m", fn: hInterp("-c")},
		"julia":      {val: "-e -E --eval --print -L --load -p --procs", fn: hInterp("-e -E --eval --print")},
		"guile":      {val: "-c -e -l -L -s -x", fn: hInterp("-c")},
		"racket":     {val: "-e --eval -l --lib -t --require -f --load", fn: hInterp("-e --eval")},
		"sbcl":       {val: "--eval --load --script --core", fn: hInterp("--eval")},
		"clisp":      {val: "-x -i", fn: hInterp("-x")},
		"elixir":     {val: "-e --eval -r --require -pa -pz", fn: hInterp("-e --eval")},
		"erl":        {val: "-eval -s -run -pa -pz", fn: hInterp("-eval -s -run")},
		"groovy":     {val: "-e -cp --classpath", fn: hInterp("-e")},
		"scala":      {val: "-e -cp -classpath", fn: hInterp("-e")},
		"kotlin":     {val: "-e -cp -classpath", fn: hInterp("-e")},
		"clojure":    {val: "-e --eval -i --init -Sdeps", fn: hInterp("-e --eval")}, // -M, -X, -T and -A take their alias attached (-M:dev)
		"clj":        {val: "-e --eval -i --init -Sdeps", fn: hInterp("-e --eval")},
		"bb":         {val: "-e --eval -f --file -cp --classpath", fn: hInterp("-e --eval")},
		"pwsh":       {val: "-c -Command -command -EncodedCommand -ec -e -File -f -ExecutionPolicy", fn: hInterp("-c -Command -command -EncodedCommand -ec -e")},
		"powershell": {val: "-c -Command -command -EncodedCommand -ec -e -File -f -ExecutionPolicy", fn: hInterp("-c -Command -command -EncodedCommand -ec -e")},
		"expect":     {val: "-c -f -b", fn: hInterp("-c")},
		"tsx":        {val: "-e -p --eval --print -r --require --import", fn: hInterp("-e -p --eval --print")},
		"ts-node":    {val: "-e -p --eval --print -r --require -P --project", fn: hInterp("-e -p --eval --print")},
		"R":          {val: "-e -f --file", fn: hInterp("-e")},
		"irb":        {val: "-r -I", fn: hInterp("")},
		"jshell":     {val: "--class-path -R -J", fn: hInterp("")},
		"ghci":       {val: "-e -i", fn: hInterp("-e")},
		"iex":        {val: "-e --eval -r -S", fn: hInterp("-e --eval")},
		"groovysh":   {val: "-cp --classpath", fn: hInterp("")},
		"Rscript":    {val: "-e", fn: hInterp("-e")},
		"osascript":  {val: "-e", fn: hInterp("-e")},
		"tclsh":      {fn: hInterp("")},
		"wish":       {fn: hInterp("")},
		"jimsh":      {val: "-e", fn: hInterp("-e")},
		"ghc":        {val: "-e -o -i -odir -hidir -outputdir -package -x", fn: hInterp("-e")},
		// groff -U (unsafe) runs .sy and .pso requests of its input as
		// shell commands (stdinlang.go); safe mode runs none.
		"groff": {val: roffVal}, "troff": {val: roffVal}, "nroff": {val: roffVal},
		"guard":              {val: "--workspace --provenance --min-level --shell --allow-write", posix: true, fn: hGuard},
		"guard-sandbox-exec": {rows: []row{{"guard.self", CapSelf, "", "", "runs guard's sandbox helper directly"}}},
		"guard-sh": {fn: func(b *builder, c *call) stream {
			return b.apply(lookupSpec("bash"), c)
		}},
	}
}

// tableFuncs are the command tables, in order: a later one wins where two
// name the same program. Launchers come before the v2 tables, which are
// more specific where they overlap (getent shadow is a secret read, not
// plain data). tableIndex (generated, table_index.go) says which of them
// has the last word on each program, so a review builds only the tables
// of the programs it meets.
func tableFuncs() [numTables]func() map[string]*spec {
	return [numTables]func() map[string]*spec{
		baseTable, networkTable, systemTable, devTable, launchTable,
		taintTable, secretsTable, targetsTable, allowTable, desktopTable,
		agentTable, programsTable,
	}
}

const numTables = 12

// table builds the whole command table: every program, as lookupSpec
// finds it one by one.
func table() map[string]*spec {
	t := map[string]*spec{}
	for i, f := range tableFuncs() {
		for k, v := range f() {
			if lastTable(k) == i {
				t[k] = v
			}
		}
	}
	finalize(t)
	t["git"] = gitEntry()
	t["tofu"] = t["terraform"]
	return t
}

// finalize adds to the programs of t the rows defined apart from their
// entries: tokens printed, files written by an output option (which takes
// a value), the launch options of archivers and multiplexers. t holds
// final entries only (a program's entry from its last table).
func finalize(t map[string]*spec) {
	for k, rs := range tokenRows() {
		if s := t[k]; s != nil {
			s.rows = append(s.rows, rs...)
		}
	}
	addRows(t, outputRows())
	extendLaunch(t)
	extendPrograms(t)
	extendStdinLangs(t)
	extendOptionFiles(t)
	extendUnpackNames(t)
	extendShellInit(t)
	extendBuildInstall(t)
}

// gitEntry is git's entry, which no table defines: gitSpec has the last
// word on it, after the tables' rows.
func gitEntry() *spec {
	gitEntryOnce.Do(func() { gitSpecEntry = later(gitSpec) })
	return gitSpecEntry
}

var (
	gitEntryOnce sync.Once
	gitSpecEntry *spec
)

// Each table is built at most once per process, when a program it has
// the last word on is looked up, and keeps only those programs.
var (
	tablesOnce  [numTables]sync.Once
	tablesBuilt [numTables]map[string]*spec
)

// lookupSpec is the table's entry for exactly this name, built; nil for a
// program guard does not know.
func lookupSpec(name string) *spec {
	switch name {
	case "git":
		return gitEntry().ready()
	case "tofu":
		name = "terraform"
	}
	i := lastTable(name)
	if i < 0 {
		return nil
	}
	tablesOnce[i].Do(func() {
		t := map[string]*spec{}
		for k, v := range tableFuncs()[i]() {
			if lastTable(k) == i {
				t[k] = v
			}
		}
		finalize(t)
		tablesBuilt[i] = t
	})
	return tablesBuilt[i][name].ready()
}

// lastTable is the index in tableFuncs of the last table naming prog, or
// -1 when none does.
func lastTable(prog string) int {
	if i, ok := slices.BinarySearch(tableNames[:], prog); ok {
		return int(tableOf[i])
	}
	return -1
}

// decoder marks a program's output as decoded data when a decode option
// is present (base64 -d, xxd -r): piping that into a shell is C.
// pythonRows: python setup.py install (or develop) installs the package
// into Python's site-packages, outside the workspace, and setuptools
// downloads what it depends on; build, test and sdist stay in the
// workspace. (-W is hPythonWarnings'.)
func pythonRows() []row {
	return []row{
		{"pkg.install", CapFetch, `op0~(^|/)setup\.py$ op~^(install|develop|easy_install)$`, "", "installs the package into Python's site-packages, outside the workspace (downloading what it depends on)"},
	}
}

// decompressed is a reader whose output is always decoded data (zcat,
// bzcat): a shell reading it runs code nobody saw (principle 4).
func decompressed() *spec {
	return &spec{filter: true, out: streamDecoded, rows: []row{{"fs.read", CapRead, "", "ops", "reads"}}}
}

// unpacker decompresses its files in place, or its input to its output
// (gunzip, unxz): that output is decoded data.
func unpacker() *spec {
	return &spec{val: "-S --suffix", filter: true, out: streamDecoded, rows: []row{{"fs.decompress", CapWrite, "!-c !--stdout", "ops", "decompresses"}}}
}

// hUudecode: without -o, uudecode writes the file its input names, which
// may be an absolute name anywhere.
func hUudecode(b *builder, c *call) stream {
	if !c.a.has("-o", "--output-file") {
		b.extractAnywhere(c)
	}
	return stream{kind: streamDecoded}
}

func decoder(flags ...string) handler {
	return func(b *builder, c *call) stream {
		if c.a.has(flags...) {
			return stream{kind: streamDecoded}
		}
		return stream{}
	}
}
