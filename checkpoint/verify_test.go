package checkpoint

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// poison replaces the stored content of loose object oid in ws by
// content of type typ, keeping its name (what a command that may write
// the workspace can do to .git/objects).
func poison(t *testing.T, ws, oid, typ string, content []byte) {
	t.Helper()
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	fmt.Fprintf(z, "%s %d\x00", typ, len(content))
	z.Write(content)
	z.Close()
	p := filepath.Join(ws, ".git", "objects", oid[:2], oid[2:])
	os.Remove(p)
	if err := os.WriteFile(p, b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// loosen turns every pack of ws into loose objects (guard's checkpoints
// write theirs in packs; a command that may write the workspace can
// replace a pack by loose objects of its own as well as write them).
func loosen(t *testing.T, ws string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(ws, ".git", "objects", "pack", "*.pack"))
	out := t.TempDir()
	for _, p := range packs {
		moved := filepath.Join(out, filepath.Base(p))
		if err := os.Rename(p, moved); err != nil {
			t.Fatal(err)
		}
		os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
		f, err := os.Open(moved)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "unpack-objects", "-q")
		cmd.Dir, cmd.Stdin = ws, f
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git unpack-objects: %v\n%s", err, b)
		}
		f.Close()
	}
}

// TestUndoChecksObjects: undo restores nothing from an object store whose
// objects no longer hash to their names — a blob's content replaced, or
// a tree that names another blob — and changes nothing in the workspace.
func TestUndoChecksObjects(t *testing.T) {
	for _, what := range []string{"blob", "tree", "after tree"} {
		t.Run(what, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			src := filepath.Join(ws, "src")
			cp := command(t, st, ws, "00000000000000f1", []Target{{Path: src}}, func() { os.RemoveAll(src) })
			loosen(t, ws)
			switch what {
			case "blob":
				oid := strings.TrimSpace(run(t, ws, "rev-parse", "HEAD:src/main.go"))
				poison(t, ws, oid, "blob", []byte("package main // the attacker's\n"))
			case "tree":
				// src's tree in the before tree, rewritten to name README.md's blob as main.go.
				oid := strings.TrimSpace(run(t, ws, "rev-parse", cp.Before+":src"))
				var tree bytes.Buffer
				for _, l := range strings.Split(strings.TrimSpace(run(t, ws, "ls-tree", cp.Before+":src")), "\n") {
					meta, name, _ := strings.Cut(l, "\t")
					f := strings.Fields(meta)
					id := f[2]
					if name == "main.go" {
						id = strings.TrimSpace(run(t, ws, "rev-parse", "HEAD:README.md"))
					}
					mode := strings.TrimPrefix(f[0], "0")
					raw := make([]byte, 20)
					fmt.Sscanf(id, "%x", &raw)
					fmt.Fprintf(&tree, "%s %s\x00%s", mode, name, raw)
				}
				poison(t, ws, oid, "tree", tree.Bytes())
			case "after tree":
				// The tree after the command, which tells undo what it
				// changed: rewritten to hold one entry more.
				var tree bytes.Buffer
				raw := make([]byte, 20)
				fmt.Sscanf(strings.TrimSpace(run(t, ws, "rev-parse", "HEAD:README.md")), "%x", &raw)
				for _, l := range strings.Split(strings.TrimSpace(run(t, ws, "ls-tree", cp.After)), "\n") {
					meta, name, _ := strings.Cut(l, "\t")
					f := strings.Fields(meta)
					id := make([]byte, 20)
					fmt.Sscanf(f[2], "%x", &id)
					fmt.Fprintf(&tree, "%s %s\x00%s", strings.TrimPrefix(f[0], "0"), name, id)
				}
				fmt.Fprintf(&tree, "100644 zzz-planted\x00%s", raw)
				poison(t, ws, cp.After, "tree", tree.Bytes())
			}
			// Refused by the plan (a tree the diffs read) or by Apply
			// (what it restores from), before anything changes.
			var done []Action
			p, err := PlanUndo(st, cp)
			if err == nil {
				done, err = p.Apply(st, false, t0)
			}
			if !errors.Is(err, ErrObjects) {
				t.Errorf("undo = %v, want ErrObjects", err)
			}
			if len(done) != 0 {
				t.Errorf("done %v", done)
			}
			if _, err := os.Lstat(src); !os.IsNotExist(err) {
				t.Errorf("the workspace changed: %v", err)
			}
		})
	}
}

// TestBackupWrittenAfter: a hard-link backup in the git dir
// (.git/guard-checkpoints, used when guard's state is on another file
// system) can be written by any later command. One written in place
// with its size and modification time put back is never restored: its
// change time is not the one Finish recorded.
func TestBackupWrittenAfter(t *testing.T) {
	st := env(t)
	ws := t.TempDir()
	write(t, ws, map[string]string{"data/run.sh": "#!/bin/sh\necho the user's\n", "data/keep": "k"})
	data := filepath.Join(ws, "data")
	cp := command(t, st, ws, "00000000000000f2", []Target{{Path: data}}, func() { os.RemoveAll(data) })
	b := filepath.Join(cp.BackupDir, "data", "run.sh")
	fi, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	evil := []byte("#!/bin/sh\necho attacker\n")
	evil = append(evil, bytes.Repeat([]byte("#"), int(fi.Size())-len(evil))...)
	if err := os.WriteFile(b, evil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(b, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	p, done := undo(t, st, cp, true)
	if p.Conflicts() != 1 {
		t.Errorf("plan = %+v", p.Actions)
	}
	if got, _ := os.ReadFile(filepath.Join(data, "run.sh")); bytes.Contains(got, []byte("attacker")) {
		t.Errorf("undo restored the backup written after the command: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(data, "keep")); string(got) != "k" {
		t.Errorf("the intact backup was not restored (done %v)", done)
	}
}

// TestParseIndexHostile: the user's index is seeded into guard's when
// guard has none (a repository's first checkpoint), and commands, or a
// repository that arrives as an archive, can write it. A count of
// entries the file cannot hold is a format error (guard falls back to
// git add -A), not an allocation of billions of entries, and no crafted
// index makes the parser panic.
func TestParseIndexHostile(t *testing.T) {
	head := func(n uint32) []byte {
		b := []byte("DIRC\x00\x00\x00\x02")
		return append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	cases := map[string][]byte{
		"4 billion entries": append(head(0xffffffff), make([]byte, 20)...),
		"one entry, cut":    append(append(head(1), make([]byte, 30)...), make([]byte, 20)...),
		"extension too big": append(append(head(0), []byte("TREE\xff\xff\xff\xff")...), make([]byte, 20)...),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("parseIndex panicked: %v", r)
				}
			}()
			if _, err := parseIndex(data, 20); !errors.Is(err, errIndexFormat) {
				t.Errorf("parseIndex = %v, want errIndexFormat", err)
			}
		})
	}
}

// FuzzParseIndex: no input makes parseIndex panic.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 80)))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseIndex(data, 20)
	})
}
