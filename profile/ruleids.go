package profile

import (
	"sort"
	"sync"
)

// handlerRules are the rule ids the walker and the handlers emit from
// code rather than from table rows. TestRuleIDsComplete checks that every
// rule the corpus produces is known, so a new id cannot be forgotten here.
var handlerRules = sync.OnceValue(func() []string {
	return []string{
		"awk.program-file", "awk.read", "awk.runs-commands", "awk.write",
		"chmod.setuid", "perm.others-write", "db.destroy", "db.editor", "db.file-read", "db.file-write", "dd.device", "dd.read", "dd.write",
		"env.bash-func", "env.code-dynamic", "env.code-flags", "env.less-command", "python.warnings-import", "env.print-all", "env.split-dynamic",
		"exec.code-from-network", "exec.downloaded-script", "exec.dynamic-code", "exec.dynamic-name", "exec.dynamic-subcommand", "exec.dynamic-target", "exec.runner-outside", "exec.unseen-option",
		"exec.interactive", "exec.name-from-network", "exec.path", "exec.pipe-to-shell", "exec.program",
		"exec.program-reads", "exec.program-writes", "exec.script", "exec.script-unreadable", "exec.stdin-code",
		"find.delete", "find.dynamic", "find.read", "find.write", "fs.backup", "fs.extract", "fs.extract-anywhere", "interp.load-outside",
		"git.clean", "git.config-code", "git.config-dynamic", "git.config-force-push", "git.config-edit", "git.config-file", "git.config-global",
		"git.config-set", "git.discard", "git.dynamic-subcommand", "git.exec-path", "git.unknown-subcommand",
		"guard.self", "interp.dynamic-script", "interp.inline-code", "interp.module", "interp.script", "interp.stdin-code",
		"kill.all", "limit.calls", "limit.depth", "limit.nesting", "limit.nodes", "limit.size",
		"net.options-file", "net.query-data", "net.send-file", "pkg.link", "pkg.run", "secrets.cloud-metadata", "pkg.script-unreadable", "pkg.script-shell", "parse.error", "parse.unsupported", "perm.modify", "perm.recursive-outside",
		"redirect.read", "redirect.write", "env.write-file", "sed.exec", "sed.in-place", "sed.read", "sed.write",
		"shell.decl-dynamic", "shell.recursive-function", "shell.script-read", "shell.source-secrets",
		"tar.create", "tar.extract", "tar.read", "text.lookalike",
		// Launchers and command-running options (principle 7).
		"debug.script", "editor.script", "exec.argument-code", "exec.argument-command",
		"dev.compiler-code", "dev.install-bin", "backup.action", "git.worktree-write", "net.download", "fs.source-delete", "inject.editor-remote", "shell.hook-function", "shell.nameref-dynamic", "shell.trap", "shell.trap-body", "shell.hash", "fs.create", "inject.terminal", "inject.tmux-run", "proc.trace", "tar.remove-files",
	}
})

var (
	ruleOnce sync.Once
	ruleSet  map[string]bool
	ruleList []string
)

func collectRules() {
	ruleSet = map[string]bool{}
	var walk func(s *spec)
	seen := map[*spec]bool{}
	walk = func(s *spec) {
		s = s.ready()
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, r := range append(append([]row(nil), s.rows...), s.global...) {
			ruleSet[r.id] = true
		}
		for _, sub := range s.subs {
			walk(sub)
		}
		for _, h := range s.handled {
			walk(h)
		}
	}
	for _, s := range specTable() {
		walk(s)
	}
	for _, s := range gitSubTable() {
		walk(s)
	}
	for _, v := range sensitiveVars() {
		ruleSet[v.rule] = true
	}
	for _, id := range handlerRules() {
		ruleSet[id] = true
	}
	for _, id := range handlerRulesV2() {
		ruleSet[id] = true
	}
	for _, s := range v2Tables() {
		walk(s)
	}
	for id := range ruleSet {
		ruleList = append(ruleList, id)
	}
	sort.Strings(ruleList)
}

// RuleIDs lists every rule id the profile can emit, sorted. Policies,
// scan allowances and audit records refer to these.
func RuleIDs() []string {
	ruleOnce.Do(collectRules)
	return append([]string(nil), ruleList...)
}

// KnownRule reports whether id is a rule the profile can emit.
func KnownRule(id string) bool {
	ruleOnce.Do(collectRules)
	return ruleSet[id]
}
