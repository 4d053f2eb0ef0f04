package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/guard-sh/guard/internal/paths"
	"github.com/guard-sh/guard/sandbox/confine"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData encodes struct seccomp_data for x/net/bpf's VM, which
// loads words big-endian: each 32-bit field is written big-endian at
// the offset the kernel uses, so the filter sees the same values.
func seccompData(arch, nr uint32, args ...uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[offArg0+8*i:], a)
	}
	return b
}

// TestSeccompTables: every architecture's table names every system
// call the filter uses, and a table that misses one builds no filter
// (it would match syscall 0 instead).
func TestSeccompTables(t *testing.T) {
	for arch, a := range seccompArches {
		for _, net := range []bool{false, true} {
			if _, err := seccompFilter(a, net); err != nil {
				t.Errorf("%s, net=%v: %v", arch, net, err)
			}
		}
	}
	a := seccompArches["arm64"]
	a.nr = maps.Clone(a.nr)
	delete(a.nr, "socket")
	if _, err := seccompFilter(a, false); err == nil || !strings.Contains(err.Error(), "socket") {
		t.Errorf("table without socket: %v, want an error naming it", err)
	}
}

func TestSeccompFilter(t *testing.T) {
	a := seccompArches["amd64"]
	const (
		openat = 257
		sctp   = 132
	)
	cases := []struct {
		name      string
		in        []byte
		noNet, ok uint32 // want without and with net
	}{
		{"foreign arch", seccompData(unix.AUDIT_ARCH_I386, 102), retKill, retKill},
		{"x32 socket", seccompData(a.audit, x32Bit|a.nr["socket"], unix.AF_INET, unix.SOCK_STREAM), retEPERM, retEPERM},
		{"io_uring_setup", seccompData(a.audit, a.nr["io_uring_setup"]), retEPERM, retEPERM},
		{"openat", seccompData(a.audit, openat), retAllow, retAllow},
		{"unix stream", seccompData(a.audit, a.nr["socket"], unix.AF_UNIX, unix.SOCK_STREAM), retAllow, retAllow},
		{"unix dgram", seccompData(a.audit, a.nr["socket"], unix.AF_UNIX, unix.SOCK_DGRAM), retAllow, retAllow},
		{"netlink route", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE), retAllow, retAllow},
		{"netlink sock_diag", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_SOCK_DIAG), retAllow, retAllow},
		{"netlink generic", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_GENERIC), retAllow, retAllow},
		{"netlink usersock", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_USERSOCK), retEPERM, retEPERM},
		{"netlink uevent", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_KOBJECT_UEVENT), retEPERM, retEPERM},
		{"netlink audit", seccompData(a.audit, a.nr["socket"], unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT), retEPERM, retEPERM},
		{"tcp", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0), retEPERM, retAllow},
		{"tcp6 explicit", seccompData(a.audit, a.nr["socket"], unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP), retEPERM, retAllow},
		{"keyctl", seccompData(a.audit, a.nr["keyctl"], 0), retEPERM, retEPERM},
		{"add_key", seccompData(a.audit, a.nr["add_key"]), retEPERM, retEPERM},
		{"request_key", seccompData(a.audit, a.nr["request_key"]), retEPERM, retEPERM},
		{"prlimit64 self", seccompData(a.audit, a.nr["prlimit64"], 0, unix.RLIMIT_NOFILE), retAllow, retAllow},
		{"prlimit64 other", seccompData(a.audit, a.nr["prlimit64"], 4242, unix.RLIMIT_NOFILE), retEPERM, retEPERM},
		{"sched_setaffinity other", seccompData(a.audit, a.nr["sched_setaffinity"], 4242), retEPERM, retEPERM},
		{"sched_setattr self", seccompData(a.audit, a.nr["sched_setattr"], 0), retAllow, retAllow},
		{"setpriority self", seccompData(a.audit, a.nr["setpriority"], unix.PRIO_PROCESS, 0, 10), retAllow, retAllow},
		{"setpriority other", seccompData(a.audit, a.nr["setpriority"], unix.PRIO_PROCESS, 4242, 10), retEPERM, retEPERM},
		{"setpriority user", seccompData(a.audit, a.nr["setpriority"], unix.PRIO_USER, 0, 10), retEPERM, retEPERM},
		{"ioprio_set other", seccompData(a.audit, a.nr["ioprio_set"], 1, 4242), retEPERM, retEPERM},
		{"ioctl TIOCSTI", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCSTI), retEPERM, retEPERM},
		{"ioctl TIOCLINUX", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCLINUX), retEPERM, retEPERM},
		{"ioctl TIOCSETD", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCSETD), retEPERM, retEPERM},
		{"ioctl TIOCGETD", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCGETD), retAllow, retAllow},
		{"ioctl TIOCEXCL", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCEXCL), retEPERM, retEPERM},
		{"ioctl TIOCGWINSZ", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCGWINSZ), retAllow, retAllow},
		{"chmod setuid", seccompData(a.audit, a.nr["chmod"], 0, 0o4755), retEPERM, retEPERM},
		{"chmod setgid (a shared directory)", seccompData(a.audit, a.nr["chmod"], 0, 0o2775), retAllow, retAllow},
		{"chmod plain", seccompData(a.audit, a.nr["chmod"], 0, 0o755), retAllow, retAllow},
		{"fchmod setuid", seccompData(a.audit, a.nr["fchmod"], 3, 0o4700), retEPERM, retEPERM},
		{"fchmodat setuid", seccompData(a.audit, a.nr["fchmodat"], 3, 0, 0o4755), retEPERM, retEPERM},
		{"fchmodat2 setuid+setgid", seccompData(a.audit, a.nr["fchmodat2"], 3, 0, 0o6700, 0), retEPERM, retEPERM},
		{"openat create setuid", seccompData(a.audit, openat, 3, 0, unix.O_CREAT|unix.O_WRONLY, 0o4755), retEPERM, retEPERM},
		{"openat create plain", seccompData(a.audit, openat, 3, 0, unix.O_CREAT|unix.O_WRONLY, 0o644), retAllow, retAllow},
		{"openat read, stray mode", seccompData(a.audit, openat, 3, 0, unix.O_RDONLY, 0o6777), retAllow, retAllow},
		{"openat tmpfile setuid", seccompData(a.audit, openat, 3, 0, unix.O_TMPFILE|unix.O_RDWR, 0o4755), retEPERM, retEPERM},
		{"open create setuid", seccompData(a.audit, a.nr["open"], 0, unix.O_CREAT, 0o4755), retEPERM, retEPERM},
		{"creat setuid", seccompData(a.audit, a.nr["creat"], 0, 0o4755), retEPERM, retEPERM},
		{"mknodat setuid file", seccompData(a.audit, a.nr["mknodat"], 3, 0, unix.S_IFREG|0o4755, 0), retEPERM, retEPERM},
		{"mknodat fifo", seccompData(a.audit, a.nr["mknodat"], 3, 0, unix.S_IFIFO|0o644, 0), retAllow, retAllow},
		{"openat2", seccompData(a.audit, a.nr["openat2"], 3, 0, 0, 24), retENOSYS, retENOSYS},
		{"ioctl KDSKBSENT", seccompData(a.audit, a.nr["ioctl"], 0, 0x4B49), retEPERM, retEPERM},
		{"ioctl KDSKBENT", seccompData(a.audit, a.nr["ioctl"], 0, 0x4B47), retEPERM, retEPERM},
		{"ioctl KDSETMODE", seccompData(a.audit, a.nr["ioctl"], 0, 0x4B3A), retEPERM, retEPERM},
		{"ioctl VT_ACTIVATE", seccompData(a.audit, a.nr["ioctl"], 0, 0x5606), retEPERM, retEPERM},
		{"ioctl TCGETS", seccompData(a.audit, a.nr["ioctl"], 0, unix.TCGETS), retAllow, retAllow},
		{"ioctl TIOCINQ", seccompData(a.audit, a.nr["ioctl"], 0, unix.TIOCINQ), retAllow, retAllow},
		{"ioctl new-style K type", seccompData(a.audit, a.nr["ioctl"], 0, 0x80044B00), retAllow, retAllow},
		{"mptcp", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), retEPERM, retEPERM},
		{"mptcp6", seccompData(a.audit, a.nr["socket"], unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_MPTCP), retEPERM, retEPERM},
		{"sctp", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_STREAM, sctp), retEPERM, retEPERM},
		{"sctp seqpacket", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_SEQPACKET, sctp), retEPERM, retEPERM},
		{"udp", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_DGRAM, 0), retEPERM, retAllow},
		{"udp6 cloexec", seccompData(a.audit, a.nr["socket"], unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP), retEPERM, retAllow},
		{"raw", seccompData(a.audit, a.nr["socket"], unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP), retEPERM, retEPERM},
		{"packet", seccompData(a.audit, a.nr["socket"], unix.AF_PACKET, unix.SOCK_RAW), retEPERM, retEPERM},
		{"vsock", seccompData(a.audit, a.nr["socket"], unix.AF_VSOCK, unix.SOCK_STREAM), retEPERM, retEPERM},
	}
	for _, net := range []bool{false, true} {
		raw, err := seccompFilter(a, net)
		if err != nil {
			t.Fatal(err)
		}
		prog, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatal("filter does not disassemble")
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			want := c.noNet
			if net {
				want = c.ok
			}
			got, err := vm.Run(c.in)
			if err != nil || uint32(got) != want {
				t.Errorf("net=%v %s: got %#x, %v; want %#x", net, c.name, got, err, want)
			}
		}
	}
}

