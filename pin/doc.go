// Package pin keeps the PIN that guards level C commands: it hashes, stores
// and verifies it, and limits how often it may be guessed.
//
// What it decides: whether a typed PIN matches the stored one, and whether
// another attempt is allowed at all.
//
// What it guarantees:
//
//   - The PIN is stored only as an argon2id hash with a random 16-byte salt,
//     in a self-describing PHC string
//     ($argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>), in the file "pin" of
//     guard's config dir, mode 0600 (the dir is created 0700). Verification
//     reads the parameters back from the string, so they can be raised later;
//     a successful Verify rehashes a PIN stored with parameters weaker than
//     the current defaults.
//   - The computed and stored hashes are compared in constant time
//     (crypto/subtle).
//   - Failed attempts are counted in the file "pin-attempts" of guard's state
//     dir under an exclusive flock, so concurrent guard processes count every
//     failure exactly once. Failures bring growing delays (0, 1, 2, 4 s) and,
//     at the fifth consecutive failure, a lockout (10 minutes) stored as a
//     time, so it survives restarts. Success clears the count; so does the
//     end of a lockout.
//   - Trivial PINs are refused: fewer than 6 characters, one repeated
//     character, sequences (123456, 654321, 890123, abcdef), short repeated
//     patterns (121212, 123123) and common choices (password, qwerty).
//
// What it does not do: it never reads the clock (callers pass now), never
// prints and never talks to a terminal. It cannot protect the hash or the
// attempt count from a process running as the same user outside the
// sandbox: such a process can replace both files. The sandbox hides guard's
// config and state dirs from guarded commands; that is where the protection
// comes from.
//
// This package is the only importer of golang.org/x/crypto.
package pin
