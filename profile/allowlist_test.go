package profile

import (
	"sort"
	"testing"
)

// aLevelCaps are capabilities that are A on their own (without a path
// class outside the workspace).
var aLevelCaps = map[Cap]bool{CapRead: true, CapWrite: true, CapExec: true, CapQuery: true}

// TestUnknownSubcommandNeverA: principle 8. For every table tool with
// subcommands, a subcommand guard does not list gets the tool's
// state-changing level, never A.
func TestUnknownSubcommandNeverA(t *testing.T) {
	ctx := &Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	check := func(line string) {
		p := Build(line, ctx)
		for _, e := range p.Effects {
			if !aLevelCaps[e.Cap] {
				return
			}
		}
		t.Errorf("%s: an unknown subcommand is A (effects %v)", line, p.Effects)
	}
	var names []string
	for name, s := range specTable() {
		if len(s.ready().subs) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		check(name + " zz-not-a-subcommand")
		for sub, s := range lookupSpec(name).subs {
			if len(s.subs) > 0 && sub != "*" {
				check(name + " " + sub + " zz-not-a-subcommand")
			}
		}
	}
	check("git zz-not-a-subcommand")
}

// TestReadOnlySubcommandsA: the listed read-only subcommands stay A (the
// allow-list is not a blanket raise).
func TestReadOnlySubcommandsA(t *testing.T) {
	ctx := &Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	for _, line := range []string{
		"systemctl status nginx", "systemctl list-units", "systemctl is-active x", "docker ps", "docker images",
		"npm ls", "pip list", "tmux ls", "cargo build", "gem list", "nmcli device status", "tc qdisc show",
		"update-alternatives --display java", "journalctl -u x", "loginctl list-sessions",
	} {
		p := Build(line, ctx)
		for _, e := range p.Effects {
			if !aLevelCaps[e.Cap] || e.Class != "" && e.Class != ClassWorkspace && e.Class != ClassWSRoot {
				t.Errorf("%s: want A, got effect %s %s", line, e.Cap, e.Rule)
			}
		}
	}
}