func TestGrantsHideBySiblings(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for _, d := range []string{".ssh", ".config/guard", ".config/git", "src"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644)
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o644)
	os.Symlink(".ssh", filepath.Join(home, "ssh-link"))
	ws := filepath.Join(home, "src")
	s, err := Spec{Workspace: ws, Home: home, Hide: []string{
		filepath.Join(home, ".ssh"), filepath.Join(home, ".config/guard"), filepath.Join(home, ".netrc"),
	}}.validate()
	if err != nil {
		t.Fatal(err)
	}
	g, err := buildGrants(s, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	access := map[string]uint64{}
	for _, r := range g.rules {
		access[r.Path] |= r.Access
	}
	for _, hidden := range []string{".ssh", ".config/guard", ".netrc", "ssh-link"} {
		for p := range access {
			if paths.Within(p, filepath.Join(home, hidden)) {
				t.Errorf("rule on hidden %s", p)
			}
		}
	}
	for p, want := range map[string]uint64{
		home:                               ll.AccessFSReadDir,
		filepath.Join(home, ".config"):     ll.AccessFSReadDir,
		filepath.Join(home, ".config/git"): accRead,
		filepath.Join(home, ".bashrc"):     accRead & accFile,
		ws:                                 accRead,
		"/":                                ll.AccessFSReadDir,
		"/usr":                             accRead,
		"/dev/null":                        accDevRW,
	} {
		if access[p] != want {
			t.Errorf("access[%s] = %#x, want %#x", p, access[p], want)
		}
	}
	if _, ok := access["/dev/sda"]; ok {
		t.Error("block device granted")
	}
	for p, a := range access {
		if a&ll.AccessFSWriteFile != 0 && !strings.HasPrefix(p, "/dev/") {
			t.Errorf("read-only spec grants write on %s", p)
		}
	}
}

// expandByDefinition is expand as first written: every entry checked
// against every excluded path. expand must give the same rules.
func expandByDefinition(out *[]rule, dir string, isDir bool, access uint64, excluded []string) {
	for _, x := range excluded {
		if paths.Within(dir, x) {
			return
		}
	}
	split := slices.ContainsFunc(excluded, func(x string) bool { return x != dir && paths.Within(x, dir) })
	if !split {
		*out = append(*out, rule{Path: dir, Access: access, dir: isDir})
		return
	}
	*out = append(*out, rule{Path: dir, Access: access & accListed, dir: true})
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			expandByDefinition(out, filepath.Join(dir, e.Name()), e.IsDir(), access, excluded)
		}
	}
}

