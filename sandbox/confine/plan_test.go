package confine

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"golang.org/x/sys/unix"
)

// planPipe returns the read end of a pipe holding data, writer closed.
func planPipe(t *testing.T, data []byte) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return int(r.Fd())
}

func TestPlanRoundTrip(t *testing.T) {
	p := &Plan{
		Dir: "/work/ü dir", Argv: []string{"sh", "-c", "echo \x00ü"}, Env: []string{"PATH=/bin", ""},
		Landlock: true, HandledFS: 1<<16 - 1, HandledNet: 3, Scoped: 3,
		Rules:     []Rule{{Path: "/", Access: 13}, {Path: "/dev/null", Access: 1 << 40}},
		Filter:    []unix.SockFilter{{Code: 0x20, Jt: 1, Jf: 2, K: 0xc000003e}, {Code: 6, K: 0x7fff0000}},
		Cover:     []string{"/run/user/1000/bus", "/tmp/tmux-1000/default"},
		CoverDirs: []string{"/run/user/1000", "/tmp/tmux-1000"},
		Conceal:   []string{"/home/u/.ssh", "/home/u/.gnupg"},
		Overlays:  []Overlay{{Path: "/home/u/.cache", Upper: "/home/u/.local/state/guard/layers/cache/upper", Work: "/home/u/.local/state/guard/layers/cache/work", Through: []string{"/home/u/.cache/tool"}, Lower: []string{"/home/u/.local/state/guard/layers/cache-wide/upper"}}, {Path: "/home/u/go/pkg/mod", Upper: "/l/go-pkg-mod/upper", Work: "/l/go-pkg-mod/work"}},
		ReadOnly:  []string{"/home/u/.cache/pre-commit"},
		Seal:      true,
		Writable:  []string{"/home/u/proj", "/tmp"},
		Pinned:    []string{"/tmp/a", "/tmp/a/ws"},
		Tmp:       "/tmp/guard-1000/run-1",
		Tmps:      "/tmp/guard-1000",
		Absent:    []string{"/tmp/.git", "/tmp/node_modules"},
		Require:   true,
		Listen:    true,
		OwnNet:    true,
	}
	// Whatever follows the plan (the lifeline stays open) is not read.
	data := append(p.Encode(), "more"...)
	fd := planPipe(t, data)
	got, err := readPlan(fd)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Errorf("decoded %+v\nwant %+v", got, p)
	}
	var rest [8]byte
	if n, _ := unix.Read(fd, rest[:]); string(rest[:n]) != "more" {
		t.Errorf("read past the plan: left %q", rest[:n])
	}
}

// TestPlanStale: a plan of another format is refused as stale, and the
// plan's header reads as a stale format to earlier helpers, which
// decoded the whole plan as JSON.
func TestPlanStale(t *testing.T) {
	for _, old := range []string{`{"format":2,"argv":["true"],"env":[]}`, `{"format":3}` + "\n", `{"format":4}` + "\n", `{"format":5}` + "\n", `{"format":6}` + "\n", `{"format":7}` + "\n", `{"format":41}`} {
		_, err := readPlan(planPipe(t, []byte(old)))
		var stale errStale
		if !errors.As(err, &stale) {
			t.Errorf("%s: %v, want a stale format", old, err)
		}
	}
	var earlier struct {
		Format int `json:"format"`
	}
	if err := json.NewDecoder(bytes.NewReader((&Plan{Argv: []string{"true"}}).Encode())).Decode(&earlier); err != nil || earlier.Format != Format {
		t.Errorf("an earlier helper reads format %d, %v; want %d", earlier.Format, err, Format)
	}
}

func TestPlanMalformed(t *testing.T) {
	good := (&Plan{Argv: []string{"true"}, Rules: []Rule{{Path: "/", Access: 1}}}).Encode()
	// The body starts after the header line and its 4-byte length with
	// the flags; 9 is Landlock and a bit this helper does not know.
	unknownFlag := append([]byte(nil), good...)
	unknownFlag[bytes.IndexByte(good, '\n')+5] = 17
	for name, data := range map[string][]byte{
		"unknown flag": unknownFlag,
		"empty":        nil,
		"not json":     []byte("hello world, this is not a plan"),
		"truncated":    good[:len(good)-3],
		"long count": append(append([]byte(nil), good[:len(good)-len("/")-3]...),
			0xff, 0xff, 0xff, 0xff, 0x0f),
	} {
		if _, err := readPlan(planPipe(t, data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "ctl\x00\x1f\n", "ünï", "bad\xffutf8"} {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		want, _ := json.Marshal(s)
		var w string
		json.Unmarshal(want, &w)
		if got != w {
			t.Errorf("%q decodes to %q, want %q", s, got, w)
		}
	}
}

// BenchmarkPlan encodes and decodes a plan of the size guard sends for
// a workspace run (a few hundred rules, the seccomp program).
func BenchmarkPlan(b *testing.B) {
	p := &Plan{Argv: []string{"/bin/true"}, Env: make([]string, 40), Landlock: true, HandledFS: 1<<16 - 1}
	for i := range 300 {
		p.Rules = append(p.Rules, Rule{Path: "/home/user/some/entry/" + string(rune('a'+i%26)), Access: 7})
	}
	p.Filter = make([]unix.SockFilter, 60)
	for b.Loop() {
		data := p.Encode()
		// The body follows the header line and its 4-byte length.
		if _, err := decodePlan(data[bytes.IndexByte(data, '\n')+5:]); err != nil {
			b.Fatal(err)
		}
	}
}
