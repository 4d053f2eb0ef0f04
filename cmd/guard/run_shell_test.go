package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunShellMustReadBash: guard run -c TEXT reviews TEXT as bash. A
// --shell that reads it otherwise would run what the review did not see:
// zsh runs the code in the glob qualifier of 'echo *(e:…:)', which bash
// (and the review) read as a pattern, at A. Such a shell is refused
// before anything runs or is recorded; bash, sh and dash run. (A
// stand-in zsh on PATH leaves a mark when it is started.)
func TestRunShellMustReadBash(t *testing.T) {
	home := docFixture(t)
	bin := filepath.Join(home, "bin")
	mark := filepath.Join(home, "zsh-ran")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\n: > '" + mark + "'\n"
	for _, name := range []string{"zsh", "python3"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link named bash that leads to zsh is zsh.
	if err := os.Symlink(filepath.Join(bin, "zsh"), filepath.Join(bin, "bash-link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, sh := range []string{"zsh", "python3", filepath.Join(bin, "bash-link")} {
		code, _, stderr := runGuard("run", "--shell", sh, "-c", "echo *(e:'touch ~/.bashrc':)")
		if code != exitGuardFailed || !strings.Contains(stderr, "not bash or a POSIX sh") || !strings.Contains(stderr, "guard: hint: pass --shell bash") {
			t.Errorf("--shell %s: exit %d, stderr %q (want refused)", sh, code, stderr)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("--shell %s: the shell ran", sh)
		}
	}
	// The run's SHELL: programs run what they are given with it
	// (script -c, tmux, fzf --preview), and guard reviewed that as bash.
	// A zsh is bash for the run; a bash-syntax SHELL stays.
	for _, tc := range []struct{ shell, want string }{
		{filepath.Join(bin, "zsh"), "bash"},
		{"/usr/bin/fish", "bash"},
		{"/bin/sh", "/bin/sh"},
	} {
		t.Setenv("SHELL", tc.shell)
		code, stdout, stderr := runGuard("run", "-c", `echo "$SHELL"`)
		got := strings.TrimSpace(stdout)
		if code != 0 || (tc.want == "bash" && filepath.Base(got) != "bash") || (tc.want != "bash" && got != tc.want) {
			t.Errorf("SHELL=%s: the command's SHELL is %q (exit %d, %s), want %s", tc.shell, got, code, stderr, tc.want)
		}
	}
	for _, sh := range []string{"", "bash", "sh", "dash"} {
		args := []string{"run", "-c", "echo ran"}
		if sh != "" {
			if _, err := os.Stat("/bin/" + sh); err != nil {
				continue
			}
			args = []string{"run", "--shell", sh, "-c", "echo ran"}
		}
		if code, stdout, stderr := runGuard(args...); code != 0 || stdout != "ran\n" {
			t.Errorf("--shell %q: exit %d, stdout %q, stderr %q", sh, code, stdout, stderr)
		}
	}
}