// TestExpandByDefinition: expand splits exactly the directories that
// hold an excluded path, whatever their nesting, names that share a
// prefix (.config, .config-old), excluded files, missing paths, and an
// excluded path that is the granted one or holds it.
func TestExpandByDefinition(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b/c", "a/bb", "a/b-c/d", ".config/guard", ".config-old/guard", "x/y", "z"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for _, f := range []string{"a/b/c/f", "a/b/g", ".netrc", ".netrc2", "x/y/h"} {
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	os.Symlink("a", filepath.Join(root, "link"))
	p := func(rel ...string) []string {
		var out []string
		for _, r := range rel {
			out = append(out, filepath.Join(root, r))
		}
		return out
	}
	for _, c := range []struct {
		dir      string
		excluded []string
	}{
		{root, nil},
		{root, p("a/b/c")},
		{root, p("a/b/c/f", "a/bb", ".config/guard", ".netrc", "missing/deep", "x")},
		{root, p("a/b", "a/b/c", "a")},
		{root, append(p(".config"), "/dev", "/proc")},
		{filepath.Join(root, "a"), p("a/b-c/d", "link/b", "z")},
		{filepath.Join(root, "a"), p("a")},
		{filepath.Join(root, "a/b"), p("a")},
		{filepath.Join(root, "a/b"), p("a/b-c/d", "a/bb")},
		{"/", append(p("a/b/c", ".config/guard"), "/dev")},
	} {
		for _, access := range []uint64{accRead, accReadWrite} {
			// "/" lists /tmp, where other processes come and go: a
			// comparison is kept only when the definition gives the
			// same list before and after expand (up to 5 tries).
			var got, want []rule
			for range 5 {
				var before []rule
				got, want = nil, nil
				expandByDefinition(&before, c.dir, true, access, c.excluded)
				if err := expand(&got, c.dir, true, access, c.excluded); err != nil {
					t.Fatal(err)
				}
				expandByDefinition(&want, c.dir, true, access, c.excluded)
				if slices.Equal(before, want) {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("expand(%s, %v):\n got %v\nwant %v", c.dir, c.excluded, got, want)
			}
		}
	}
}

// resolveByDefinition is resolver.canonical without its memory.
func resolveByDefinition(p string, depth int) string {
	if p == "/" {
		return p
	}
	parent := resolveByDefinition(filepath.Dir(p), depth)
	c := filepath.Join(parent, filepath.Base(p))
	if fi, err := os.Lstat(c); err == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < maxLinks {
		if t, err := os.Readlink(c); err == nil {
			if !filepath.IsAbs(t) {
				t = filepath.Join(parent, t)
			}
			c = resolveByDefinition(filepath.Clean(t), depth+1)
		}
	}
	return c
}

// TestResolver: the resolver, which remembers what it resolved and
// which paths do not exist, answers as the filesystem does (symbolic
// links resolved as far as they lead, stat as os.Stat) whatever order
// the paths are asked in.
func TestResolver(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/sub", "other"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "real/file"), nil, 0o644)
	os.Symlink("real", filepath.Join(root, "rel"))
	os.Symlink(filepath.Join(root, "real/sub"), filepath.Join(root, "abs"))
	os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "dangling"))
	os.Symlink("../other", filepath.Join(root, "real/up"))
	// A directory too large to list: looked up name by name.
	os.MkdirAll(filepath.Join(root, "big"), 0o755)
	for i := range maxListed + 10 {
		os.WriteFile(filepath.Join(root, "big", fmt.Sprintf("f%d", i)), nil, 0o644)
	}
	os.Symlink("../real", filepath.Join(root, "big/link"))
	var ps []string
	for _, rel := range []string{"big/f1", "big/f2", "big/nope", "big/f3", "big/link/sub", "big/link/nope", "big/f600", "big/zz"} {
		ps = append(ps, filepath.Join(root, rel))
	}
	for _, rel := range []string{
		"real", "real/sub", "real/file", "real/file/below", "real/missing", "real/missing/deeper/still",
		"rel", "rel/sub", "rel/file", "rel/missing/x", "abs", "abs/x", "dangling", "dangling/x/y",
		"real/up", "real/up/z", "rel/up/z", "gone", "gone/a/b", "other", "other/..", "missing/a",
	} {
		ps = append(ps, filepath.Join(root, rel))
	}
	backward := slices.Clone(ps)
	slices.Reverse(backward)
	for _, order := range [][]string{ps, backward} {
		r := newResolver()
		for _, p := range order {
			if got, want := r.canonical(p), resolveByDefinition(p, 0); got != want {
				t.Errorf("canonical(%s) = %s, want %s", p, got, want)
			}
		}
		for _, p := range order {
			_, got := r.stat(r.canonical(p))
			_, want := os.Stat(resolveByDefinition(p, 0))
			if (got == nil) != (want == nil) {
				t.Errorf("stat(%s): %v, want %v", p, got, want)
			}
		}
	}
}

