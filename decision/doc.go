// Package decision is guard's one decision: given a command's text and where
// it would run, it builds the context the review needs, loads the policy,
// assesses the text (parse → profile → review → policy) and decides what
// happens next:
//
//	Run          level A (or lowered to A by the user's own policy)
//	Refuse       a policy rule denies it; nothing can approve it
//	UseApproval  the user approved exactly this review earlier (queue)
//	Ask          someone who can answer this level is present (a terminal
//	             for B and C, an agent's own prompt for B)
//	Queue        nobody can answer here: the request waits in the queue
//
// Every entry point calls it: `guard run` and `guard -- CMD`, the shell
// shim, the agent hooks and `guard scan`. Each rule of the ladder exists
// here once.
//
// It prints nothing, opens no terminal and reads the outside world only
// through the injected Env (environment, working directory, clock, file
// reads, symlink resolution), so a table test drives every branch without
// processes. What it guarantees: a state it cannot read is an error (the
// caller exits 125), never a lower level; without an absolute HOME there is
// no engine at all.
package decision
