package audit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/review"
)

// BenchmarkFirstEncode is what the first record of a guard process costs
// to render, with encode and with encoding/json (whose reflection builds
// the type's encoder on first use, then caches it): each op starts this
// test binary afresh, which renders one decision record and prints how
// long that took (TestFirstEncodeChild); first-ns/op is its median.
func BenchmarkFirstEncode(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, way := range []string{"encode", "encoding/json"} {
		b.Run(strings.ReplaceAll(way, "/", "-"), func(b *testing.B) {
			var ns []int
			for b.Loop() {
				cmd := exec.Command(exe, "-test.run=^TestFirstEncodeChild$")
				cmd.Env = append(os.Environ(), "GUARD_FIRST_ENCODE="+way)
				out, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				f := strings.Fields(string(out))
				n, err := strconv.Atoi(f[0])
				if err != nil {
					b.Fatalf("child said %q", out)
				}
				ns = append(ns, n)
			}
			sort.Ints(ns)
			b.ReportMetric(float64(ns[len(ns)/2]), "first-ns/op")
		})
	}
}

// TestFirstEncodeChild is BenchmarkFirstEncode's child: it renders one
// record the way GUARD_FIRST_ENCODE names and prints the nanoseconds.
func TestFirstEncodeChild(t *testing.T) {
	way := os.Getenv("GUARD_FIRST_ENCODE")
	if way == "" {
		t.Skip("run by BenchmarkFirstEncode")
	}
	r := Record{V: 1, Time: time.Now(), ID: "0123456789abcdef", Session: "ppid:1234", Cwd: "/home/u/proj", Workspace: "/home/u/proj",
		Command: "git status", Level: review.A, Rules: []string{"git.read"}, Decision: ApprovedAuto,
		Sandbox: &review.Sandbox{Hide: []string{"/home/u/.ssh"}, Protect: []string{"/home/u/.bashrc"}}}
	render := encode
	if way == "encoding/json" {
		render = encodeJSON
	}
	start := time.Now()
	if _, err := render(r); err != nil {
		t.Fatal(err)
	}
	fmt.Println(time.Since(start).Nanoseconds())
}

// fillAll sets every exported field reachable from v (through pointers
// and into structs) to a non-zero value built from s, so a field added
// to Record or review.Sandbox that encode does not know shows up as a
// difference from encoding/json.
func fillAll(v reflect.Value, s string, n int) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillAll(v.Elem(), s, n)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 24, 12, 0, 0, n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), s, n+i)
			}
		}
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n + 1))
	case reflect.Slice:
		sl := reflect.MakeSlice(v.Type(), 2, 2)
		fillAll(sl.Index(0), s, n)
		fillAll(sl.Index(1), s+"2", n+1)
		v.Set(sl)
	default:
		panic("fillAll: no value for a " + v.Kind().String())
	}
}

func sameAsJSON(t *testing.T, r Record) {
	t.Helper()
	got, err := encode(r)
	want, werr := encodeJSON(r)
	if (err != nil) != (werr != nil) {
		t.Fatalf("encode error %v, encoding/json error %v", err, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode differs from encoding/json for %+v:\n got %s\nwant %s", r, got, want)
	}
}

func TestEncodeMatchesJSON(t *testing.T) {
	var full Record
	fillAll(reflect.ValueOf(&full).Elem(), "x<&>\"\\\n\x01é\u2028\xff", 0)
	full.Decision = ApprovedAuto
	full.Level = review.C
	exit := -1
	cases := map[string]Record{
		"every field":   full,
		"zero":          {},
		"no sandbox":    {V: 1, Command: "git status", Decision: Ran, Exit: &exit, Duration: time.Second},
		"empty slices":  {Rules: []string{}, Violations: []string{}, Sandbox: &review.Sandbox{Hide: []string{}, ExtraWrite: []string{}}},
		"level deny":    {Level: review.Deny},
		"odd level":     {Level: review.Level(9)},
		"year 10000":    {Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"zone and nano": {Time: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { sameAsJSON(t, r) })
	}
}

func FuzzEncode(f *testing.F) {
	f.Add("git status", "rewritten to run through guard run", "/w", int64(0), int64(1), true, false)
	f.Add("a\x00b\u2029\xc3", "", "\"\\\t", int64(-5), int64(1e18), false, true)
	f.Fuzz(func(t *testing.T, command, note, path string, ns, dur int64, sandbox, daemons bool) {
		exit := int(dur % 300)
		r := Record{V: Version, Time: time.Unix(0, ns).UTC(), ID: path, Command: command, Note: note,
			Cwd: path, Level: review.Level(dur % 6), Rules: []string{command, note}, Decision: Decision(note),
			Duration: time.Duration(dur), Exit: &exit, Violations: []string{path}, Prev: note}
		if sandbox {
			r.Sandbox = &review.Sandbox{Write: daemons, Net: !daemons, Daemons: daemons, Hide: []string{path}, Reveal: []string{command}}
		}
		sameAsJSON(t, r)
	})
}
