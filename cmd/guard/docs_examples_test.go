package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/review"
)

// The docs mark what they promise with two kinds of tables, and this file
// runs every row of every such table in README.md and docs/*.md through the
// guard command, as a user would, in a git repository in a fresh home:
//
//	<!-- examples:begin -->          | command | level | [sandbox] |
//	<!-- examples:end -->            guard check gives that level (and that
//	                                 sandbox, when the column is there)
//
//	<!-- commands:begin -->          | command | exit |
//	<!-- commands:end -->            the guard command line exits with that
//	                                 status
//
// review/docs_test.go checks the first examples table of the files it
// lists through the review package alone; this test checks all of them
// end to end.

// docTable is one marked table.
type docTable struct {
	file, kind string
	header     []string
	rows       []docRow
}

type docRow struct {
	line  int
	cells []string
}

func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

// docTables finds the marked tables of kind in a file.
func docTables(t *testing.T, file, kind string) []docTable {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- "+kind+":begin -->", "<!-- "+kind+":end -->"
	var out []docTable
	var cur *docTable
	for i, line := range strings.Split(string(b), "\n") {
		switch strings.TrimSpace(line) {
		case begin:
			if cur != nil {
				t.Fatalf("%s:%d: %s inside another table", file, i+1, begin)
			}
			cur = &docTable{file: file, kind: kind}
			continue
		case end:
			if cur == nil {
				t.Fatalf("%s:%d: %s without a begin", file, i+1, end)
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur == nil || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		cells := splitRow(line)
		switch {
		case cur.header == nil:
			cur.header = cells
		case strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the |---|---| line
		default:
			cur.rows = append(cur.rows, docRow{line: i + 1, cells: cells})
		}
	}
	if cur != nil {
		t.Fatalf("%s: %s without an end", file, begin)
	}
	return out
}

// splitRow splits a Markdown table row; \| is a literal bar, and a cell in
// backquotes loses them.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	parts := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.TrimSpace(p), "\x00", "|")
		if len(p) >= 2 && p[0] == '`' && p[len(p)-1] == '`' {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return parts
}

// docFixture is a fresh home with a git repository as the current
// directory; it returns the home directory.
func docFixture(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"USER":            "tester",
		"NO_COLOR":        "1",
		envTTY:            filepath.Join(home, "no-terminal"),
	} {
		t.Setenv(k, v)
	}
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	return home
}

func runGuard(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(append([]string{"guard"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDocsExamples(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, tab := range docTables(t, file, "examples") {
			if len(tab.header) < 2 || tab.header[0] != "command" || tab.header[1] != "level" {
				t.Errorf("%s: an examples table's columns are command, level[, sandbox]; got %q", file, tab.header)
				continue
			}
			withSandbox := len(tab.header) > 2 && tab.header[2] == "sandbox"
			for _, r := range tab.rows {
				n++
				name := fmt.Sprintf("%s:%d", filepath.Base(file), r.line)
				t.Run(name, func(t *testing.T) {
					home := docFixture(t)
					want, err := review.ParseLevel(r.cells[1])
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					code, out, errs := runGuard("check", "--json", r.cells[0])
					var v struct {
						Level   review.Level   `json:"level"`
						Sandbox review.Sandbox `json:"sandbox"`
					}
					if err := json.Unmarshal([]byte(out), &v); err != nil {
						t.Fatalf("%s: guard check %q: exit %d, %v\n%s", name, r.cells[0], code, err, errs)
					}
					if v.Level != want {
						t.Errorf("%s: %s: guard says %s, the docs say %s", name, r.cells[0], v.Level, want)
					}
					if withSandbox {
						if got := describeDocSandbox(v.Sandbox, home); got != r.cells[2] {
							t.Errorf("%s: %s: guard's sandbox is %q, the docs say %q", name, r.cells[0], got, r.cells[2])
						}
					}
				})
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d documented examples found", n)
	}
}

// describeDocSandbox says a sandbox in the words of the docs' tables:
// "nothing writable" or "workspace" (and "and ~/x, ~/y" for paths outside
// it), then "network" or "no network".
func describeDocSandbox(sb review.Sandbox, home string) string {
	w := "nothing writable"
	if sb.Write {
		w = "workspace"
	}
	var extra []string
	for _, p := range sb.ExtraWrite {
		if rel, ok := strings.CutPrefix(p, home+"/"); ok {
			p = "~/" + rel
		}
		extra = append(extra, p)
	}
	if len(extra) > 0 {
		w += " and " + strings.Join(extra, ", ")
	}
	if sb.Net {
		return w + ", network"
	}
	return w + ", no network"
}

func TestDocsCommands(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, tab := range docTables(t, file, "commands") {
			if !slices.Equal(tab.header[:min(2, len(tab.header))], []string{"command", "exit"}) {
				t.Errorf("%s: a commands table's columns are command, exit; got %q", file, tab.header)
				continue
			}
			for _, r := range tab.rows {
				n++
				name := fmt.Sprintf("%s:%d", filepath.Base(file), r.line)
				t.Run(name, func(t *testing.T) {
					argv, err := splitCommandLine(r.cells[0])
					if err != nil || len(argv) < 1 || argv[0] != "guard" {
						t.Fatalf("%s: %q is not a plain guard command line: %v", name, r.cells[0], err)
					}
					want, err := strconv.Atoi(r.cells[1])
					if err != nil {
						t.Fatalf("%s: exit %q: %v", name, r.cells[1], err)
					}
					docFixture(t)
					code, out, errs := runGuard(argv[1:]...)
					if code != want {
						t.Errorf("%s: %s: exit %d, the docs say %d\nstdout:\n%s\nstderr:\n%s", name, r.cells[0], code, want, out, errs)
					}
				})
			}
		}
	}
	if n == 0 {
		t.Error("no documented commands found")
	}
}

// splitCommandLine splits a documented command line into words: spaces
// separate them, and single or double quotes group (without escapes
// inside). Anything a shell would do more with is refused.
func splitCommandLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|&;<>()$`\\*?[]{}~#", r):
			return nil, fmt.Errorf("shell syntax %q", r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestSplitCommandLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"guard version", []string{"guard", "version"}},
		{"guard check 'rm -rf build'", []string{"guard", "check", "rm -rf build"}},
		{`guard check "a b"  c`, []string{"guard", "check", "a b", "c"}},
		{"guard check ''", []string{"guard", "check", ""}},
	} {
		got, err := splitCommandLine(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommandLine(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"guard version | cat", "guard check 'x", "guard -- echo $HOME", "guard log > f"} {
		if _, err := splitCommandLine(bad); err == nil {
			t.Errorf("splitCommandLine(%q) accepted", bad)
		}
	}
}
