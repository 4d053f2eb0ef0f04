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
			cp := rmCovered(t, st, ws, "00000000000000a1", src)
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

// A path in the user's index that git would never add ("..", ".git", an
// empty component) is not seeded into guard's index: guard's git runs
// outside the sandbox, and would read what such a path names (a key
// beside the workspace) into objects the next command can read, or name
// it in a tree for undo to write.
func TestSeedRefusesForeignPaths(t *testing.T) {
	for _, forged := range []string{"../secret", "src/../../secret", ".git/secret", "a//secret", ".GIT/secret", "/a/secret", "./../secret", "lnk/secret"} {
		t.Run(forged, func(t *testing.T) {
			st := env(t)
			ws := newRepo(t)
			secret := "-----BEGIN KEY----- not for the sandbox\n"
			write(t, filepath.Dir(ws), map[string]string{"secret": secret, "keys/secret": secret})
			write(t, ws, map[string]string{".git/secret": secret})
			// A symlink to a directory outside, for "lnk/secret".
			if err := os.Symlink(filepath.Join(filepath.Dir(ws), "keys"), filepath.Join(ws, "lnk")); err != nil {
				t.Fatal(err)
			}
			// A command stages a file, then renames its entry in place.
			stand := strings.Repeat("x", len(forged)-len("/secret")) + "/secret"
			if len(stand) != len(forged) || strings.HasPrefix(forged, "/") {
				stand = "x" + strings.Repeat("y", len(forged)-2) + "q"
			}
			write(t, ws, map[string]string{stand: "staged\n"})
			run(t, ws, "add", stand)
			forgeIndexPath(t, filepath.Join(ws, ".git", "index"), stand, forged)
			command(t, st, ws, "00000000000000b1", nil, func() {
				write(t, ws, map[string]string{"README.md": "changed\n"})
			})
			out := run(t, ws, "cat-file", "--batch-all-objects", "--batch")
			if strings.Contains(out, strings.TrimSpace(secret)) {
				t.Errorf("guard's git read %s into the repository's objects", forged)
			}
		})
	}
}

// An ignored file the user's index names (a command can add it there:
// git update-index --add --cacheinfo) is not in guard's index, seeded
// earlier, so not in the checkpoint's tree. When git add -A wrote the
// snapshot (core.ignoreCase, an index guard does not read), coverage
// asked the user's index what git holds, found it tracked, and counted
// the delete covered without a backup: undo did not bring it back.
func TestCoverAsksTheSnapshot(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	run(t, ws, "config", "core.ignoreCase", "true") // snapshots by git add -A
	command(t, st, ws, "00000000000000c1", nil, func() {
		write(t, ws, map[string]string{"README.md": "seeded\n"})
	})
	oid := strings.TrimSpace(run(t, ws, "hash-object", "-w", "build/out.o"))
	run(t, ws, "update-index", "--add", "--cacheinfo", "100644,"+oid+",build/out.o")
	build := filepath.Join(ws, "build")
	cp := command(t, st, ws, "00000000000000c2", []Target{{Path: build}}, func() { os.RemoveAll(build) })
	if len(cp.Covered) != 0 {
		t.Errorf("covered = %v, want nothing: build/out.o is neither in the checkpoint's tree nor backed up", cp.Covered)
	}
	if len(cp.Backups) != 0 {
		t.Errorf("backups of a delete not covered: %v", cp.Backups)
	}
}

func TestAddable(t *testing.T) {
	for p, want := range map[string]bool{
		"src/main.go": true, ".gitignore": true, ".github/workflows/ci.yml": true, "a.git/b": true,
		".gitx": true, "src/..x": true, "...": true, "x/.git2/y": true,
		"": false, "/etc/passwd": false, "a/": false, "a//b": false, "./a": false, "a/./b": false,
		"..": false, "a/../b": false, ".git": false, "a/.git/config": false, ".Git/hooks/x": false,
		".git./x": false, ".git /x": false, "GIT~1/x": false, ".git::$INDEX_ALLOCATION/x": false, `a\..\b`: true,
	} {
		if got := addable(p); got != want {
			t.Errorf("addable(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestSeedFileAndDirectory: a command rewrites the user's index so that
// it holds a file "a" and a file "a/x" below a directory of the same
// name, with "a-b" sorted between them (git itself never writes such an
// index). The snapshot drops a/x (a is no directory), and guard's tree
// builder refuses the shape besides (FuzzBuildTrees: it once compared
// only neighbours, and would have written a tree with two entries "a",
// which git fsck calls broken). The checkpoint must be one git fsck
// accepts, holding the file a.
func TestSeedFileAndDirectory(t *testing.T) {
	st := env(t)
	ws := newRepo(t)
	write(t, ws, map[string]string{"a": "file a\n", "a-b": "file a-b\n", "b/x": "file b/x\n"})
	run(t, ws, "add", "a", "a-b", "b/x")
	forgeIndexPath(t, filepath.Join(ws, ".git", "index"), "b/x", "a/x")
	if got := run(t, ws, "ls-files", "a/x"); strings.TrimSpace(got) != "a/x" {
		t.Fatalf("forged index lists %q, want a/x", got)
	}
	command(t, st, ws, "00000000000000f1", nil, func() { write(t, ws, map[string]string{"README.md": "changed\n"}) })
	run(t, ws, "fsck", "--strict", "--no-dangling")
	if got := run(t, ws, "ls-tree", "-r", "--name-only", "refs/guard/checkpoints/00000000000000f1/before", "a", "a/x"); got != "a\n" {
		t.Errorf("the checkpoint holds %q, want only the file a (a/x is no file)", got)
	}
}

// forgeIndexPath replaces path old by path new (as long) in the index
// at p, without its extensions, and writes its checksum anew.
func forgeIndexPath(t *testing.T, p, old, new string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, end, err := parseEntries(data, sha1.Size)
	if err != nil {
		t.Fatal(err)
	}
	body := data[:end]
	if bytes.Count(body, []byte(old+"\x00")) != 1 {
		t.Fatalf("index holds %s %d times", old, bytes.Count(body, []byte(old+"\x00")))
	}
	body = bytes.Replace(body, []byte(old+"\x00"), []byte(new+"\x00"), 1)
	sum := sha1.Sum(body)
	if err := os.WriteFile(p, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
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
