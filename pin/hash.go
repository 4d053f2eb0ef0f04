package pin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters, as written in the PHC string.
type Params struct {
	// Memory in KiB (the PHC "m").
	Memory uint32
	// Time is the number of passes (the PHC "t").
	Time uint32
	// Threads is the degree of parallelism (the PHC "p").
	Threads uint8
	// SaltLen and KeyLen are in bytes. They are not written as parameters;
	// they are the lengths of the salt and hash fields.
	SaltLen uint32
	KeyLen  uint32
}

// DefaultParams are OWASP's minimum for argon2id (19 MiB, 2 passes, 1
// thread) with a 16-byte salt and a 32-byte hash.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Limits on parameters read back from a stored hash, so a damaged file
// cannot make verification allocate without bound or spin for minutes.
const (
	maxMemory  = 1 << 20 // KiB: 1 GiB
	maxTime    = 64
	minSaltLen = 8
	maxSaltLen = 64
	minKeyLen  = 16
	maxKeyLen  = 64
)

// ErrFormat is returned for a stored hash that is not a valid argon2id PHC
// string with acceptable parameters.
var ErrFormat = errors.New("malformed argon2id hash")

var b64 = base64.RawStdEncoding

// compare is the comparison of the computed and the stored hash; a
// variable so a test can prove the constant-time path is the one taken.
var compare = subtle.ConstantTimeCompare

// Hash returns the PHC string for pin under p, with a fresh random salt.
func Hash(pin string, p Params) (string, error) {
	if err := p.check(); err != nil {
		return "", err
	}
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("read random salt: %w", err)
	}
	key := argon2.IDKey([]byte(pin), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Match reports whether pin hashes to the stored PHC string, using the
// parameters and salt written in it. The comparison is constant-time.
func Match(encoded, pin string) (bool, error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(pin), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return compare(got, want) == 1, nil
}

// ParseParams reads the parameters back from a PHC string.
func ParseParams(encoded string) (Params, error) {
	p, _, _, err := decode(encoded)
	return p, err
}

// decode splits "$argon2id$v=19$m=…,t=…,p=…$salt$hash".
func decode(encoded string) (p Params, salt, key []byte, err error) {
	fields := strings.Split(strings.TrimSpace(encoded), "$")
	if len(fields) != 6 || fields[0] != "" {
		return p, nil, nil, fmt.Errorf("%w: want 5 '$'-separated fields", ErrFormat)
	}
	if fields[1] != "argon2id" {
		return p, nil, nil, fmt.Errorf("%w: algorithm %q, want argon2id", ErrFormat, fields[1])
	}
	if fields[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, fmt.Errorf("%w: version %q, want v=%d", ErrFormat, fields[2], argon2.Version)
	}
	kv := strings.Split(fields[3], ",")
	if len(kv) != 3 {
		return p, nil, nil, fmt.Errorf("%w: parameters %q, want m=…,t=…,p=…", ErrFormat, fields[3])
	}
	var vals [3]uint64
	for i, name := range []string{"m", "t", "p"} {
		v, ok := strings.CutPrefix(kv[i], name+"=")
		if !ok {
			return p, nil, nil, fmt.Errorf("%w: parameter %q, want %s=…", ErrFormat, kv[i], name)
		}
		n, perr := strconv.ParseUint(v, 10, 32)
		if perr != nil {
			return p, nil, nil, fmt.Errorf("%w: parameter %q: not a number", ErrFormat, kv[i])
		}
		vals[i] = n
	}
	if vals[2] > 255 {
		return p, nil, nil, fmt.Errorf("%w: p=%d is out of range", ErrFormat, vals[2])
	}
	p.Memory, p.Time, p.Threads = uint32(vals[0]), uint32(vals[1]), uint8(vals[2])
	if salt, err = b64.DecodeString(fields[4]); err != nil {
		return p, nil, nil, fmt.Errorf("%w: salt: %v", ErrFormat, err)
	}
	if key, err = b64.DecodeString(fields[5]); err != nil {
		return p, nil, nil, fmt.Errorf("%w: hash: %v", ErrFormat, err)
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	if err := p.check(); err != nil {
		return p, nil, nil, err
	}
	return p, salt, key, nil
}

// check bounds the parameters: not below argon2's own minimum, not so high
// that a damaged file becomes a denial of service.
func (p Params) check() error {
	switch {
	case p.Threads < 1:
		return fmt.Errorf("%w: p=%d, want at least 1", ErrFormat, p.Threads)
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("%w: t=%d, want 1 to %d", ErrFormat, p.Time, maxTime)
	case p.Memory < 8*uint32(p.Threads) || p.Memory > maxMemory:
		return fmt.Errorf("%w: m=%d, want %d to %d KiB", ErrFormat, p.Memory, 8*uint32(p.Threads), maxMemory)
	case p.SaltLen < minSaltLen || p.SaltLen > maxSaltLen:
		return fmt.Errorf("%w: salt of %d bytes, want %d to %d", ErrFormat, p.SaltLen, minSaltLen, maxSaltLen)
	case p.KeyLen < minKeyLen || p.KeyLen > maxKeyLen:
		return fmt.Errorf("%w: hash of %d bytes, want %d to %d", ErrFormat, p.KeyLen, minKeyLen, maxKeyLen)
	}
	return nil
}

// weakerThan reports whether any cost of p is below q's, which means a
// stored hash should be redone with q at the next successful Verify.
func (p Params) weakerThan(q Params) bool {
	return p.Memory < q.Memory || p.Time < q.Time || p.Threads < q.Threads ||
		p.SaltLen < q.SaltLen || p.KeyLen < q.KeyLen
}

// String renders the parameters as in the PHC string: "m=19456,t=2,p=1".
func (p Params) String() string {
	return fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, p.Threads)
}