func TestGrantsWrite(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(home, ".cache"), 0o755)
	os.MkdirAll(ws, 0o755)
	s, err := Spec{Workspace: ws, Home: home, Write: true, ExtraWrite: []string{filepath.Join(root, "out/new.txt")}}.validate()
	if err == nil {
		_, err = buildGrants(s, nil, "")
	}
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("extra write under a missing directory: %v", err)
	}
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	// A run resolves its paths once: validate again, as the next run would.
	s, err = Spec{Workspace: ws, Home: home, Write: true, ExtraWrite: []string{filepath.Join(root, "out/new.txt")}}.validate()
	if err != nil {
		t.Fatal(err)
	}
	g, err := buildGrants(s, []string{"/dev/pts/9"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ws, "/tmp", "/dev/shm", filepath.Join(home, ".cache"), filepath.Join(root, "out")}
	if !slices.Equal(g.grants.Write, want) {
		t.Errorf("Write = %v, want %v", g.grants.Write, want)
	}
	if !slices.Contains(g.grants.Devices, "/dev/pts/9") {
		t.Errorf("Devices = %v", g.grants.Devices)
	}
	for _, r := range g.rules {
		if r.Path == ws && r.Access != accReadWrite {
			t.Errorf("workspace access %#x", r.Access)
		}
		if r.Access&(ll.AccessFSMakeBlock|ll.AccessFSMakeChar) != 0 {
			t.Errorf("%s may create device nodes", r.Path)
		}
	}
}

// TestScopeSignal: the helper's copy of LANDLOCK_SCOPE_SIGNAL (it does
// not import go-landlock) is the kernel's.
func TestScopeSignal(t *testing.T) {
	if confine.ScopeSignal != ll.ScopeSignal {
		t.Errorf("confine.ScopeSignal = %d, want %d", confine.ScopeSignal, ll.ScopeSignal)
	}
}

// TestRelayedSignals: the signals caught early and those caught for the
// relay only are, together, every signal guard relays, each once.
func TestRelayedSignals(t *testing.T) {
	got := append(relayedLate(), caughtEarly...)
	if len(got) != len(confine.Forwarded) {
		t.Errorf("late %v and early %v, want %v between them", relayedLate(), caughtEarly, confine.Forwarded)
	}
	for _, s := range confine.Forwarded {
		if n := len(slices.DeleteFunc(slices.Clone(got), func(x os.Signal) bool { return x != s })); n != 1 {
			t.Errorf("%v caught %d times", s, n)
		}
	}
}

// TestGlobMatch: the shortcut matches exactly what path.Match does, for
// every pattern of the table against names built around each.
func TestGlobMatch(t *testing.T) {
	names := []string{"", "X", "TOKEN", "PATH", "DATABASE_URL", "A_B", "*"}
	for _, r := range envRules {
		inner := strings.Trim(r.Pattern, "*")
		names = append(names, inner, "X"+inner, inner+"X", "X"+inner+"X", inner[1:], inner[:len(inner)-1])
	}
	for _, r := range append(envRules, envRule{Pattern: "*"}, envRule{Pattern: "A?C*"}) {
		for _, n := range names {
			want, _ := path.Match(r.Pattern, n)
			if got := globMatch(r.Pattern, n); got != want {
				t.Errorf("globMatch(%q, %q) = %v, path.Match says %v", r.Pattern, n, got, want)
			}
		}
	}
}

