// Package audit keeps guard's record of every decision: an append-only,
// hash-chained NDJSON log, and the masking that keeps secrets out of it.
//
// # What it decides
//
// What a record holds and how it is stored: one JSON line per decision or
// outcome (Record), under guard's state directory (internal/dirs) as audit.log, each
// line carrying as "prev" the SHA-256 of the previous line's exact bytes.
// Which text is a secret (Mask): provider tokens, private keys, JWTs,
// credentials in URLs, and values of secret-looking headers, flags and
// variables. audit is the only package that reads the clock (Log.Clock,
// Log.Now), so every other package stays replayable.
//
// # What it guarantees
//
//   - A decision Append returned is on disk (fdatasync) and complete: one
//     write(2) under an exclusive flock, with prev computed under that lock
//     from the file's last line. Any number of processes may append at once;
//     no record is lost or interleaved. A ran record, and a record written
//     with AppendUnsynced (a hook's answer that rewrites the command into
//     guard run, which syncs its own decision before anything runs), is
//     complete but reaches the disk with the next sync of its file; a file
//     is synced before rotation sets it aside.
//   - Command and Note are masked by Append itself, whatever the caller
//     passed. Mask is idempotent and never panics.
//   - Rotation (Log.MaxSize) keeps the chain: audit.log is renamed to the
//     next audit.log.N (1 is the oldest) and the new file's first record
//     carries the old file's last hash. Verify walks the files in order.
//   - Verify names the first bad line and tells a torn last line (a crash
//     mid-write: not newline-terminated, or not a record) from a break in
//     the middle (an edited, removed or inserted line). An empty or missing
//     log verifies. The next Append sets a torn last line aside in
//     audit.torn and continues the chain from the line before it: a record
//     that tore was never acknowledged.
//   - A decision's long sandbox lists (the ~460 hidden and protected
//     paths) are stored once, in sets/HEX.json named by the SHA-256 of the
//     file's bytes, written and synced before the record naming them
//     (hide_set, protect_set) is appended; Read puts the lists back and
//     Verify checks each named file against its name, so an edited or
//     removed set file is reported as tampering at the first line naming it.
//   - The log keeps reserveSize bytes allocated past its end (fallocate
//     with the size kept), renewed after appends while there is room: a
//     command that fills the disk still gets its outcome record.
//   - The directory is 0700, the files 0600; wider modes are tightened.
//
// # What it does not
//
//   - The chain has no key. It makes tampering evident, not impossible:
//     whoever can write the file can rewrite it whole and recompute every
//     hash, and dropping the newest records leaves no trace in the file.
//     Compare Log.Head or Report.Head with a head seen earlier (guard shows
//     it in PIN prompts) to notice that.
//   - Masking is pattern-based. It hides too much rather than too little,
//     but a secret with no recognisable shape in an unnamed position (a
//     bare password argument) is not found.
//   - audit does not print, exit, decide levels or prune old rotated files.
//     Removing rotated files oldest-first (audit.log.1, then .2) keeps the
//     rest verifiable.
package audit
