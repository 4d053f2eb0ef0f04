package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A .gitattributes written after the delete (by a later command) would
// have git convert what undo checks out: the files come back as they
// were deleted, whatever the attributes say now.
func TestUndoIgnoresLaterAttributes(t *testing.T) {
	for name, attrs := range map[string]string{
		"eol=crlf": "*.go text eol=crlf\n",
		"ident":    "*.go ident\n",
		"filter":   "*.go filter=up\n",
	} {
		t.Run(name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			run(t, ws, "config", "filter.up.smudge", "tr a-z A-Z")
			write(t, ws, map[string]string{"src/id.go": "package main // $Id$\n"})
			before := snapshotFS(t, ws)
			src := filepath.Join(ws, "src")
			cp := rmCovered(t, st, ws, "00000000000000d5", src)
			write(t, ws, map[string]string{".gitattributes": attrs})
			undo(t, st, cp, false)
			os.Remove(filepath.Join(ws, ".gitattributes"))
			if got := snapshotFS(t, ws); !reflect.DeepEqual(got, before) {
				t.Errorf("after undo:\n%v\nwant\n%v", got, before)
			}
		})
	}
}

// git converts what it stores (a text attribute's line endings, an
// ident's $Id$, core.autocrlf), and converting back does not always give
// the bytes the file held: a file with CRLF endings under "text" is
// stored with LF and checked out with LF. A delete whose files git would
// store otherwise than they are is covered only when undo brings back
// the bytes deleted.
func TestUndoLossyConversion(t *testing.T) {
	for name, tc := range map[string]struct {
		attrs, file, data string
		covered           bool
	}{
		"text crlf":      {"*.txt text\n", "docs/notes.txt", "line one\r\nline two\r\n", false},
		"text=auto crlf": {"* text=auto\n", "docs/notes.txt", "line one\r\nline two\r\n", false},
		"ident":          {"*.c ident\n", "docs/x.c", "/* $Id: kept by hand $ */\n", false},
		"eol=crlf lf":    {"*.bat text eol=crlf\n", "docs/run.bat", "echo lf only\n", false},
		"filter":         {"*.up filter=up\n", "docs/a.up", "lower\n", false},
		"encoding":       {"*.u16 working-tree-encoding=UTF-16\n", "docs/a.u16", "\xff\xfea\x00\n\x00", false},
		// Benign: what git stores as it is stays covered, byte for byte.
		"text lf":        {"*.txt text\n", "docs/notes.txt", "line one\nline two\n", true},
		"text=auto lf":   {"* text=auto\n", "docs/notes.txt", "line one\nline two\n", true},
		"binary crlf":    {"*.bin -text\n", "docs/a.bin", "raw\r\nbytes\r\n", true},
		"no attributes":  {"*.md diff\n", "docs/notes.txt", "line one\r\nline two\r\n", true},
		"autocrlf input": {"", "docs/notes.txt", "line one\r\nline two\r\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			// The user's own git converts line endings: guard's does not.
			run(t, ws, "config", "--global", "core.autocrlf", "input")
			run(t, ws, "config", "filter.up.clean", "tr a-z A-Z")
			run(t, ws, "config", "filter.up.smudge", "tr A-Z a-z")
			write(t, ws, map[string]string{".gitattributes": tc.attrs})
			run(t, ws, "add", ".gitattributes")
			run(t, ws, "commit", "-q", "-m", "attrs")
			write(t, ws, map[string]string{tc.file: tc.data})
			docs := filepath.Join(ws, "docs")
			cp := command(t, st, ws, "00000000000000d1", []Target{{Path: docs}}, func() { os.RemoveAll(docs) })
			if got := len(cp.Covered) == 1; got != tc.covered {
				t.Fatalf("covered = %v, want %v", cp.Covered, tc.covered)
			}
			if !tc.covered {
				return
			}
			undo(t, st, cp, false)
			got, err := os.ReadFile(filepath.Join(ws, tc.file))
			if err != nil || string(got) != tc.data {
				t.Errorf("covered %v; undo restored %q (%v), want the bytes deleted %q", cp.Covered, got, err, tc.data)
			}
		})
	}
}
