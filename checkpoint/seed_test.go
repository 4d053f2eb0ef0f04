package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guard seeds its own index of a repository from the user's .git/index,
// which every command that may write the workspace may write too, and
// which users mark (assume-unchanged, skip-worktree) to have git stop
// looking at a file. What that index says of a file's content (its
// object id, kept while the stat data match; the marks, which make git
// never hash the file again) is not what the file holds, and a
// checkpoint that took it from there restored other bytes than the ones
// deleted. The seed keeps the paths and modes, and nothing git would
// trust instead of reading the file.
func TestSeedDistrustsUserIndex(t *testing.T) {
	mine := "package main // my local edit\n"
	for _, tc := range []struct {
		name string
		// user changes the user's index (and the work tree) before guard's
		// first checkpoint of the repository.
		user func(t *testing.T, ws string)
	}{
		{"assume-unchanged", func(t *testing.T, ws string) {
			run(t, ws, "update-index", "--assume-unchanged", "src/main.go")
			write(t, ws, map[string]string{"src/main.go": mine})
		}},
		{"skip-worktree", func(t *testing.T, ws string) {
			run(t, ws, "update-index", "--skip-worktree", "src/main.go")
			write(t, ws, map[string]string{"src/main.go": mine})
		}},
		{"forged id", func(t *testing.T, ws string) {
			// A command stages the file as it is (the stat data match),
			// then writes the id of its own blob into the entry.
			write(t, ws, map[string]string{"src/main.go": mine})
			run(t, ws, "add", "src/main.go")
			good := strings.TrimSpace(run(t, ws, "rev-parse", ":src/main.go"))
			evilFile := filepath.Join(t.TempDir(), "evil")
			if err := os.WriteFile(evilFile, []byte("package main // the attacker's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			evil := strings.TrimSpace(run(t, ws, "hash-object", "-w", evilFile))
			forgeIndexID(t, filepath.Join(ws, ".git", "index"), good, evil)
			if got := strings.TrimSpace(run(t, ws, "rev-parse", ":src/main.go")); got != evil {
				t.Fatalf("forged index names %s, want %s", got, evil)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			tc.user(t, ws)
			before := snapshotFS(t, ws)
			src := filepath.Join(ws, "src")
			cp := command(t, st, ws, "00000000000000a1", []Target{{Path: src}}, func() { os.RemoveAll(src) })
			if len(cp.Covered) != 1 {
				t.Fatalf("covered = %v, want src", cp.Covered)
			}
			undo(t, st, cp, false)
			got, _ := os.ReadFile(filepath.Join(src, "main.go"))
			if string(got) != mine {
				t.Errorf("undo restored src/main.go as %q, want the bytes deleted, %q", got, mine)
			}
			if after := snapshotFS(t, ws); len(after) != len(before) {
				t.Errorf("after undo %d paths, want %d", len(after), len(before))
			}
		})
	}
}

// forgeIndexID replaces object id old by id new in the index at p and
// writes the index's checksum anew, as a command writing .git/index can.
func forgeIndexID(t *testing.T, p, old, new string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := hex.DecodeString(old)
	n, _ := hex.DecodeString(new)
	body := data[:len(data)-sha1.Size]
	if bytes.Count(body, o) != 1 {
		t.Fatalf("index holds %s %d times", old, bytes.Count(body, o))
	}
	body = bytes.Replace(body, o, n, 1)
	sum := sha1.Sum(body)
	if err := os.WriteFile(p, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
}
