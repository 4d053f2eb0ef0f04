package confine

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// Format is the version of the plan: a helper from another guard build
// refuses a plan it does not know (guard then re-executes itself
// instead). Bump it with every change to the plan or to what the helper
// does with it.
//
// The plan starts with the JSON object {"format":N} and a newline, which
// the helpers of earlier builds (which decoded the whole plan as JSON)
// also read as a format they do not know; a binary body follows.
const Format = 16

// formatPrefix opens every plan.
const formatPrefix = `{"format":`

// maxPlan bounds the plan's body.
const maxPlan = 64 << 20

// Plan is everything the helper needs, computed by guard: the helper
// only applies it, so a helper binary cannot enforce less than the guard
// that started it.
type Plan struct {
	// Dir is the command's working directory: the helper moves there
	// before it looks the command up, so it can be started before guard
	// knows where the command runs.
	Dir  string
	Argv []string
	Env  []string

	Landlock   bool
	HandledFS  uint64
	HandledNet uint64
	Scoped     uint64
	Rules      []Rule

	// Filter is the seccomp program, assembled by guard; empty when the
	// kernel or the architecture has no seccomp filter.
	Filter []unix.SockFilter

	// Cover lists the pathname unix sockets the helper covers with
	// /dev/null, in the mount namespace guard started it in, before it
	// confines itself (see sandbox/sockets.go).
	Cover []string
	// CoverDirs lists directories where daemons the user starts later
	// bind their sockets (the runtime directory, tmux's and screen's):
	// the helper covers each with an empty read-only tmpfs, so that a
	// socket bound there after the run began is not in the command's
	// view either.
	CoverDirs []string
	// Conceal lists hidden directories (secret locations, guard's own
	// state) the helper covers the same way, with a cover of mode 0000:
	// what is looked up there is refused (EACCES), as Landlock refuses
	// reading it, rather than missing — but a socket bound there later
	// is out of reach, and the names in them out of view.
	Conceal []string
	// Overlays are directories the command sees through an overlay of
	// guard's own: what it writes there lands in Upper, never in Path
	// (see sandbox/layer.go).
	Overlays []Overlay
	// ReadOnly lists directories the helper makes read-only (a read-only
	// bind mount of each onto itself), in the same mount namespace,
	// before it confines itself: code that tools outside the sandbox
	// run later, inside a writable tree (see sandbox/plan.go).
	ReadOnly []string
	// Seal makes every mount read-only but Writable's trees (and /proc),
	// in the same mount namespace: Landlock does not confine chmod,
	// chown, utimes or extended attributes.
	Seal     bool
	Writable []string
	// Pinned are directories inside a writable tree that the command
	// may not rename or remove (the workspace, and the directories
	// between it and the writable tree around it: an agent's clone in
	// /tmp/a/ws): the helper makes each a mount of its own, which
	// rename(2) and rmdir(2) refuse (EBUSY), before the seal, so they
	// stay writable with their tree.
	Pinned []string
	// Tmp is the run's private temp dir, which guard removes after the
	// run; should guard be gone (SIGKILLed), the helper removes it once
	// it has killed and reaped everything the command started.
	Tmp string
	// Tmps is the directory of every run's private temp dir (Tmp is in
	// it): the helper covers it, and binds the run's own back, so that
	// no run reaches another's (one that is running, with what it was
	// approved to read staged there).
	Tmps string
	// Absent are the names in the shared temp dir that programs find
	// by walking up and obey (/tmp/.git, /tmp/node_modules, …), absent
	// when guard planned the run: guard removes what the command made
	// there when it checks the protected paths; should guard be gone
	// before that (SIGKILLed), the helper removes it once it has killed
	// everything the command started, as guard's check would have.
	Absent []string
	// Require: the mounts above must be made, or nothing runs (the
	// user asked for the whole sandbox: --require-sandbox). Without it
	// a helper that cannot mount (no mount namespace of its own, or no
	// right to mount in it) runs the command without them and says so
	// in its report (unmounted).
	Require bool
	// Listen: the command's listen(2) calls go to the helper, which
	// refuses them on inet sockets and does them itself on the others
	// (listen.go): set with the network grant, where the command may
	// make TCP sockets and Landlock does not see a listen(2) that binds
	// one to an ephemeral port. Needs the seccomp filter.
	Listen bool
	// OwnNet: the command runs in a network namespace of its own (set
	// without the network grant, where the helper has namespaces of its
	// own): abstract unix socket names are a network namespace's, and
	// Landlock's scope refuses connecting to one outside the sandbox, not
	// binding one, so in the machine's namespace a command could take a
	// name a program of the user's binds later and answer that program's
	// clients (TestAbstractSocketSquat). Without the grant no inet socket
	// is made at all, so an empty namespace takes nothing else away.
	OwnNet bool

	// unmounted is set by the helper when it could not make the mounts
	// above (why): its report says so, and guard lists it in
	// Result.Degraded. Never sent.
	unmounted string
}

