// Package approval is the queue of commands waiting for a person's
// decision, and the single-use approvals that come out of it.
//
// When guard cannot ask on a terminal (an agent runs it with no terminal,
// or the user prefers to decide elsewhere), the run path queues a Request
// with Add and exits "pending". The user decides later with
// `guard approve <id>` (consent on the terminal, plus the PIN for level C)
// or `guard deny <id>`. When the agent runs the same command again, the
// run path calls Consume with the command's Binding; an approval is
// honoured once.
//
// What it guarantees:
//
//   - An approval is bound to the exact command text, cwd, workspace and
//     verdict digest (Binding). Consume honours it only on an exact match,
//     only before it expires (15 minutes by default) and only once: two
//     concurrent consumers of the same approval get one success and one
//     ErrUsed.
//   - Only levels B and C can be queued and approved. A level C request
//     can be approved only with the PIN checked (Grant.PIN), and Consume
//     ignores a C approval that lacks it.
//   - Concurrent guard processes are safe: each request is its own file
//     (written to a temporary name and linked or renamed into place, so a
//     reader never sees half a request), and every state change runs
//     under an exclusive flock on the queue's lock file.
//   - Requests are pending, then approved, denied or expired; an approved
//     one becomes consumed or expired. Expiry is computed from the stored
//     times and the clock the caller passes.
//
// What it does not do: it never reads the clock, never prints and never
// asks anyone anything; checking consent and the PIN is the caller's job.
// Notify is best-effort. The queue lives in guard's state dir, which the
// sandbox hides from guarded commands; a process of the same user running
// outside the sandbox can forge or delete requests, and nothing here can
// stop it.
package approval
