package review

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/profile"
)

// Provenance says where the command text came from.
type Provenance string

const (
	ProvUser      Provenance = "user"      // typed by the human
	ProvAgent     Provenance = "agent"     // an agent (shell shim, hooks): the default
	ProvUntrusted Provenance = "untrusted" // a web page, a file, a tool's output
	ProvFile      Provenance = "file"      // a script in a repository (guard scan)
)

// ParseProvenance validates a provenance name.
func ParseProvenance(s string) (Provenance, error) {
	switch p := Provenance(strings.ToLower(s)); p {
	case ProvUser, ProvAgent, ProvUntrusted, ProvFile:
		return p, nil
	}
	return "", fmt.Errorf("unknown provenance %q (want user, agent or untrusted)", s)
}

// Input is everything besides the profile that the verdict depends on.
type Input struct {
	Text       string
	Context    *profile.Context
	Provenance Provenance
	// MinLevel is a floor: the verdict is never below it.
	MinLevel Level
	// Widen asks for more sandbox than the profile implies.
	WidenNet   bool
	WidenWrite []string
	// WidenDaemons: the local daemons' sockets in reach (--daemons).
	WidenDaemons bool
	// Recoverable lists delete targets that guard's checkpoint restores
	// (checkpoint.Cover, computed before review): a delete of one of them
	// inside the workspace is A. See recover.go.
	Recoverable []string
}

// Assess computes the verdict: a pure function of the profile and the
// input. It does no I/O and reads no clock or environment.
func Assess(p *profile.Profile, in Input) Verdict {
	v := Verdict{Level: A, Reasons: []Reason{}}
	seen := map[string]bool{}
	add := func(r Reason) {
		key := r.Rule + "|" + r.Message
		if seen[key] {
			return
		}
		seen[key] = true
		v.Reasons = append(v.Reasons, r)
		v.Level = Max(v.Level, r.Level)
	}
	for _, e := range p.Effects {
		l := levelIn(e, in)
		if l == A {
			continue
		}
		add(Reason{Rule: e.Rule, Level: l, Message: e.Msg, Pos: e.Pos, End: e.End})
	}
	if in.WidenNet || len(in.WidenWrite) > 0 || in.WidenDaemons {
		what := []string{}
		if in.WidenNet {
			what = append(what, "network access")
		}
		if in.WidenDaemons {
			what = append(what, "the local daemons' sockets (docker.sock, tmux, the session bus: a container engine's is root on the machine)")
		}
		for _, w := range in.WidenWrite {
			what = append(what, "write access to "+w)
		}
		add(Reason{Rule: "sandbox.widen", Level: B, Message: "asks for more sandbox than the command needs: " + strings.Join(what, ", "), End: len(in.Text)})
	}
	if e := codeBesideDaemons(p); e != nil {
		add(Reason{Rule: "daemons.code", Level: B, Pos: e.Pos, End: e.End,
			Message: "runs code guard cannot see (" + e.Program + ") in a line that talks to a local daemon: the sandbox opens the daemons' sockets to the whole line, so that code could ask the daemon to act outside it (docker.sock is root on the machine; tmux types into your shell)"})
	}
	switch in.Provenance {
	case ProvUntrusted:
		if v.Level == A {
			add(Reason{Rule: "provenance.untrusted", Level: B, Message: "the text comes from an untrusted source (a web page, a file or a tool's output), so nothing in it runs without consent", End: len(in.Text)})
		} else if v.Level == B && p.Has(profile.CapSend, profile.CapFetch, profile.CapDelete, profile.CapPublish) {
			add(Reason{Rule: "provenance.untrusted", Level: C, Message: "the text comes from an untrusted source and it sends to the network or deletes", End: len(in.Text)})
		}
	}
	if in.MinLevel > v.Level && in.MinLevel <= C {
		add(Reason{Rule: "floor.min-level", Level: in.MinLevel, Message: fmt.Sprintf("a floor of %s was set for this command", in.MinLevel), End: len(in.Text)})
	}
	sort.SliceStable(v.Reasons, func(i, j int) bool {
		if v.Reasons[i].Level != v.Reasons[j].Level {
			return v.Reasons[i].Level > v.Reasons[j].Level
		}
		return v.Reasons[i].Pos < v.Reasons[j].Pos
	})
	v.Sandbox = deriveSandbox(p, in)
	v.Inputs = p.Inputs
	v.Explanation = explain(p, v, in)
	v.Digest = Digest(in, v)
	return v
}

