package scan

import (
	"errors"
	"slices"
	"testing"
)

// TestExtractRakefile: the commands a Rakefile runs — sh, system, exec
// and spawn with one string (a command line) or several (a program and
// its arguments), backticks and %x() — in every Ruby string form. None
// was read (every case with commands failed before). Strings that are
// only data, comments, and heredoc bodies given to something else are
// not commands.
func TestExtractRakefile(t *testing.T) {
	checkExtract(t, "Rakefile", []struct {
		name, src string
		want      []extracted
	}{
		{"sh forms", "task :a do\n  sh \"curl https://x | sh\"\n  sh('make test')\n  system %q(rm -rf ~)\nend\n", []extracted{{"curl https://x | sh", "2:7"}, {"make test", "3:7"}, {"rm -rf ~", "4:13"}}},
		{"argv and options", "task :b do\n  sh \"rm\", \"-rf\", \"a b\"\n  sh \"ls\", verbose: false\nend\n", []extracted{{"rm -rf 'a b'", "2:7"}, {"ls", "3:7"}}},
		{"backticks and %x", "V = `git describe`\nW = %x{curl https://x | sh}\n", []extracted{{"git describe", "1:6"}, {"curl https://x | sh", "2:8"}}},
		{"interpolation", "task :c do |t, args|\n  sh \"rm -rf #{args[:dir]}\"\nend\n", []extracted{{"rm -rf ${ruby_args_dir}", "2:7"}}},
		{"heredoc", "task :d do\n  sh <<~EOS\n    set -e\n    curl https://x | sh\n  EOS\n  puts 'done'\nend\n", []extracted{{"set -e\ncurl https://x | sh\n", "3:5"}}},
		// The code in a string's #{…} runs, even where the string is
		// only data (the commands were missed inside data strings).
		{"interpolated code", "puts \"v: #{system('rm -rf ~')}\"\nmsg = <<~TXT\n  at #{`id`}\nTXT\nsh \"echo #{`whoami`}\"\n", []extracted{{"rm -rf ~", "1:20"}, {"id", "3:9"}, {"echo ${ruby_whoami}", "5:5"}, {"whoami", "5:13"}}},
		{"data and comments", "# sh 'rm -rf ~'\nputs \"sh 'rm -rf ~'\"\nmsg = <<~TXT\n  system 'rm -rf ~'\nTXT\nx = shell 'ls'\nsystem? 'x'\n", nil},
	})
	for name, want := range map[string]Kind{"Rakefile": Rake, "rakefile.rb": Rake, "lib/tasks/db.rake": Rake, "rake.rb": "", "Vagrantfile": Vagrant, "vagrantfile.txt": ""} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExtractRubyNonLiteral: a command Ruby builds at run time is code
// guard cannot see (eval "${…}": exec.dynamic-code, B), never skipped:
// system(cmd), system cmd, Kernel.exec, spawn, IO.popen with a string or
// an argv, Open3's capture and popen, Open3.pipeline (each argument a
// command), send(:system, …), a non-literal word among literal ones,
// and an environment hash before the command. Each gave nothing, or a
// literal prefix alone (system("rm", "-rf", target) was "rm -rf", A), on
// 17c6cc7. Controls: a method of another receiver with a non-literal
// argument (db.exec(sql)), a method being defined, a symbol, a hash key,
// an assignment and a modifier after a literal.
func TestExtractRubyNonLiteral(t *testing.T) {
	checkExtract(t, "Rakefile", []struct {
		name, src string
		want      []extracted
	}{
		{"system variable", "cmd = ENV['X']\nsystem(cmd)\nsystem cmd\n", []extracted{{`eval "${ruby_cmd}"`, "2:8"}, {`eval "${ruby_cmd}"`, "3:8"}}},
		{"kernel exec and spawn", "Kernel.exec(build_cmd)\nProcess.spawn(\"#{x}\")\nPTY.spawn(c)\n", []extracted{{`eval "${ruby_build_cmd}"`, "1:13"}, {"${ruby_x}", "2:16"}, {`eval "${ruby_c}"`, "3:11"}}},
		{"popen string and argv", "IO.popen(cmd, 'r+')\nIO.popen(['rm', '-rf', Dir.home])\nIO.popen(\"curl https://x | sh\", \"r\")\n", []extracted{{`eval "${ruby_cmd}"`, "1:10"}, {"rm -rf ${ruby_Dir_home}", "2:12"}, {"curl https://x | sh", "3:11"}}},
		{"open3", "Open3.capture2(\"curl https://x | sh\")\nout, st = Open3.capture3(cmd, stdin_data: s)\nOpen3.popen3(\"rm\", \"-rf\", dir) { |i, o, e, t| }\n", []extracted{{"curl https://x | sh", "1:17"}, {`eval "${ruby_cmd}"`, "2:26"}, {"rm -rf ${ruby_dir}", "3:15"}}},
		{"pipeline", "Open3.pipeline(\"ls\", \"rm -rf ~\")\n", []extracted{{"ls", "1:17"}, {"rm -rf ~", "1:23"}}},
		{"send", "Kernel.send(:system, cmd)\nsend(\"exec\", \"rm -rf ~\")\n", []extracted{{`eval "${ruby_cmd}"`, "1:22"}, {"rm -rf ~", "2:15"}}},
		{"non-literal word", "system(\"rm\", \"-rf\", target)\n", []extracted{{"rm -rf ${ruby_target}", "1:9"}}},
		{"environment first", "system({\"A\" => \"1\"}, \"curl https://x | sh\")\nsystem(env, cmd)\n", []extracted{{"curl https://x | sh", "1:23"}, {"${ruby_env} ${ruby_cmd}", "2:8"}}},
		{"continued arguments", "system \"rm\",\n  \"-rf\", path\n", []extracted{{"rm -rf ${ruby_path}", "1:9"}}},
		{"controls", "db.exec(sql)\nconn.exec query\ndef system(cmd)\nend\nh = { system: 1 }\nexec = 1\nsystem \"make\" if ok\nsystem(\"ls\", chdir: dir, exception: true)\n", []extracted{{"make", "7:9"}, {"ls", "8:9"}}},
		// A string literal is a command word even when it holds => (as
		// a hash option does): it was dropped as an option.
		{"string holding =>", "system(\"curl https://x | sh # =>\")\nsystem(\"rm\", \"-rf\", \"~\", \"=>\")\n", []extracted{{"curl https://x | sh # =>", "1:9"}, {"rm -rf '~' '=>'", "2:9"}}},
	})
}

// TestExtractNestedQuotes: a quote inside an interpolation's code does
// not end the string around it (Ruby's "#{"x"}", Groovy's "${"x"}"):
// guard read the string as ending there and the command after it was
// never reviewed (each gave nothing on 17c6cc7). A Vagrantfile's inline:
// $script (the usual form) is the string assigned to the variable; any
// other non-literal is code guard cannot see (both skipped on 17c6cc7).
// A Jenkinsfile sh step whose string guard cannot read to its end is a
// syntax error (scan-unparsable), not skipped.
func TestExtractNestedQuotes(t *testing.T) {
	checkExtract(t, "Rakefile", []struct {
		name, src string
		want      []extracted
	}{
		{"ruby nested quotes", "sh \"echo #{\"safe\"} && curl https://x | sh\"\n", []extracted{{"echo ${ruby_safe} && curl https://x | sh", "1:5"}}},
		{"ruby nested braces and quotes", "sh \"a #{h.fetch(\"k\") { \"}\" }} ; rm -rf ~\"\n", []extracted{{`a ${ruby_h_fetch_k} ; rm -rf ~`, "1:5"}}},
	})
	checkExtract(t, "Jenkinsfile", []struct {
		name, src string
		want      []extracted
	}{
		{"groovy nested quotes", "node {\n  sh \"echo ${\"safe\"} && curl https://x | sh\"\n  sh \"echo ${env.X.replace(\"a\", \"b\")} ; rm -rf ~\"\n}\n", []extracted{{"echo ${groovy_safe} && curl https://x | sh", "2:7"}, {"echo ${groovy_env_X_replace_a_b} ; rm -rf ~", "3:7"}}},
	})
	checkExtract(t, "Vagrantfile", []struct {
		name, src string
		want      []extracted
	}{
		{"inline variable", "$script = <<-SCRIPT\ncurl https://x | sh\nSCRIPT\nVagrant.configure(\"2\") do |c|\n  c.vm.provision \"shell\", inline: $script\nend\n", []extracted{{"curl https://x | sh\n", "2:1"}}},
		{"inline expression", "Vagrant.configure(\"2\") do |c|\n  c.vm.provision \"shell\", inline: build_cmd(1)\nend\n", []extracted{{`eval "${ruby_build_cmd_1}"`, "2:35"}}},
	})
	_, err := Extract("Jenkinsfile", []byte("node {\n  sh 'ls'\n  sh \"curl https://x | sh\n}\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 3 {
		t.Errorf("Extract = %v, want a syntax error on line 3", err)
	}
}

// TestExtractVagrantfile: a shell provisioner's inline script runs in the
// virtual machine, a trigger's run on the host (run_remote in the
// machine). None was read (every case with commands failed before).
func TestExtractVagrantfile(t *testing.T) {
	src := "Vagrant.configure(\"2\") do |config|\n" +
		"  config.vm.provision \"shell\", inline: <<-SHELL\n" +
		"    apt-get install -y curl\n" +
		"  SHELL\n" +
		"  config.vm.provision :shell, :inline => \"echo guest\"\n" +
		"  config.trigger.before :up do |t|\n" +
		"    t.run = {inline: \"curl https://x | sh\"}\n" +
		"    t.run_remote = {inline: \"echo remote\"}\n" +
		"  end\n" +
		"  config.vm.provision \"shell\" do |s|\n" +
		"    s.inline = 'echo block'\n" +
		"    s.path = \"scripts/setup\"\n" +
		"  end\n" +
		"end\n"
	sn, err := Extract("Vagrantfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		text string
		kind Kind
		pos  Position
	}
	var all []got
	for _, s := range sn {
		all = append(all, got{s.Text, s.Kind, s.Start()})
	}
	want := []got{
		{"    apt-get install -y curl\n", Vagrant, Position{3, 1}}, // <<- keeps the indentation
		{"echo guest", Vagrant, Position{5, 43}},
		{"curl https://x | sh", VagrantHost, Position{7, 23}},
		{"echo remote", Vagrant, Position{8, 30}},
		{"echo block", Vagrant, Position{11, 17}},
	}
	if !slices.Equal(all, want) {
		t.Fatalf("snippets\n%v\nwant\n%v", all, want)
	}
	if got := vagrantPaths("vm/Vagrantfile", []byte(src)); !slices.Equal(got, []string{"vm/scripts/setup"}) {
		t.Errorf("vagrantPaths = %q, want the provisioner's script", got)
	}
}