func TestFilterEnv(t *testing.T) {
	kept, dropped := filterEnv([]string{
		"PATH=/bin", "github_token=x", "AWS_PROFILE=p", "MY_PASSWORD_FILE=f", "KEY=plain",
		"SIGNING_KEY=k", "KEEP_SECRET=y", "GUARD_SANDBOX_HELPER=1", "noequals",
	}, []string{"KEEP_SECRET"})
	if want := []string{"PATH=/bin", "AWS_PROFILE=p", "KEY=plain", "KEEP_SECRET=y"}; !slices.Equal(kept, want) {
		t.Errorf("kept = %v, want %v", kept, want)
	}
	if want := []string{"MY_PASSWORD_FILE", "SIGNING_KEY", "github_token"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped = %v, want %v", dropped, want)
	}
	// Names and values, one row per class of the table.
	for _, c := range []struct {
		kv   string
		drop bool
	}{
		{"DB_PWD=hunter2", true},
		{"PWD=/home/u", false},
		{"OLDPWD=/tmp", false},
		{"GPG_PASSPHRASE=x", true},
		{"GITLAB_PAT=x", true},
		{"SESSION_JWT=x", true},
		{"NPM_CONFIG__AUTH=x", true},
		{"BASIC_AUTH_HEADER=x", true},
		{"GIT_AUTHOR_NAME=Ann", false},
		{"GIT_AUTHOR_EMAIL=ann@example.com", false},
		{"AZURE_STORAGE_CONNECTION_STRING=x", true},
		{"SLACK_WEBHOOK_URL=https://hooks.slack.com/x", true},
		{"DATABASE_URL=postgres://u:p@db/x", true},
		{"SENTRY_DSN=https://k@o.ingest.sentry.io/1", true},
		{"UPSTREAM=https://user:hunter2@example.com/repo.git", true},
		{"UPSTREAM=https://example.com/repo.git", false},
		{"MYVAR=ghp_0123456789abcdefghijABCDEFGHIJ", true},
		{"MYVAR=github_pat_0123456789abcdefghij_ABCDEF", true},
		{"MYVAR=glpat-0123456789abcdefghij", true},
		{"MYVAR=xoxb-1234567890-abcdef", true},
		{"MYVAR=AKIAIOSFODNN7EXAMPLE", true},
		{"MYVAR=sk-ant-api03-0123456789abcdefghij", true},
		{"MYVAR=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", true},
		{"MYVAR=plain words", false},
		{"AWS_CA_BUNDLE=/etc/ssl/certs/ca.pem", false},
		{"GOOGLE_APPLICATION_CREDENTIALS=/home/u/key.json", false},
		{"AWS_REGION=eu-west-1", false},
		{"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", true},
		{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", true},
		{"SSH_AUTH_SOCK=/run/user/1000/ssh-agent", true},
		{"TMUX=/tmp/tmux-1000/default,1,0", true},
		{"STY=1234.pts-0.host", true},
		{"DISPLAY=:0", true},
		{"WAYLAND_DISPLAY=wayland-0", true},
		{"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", true},
		{"XAUTHORITY=/home/u/.Xauthority", true},
		// Code the review never saw.
		{"BASH_ENV=/tmp/x.sh", true},
		{"ENV=/tmp/x.sh", true},
		{"BASH_FUNC_ls%%=() { :; }", true},
		{"SHELLOPTS=xtrace", true},
		{"LD_PRELOAD=/tmp/x.so", true},
		{"GIT_CONFIG_KEY_0=core.fsmonitor", true},
		{"NODE_OPTIONS=--require /tmp/x.js", true},
		{"NODE_OPTIONS=-r/tmp/x.js", true},
		{"NODE_OPTIONS=--max-old-space-size=4096", false},
		{"RUBYOPT=-rrubygems", true},
		{"RUBYOPT=-W0", false},
		{"PERL5OPT=-MDevel::Trace", true},
		{"JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar", true},
		{"JAVA_TOOL_OPTIONS=-Xmx2g", false},
		{"LD_LIBRARY_PATH=/opt/cuda/lib64", false},
		{"ENVIRONMENT=prod", false},
	} {
		name, value, _ := strings.Cut(c.kv, "=")
		if got := dropEnv(name, value); got != c.drop {
			t.Errorf("drop %s = %v, want %v", c.kv, got, c.drop)
		}
	}
}

func TestSupportGaps(t *testing.T) {
	if gaps := supportFor(7, true).Gaps(false); len(gaps) != 0 {
		t.Errorf("ABI 7 + seccomp: gaps %v", gaps)
	}
	none := supportFor(0, false)
	if none.Full() {
		t.Error("no Landlock counted as full")
	}
	gaps := none.Gaps(false)
	if len(gaps) != 2 || !strings.HasPrefix(gaps[0], "filesystem: ") || !strings.HasPrefix(gaps[1], "seccomp: ") {
		t.Errorf("gaps = %q", gaps)
	}
	old := supportFor(3, true)
	if g := old.Gaps(false); len(g) != 3 { // tcp, ioctl-dev, scopes
		t.Errorf("ABI 3 gaps = %q", g)
	}
	if g := old.Gaps(true); len(g) != 2 { // with net, TCP is allowed anyway
		t.Errorf("ABI 3 gaps with net = %q", g)
	}
	if l := supportFor(7, true).Limits; !strings.Contains(strings.Join(l, "\n"), "unix sockets") {
		t.Errorf("ABI 7 limits = %q", l)
	}
}

func TestHandled(t *testing.T) {
	fs, net, scoped := handled(7, false)
	if fs != 1<<16-1 || net != ll.AccessNetBindTCP|ll.AccessNetConnectTCP || scoped != 3 {
		t.Errorf("ABI 7: %#x %#x %#x", fs, net, scoped)
	}
	if _, net, _ := handled(7, true); net != ll.AccessNetBindTCP {
		t.Errorf("ABI 7 with net: %#x", net)
	}
	if _, net, _ := handled(10, false); net != 0xf {
		t.Errorf("ABI 10: %#x", net)
	}
	if fs, net, scoped := handled(0, false); fs|net|scoped != 0 {
		t.Error("ABI 0 handles something")
	}
}

func TestDenialWatcher(t *testing.T) {
	var out strings.Builder
	w := &denialWatcher{w: &out}
	in := "ok\nrm: cannot remove 'x': Operation not permitted\nmv: a -> b: Invalid cross-\ndevice\ncat: y: Permission denied"
	for i := 0; i < len(in); i += 7 {
		w.Write([]byte(in[i:min(i+7, len(in))]))
	}
	if out.String() != in {
		t.Errorf("stream changed: %q", out.String())
	}
	d := w.denials()
	if len(d) != 2 || !strings.HasPrefix(d[0], "rm:") || !strings.HasPrefix(d[1], "cat:") {
		t.Errorf("denials = %q", d)
	}
}

// TestRequireFailsOnWeakKernel: with --require-sandbox, a kernel that
// lacks features guard relies on refuses before anything runs.
func TestRequireFailsOnWeakKernel(t *testing.T) {
	old := probe
	probe = func() Support { return supportFor(3, true) }
	defer func() { probe = old }()
	ws := t.TempDir()
	home := t.TempDir()
	marker := filepath.Join(ws, "ran")
	res, err := Run(context.Background(), Spec{Workspace: ws, Home: home, Write: true, Require: true},
		[]string{"sh", "-c", "touch " + marker}, Stdio{})
	if !errors.Is(err, ErrNotEnforced) {
		t.Fatalf("err = %v, want ErrNotEnforced", err)
	}
	if res.Started {
		t.Fatalf("the command started on a kernel that cannot enforce the sandbox")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command ran")
	}
	// Without Require the same kernel runs it, and says what is missing.
	res, err = Run(context.Background(), Spec{Workspace: ws, Home: home, Write: true},
		[]string{"sh", "-c", "true"}, Stdio{})
	if err != nil || len(res.Degraded) == 0 {
		t.Fatalf("without Require: err %v, degraded %v; want a run with warnings", err, res.Degraded)
	}
}

// TestNoNewPrivsWithoutLandlock: on a kernel with neither Landlock nor
// seccomp the command still runs with no_new_privs, so no setuid or
// file-capability program gives back what the helper dropped.
func TestNoNewPrivsWithoutLandlock(t *testing.T) {
	old := probe
	probe = func() Support { return supportFor(0, false) }
	defer func() { probe = old }()
	var out bytes.Buffer
	res, err := Run(context.Background(), Spec{Workspace: t.TempDir(), Home: t.TempDir()},
		[]string{"grep", "^NoNewPrivs:", "/proc/self/status"}, Stdio{Out: &out})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d, %v", res.ExitCode, err)
	}
	if got := strings.TrimSpace(out.String()); got != "NoNewPrivs:\t1" {
		t.Errorf("command's status says %q, want no_new_privs set", got)
	}
}

