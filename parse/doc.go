// Package parse turns bash text into guard's own small syntax tree (the IR
// in ir.go) and is the only package that imports mvdan.cc/sh.
//
// What it decides: how bash would split the text into commands and words,
// and for each word whether it is static (its value is known from the text
// alone) or not. Static values are computed here as bash would compute them:
// quotes and backslashes removed, ANSI-C $'…' decoded, brace expansion
// applied. Everything that depends on run time (variables, command and
// process substitution, globs, tilde) stays a typed Part so that the profile
// can resolve what its context knows and record the rest as unknown.
//
// What it guarantees: analysis is bounded. Input over MaxBytes, nesting over
// MaxDepth or trees over MaxNodes are refused with a *LimitError before or
// during the walk, so a hostile input is decided quickly. A syntax error is a
// *SyntaxError with the parser's position. Constructs the IR does not model
// become an Unsupported node, never silently dropped.
//
// What it does not do: it runs nothing, reads no files and looks up no
// users; "~user" is kept as a Tilde part for the profile to judge.
package parse
