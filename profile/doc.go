// Package profile turns a command line and its context into an action
// profile: every program the line would run (nested and indirect
// execution included) and every effect it would have, each with a rule id
// and its target resolved and classed.
//
// What it decides: what would run and what it would touch. Build walks the
// syntax tree from package parse with a small model of the shell (the
// directory, variables, functions, positional parameters, namerefs,
// hash -p entries, files written earlier on the line) and the command
// tables (rules*.go). Programs that run programs are followed: known
// wrappers and launchers by their table entries (rules_launch.go), and,
// for a program the tables do not know, an argument that names a program
// or reads as a shell command line is reviewed as a command that may run
// (principle 7). echo and printf are emulated as bash runs them.
//
// What it guarantees: Build never fails and never panics on any input;
// text that does not parse, is over a limit, or uses a construct it does
// not model becomes an effect the review fails closed on. It is
// deterministic: the same text and context give the same profile. Every
// file it reads to decide (a script, package.json) is listed in
// Profile.Inputs with the SHA-256 of the bytes read, so an approval can be
// bound to them; secret and guard files are never read.
//
// What it does not do: it does not price effects (package review does),
// run anything, or read the clock or the environment except through the
// injected Context.
package profile