// BenchmarkRunTrueExecHelper is BenchmarkRunTrue with the helper guard
// ships, guard-sandbox-exec, instead of the test binary re-executed.
func BenchmarkRunTrueExecHelper(b *testing.B) {
	if Probe().ABI < 6 {
		b.Skip("needs Landlock ABI 6 or later")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain to build guard-sandbox-exec")
	}
	helper := filepath.Join(b.TempDir(), ExecHelperName)
	build := exec.Command(goBin, "build", "-o", helper, "../cmd/guard-sandbox-exec")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build helper: %v\n%s", err, out)
	}
	old := execHelper
	defer func() { execHelper = old }()
	execHelper = func() string { return helper }
	root, err := os.MkdirTemp("/var/tmp", "guard-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(root)
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	spec := Spec{Workspace: ws, Home: home, Write: true, Hide: []string{filepath.Join(home, ".ssh")},
		Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}}
	for b.Loop() {
		res, err := Run(context.Background(), spec, []string{"/bin/true"}, Stdio{})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res.ExitCode, err)
		}
	}
}

// TestExecHelper: the small guard-sandbox-exec binary confines the
// command as guard itself would, and a helper from another build (it
// reports a stale plan format) makes guard fall back to itself.
// writableSpec is a writable run's spec in a fresh workspace (its home
// does not exist).
func writableSpec(t *testing.T) Spec {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	return Spec{Workspace: ws, Home: filepath.Join(root, "home"), Write: true}
}

// TestPreparedReleased: the private temp dir a plan made is removed
// when the helper is closed unused, and when Run is given another spec
// than Prepare (the plan is dropped and made again).
func TestPreparedReleased(t *testing.T) {
	spec := writableSpec(t)
	argv := []string{"/bin/true"}
	prepared := func(h *Helper) string {
		t.Helper()
		pr := h.prepared()
		if pr == nil || pr.invalid != nil || pr.err != nil || pr.tmp == "" {
			t.Fatalf("no plan with a private temp dir: %+v", pr)
		}
		if _, err := os.Stat(pr.tmp); err != nil {
			t.Fatal(err)
		}
		return pr.tmp
	}

	h := Start(context.Background(), argv[0], Stdio{})
	h.Prepare(spec, argv)
	tmp := prepared(h)
	h.Close()
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("Close left %s", tmp)
	}

	h = Start(context.Background(), argv[0], Stdio{})
	h.Prepare(spec, argv)
	tmp = prepared(h)
	other := spec
	other.Write = false
	res, err := h.Run(other, argv)
	h.Close()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, %v", res.ExitCode, err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("Run with another spec left the dropped plan's %s", tmp)
	}
}

// TestSpeculate: the plan Speculate computed is the run's only when
// Prepare is given the very same spec and argv (path lists compared by
// their elements: nil and empty alike). For any other request it is
// dropped whole (its private temp dir removed) and the plan made
// afresh: a path that appeared since the guess, here a revealed file
// whose hidden directory did not exist when the guess resolved it, is
// seen, so nothing the guess resolved or found missing is used.
func TestSpeculate(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.Mkdir(ws, 0o755)
	os.Mkdir(home, 0o755)
	hidden := filepath.Join(home, ".secret")
	spec := Spec{Workspace: ws, Home: home, Write: true, Hide: []string{hidden}, Protect: nil}
	argv := []string{"/bin/true"}
	guess := func(h *Helper) *prepared {
		t.Helper()
		g := h.guess.wait()
		if g == nil || g.invalid != nil || g.err != nil || g.tmp == "" {
			t.Fatalf("no guessed plan with a private temp dir: %+v", g)
		}
		return g
	}

	// The same request, its empty Protect list not nil: the guess is used.
	h := Start(context.Background(), argv[0], Stdio{})
	h.Speculate(spec, argv)
	g := guess(h)
	same := spec
	same.Protect = []string{}
	h.Prepare(same, argv)
	if pr := h.prepared(); pr != g {
		t.Errorf("Prepare of the guessed spec made its own plan")
	}
	h.Close()
	if _, err := os.Stat(g.tmp); err == nil {
		t.Errorf("Close left the used guess's %s", g.tmp)
	}

	// Another request: the guess is dropped, the plan made afresh.
	h = Start(context.Background(), argv[0], Stdio{})
	h.Speculate(spec, argv)
	g = guess(h)
	if err := os.MkdirAll(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(hidden, "pub")
	if err := os.WriteFile(pub, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := spec
	other.Reveal = []string{pub}
	h.Prepare(other, argv)
	pr := h.prepared()
	if pr == g || pr.invalid != nil || pr.err != nil {
		t.Fatalf("Prepare of another spec: guess used %v, %v %v", pr == g, pr.invalid, pr.err)
	}
	if _, err := os.Stat(g.tmp); err == nil {
		t.Errorf("the dropped guess's %s is left", g.tmp)
	}
	if !slices.Contains(pr.res.Grants.Revealed, pub) {
		t.Errorf("revealed %v, want %s (created after the guess)", pr.res.Grants.Revealed, pub)
	}
	h.Close()
	if _, err := os.Stat(pr.tmp); err == nil {
		t.Errorf("Close left %s", pr.tmp)
	}
}

// TestSpeculateHandOff: Prepare called while the guess is still being
// computed leaves the rest to the guess's goroutine: once the guess is
// done, that goroutine makes it the run's plan and sends it to the
// helper if it is the plan of Prepare's very request, and otherwise
// drops it (its private temp dir removed) and sends a plan of its own.
func TestSpeculateHandOff(t *testing.T) {
	spec := writableSpec(t)
	argv := []string{"/bin/true"}
	ro := spec
	ro.Write = false
	for _, c := range []struct {
		name string
		req  Spec
		used bool
	}{
		{"the guessed spec", spec, true},
		{"another spec", ro, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := Start(context.Background(), argv[0], Stdio{})
			defer h.Close()
			// A guess still being computed: the test finishes it.
			g := &planning{done: make(chan struct{})}
			h.guess = g
			h.Prepare(c.req, argv)
			l, err := h.launched()
			if err != nil {
				t.Fatal(err)
			}
			if h.guess != nil || l.sent {
				t.Fatalf("Prepare kept the guess (%v) or sent a plan before the guess was done (%v)", h.guess != nil, l.sent)
			}
			pr := plan(spec, argv, Stdio{})
			if pr.invalid != nil || pr.err != nil || pr.tmp == "" {
				t.Fatalf("guess: %v %v, temp dir %q", pr.invalid, pr.err, pr.tmp)
			}
			g.finish(pr)
			got := h.prepared()
			if (got == pr) != c.used || !l.sent {
				t.Errorf("run's plan is the guess: %v, want %v; sent %v", got == pr, c.used, l.sent)
			}
			if _, err := os.Stat(pr.tmp); (err == nil) != c.used {
				t.Errorf("the guess's %s kept: %v, want %v", pr.tmp, err == nil, c.used)
			}
			if res, err := h.Run(c.req, argv); err != nil || res.ExitCode != 0 {
				t.Errorf("run: exit %d, %v", res.ExitCode, err)
			}
		})
	}
}

// TestSpeculateUnprepared: without Prepare, Run uses a guess of its
// very spec and drops any other; Close drops one never used. Either way
// its private temp dir goes, and nothing is left running.
func TestSpeculateUnprepared(t *testing.T) {
	kids := SortedChildren(t)
	spec := writableSpec(t)
	ws := spec.Workspace
	marker := filepath.Join(ws, "ran")
	argv := []string{"/bin/sh", "-c", "echo ran > " + marker}
	ro := spec
	ro.Write = false
	for _, c := range []struct {
		name string
		run  *Spec // nil: Close without Run
		ran  bool
	}{
		{"Run of the guess", &spec, true},
		{"Run of another spec", &ro, false},
		{"Close", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(marker)
			h := Start(context.Background(), argv[0], Stdio{})
			h.Speculate(spec, argv)
			g := h.guess.wait()
			if g == nil || g.tmp == "" {
				t.Fatalf("no guessed plan with a private temp dir: %+v", g)
			}
			if c.run != nil {
				res, err := h.Run(*c.run, argv)
				if err != nil || res.ExitCode == 0 != c.ran {
					t.Errorf("Run: exit %d, %v", res.ExitCode, err)
				}
			}
			if err := h.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if ran := readFileOr(marker) == "ran\n"; ran != c.ran {
				t.Errorf("the command ran: %v, want %v", ran, c.ran)
			}
			if _, err := os.Stat(g.tmp); err == nil {
				t.Errorf("the guess's %s is left", g.tmp)
			}
			if got := SortedChildren(t); !slices.Equal(got, kids) {
				t.Errorf("children left: %v, before: %v", got, kids)
			}
		})
	}
}

