package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guard-sh/guard/sandbox/confine"
)

// TestAttackRuleSwappedForSymlink: guard resolves every granted path to
// the real tree when it plans the run (a symlink is never granted), but
// the helper opens them later to make its Landlock rules and mounts. In
// between, a command of another run that may write the directory (an
// agent's background command, with /tmp, or a directory split around a
// hidden path) swaps a granted entry for a symlink to a secret: the rule
// then grants the secret. Here the swap happens between the plan and the
// helper, as the race would have it; the secret must stay unread and
// unchanged, and without the swap the entry is the command's.
func TestAttackRuleSwappedForSymlink(t *testing.T) {
	if Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	root, err := os.MkdirTemp("/var/tmp", "guard-toctou-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, ws, out := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "out")
	netrc, pin := filepath.Join(home, ".netrc"), filepath.Join(home, ".config/guard/pin")
	for p, content := range map[string]string{
		netrc: "machine x password SECRET-NETRC\n",
		pin:   "SECRET-PIN-HASH\n",
		filepath.Join(home, ".config/guard/policy.toml"): "POLICY\n",
		filepath.Join(ws, "main.go"):                     "package main\n",
		filepath.Join(out, "secret/key"):                 "SECRET-OUT\n",
		filepath.Join(out, "entry"):                      "ok\n",
		filepath.Join(out, "dir/file"):                   "ok\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// out holds a hidden path, so its grant is split into its entries:
	// out/entry and out/dir are rules of their own.
	spec := Spec{
		Workspace: ws, Home: home, Write: true, ExtraWrite: []string{out, filepath.Join(root, "tree")},
		Hide:   []string{netrc, filepath.Join(home, ".config/guard"), filepath.Join(out, "secret")},
		Reveal: []string{filepath.Join(home, ".config/guard/policy.toml")},
		Env:    []string{"PATH=/usr/bin:/bin"},
	}
	attempt := func(t *testing.T, swap func(), argv ...string) (string, Result) {
		t.Helper()
		// The entries as they were (an earlier attempt swapped one).
		for _, p := range []string{filepath.Join(out, "entry"), filepath.Join(out, "dir"), filepath.Join(root, "tree")} {
			os.RemoveAll(p)
		}
		for _, d := range []string{filepath.Join(out, "dir"), filepath.Join(root, "tree")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{filepath.Join(out, "entry"), filepath.Join(out, "dir/file")} {
			if err := os.WriteFile(p, []byte("ok\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		stdio := Stdio{Out: &buf, Err: &buf}
		pr := plan(spec, argv, stdio)
		if pr.invalid != nil || pr.err != nil {
			t.Fatal(pr.invalid, pr.err)
		}
		for _, r := range []string{filepath.Join(out, "entry"), filepath.Join(out, "dir")} {
			if !slices.ContainsFunc(pr.p.Rules, func(x confine.Rule) bool { return x.Path == r }) {
				t.Fatalf("no rule of its own for %s: the attack would test nothing", r)
			}
		}
		swap()
		l, err := launch(context.Background(), selfExe, argv[0], stdio, home)
		res, err := run(context.Background(), pr, stdio, l, err, nil)
		if err != nil {
			// The helper refused to set the run up: nothing ran, which
			// is a refusal too.
			t.Logf("not run: %v", err)
			return buf.String(), Result{ExitCode: codeFailed}
		}
		return buf.String(), res
	}
	swapTo := func(name, target string) func() {
		return func() {
			p := filepath.Join(out, name)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("a file rule swapped for a hidden file", func(t *testing.T) {
		got, res := attempt(t, swapTo("entry", netrc), "cat", filepath.Join(out, "entry"))
		if strings.Contains(got, "SECRET") || res.ExitCode == 0 {
			t.Errorf("read the hidden file through the swapped rule: exit %d, %q", res.ExitCode, got)
		}
	})
	t.Run("a directory rule swapped for guard's config", func(t *testing.T) {
		dir := filepath.Join(out, "dir")
		got, res := attempt(t, swapTo("dir", filepath.Dir(pin)), "sh", "-c", `cat "$0/pin"; echo pwned > "$0/policy.toml"`, dir)
		if strings.Contains(got, "SECRET") {
			t.Errorf("read guard's PIN through the swapped rule: exit %d, %q", res.ExitCode, got)
		}
		if b, _ := os.ReadFile(filepath.Join(home, ".config/guard/policy.toml")); string(b) != "POLICY\n" {
			t.Errorf("guard's policy is now %q", b)
		}
	})
	t.Run("a writable tree swapped for guard's config", func(t *testing.T) {
		// Landlock does not confine chmod: only the sealed mounts keep
		// it off guard's files, unless the tree's bind follows the link.
		tree := filepath.Join(root, "tree")
		swap := func() {
			if err := os.RemoveAll(tree); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Dir(pin), tree); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := attempt(t, swap, "sh", "-c", `chmod 0666 "$0/pin" "$0/policy.toml"; cat "$0/pin"`, tree)
		if strings.Contains(got, "SECRET") {
			t.Errorf("read guard's PIN through the swapped tree: %q", got)
		}
		for _, f := range []string{pin, filepath.Join(home, ".config/guard/policy.toml")} {
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v, %v; want mode 0644 as it was", f, fi, err)
			}
		}
	})
	t.Run("control: the entries are the command's", func(t *testing.T) {
		got, res := attempt(t, func() {}, "sh", "-c", `cat "$0" "$1/file" && echo mine > "$1/new"`, filepath.Join(out, "entry"), filepath.Join(out, "dir"))
		if res.ExitCode != 0 || got != "ok\nok\n" {
			t.Errorf("exit %d, %q; want both read", res.ExitCode, got)
		}
	})
}
