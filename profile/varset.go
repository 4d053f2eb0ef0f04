package profile

import (
	"strings"

	"github.com/guard-sh/guard/parse"
)

// What setting a variable does is the same whichever way the shell or a
// program's environment gets it: NAME=VALUE, a prefix assignment, env
// NAME=VALUE, a quoted declare 'NAME=VALUE', read NAME, printf -v NAME,
// mapfile NAME. varEffects prices it once for all of them.

// varEffects records what setting name to val does: the variable tables
// (specialVar, sensitiveVars), prompts the shell expands later, and
// bash's own tables of commands (BASH_CMDS, BASH_ALIASES). val is nil
// when the value is not known; fs are the fields it came from (for
// their taint). name may carry a subscript (read 'BASH_CMDS[ls]').
func (b *builder) varEffects(name string, val *string, fs []field, st *state, at span) {
	base, sub, indexed := strings.Cut(name, "[")
	if indexed {
		sub = strings.TrimSuffix(sub, "]")
		key := &sub
		if strings.ContainsAny(sub, "$`\"'\\") {
			key = nil
		}
		if base == "BASH_CMDS" || base == "BASH_ALIASES" {
			b.commandTable(base, key, val, fs, st, at)
			return
		}
		// Another element: priced as the variable itself (element 0 is
		// its value, and bash runs every element of PROMPT_COMMAND).
	}
	if base == "PATH" {
		st.setPathDirs(val, fs)
	}
	if b.specialVar(base, val, fs, st, at) {
		// Reviewed by its value (targets_v2.go).
	} else if sv, ok := sensitiveVars()[base]; ok {
		b.add(Effect{Cap: sv.cap, Rule: sv.rule, Target: base, Msg: sv.msg}, at)
		if sv.code {
			if val != nil {
				b.text(*val, st.clone(), stream{}, base, at)
			} else {
				b.unknownCodeVar(base, fs, "a command that is not static", at)
			}
		}
	}
	if promptVars()[base] {
		if val != nil {
			b.promptText(decodePrompt(*val), st, at)
		} else {
			b.unknownCodeVar(base, fs, "a prompt that is not static; the shell expands it (and runs its substitutions) later", at)
		}
	}
}

// unknownCodeVar records a variable set to code guard cannot see: C when
// the value came from the network or from decoding.
func (b *builder) unknownCodeVar(name string, fs []field, what string, at span) {
	for _, f := range fs {
		if f.taint.tainted() {
			b.add(Effect{Cap: CapNetCode, Rule: "exec.code-from-network", Target: name, Msg: name + " is set to code from the network or from decoded data"}, at)
			return
		}
	}
	b.add(Effect{Cap: CapDynamic, Rule: "env.code-dynamic", Target: name, Msg: name + " is set to " + what}, at)
}

// commandTable records an element set in bash's own tables of what a
// command name runs: BASH_CMDS[NAME]=PATH is hash -p PATH NAME, and
// BASH_ALIASES[NAME]=TEXT is alias NAME=TEXT. key is nil when the
// element's name is not static.
func (b *builder) commandTable(table string, key, val *string, fs []field, st *state, at span) {
	switch table {
	case "BASH_CMDS":
		if key == nil {
			b.add(Effect{Cap: CapDynamic, Rule: "shell.hash", Target: table, Msg: "points a command name that is not static at another program (BASH_CMDS, bash's table of command paths)"}, at)
			return
		}
		target := ""
		if val != nil {
			target = *val
		}
		if st.hashed == nil {
			st.hashed = map[string]string{}
		}
		st.hashed[*key] = target
		what := "a program that is not static"
		if val != nil {
			what = *val
		}
		b.add(Effect{Cap: CapEnvHijack, Rule: "shell.hash", Target: *key, Msg: "makes the command " + *key + " run " + what + " (BASH_CMDS, bash's table of command paths)"}, at)
	case "BASH_ALIASES":
		target := table
		if key != nil {
			target = *key
		}
		b.add(Effect{Cap: CapEnvHijack, Rule: "shell.alias", Target: target, Msg: "defines an alias (BASH_ALIASES), changing what a command name runs in this shell"}, at)
		if val != nil {
			b.text(*val, st.clone(), stream{}, "alias", at)
			if key != nil {
				st.defineAlias(*key, *val)
			}
		} else {
			b.unknownCodeVar(table, fs, "an alias body that is not static", at)
		}
	}
}