// readFileOr is p's content, "" when it cannot be read.
func readFileOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// TestStartOtherWay runs the tests of Start's helper with the helper
// forked the other way than this user's: from a goroutine of its own
// (startAsync, guard not root) or from the caller's. Either way the plan
// goes to the helper once both are there, Close reaps a helper still
// being forked, and nothing is left behind.
func TestStartOtherWay(t *testing.T) {
	usual := startAsync()
	saved := startAsync
	startAsync = func() bool { return !usual }
	t.Cleanup(func() { startAsync = saved })
	t.Run("PreparedReleased", TestPreparedReleased)
	t.Run("Speculate", TestSpeculate)
	t.Run("SpeculateHandOff", TestSpeculateHandOff)
	t.Run("SpeculateUnprepared", TestSpeculateUnprepared)
	t.Run("LaunchedOnReturn", func(t *testing.T) {
		// Started from the caller's goroutine, the helper is launched
		// when Start returns; from a goroutine of its own, once launched
		// (either way) it is the same helper.
		h := Start(context.Background(), "/bin/true", Stdio{})
		defer h.Close()
		if !startAsync() {
			select {
			case <-h.launching:
			default:
				t.Error("Start returned before launching its helper")
			}
		}
		if l, err := h.launched(); err != nil || l == nil {
			t.Errorf("launched: %v, %v", l, err)
		}
	})
	t.Run("CloseWhileForking", func(t *testing.T) {
		kids := SortedChildren(t)
		h := Start(context.Background(), "/bin/true", Stdio{})
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if got := SortedChildren(t); !slices.Equal(got, kids) {
			t.Errorf("children left: %v, before: %v", got, kids)
		}
	})
}

// TestHelperWaitsForGo: a helper that got its plan but not Go (guard
// died while setting up its signal relay) runs nothing.
func TestHelperWaitsForGo(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	marker := filepath.Join(ws, "ran")
	argv := []string{"/bin/sh", "-c", "echo ran > " + marker}
	pr := plan(Spec{Workspace: ws, Home: filepath.Join(root, "home"), Write: true}, argv, Stdio{})
	defer pr.release()
	if pr.invalid != nil || pr.err != nil {
		t.Fatal(pr.invalid, pr.err)
	}
	l, err := launch(context.Background(), selfExe, argv[0], Stdio{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.planW.Write(pr.p.Encode()); err != nil {
		t.Fatal(err)
	}
	st, _, _, err := l.finish(nil) // the lifeline closes: no Go
	if err != nil || st == nil || !strings.Contains(st.Err, "no go") {
		t.Errorf("status %+v, %v; want the helper to report no go", st, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without Go")
	}
}

func TestExecHelper(t *testing.T) {
	if Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build guard-sandbox-exec")
	}
	dir := t.TempDir()
	helper := filepath.Join(dir, ExecHelperName)
	build := exec.Command(goBin, "build", "-o", helper, "../cmd/guard-sandbox-exec")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build helper: %v\n%s", err, out)
	}
	stale := filepath.Join(dir, "stale")
	os.WriteFile(stale, []byte("#!/bin/sh\nprintf '{\"code\":125,\"err\":\"old\",\"stale\":true}' >&4\nexit 125\n"), 0o755)
	old := execHelper
	defer func() { execHelper = old }()

	root, err := os.MkdirTemp("/var/tmp", "guard-exec-helper-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	ws, home, outside := filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{ws, home, outside} {
		os.MkdirAll(d, 0o755)
	}
	for _, h := range []string{helper, stale} {
		execHelper = func() string { return h }
		var out bytes.Buffer
		res, err := Run(context.Background(), Spec{Workspace: ws, Home: home, Write: true},
			[]string{"sh", "-c", `echo in > "$1/ok" && echo $$ && echo out > "$2/x"`, "sh", ws, outside}, Stdio{Out: &out})
		if err != nil || !res.Started || res.ExitCode == 0 {
			t.Errorf("%s: exit %d, %v (want the outside write refused)", h, res.ExitCode, err)
		}
		if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
			t.Errorf("%s: workspace write failed", h)
		}
		if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
			t.Errorf("%s: wrote outside the workspace", h)
		}
		os.Remove(filepath.Join(ws, "ok"))
	}
}