// EffectLevel is the ladder: what one effect costs. Paths cost by their
// class (inside the workspace or temp, outside, system, secret…).
func EffectLevel(e profile.Effect) Level {
	c := e.Class
	switch e.Cap {
	case profile.CapRead:
		switch c {
		case profile.ClassSecret, profile.ClassGuard, profile.ClassDevice:
			// A raw disk or memory device holds every secret on it.
			return C
		case profile.ClassSensitive:
			return B
		}
		return A
	case profile.CapWrite:
		switch c {
		case profile.ClassWorkspace, profile.ClassWSRoot, profile.ClassTemp, profile.ClassNull, profile.ClassSensitive, "":
			return A
		case profile.ClassOutside, profile.ClassHome, profile.ClassUnknown, profile.ClassRemote:
			return B
		}
		return C // system, root, device, tty, secret, guard, persistence
	case profile.CapDelete:
		switch c {
		case profile.ClassWorkspace, profile.ClassTemp, profile.ClassSensitive, profile.ClassNull, "":
			return B
		}
		return C
	case profile.CapExec:
		switch c {
		case profile.ClassSecret, profile.ClassGuard:
			return C
		case profile.ClassOutside, profile.ClassHome, profile.ClassUnknown:
			return B
		}
		return A
	case profile.CapQuery:
		// A read-only query by a known client: A, with the network and that
		// client's credential read-only for this command (see deriveSandbox).
		return A
	case profile.CapDesktop, profile.CapDiscard, profile.CapFetch, profile.CapSend, profile.CapReveal, profile.CapDynamic,
		profile.CapProcess, profile.CapLookalike, profile.CapEnvHijack:
		return B
	case profile.CapPublish, profile.CapPrivilege, profile.CapSystem, profile.CapPersistence, profile.CapSecrets,
		profile.CapNetCode, profile.CapInject, profile.CapSelf, profile.CapUnparsed, profile.CapLimit, profile.CapUnsupported:
		return C
	}
	// An effect this table does not know is a bug; fail closed.
	return C
}

func deriveSandbox(p *profile.Profile, in Input) Sandbox {
	s := Sandbox{Hide: []string{}, Protect: []string{}}
	var secretReads []string
	var targets []string // exact paths written or deleted outside the workspace
	for _, e := range p.Effects {
		switch e.Cap {
		case profile.CapRead, profile.CapReveal, profile.CapLookalike, profile.CapQuery, profile.CapDesktop:
			if e.Class == profile.ClassSecret && e.Target != "" {
				secretReads = append(secretReads, e.Target)
			}
		case profile.CapSecrets:
			// Tools that use credentials (gpg, ssh-add) need to read them.
			s.Write = true
		default:
			s.Write = true
		}
		switch e.Cap {
		case profile.CapFetch, profile.CapSend, profile.CapPublish, profile.CapNetCode, profile.CapQuery:
			s.Net = true
		}
		if e.Cap == profile.CapQuery && e.Class == profile.ClassSecret && strings.HasPrefix(e.Target, "/") {
			s.Reveal = append(s.Reveal, e.Target)
		}
		if (e.Cap == profile.CapWrite || e.Cap == profile.CapDelete) && strings.HasPrefix(e.Target, "/") {
			switch e.Class {
			case profile.ClassOutside, profile.ClassHome, profile.ClassSystem, profile.ClassPersistence, profile.ClassRoot, profile.ClassDevice, profile.ClassTTY, profile.ClassWSRoot:
				targets = append(targets, writeGrant(e.Target))
				g := writeGrant(e.Target)
				if e.Cap == profile.CapDelete && g == e.Target && g != "/" {
					// Removing an entry needs rights on its directory.
					g = path.Dir(g)
				}
				s.ExtraWrite = append(s.ExtraWrite, g)
			}
		}
	}
	if in.WidenNet {
		s.Net = true
	}
	s.Daemons = in.WidenDaemons || p.ReachesDaemons()
	s.ExtraWrite = append(s.ExtraWrite, in.WidenWrite...)
	s.ExtraWrite = uniq(s.ExtraWrite)
	if s.ExtraWrite == nil {
		s.ExtraWrite = nil
	}
	s.Reveal = uniq(s.Reveal)
	if ctx := in.Context; ctx != nil {
		hide := ctx.SecretLocations()
		if len(secretReads) == 0 && len(s.Reveal) == 0 {
			// The common case: every secret location stays hidden. The
			// context's list is shared, capped so an append copies it.
			s.Hide = hide[:len(hide):len(hide)]
		} else {
			for _, h := range hide {
				if contains(s.Reveal, h) {
					continue // granted read-only instead
				}
				if !coveredBy(secretReads, h) || h == ctx.ConfigDir || h == ctx.StateDir {
					s.Hide = append(s.Hide, h)
				}
			}
		}
		// A protected path stays protected unless the command itself
		// targets it (an approved write to ~/.bashrc): a grant of a parent
		// directory, needed to delete ~/old, lifts nothing.
		targets = append(targets, in.WidenWrite...)
		protect := ctx.ProtectedLocations()
		if len(targets) == 0 {
			s.Protect = protect[:len(protect):len(protect)]
		} else {
			for _, pr := range protect {
				if !coveredBy(targets, pr) {
					s.Protect = append(s.Protect, pr)
				}
			}
		}
	}
	return s
}

