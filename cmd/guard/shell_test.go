package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestShellParseArgs(t *testing.T) {
	cases := []struct {
		args  []string
		want  shellOptions
		error string
	}{
		{args: []string{"-c", "echo hi"}, want: shellOptions{command: "echo hi", hasCommand: true}},
		{args: []string{"-lc", "echo hi"}, want: shellOptions{command: "echo hi", hasCommand: true, login: true}},
		{args: []string{"-ec", "x"}, want: shellOptions{command: "x", hasCommand: true, short: []string{"-e"}}},
		{args: []string{"-lec", "x"}, want: shellOptions{command: "x", hasCommand: true, login: true, short: []string{"-e"}}},
		{args: []string{"-cel", "x"}, want: shellOptions{command: "x", hasCommand: true, login: true, short: []string{"-e"}}},
		{args: []string{"-e", "-o", "pipefail", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, short: []string{"-e", "-o", "pipefail"}}},
		{args: []string{"-eo", "pipefail", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, short: []string{"-e", "-o", "pipefail"}}},
		{args: []string{"+o", "histexpand", "-u", "+e", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, short: []string{"+o", "histexpand", "-u", "+e"}}},
		{args: []string{"-O", "extglob", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, short: []string{"-O", "extglob"}}},
		{args: []string{"--login", "--norc", "--noprofile", "-i", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, login: true, interact: true}},
		{args: []string{"--posix", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, long: []string{"--posix"}}},
		{args: []string{"--rcfile", "/x", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true}},
		{args: []string{"--shell=/bin/zsh", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, shell: "/bin/zsh"}},
		{args: []string{"--shell", "/bin/zsh", "-c", "x"}, want: shellOptions{command: "x", hasCommand: true, shell: "/bin/zsh"}},
		{args: []string{"-c", "echo $0 $1", "name", "arg"}, want: shellOptions{command: "echo $0 $1", hasCommand: true, args: []string{"name", "arg"}}},
		{args: []string{"-c", "-x", "name"}, want: shellOptions{command: "name", hasCommand: true, short: []string{"-x"}}},
		{args: []string{"-c", "--", "-x", "y"}, want: shellOptions{command: "-x", hasCommand: true, args: []string{"y"}}},
		{args: []string{"-e", "--", "script.sh", "a"}, want: shellOptions{short: []string{"-e"}, args: []string{"script.sh", "a"}}},
		{args: []string{"-s", "a", "b"}, want: shellOptions{stdin: true, args: []string{"a", "b"}}},
		{args: []string{"script.sh", "-c", "x"}, want: shellOptions{args: []string{"script.sh", "-c", "x"}}},
		{args: []string{}, want: shellOptions{}},
		{args: []string{"-i"}, want: shellOptions{interact: true}},
		{args: []string{"--version"}, want: shellOptions{args: []string{"--version"}}},
		{args: []string{"--help"}, want: shellOptions{help: true}},
		{args: []string{"-c"}, error: "-c needs the command text"},
		{args: []string{"-o"}, error: "-o needs an option name"},
		{args: []string{"-Z", "-c", "x"}, error: "unknown option -Z"},
		{args: []string{"--frobnicate"}, error: "unknown option --frobnicate"},
		{args: []string{"+c", "x"}, error: "unknown option +c"},
		{args: []string{"--shell="}, error: "--shell needs"},
	}
	for _, c := range cases {
		got, err := parseShellArgs(c.args)
		if c.error != "" {
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Errorf("%q: error %v, want %q", c.args, err, c.error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.args, got, c.want)
		}
	}
}

// TestShellGuardEnv: the shim never changes, for later lines, a variable
// guard's own decisions rest on (found by asking the engine), and changes
// any other.
func TestShellGuardEnv(t *testing.T) {
	for _, line := range []string{"export TMPDIR=/home/u", "XDG_STATE_HOME=/tmp/s", "export A=1 XDG_CONFIG_HOME=/tmp/c", "unset HOME", "export USER=root", "cd /tmp; export GUARD_WAIT=0"} {
		bs, ok := shellBuiltins(line)
		if !ok {
			t.Fatalf("%q is not applied by the shim", line)
		}
		if guardEnvChanged(bs) == "" {
			t.Errorf("%q: changes guard's environment, not refused", line)
		}
	}
	for _, line := range []string{"export GREETING=hello", "A=1", "unset OLDPWD", "cd /tmp", "exit 1"} {
		bs, ok := shellBuiltins(line)
		if !ok {
			t.Fatalf("%q is not applied by the shim", line)
		}
		if name := guardEnvChanged(bs); name != "" {
			t.Errorf("%q refused for %s", line, name)
		}
	}
}

func TestShellBuiltins(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("P", "/p")
	cases := map[string][]shellBuiltin{
		"cd src":                            {{name: "cd", args: []string{"src"}}},
		"cd":                                {{name: "cd", args: []string{}}},
		"cd ~/proj":                         {{name: "cd", args: []string{"/home/u/proj"}}},
		"cd $P/x; export A=1 B='two words'": {{name: "cd", args: []string{"/p/x"}}, {name: "export", args: []string{"A=1", "B=two words"}}},
		"X=1":                               {{name: "assign", args: []string{"X=1"}}},
		"unset A B":                         {{name: "unset", args: []string{"A", "B"}}},
		"exit 3":                            {{name: "exit", args: []string{"3"}}},
	}
	for line, want := range cases {
		got, ok := shellBuiltins(line)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v %+v, want %+v", line, ok, got, want)
		}
	}
	for _, line := range []string{"cd src && make", "ls", "export -n A", "cd $(pwd)", "X=1 ls", "cd x > y", "cd x &", "export A+=1", "(cd x)"} {
		if got, ok := shellBuiltins(line); ok {
			t.Errorf("%q applied by the shim: %+v", line, got)
		}
	}
}
