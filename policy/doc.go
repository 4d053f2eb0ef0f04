// Package policy reads the user's and a project's policy files (TOML) and
// applies their rules to a review verdict. It is the only importer of
// go-toml.
//
// # What it decides
//
// Which rules match a command line, and how they move its level: allow
// rules lower what they cover to A, require rules and a file's min_level
// raise, deny rules refuse, and grants widen the sandbox (extra writable
// paths, network, environment variables kept). Deny beats require beats
// allow; among the rest the highest level wins. A rule matches by argv
// pattern over the commands guard resolved (command), by regular
// expression over the whole text (regex), by doublestar globs over
// resolved path targets (paths) and by capability (caps); every part that
// is set must hold. Apply returns the adjusted verdict with a reason per
// matching rule ("policy.<id>"), a rewritten explanation and a new digest.
//
// # What it guarantees
//
//   - Floors only go up. A project policy (.guard.toml) can deny, require
//     and set a floor, never lower or grant: its allow rules and grants are
//     kept for display, reported as Warnings and ignored by Apply.
//   - No rule lowers guard-self, terminal injection, or text guard could
//     not analyse (caps self, inject, unparsed, limit, unsupported, and
//     writes to guard's own files or another terminal): those effects keep
//     their level. Nothing lowers a line of untrusted provenance, nothing
//     lowers below the input's MinLevel, and no grant reaches guard's own
//     config or state directories.
//   - An allow rule lowers only the effects it covers: in "npm test && rm
//     -rf ~" an allow for "npm *" leaves the rm at C. When guard cannot
//     tell (a word or path it could not resolve, an effect several
//     commands may have caused), a deny or require rule matches and an
//     allow or grant does not.
//   - Loading is all or nothing. A syntax error, an unknown key, a bad
//     type, level, cap, regex, glob or path, or an example that fails is
//     an *Error with the file, line and column and a hint; Load never
//     returns a partial policy.
//   - Parse, Load and Apply are pure: no I/O (the caller reads the files),
//     no clock, no environment. The same inputs give the same outcome.
//
// # What it does not do
//
//   - It does not find or read files: cmd/guard reads
//     $XDG_CONFIG_HOME/guard/policy.toml and <workspace>/.guard.toml.
//   - It does not print, prompt or decide how a level is consented to.
//     Outcome.LoweredFromB tells the run path that a user allow rule took a
//     line from B to A.
//   - It cannot limit the network to ports: grant_net = [443] turns the
//     network on and reports the ports in Outcome.NetPorts.
//   - The embedded default policy has no rules (see default.toml).
package policy