// Bits of the plan's flags.
const (
	flagLandlock = 1 << iota
	flagRequire
	flagListen
	flagOwnNet
)

// Overlay shows Path with Upper (and its work directory Work, on the
// same file system) laid over it. Through are paths below Path the run
// was granted by name: they stay the real ones, bound over the overlay.
// Lower are layers between Upper and Path, the first nearest Upper,
// read-only in this run (another grant class's layer, which a run of
// this class may use but never write: sandbox/layer.go).
type Overlay struct {
	Path, Upper, Work string
	Through           []string
	Lower             []string
}

// Rule grants Access (Landlock filesystem rights) beneath Path.
type Rule struct {
	Path   string
	Access uint64
}

// Encode renders the plan: the format header, the body's length (4
// bytes, little-endian) and the body, unsigned varints and
// length-prefixed strings.
func (p *Plan) Encode() []byte {
	var b []byte
	flags := uint64(0)
	if p.Landlock {
		flags |= flagLandlock
	}
	if p.Require {
		flags |= flagRequire
	}
	if p.Listen {
		flags |= flagListen
	}
	if p.OwnNet {
		flags |= flagOwnNet
	}
	b = appendUvarints(b, flags, p.HandledFS, p.HandledNet, p.Scoped)
	b = appendUvarints(b, uint64(len(p.Dir)))
	b = append(b, p.Dir...)
	b = appendStrings(b, p.Argv)
	b = appendStrings(b, p.Env)
	b = appendUvarints(b, uint64(len(p.Rules)))
	for _, r := range p.Rules {
		b = appendUvarints(b, r.Access, uint64(len(r.Path)))
		b = append(b, r.Path...)
	}
	b = appendUvarints(b, uint64(len(p.Filter)))
	for _, f := range p.Filter {
		b = append(b, byte(f.Code), byte(f.Code>>8), f.Jt, f.Jf,
			byte(f.K), byte(f.K>>8), byte(f.K>>16), byte(f.K>>24))
	}
	b = appendStrings(b, p.Cover)
	b = appendStrings(b, p.CoverDirs)
	b = appendStrings(b, p.Conceal)
	var ovs []string
	for _, o := range p.Overlays {
		ovs = append(ovs, o.Path, o.Upper, o.Work)
	}
	b = appendStrings(b, ovs)
	for _, o := range p.Overlays {
		b = appendStrings(b, o.Through)
		b = appendStrings(b, o.Lower)
	}
	b = appendStrings(b, p.ReadOnly)
	seal := uint64(0)
	if p.Seal {
		seal = 1
	}
	b = appendUvarints(b, seal)
	b = appendStrings(b, p.Writable)
	b = appendStrings(b, p.Pinned)
	b = appendUvarints(b, uint64(len(p.Tmp)))
	b = append(b, p.Tmp...)
	b = appendUvarints(b, uint64(len(p.Tmps)))
	b = append(b, p.Tmps...)
	b = appendStrings(b, p.Absent)
	out := make([]byte, 0, len(b)+32)
	out = append(out, formatPrefix...)
	out = strconv.AppendInt(out, Format, 10)
	out = append(out, "}\n"...)
	n := uint32(len(b))
	out = append(out, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	return append(out, b...)
}

func appendUvarints(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		b = append(b, byte(v))
	}
	return b
}

