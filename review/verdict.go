package review

import "github.com/guard-sh/guard/profile"

// Reason is one finding behind a verdict: which rule fired, the level it
// asks for, what it means in plain English, and where in the command text
// (byte offsets) it was found.
type Reason struct {
	Rule    string `json:"rule"`
	Level   Level  `json:"level"`
	Message string `json:"message"`
	Pos     int    `json:"pos"`
	End     int    `json:"end"`
}

// Verdict is the outcome of a review: a pure function of the command text
// and its context. Equal inputs give equal verdicts, byte for byte.
type Verdict struct {
	Level       Level    `json:"level"`
	Reasons     []Reason `json:"reasons"`
	Explanation string   `json:"explanation"`
	Sandbox     Sandbox  `json:"sandbox"`
	// Inputs are the files the review read (a script, package.json) and
	// the SHA-256 of their contents (principle 6).
	Inputs []profile.Input `json:"inputs,omitempty"`
	// Digest binds an approval to this exact review: the SHA-256 of the
	// command text, cwd, workspace, provenance, level, rule ids, sandbox
	// and the contents of every file the review read.
	Digest string `json:"digest"`
}
