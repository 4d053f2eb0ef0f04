package profile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBashAgrees is a differential test of guard's word expansion against
// bash itself. It generates lines of assignments, shell options and one
// call of a program named probe… whose words use quoting, escapes,
// parameter expansions, arrays, positional parameters, brace expansion,
// tildes and arithmetic, and checks every word guard says it knows
// against what bash really passes. A word guard gets wrong is a word the
// review judges wrongly: guard would review `probe rm` while bash runs
// something else.
//
// Bash runs restricted (-r), with PATH naming no directory, in an empty
// temporary directory and home, and every generated line is refused
// unless it holds no command substitution, process substitution or
// backquote: the only program it can reach is the probe, which bash hands
// to a command_not_found_handle (from BASH_ENV) that prints its arguments
// (builtins remain, restricted: no output redirection, cd, exec or
// command names with a slash). A quarter of the lines call the probe in
// a function, with local declarations and arguments of its own.
//
// GUARD_BASH_AGREE=N runs N lines (default 1500); GUARD_BASH_AGREE_SEED
// moves the seeds.
func TestBashAgrees(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	n, base := 1500, int64(0)
	if v, err := strconv.Atoi(os.Getenv("GUARD_BASH_AGREE")); err == nil {
		n = v
	}
	if v, err := strconv.ParseInt(os.Getenv("GUARD_BASH_AGREE_SEED"), 10, 64); err == nil {
		base = v
	}
	dir, home := t.TempDir(), t.TempDir()
	for _, f := range []string{"ab", "x y", ".h", "B"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	handler := filepath.Join(home, "env.sh")
	if err := os.WriteFile(handler, []byte("command_not_found_handle() { printf '\\1P\\0'; printf '%s\\0' \"$@\"; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"BASH_ENV=" + handler, "PATH=/nonexistent-guard-agree", "HOME=" + home, "LC_ALL=C.UTF-8"}

	type result struct {
		script string
		msg    string
	}
	var (
		mu       sync.Mutex
		bad      []result
		compared int
	)
	seeds := make(chan int64)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range seeds {
				script := genLine(rand.New(rand.NewSource(s)))
				if !harmless(script) {
					continue
				}
				got, ok := bashArgv(bash, script, dir, env)
				if !ok {
					continue
				}
				msg, cmp := agree(script, dir, home, got)
				mu.Lock()
				if cmp {
					compared++
				}
				if msg != "" {
					bad = append(bad, result{script, fmt.Sprintf("seed %d: %s", s, msg)})
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		seeds <- base + int64(i)
	}
	close(seeds)
	wg.Wait()
	t.Logf("%d lines, %d compared", n, compared)
	if compared < n/4 {
		// Bash reached the probe on too few lines (no BASH_ENV, a
		// handler that prints nothing): the test would compare nothing.
		t.Errorf("only %d of %d lines compared", compared, n)
	}
	for i, r := range bad {
		if i == 40 {
			t.Errorf("… and %d more", len(bad)-40)
			break
		}
		t.Errorf("%s\n\tline: %s", r.msg, r.script)
	}
}

// bashArgv runs script and returns the probe's name and arguments as
// bash passed them; ok is false when bash did not reach the probe.
func bashArgv(bash, script, dir string, env []string) ([]string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-r", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.Args[0] = "bash" // $0, as guard takes it
	var out bytes.Buffer
	cmd.Stdout = &out
	// Builtins of the prelude may print too: the probe's words follow
	// the handler's mark.
	err := cmd.Run()
	i := bytes.LastIndex(out.Bytes(), []byte("\x01P\x00"))
	if err != nil || i < 0 || out.Bytes()[out.Len()-1] != 0 {
		return nil, false
	}
	return strings.Split(strings.TrimSuffix(out.String()[i+3:], "\x00"), "\x00"), true
}

// agree profiles script and compares the last command guard saw with
// bash's argv. cmp says whether guard claimed anything to compare.
func agree(script, dir, home string, bash []string) (msg string, cmp bool) {
	// The probe's call is the exec whose name is the word at the probe's
	// offset (guard also reviews words of an unknown program's arguments
	// as commands: those are other execs).
	at := strings.LastIndex(script, "; probe") + 2
	if at == 1 {
		at = 0
	}
	var last []field
	p := buildSeen(script, ctx(dir, home), func(argv []field) {
		if last == nil && argv[0].pos == at {
			last = append([]field{}, argv...)
		}
	})
	for _, e := range p.Effects {
		switch e.Cap {
		case CapUnparsed, CapUnsupported, CapLimit:
			return "", false // fails closed whatever the words are
		}
	}
	if !strings.HasPrefix(bash[0], "probe") {
		return "", false // probe=… was an assignment: the probe is elsewhere
	}
	if len(last) == 0 {
		return fmt.Sprintf("guard saw no command; bash ran %q", bash), true
	}
	all := true
	for i, f := range last {
		if !f.known || f.glob {
			all = false
			break
		}
		cmp = true
		if i >= len(bash) {
			return fmt.Sprintf("guard: word %d is %q, bash passed only %q", i, f.val, bash), true
		}
		if f.val != bash[i] {
			return fmt.Sprintf("guard: word %d is %q, bash: %q (guard %q, bash %q)", i, f.val, bash[i], display(last), bash), true
		}
	}
	if all && len(last) != len(bash) {
		return fmt.Sprintf("guard: %d words %q, bash: %q", len(last), display(last), bash), true
	}
	return "", cmp
}

func ctx(dir, home string) *Context {
	return &Context{Cwd: dir, Workspace: dir, Home: home, User: "guard-agree", Env: map[string]string{"HOME": home, "PWD": dir}}
}

var execSeenMu sync.Mutex

// buildSeen is Build with execSeen set to seen for its duration.
func buildSeen(text string, ctx *Context, seen func([]field)) *Profile {
	execSeenMu.Lock()
	defer execSeenMu.Unlock()
	execSeen = seen
	defer func() { execSeen = nil }()
	return Build(text, ctx)
}

func display(fs []field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.display())
	}
	return out
}

// harmless refuses a line that could run anything but the probe: no
// command or process substitution, no backquote.
func harmless(s string) bool {
	if strings.ContainsAny(s, "`\n") || strings.Contains(s, "<(") || strings.Contains(s, ">(") {
		return false
	}
	for i := strings.Index(s, "$("); i >= 0; i = strings.Index(s, "$(") {
		if !strings.HasPrefix(s[i:], "$((") {
			return false
		}
		s = s[i+3:]
	}
	return true
}

// genLine makes one line: a prelude of assignments and options, then the
// probe call.
func genLine(r *rand.Rand) string {
	g := &wordGen{r: r}
	var stmts []string
	for i, n := 0, r.Intn(5); i < n; i++ {
		stmts = append(stmts, g.prelude())
	}
	call := "probe" + g.maybe(4, g.part) + g.maybe(6, g.part)
	for i, n := 0, r.Intn(4); i < n; i++ {
		call += " " + g.word(true)
	}
	if r.Intn(4) == 0 {
		// The same in a function called with arguments, where local
		// declares and $@ are the call's.
		var before []string
		for i, n := 0, r.Intn(3); i < n; i++ {
			before = append(before, g.prelude())
		}
		body := append([]string{g.pick("local x", "local y", "local x="+g.word(false), "local -r y="+g.word(false), "shift", "set -- "+g.word(true))}, stmts...)
		before = append(before, "f() { "+strings.Join(append(body, call), "; ")+"; }")
		return strings.Join(append(before, "f "+g.word(true)+" "+g.word(true)), "; ")
	}
	return strings.Join(append(stmts, call), "; ")
}

type wordGen struct {
	r     *rand.Rand
	depth int
}

func (g *wordGen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

// maybe returns f() one time in n, else "".
func (g *wordGen) maybe(n int, f func() string) string {
	if g.r.Intn(n) == 0 {
		return f()
	}
	return ""
}

func (g *wordGen) prelude() string {
	switch g.r.Intn(16) {
	case 14:
		// Assignments a ${…} makes, or not.
		open := g.pick("${x:=", "${y=", "${u:+${x:=", "${y:-${x=", "${u/a/${y:=", "${x#${y:=")
		return ": " + open + g.word(false) + strings.Repeat("}", strings.Count(open, "{"))
	case 15:
		return g.pick("declare -r", "typeset -r", "readonly") + " " + g.pick("x", "y") + g.pick("", "="+g.word(false))
	case 0, 1:
		return g.pick("x", "y") + "=" + g.word(false)
	case 2:
		return g.pick("x", "y") + "+=" + g.word(false)
	case 3:
		return "a=(" + g.word(true) + " " + g.word(true) + " " + g.word(true) + ")"
	case 4:
		return "r=" + g.pick("x", "y", "a", "u", "a[1]", "1", "@")
	case 5:
		return g.pick("IFS=,", "IFS=': '", "IFS=", "IFS=x", "unset IFS", "IFS=$'\\t'", "IFS=b")
	case 6:
		return "set -- " + g.word(true) + " " + g.word(true)
	case 7:
		return g.pick("shopt -s extglob", "shopt -s nocaseglob", "shopt -s dotglob", "shopt -s nullglob", "set -f", "shopt -s globstar", "set +f")
	case 8:
		return g.pick("declare -u", "declare -l", "declare -c", "typeset -u", "declare -i", "declare -a", "declare") + " " + g.pick("x", "y", "x="+g.word(false))
	case 9:
		return g.pick("unset x", "unset y", "unset -v x", "a[1]="+g.word(false), "a+=("+g.word(true)+")")
	case 10:
		return g.pick("x", "y") + "=" + g.pick("'rm -rf'", "'a b'", "'*'", "' '", "'-x'", "$'\\n'", "''", "ab", "'a,b'", "'x:y'")
	case 11:
		return "export " + g.pick("x", "y") + "=" + g.word(false)
	case 12:
		return "declare -n " + g.pick("m", "r") + "=" + g.pick("x", "y", "a", "u")
	default:
		return "readonly " + g.pick("z") + "=" + g.word(false)
	}
}

// word makes one word of 1–3 parts; start allows a leading tilde.
func (g *wordGen) word(start bool) string {
	w := ""
	if start && g.r.Intn(8) == 0 {
		w = g.pick("~", "~/", "~+", "~-", "~u", "~nobody")
	}
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		w += g.part()
	}
	if w == "" || w == "#" {
		w = "w"
	}
	return w
}

func (g *wordGen) part() string {
	if g.depth > 2 {
		return g.lit()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.Intn(12) {
	case 0, 1:
		return g.lit()
	case 2:
		const escaped = " ;|&<>()$\"'\\\t*?[]{}~#,"
		return `\` + string(escaped[g.r.Intn(len(escaped))])
	case 3:
		return "'" + g.chars("ab $*?{},~-\\\"x y=") + "'"
	case 4:
		return `"` + g.dq() + `"`
	case 5:
		return "$'" + g.ansi() + "'"
	case 6, 7:
		return g.param()
	case 8:
		return g.pick("{"+g.lit()+","+g.lit()+"}", "{1..3}", "{a..c}", "{x,}", "{,x}", "{1..5..2}", "{"+g.lit()+","+g.param()+"}", "{a,b}{c,d}")
	case 9:
		return g.pick("$((1+2))", "$((x))", "$((x+1))", "$((${#x}))", "$((3/2))", "$((2**3))", "$((-1))", "$[1+1]", "$((a[1]))")
	case 10:
		return g.pick("$1", "$2", "$#", "$@", `"$@"`, "$*", `"$*"`, "${@:2}", "${*:1:1}", "$0", "$?", "$-", `"${@}"`, "${#}", "${@: -1}")
	default:
		return `$"` + g.chars("ab x") + `"`
	}
}

func (g *wordGen) lit() string {
	return g.chars("abxyz019-_.=:,+@%^*?[]!{}~/")
}

func (g *wordGen) chars(set string) string {
	var b strings.Builder
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		b.WriteByte(set[g.r.Intn(len(set))])
	}
	return b.String()
}

func (g *wordGen) dq() string {
	var b strings.Builder
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		switch g.r.Intn(5) {
		case 0, 1:
			b.WriteString(g.chars("ab *?{},~-x' #!"))
		case 2:
			b.WriteString(g.pick(`\"`, `\\`, `\$`, `\a`, `\{`))
		default:
			b.WriteString(g.param())
		}
	}
	return b.String()
}

func (g *wordGen) ansi() string {
	var b strings.Builder
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		b.WriteString(g.pick("a", " ", "-", `\x41`, `\x2d`, `\101`, `\u00e9`, `\n`, `\t`, `\'`, `\\`, `\"`, `\e`, `\cA`, `\x`, `\08`, `\U0001F600`, `\x72\x6d`, `\0`, `\x00a`, `\c?`, `\E`, `\?`, `\z`))
	}
	return b.String()
}

func (g *wordGen) param() string {
	n := g.pick("x", "y", "u", "a", "z", "IFS", "m")
	pat := func() string {
		return g.pick("*", "?", "[ab]", "a", `\*`, "'*'", "b*", "*b", "?(a)", "@(a|b)", "[[:alpha:]]", "x", "")
	}
	switch g.r.Intn(10) {
	case 0:
		return "$" + n
	case 1:
		return "${" + n + "}"
	case 2:
		return "${" + n + g.pick(":-", "-", ":+", "+", ":=") + g.word(false) + "}"
	case 3:
		return "${" + n + g.pick("#", "##", "%", "%%") + pat() + "}"
	case 4:
		return "${" + n + g.pick("/", "//", "/#", "/%") + pat() + g.pick("", "/"+g.lit(), "/"+g.param(), "/") + "}"
	case 5:
		return "${" + n + g.pick("^", "^^", ",", ",,", "~~", "~", "^[ab]", ",,[A]") + "}"
	case 6:
		return "${" + n + g.pick(":1", ":1:2", ": -2", ":(-2):1", ":0:0", ":-1", ":5") + "}"
	case 7:
		return "${" + n + g.pick("@Q", "@E", "@U", "@L", "@u", "@a", "@K", "@k") + "}"
	case 8:
		return g.pick("${!r}", "${#"+n+"}", "${!x*}", "${!a[@]}", "${#a[@]}", "${a[0]}", "${a[1]}", "${a[-1]}", "${a[@]}", "${a[*]}", `"${a[@]}"`, `"${a[*]}"`, "${a[@]:1}", "${a[@]/b/c}", "${a[@]^^}", "${a[@]#?}", "${!m}", "${m}", "${m[@]}")
	default:
		return g.pick("$"+n+"x", "${"+n+"}x", `"$`+n+`"`, `"${`+n+`:-`+g.lit()+`}"`)
	}
}