// TestRunsTmpsRefused: on a shared machine another user may make
// /tmp/guard-UID first (or leave a symlink, or a directory others can
// enter). guard takes the directory only when it is this user's alone,
// and otherwise never puts its temp dirs there: it takes guard-tmps in
// the user's runtime directory when that is this user's alone (another
// user made every sandboxed run fail before), and refuses (no run) when
// that is not so either.
func TestRunsTmpsRefused(t *testing.T) {
	name := "guard-" + strconv.Itoa(os.Geteuid())
	for what, make := range map[string]func(t *testing.T, shared string) error{
		"symlink": func(t *testing.T, shared string) error { return os.Symlink(t.TempDir(), filepath.Join(shared, name)) },
		"0755":    func(_ *testing.T, shared string) error { return os.Mkdir(filepath.Join(shared, name), 0o755) },
		"file":    func(_ *testing.T, shared string) error { return os.WriteFile(filepath.Join(shared, name), nil, 0o600) },
		"another user's": func(t *testing.T, shared string) error {
			if os.Geteuid() != 0 {
				t.Skip("making a directory another user owns needs root")
			}
			p := filepath.Join(shared, name)
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.Chown(p, 65534, 65534)
		},
	} {
		t.Run(what, func(t *testing.T) {
			shared := t.TempDir()
			if err := make(t, shared); err != nil {
				t.Fatal(err)
			}
			squatted := filepath.Join(shared, name)
			// No runtime directory, or one others may enter: refused.
			for _, runtime := range []string{filepath.Join(shared, "none"), shared} {
				if err := os.Chmod(shared, 0o755); err != nil {
					t.Fatal(err)
				}
				if dir, err := privateTmpsIn(shared, runtime); err == nil {
					t.Errorf("runtime dir %s: took %s", runtime, dir)
				} else if !strings.Contains(err.Error(), squatted) {
					t.Errorf("the error does not name %s: %v", squatted, err)
				}
			}
			// This user's runtime directory: the temp dirs go there.
			runtime := t.TempDir()
			if err := os.Chmod(runtime, 0o700); err != nil {
				t.Fatal(err)
			}
			dir, err := privateTmpsIn(shared, runtime)
			if err != nil || dir != filepath.Join(runtime, "guard-tmps") {
				t.Errorf("with the runtime dir to fall back on: %q, %v", dir, err)
			}
		})
	}
	// Control: made here, or already this user's alone; the runtime
	// directory is not used.
	shared, runtime := t.TempDir(), t.TempDir()
	for range 2 {
		if dir, err := privateTmpsIn(shared, runtime); err != nil || dir != filepath.Join(shared, name) {
			t.Fatalf("%q, %v", dir, err)
		}
	}
}

// TestRunsTmpsSquatted: with /tmp/guard-UID squatted by another user, a
// writing run still runs, its TMPDIR in the runtime directory's
// guard-tmps, writable, and removed after the run; another run's temp
// dir there stays out of its view (the helper covers guard-tmps as it
// covers /tmp/guard-UID). Before, every sandboxed run failed.
func TestRunsTmpsSquatted(t *testing.T) {
	if Probe().ABI < 6 {
		t.Skip("needs Landlock ABI 6 or later")
	}
	shared, runtime := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(shared, "guard-"+strconv.Itoa(os.Geteuid())), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	was, wasRuntime := tmpsShared, tmpsRuntime
	tmpsShared, tmpsRuntime = shared, runtime
	t.Cleanup(func() { tmpsShared, tmpsRuntime = was, wasRuntime })
	tmps := filepath.Join(runtime, "guard-tmps")
	other := filepath.Join(tmps, "run-other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "staged"), []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := writableSpec(t)
	out := filepath.Join(spec.Workspace, "out")
	res, err := runShell(t, spec, `echo made > "$TMPDIR/x" && cat "$TMPDIR/x" > "$1" && echo "$TMPDIR" >> "$1" && { cat "$2" >> "$1" 2>/dev/null || echo covered >> "$1"; }`, out, filepath.Join(other, "staged"))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("a run with /tmp/guard-UID squatted: %+v, %v", res, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 || lines[0] != "made" || !strings.HasPrefix(lines[1], tmps+"/run-") {
		t.Fatalf("the command's TMPDIR: %q", lines)
	}
	if _, err := os.Lstat(lines[1]); !os.IsNotExist(err) {
		t.Errorf("the run's temp dir %s is left: %v", lines[1], err)
	}
	if res.Unmounted == "" && (len(lines) != 3 || lines[2] != "covered") {
		t.Errorf("the command read another run's temp dir: %q", lines[2:])
	}
	// The runtime directory is not covered whole then: the run says so.
	if !slices.Contains(res.Degraded, runtimeTmpsGap) {
		t.Errorf("Degraded %q, want the runtime directory's gap", res.Degraded)
	}
}