func appendStrings(b []byte, ss []string) []byte {
	b = appendUvarints(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendUvarints(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// errStale reports a plan of another format.
type errStale struct{ got int }

func (e errStale) Error() string {
	return "sandbox helper understands plan format " + strconv.Itoa(Format) + ", not " + strconv.Itoa(e.got) +
		": reinstall guard and guard-sandbox-exec together"
}

var errPlan = errors.New("malformed plan")

// readPlan reads one plan from fd, never past its end: the pipe stays
// open afterwards (it is the lifeline).
func readPlan(fd int) (*Plan, error) {
	head := make([]byte, len(formatPrefix))
	if err := readFull(fd, head); err != nil {
		return nil, err
	}
	if string(head) != formatPrefix {
		return nil, errPlan
	}
	version, c := 0, byte(0)
	for digits := 0; ; digits++ {
		var one [1]byte
		if err := readFull(fd, one[:]); err != nil {
			return nil, err
		}
		c = one[0]
		if c < '0' || c > '9' || digits > 6 {
			break
		}
		version = version*10 + int(c-'0')
	}
	if version != Format {
		return nil, errStale{version}
	}
	var rest [5]byte // "\n" after "}", then the body's length
	if c != '}' {
		return nil, errPlan
	}
	if err := readFull(fd, rest[:]); err != nil {
		return nil, err
	}
	if rest[0] != '\n' {
		return nil, errPlan
	}
	n := uint32(rest[1]) | uint32(rest[2])<<8 | uint32(rest[3])<<16 | uint32(rest[4])<<24
	if n > maxPlan {
		return nil, errPlan
	}
	body := make([]byte, n)
	if err := readFull(fd, body); err != nil {
		return nil, err
	}
	return decodePlan(body)
}

// readFull reads exactly len(b) bytes.
func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
			continue
		case err != nil:
			return err
		case n == 0:
			return errors.New("unexpected end of plan")
		}
		b = b[n:]
	}
	return nil
}

// decoder reads the body; the first malformation sticks.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(d.b) == 0 {
			break
		}
		c := d.b[0]
		d.b = d.b[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

// count reads a length that must fit in what is left, each item taking
// at least size bytes.
func (d *decoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.bad = true
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(n int) []byte {
	if d.bad || n > len(d.b) {
		d.bad = true
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) strings() []string {
	n := d.count(1)
	out := make([]string, 0, n)
	for range n {
		out = append(out, string(d.bytes(d.count(1))))
	}
	return out
}

func decodePlan(b []byte) (*Plan, error) {
	d := &decoder{b: b}
	p := &Plan{}
	// Flags: Landlock, Require, Listen, OwnNet. An unknown bit is a plan
	// this helper does not understand, never a plan without Landlock.
	flags := d.uvarint()
	p.Landlock = flags&flagLandlock != 0
	p.Require = flags&flagRequire != 0
	p.Listen = flags&flagListen != 0
	p.OwnNet = flags&flagOwnNet != 0
	d.bad = d.bad || flags&^(flagLandlock|flagRequire|flagListen|flagOwnNet) != 0
	p.HandledFS, p.HandledNet, p.Scoped = d.uvarint(), d.uvarint(), d.uvarint()
	p.Dir = string(d.bytes(d.count(1)))
	p.Argv = d.strings()
	p.Env = d.strings()
	p.Rules = make([]Rule, d.count(2))
	for i := range p.Rules {
		p.Rules[i].Access = d.uvarint()
		p.Rules[i].Path = string(d.bytes(d.count(1)))
	}
	p.Filter = make([]unix.SockFilter, d.count(8))
	for i := range p.Filter {
		f := d.bytes(8)
		if f == nil {
			break
		}
		p.Filter[i] = unix.SockFilter{Code: uint16(f[0]) | uint16(f[1])<<8, Jt: f[2], Jf: f[3],
			K: uint32(f[4]) | uint32(f[5])<<8 | uint32(f[6])<<16 | uint32(f[7])<<24}
	}
	p.Cover = d.strings()
	p.CoverDirs = d.strings()
	p.Conceal = d.strings()
	ovs := d.strings()
	d.bad = d.bad || len(ovs)%3 != 0
	for i := 0; i+2 < len(ovs); i += 3 {
		p.Overlays = append(p.Overlays, Overlay{Path: ovs[i], Upper: ovs[i+1], Work: ovs[i+2]})
	}
	for i := range p.Overlays {
		if t := d.strings(); len(t) > 0 {
			p.Overlays[i].Through = t
		}
		if l := d.strings(); len(l) > 0 {
			p.Overlays[i].Lower = l
		}
	}
	p.ReadOnly = d.strings()
	seal := d.uvarint()
	p.Seal = seal == 1
	d.bad = d.bad || seal > 1
	p.Writable = d.strings()
	p.Pinned = d.strings()
	p.Tmp = string(d.bytes(d.count(1)))
	p.Tmps = string(d.bytes(d.count(1)))
	p.Absent = d.strings()
	if d.bad || len(d.b) != 0 {
		return nil, errPlan
	}
	return p, nil
}
