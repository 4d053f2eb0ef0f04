package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRemovePagesOnlyGuardPages(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"guard.1", "guard-old.1", "README", "other.1", "guard-notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "guard-dir.1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := removePages(dir); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"README", "guard-dir.1", "guard-notes.txt", "other.1"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}