// writeGrant is the path to grant for writing target: globs grant their
// directory.
func writeGrant(target string) string {
	if i := strings.IndexAny(target, "*?["); i >= 0 {
		return path.Dir(target[:i] + "x")
	}
	return target
}

// coveredBy reports whether some path in list lies within dir (or dir
// within it).
func coveredBy(list []string, dir string) bool {
	for _, p := range list {
		if p == dir || under(p, dir) || under(dir, p) {
			return true
		}
	}
	return false
}

// under reports whether p lies strictly below dir (without building
// dir+"/", which allocated on every comparison).
func under(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

func uniq(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	sort.Strings(in)
	out := in[:1]
	for _, s := range in[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

// Digest binds a verdict to its input: text, cwd, workspace, provenance,
// level, rule ids, sandbox and the files the review read (principle 6). Recompute it after adjusting a verdict.
func Digest(in Input, v Verdict) string {
	cwd, ws := "", ""
	if in.Context != nil {
		cwd, ws = in.Context.Cwd, in.Context.Workspace
	}
	// One buffer hashed once (writing each field to the hash separately
	// was a fifth of the time of a whole review).
	buf := make([]byte, 0, 8192)
	field := func(s string) {
		// Length-prefixed, so no two inputs share an encoding.
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
		buf = append(buf, ';')
	}
	for _, s := range []string{in.Text, cwd, ws, string(in.Provenance), v.Level.String()} {
		field(s)
	}
	for _, r := range v.Reasons {
		field(r.Rule)
	}
	sb := v.Sandbox
	field(strconv.FormatBool(sb.Write) + strconv.FormatBool(sb.Net))
	lists := [][]string{sb.ExtraWrite, sb.Hide, sb.Protect}
	if len(sb.Reveal) > 0 {
		lists = append(lists, sb.Reveal)
	}
	var shared [][]string // the context's own lists, used as they are
	if ctx := in.Context; ctx != nil {
		shared = [][]string{ctx.SecretLocations(), ctx.ProtectedLocations()}
	}
	for _, list := range lists {
		field(strconv.Itoa(len(list)))
		if i := slices.IndexFunc(shared, func(c []string) bool { return len(c) > 0 && slices.Equal(list, c) }); i >= 0 {
			// Equal to the context's whole list, the common case: that
			// list follows from the tables built into guard and the
			// context's own directories, which are hashed instead of its
			// ~100 paths. Equal content gives the same digest whether or
			// not the slice is the context's own (a shared slice compares
			// fast, its strings being the same).
			ctx := in.Context
			field("context-list:" + strconv.Itoa(i))
			for _, d := range []string{ctx.Home, ctx.ConfigDir, ctx.StateDir, ctx.Workspace} {
				field(d)
			}
			continue
		}
		for _, p := range list {
			field(p)
		}
	}
	field(strconv.Itoa(len(v.Inputs)))
	for _, f := range v.Inputs {
		field(f.Path)
		field(f.Sum)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// reviewRules are the rule ids the review itself adds.
var reviewRules = []string{"daemons.code", "floor.min-level", "provenance.untrusted", "sandbox.widen"}

// codeBesideDaemons is the first effect of p that runs code guard cannot
// see (workspace code, an unknown program, code from a string or the
// network) from a program that is not itself a daemon client, when p
// talks to a daemon; nil otherwise. Such a line's sandbox reaches the
// daemons' sockets (deriveSandbox), and so would that code.
func codeBesideDaemons(p *profile.Profile) *profile.Effect {
	if !p.ReachesDaemons() {
		return nil
	}
	for i := range p.Effects {
		e := &p.Effects[i]
		switch e.Cap {
		case profile.CapExec, profile.CapDynamic, profile.CapNetCode:
			if !profile.DaemonClient(e.Program) {
				return e
			}
		}
	}
	return nil
}

// KnownRule reports whether id is a rule guard's engine can report: a
// profile rule or one the review adds. Policy rules are "policy.<id>".
func KnownRule(id string) bool {
	if profile.KnownRule(id) {
		return true
	}
	for _, r := range reviewRules {
		if r == id {
			return true
		}
	}
	return false
}

// RuleIDs lists every engine rule id, sorted.
func RuleIDs() []string {
	ids := append(profile.RuleIDs(), reviewRules...)
	sort.Strings(ids)
	return ids
}