// arrayTable records NAME=([KEY]=VALUE …) and NAME+=(…) of bash's
// command tables, element by element (vals are the elements' fields); a
// list without keys, or keys that are not static, could name any command.
func (b *builder) arrayTable(a *parse.Assign, name string, vals []field, st *state, sp span) {
	if name != "BASH_CMDS" && name != "BASH_ALIASES" {
		return
	}
	var keys []field
	for _, w := range a.Index {
		keys = append(keys, b.fields(w, st, sp)...)
	}
	if len(keys) != len(vals) || len(vals) == 0 {
		b.commandTable(name, nil, nil, nil, st, sp)
		return
	}
	for i := range vals {
		var key, val *string
		if keys[i].known {
			key = &keys[i].val
		}
		if vals[i].known {
			val = &vals[i].val
		}
		b.commandTable(name, key, val, vals[i:i+1], st, sp)
	}
}

// indexedName is NAME[INDEX] for varEffects, with a subscript that is not
// static shown as [$?].
func indexedName(name string, index []*parse.Word) string {
	if len(index) == 0 {
		return name
	}
	if len(index) == 1 {
		if v, ok := index[0].Value(); ok {
			return name + "[" + v + "]"
		}
	}
	return name + "[$?]"
}

// indirectName reviews ${!NAME…}: bash takes NAME's value as the name of
// the variable to expand, subscript included, so a value such as
// 'a[$(cmd)]' runs cmd. ${!NAME[@]}, ${!NAME[*]}, ${!PREFIX*} and
// ${!PREFIX@} list names or keys and expand nothing.
func (b *builder) indirectName(raw string, st *state, sp span) {
	m := re(`^\$\{!([A-Za-z_][A-Za-z0-9_]*)([^\[*@]|@[A-Za-z]|$|\})`).FindStringSubmatch(raw)
	if m == nil {
		return
	}
	name := st.resolveRef(m[1])
	via := "the variable named by $" + m[1] + " (" + raw + ")"
	if v := st.vars[name]; v != nil {
		b.nameCode(*v, st, via, sp)
	}
	b.arithTainted(field{raw: raw, taint: st.taint[name]}, via, sp)
}

// paramAssigns: ${NAME:=VALUE} and ${NAME=VALUE} assign VALUE when NAME
// is unset (or empty). Unless the line set NAME to a value that is not
// empty, that may happen (the environment's NAME is not known): priced
// as NAME=VALUE (: ${GIT_PAGER:='rm -rf ~'} sets a command git runs). A
// name that is not plain may be any variable.
func (b *builder) paramAssigns(p parse.Part, st *state, sp span) {
	for _, a := range p.Assigns {
		if a.Name == "" {
			b.add(Effect{Cap: CapDynamic, Rule: "shell.decl-dynamic", Target: p.Raw, Msg: "assigns a variable whose name is not static (" + p.Raw + ")"}, sp)
			continue
		}
		name := st.resolveRef(a.Name)
		v, set := st.vars[name]
		if v != nil && (*v != "" || a.IfUnset) {
			continue // set: the expansion assigns nothing
		}
		if a.Maybe || set && v == nil {
			// Assigned or not, or onto a value guard does not know
			// (c=$(cat f); : ${c:=ls}; $c may run rm): reviewed, and
			// unknown after.
			b.assign(a, st, sp, false)
			if name != "" {
				st.set(name, nil)
			}
			continue
		}
		b.assign(a, st, sp, true)
	}
}

// declAssign reviews a declaration's word that is not an option and
// was not parsed as an assignment because it is quoted or made by an
// expansion (declare "PS4=…", export "$N=…"): bash assigns it all the
// same. It reports whether the word was an assignment guard understood.
func (b *builder) declAssign(f field, st *state, sp span) bool {
	name, v, ok := strings.Cut(f.val, "=")
	if !f.known || !ok {
		return false
	}
	name = strings.TrimSuffix(name, "+")
	base, _, _ := strings.Cut(name, "[")
	if !validName(base) {
		return false
	}
	if st.isInt(base) {
		b.arithCode(v, st, name+"=", sp)
	}
	b.varEffects(name, &v, []field{f}, st, sp)
	if base == name {
		st.setTainted(name, &v, f.taint)
	} else {
		st.set(name, nil) // an element: NAME's elements are not what they were
	}
	return true
}

// validName is a shell variable name: a letter or _, then letters,
// digits and _.
func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
