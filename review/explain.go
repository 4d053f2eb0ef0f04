package review

import (
	"fmt"
	"strings"
	"sync"

	"github.com/guard-sh/guard/profile"
)

// consequences are the indirect costs of each capability, in plain
// English: why the effect is risky beyond what it does (built on first
// use, not at start).
var consequences = sync.OnceValue(func() map[profile.Cap]string {
	return map[profile.Cap]string{
		profile.CapDelete:      "Deleted files do not go to a trash can: this cannot be undone.",
		profile.CapDiscard:     "Discarded work and rewritten history cannot be recovered from git.",
		profile.CapFetch:       "It talks to the network; what it downloads can change what runs next.",
		profile.CapSend:        "What is sent is visible to others and cannot be recalled.",
		profile.CapPublish:     "This cannot be undone, and others see it or lose data because of it.",
		profile.CapPrivilege:   "With root privileges every other protection, guard's included, can be bypassed.",
		profile.CapSystem:      "It changes the machine itself, beyond this project, for every session.",
		profile.CapPersistence: "It persists across sessions: the code runs later, without asking anyone.",
		profile.CapSecrets:     "Credentials that are read can be leaked, and leaked credentials must be rotated.",
		profile.CapReveal:      "Secrets printed to the screen end up in logs and in the agent's context.",
		profile.CapDynamic:     "guard cannot see what this code will do; it still runs inside the sandbox.",
		profile.CapNetCode:     "It runs code from the network or from decoded data that nobody has reviewed.",
		profile.CapProcess:     "Stopped processes lose their unsaved work.",
		profile.CapInject:      "Keys typed into another terminal or window run there with your rights, outside guard.",
		profile.CapSelf:        "Changing guard itself can switch off the protection it gives.",
		profile.CapUnparsed:    "guard could not analyse it, so it assumes the worst.",
		profile.CapLimit:       "guard could not analyse it, so it assumes the worst.",
		profile.CapUnsupported: "guard could not analyse it, so it assumes the worst.",
		profile.CapLookalike:   "Characters that look like others can make a command do something other than what it seems.",
		profile.CapEnvHijack:   "Later commands may run different programs than their names suggest.",
		profile.CapDesktop:     "What goes to the clipboard or to another program runs or is pasted outside guard's sandbox.",
	}
})

var capOrder = []profile.Cap{
	profile.CapUnparsed, profile.CapLimit, profile.CapUnsupported, profile.CapSelf, profile.CapInject, profile.CapPrivilege,
	profile.CapNetCode, profile.CapPublish, profile.CapSystem, profile.CapPersistence, profile.CapSecrets, profile.CapDelete,
	profile.CapDiscard, profile.CapSend, profile.CapFetch, profile.CapReveal, profile.CapDynamic, profile.CapEnvHijack,
	profile.CapProcess, profile.CapLookalike, profile.CapDesktop,
}

// explain writes the plain-English explanation: what will happen, why it
// is risky, and which sandbox it gets. Deterministic: the same verdict
// gives the same bytes.
func explain(p *profile.Profile, v Verdict, in Input) string {
	var b strings.Builder
	b.WriteString(Heading(v.Level))
	var happen []string
	seen := map[string]bool{}
	caps := map[profile.Cap]bool{}
	for _, e := range p.Effects {
		l := levelIn(e, in)
		if l == A && e.Cap != profile.CapWrite && e.Cap != profile.CapExec && e.Cap != profile.CapQuery && !recovered(e, in) {
			continue
		}
		line := fmt.Sprintf("%s %s", programOf(e), e.Msg)
		if recovered(e, in) {
			line += " " + RecoverableNote
		}
		if seen[line] {
			continue
		}
		seen[line] = true
		happen = append(happen, line)
		if l > A {
			caps[e.Cap] = true
			if e.Cap == profile.CapRead && (e.Class == profile.ClassSecret || e.Class == profile.ClassGuard) {
				caps[profile.CapSecrets] = true
			}
		}
	}
	for _, r := range v.Reasons {
		if strings.HasPrefix(r.Rule, "provenance.") || strings.HasPrefix(r.Rule, "floor.") || strings.HasPrefix(r.Rule, "sandbox.") || strings.HasPrefix(r.Rule, "policy.") {
			happen = append(happen, r.Message)
		}
	}
	if len(happen) > 0 {
		b.WriteString("What will happen:\n")
		for _, h := range happen {
			fmt.Fprintf(&b, "  - %s\n", h)
		}
	}
	var why []string
	for _, c := range capOrder {
		if caps[c] {
			if s := consequences()[c]; s != "" && !contains(why, s) {
				why = append(why, s)
			}
		}
	}
	if len(why) > 0 {
		b.WriteString("Why it is risky:\n")
		for _, w := range why {
			fmt.Fprintf(&b, "  - %s\n", w)
		}
	}
	b.WriteString("Sandbox: ")
	b.WriteString(DescribeSandbox(v.Sandbox))
	b.WriteString("\n")
	return b.String()
}

// DescribeSandbox says in one line what a sandbox allows.
func DescribeSandbox(s Sandbox) string {
	var parts []string
	parts = append(parts, "reads files except secrets and guard's own")
	switch {
	case s.Write && len(s.ExtraWrite) > 0:
		parts = append(parts, "writes the workspace, temp dirs, tool caches and "+strings.Join(s.ExtraWrite, ", "))
	case s.Write:
		parts = append(parts, "writes the workspace, temp dirs and tool caches")
	case len(s.ExtraWrite) > 0:
		parts = append(parts, "writes only "+strings.Join(s.ExtraWrite, ", "))
	default:
		parts = append(parts, "writes nothing")
	}
	if s.Net {
		parts = append(parts, "network on (TCP connect and DNS)")
	} else {
		parts = append(parts, "no network")
	}
	if len(s.Reveal) > 0 {
		parts = append(parts, "reads "+strings.Join(s.Reveal, ", ")+" (read-only, this command only)")
	}
	return strings.Join(parts, "; ")
}

// Heading is the first line of an explanation: the level and what it
// means for the user. Policy and scan rewrite it when they move a level.
func Heading(l Level) string { return fmt.Sprintf("Level %s: %s\n", l, levelMeaning(l)) }

func levelMeaning(l Level) string {
	switch l {
	case A:
		return "runs at once, in the sandbox."
	case B:
		return "needs your consent."
	case C:
		return "needs your consent and your PIN."
	case Deny:
		return "refused by policy."
	}
	return ""
}

func programOf(e profile.Effect) string {
	if e.Program == "" {
		return "it"
	}
	return e.Program
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
