package pin

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestMatchKnownAnswers: Match gives x/crypto's own argon2id answers
// (its argon2_test.go's vectors: password "password", salt "somesalt",
// 64 KiB, one thread) for hashes in guard's encoding, and a wrong
// password does not match (perf17's, kept when its copy of x/crypto was
// reverted: it holds for any argon2 guard links).
func TestMatchKnownAnswers(t *testing.T) {
	for _, v := range []struct {
		time uint32
		hash string
	}{
		{1, "655ad15eac652dc59f7170a7332bf49b8469be1fdb9c28bb"},
		{2, "068d62b26455936aa6ebe60060b0a65870dbfa3ddf8d41f7"},
	} {
		key, err := hex.DecodeString(v.hash)
		if err != nil {
			t.Fatal(err)
		}
		enc := fmt.Sprintf("$argon2id$v=19$m=64,t=%d,p=1$%s$%s", v.time, b64.EncodeToString([]byte("somesalt")), b64.EncodeToString(key))
		if ok, err := Match(enc, "password"); !ok || err != nil {
			t.Errorf("Match(%q, password) = %v, %v; want true", enc, ok, err)
		}
		if ok, err := Match(enc, "passwore"); ok || err != nil {
			t.Errorf("Match(%q, passwore) = %v, %v; want false", enc, ok, err)
		}
	}
}

func TestHashFormat(t *testing.T) {
	enc, err := Hash("482916", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	// 16-byte salt and 32-byte hash in unpadded standard base64.
	re := regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	if !re.MatchString(enc) {
		t.Fatalf("hash %q does not match %s", enc, re)
	}
	p, err := ParseParams(enc)
	if err != nil {
		t.Fatal(err)
	}
	if p != DefaultParams {
		t.Errorf("params read back = %+v, want %+v", p, DefaultParams)
	}
	if DefaultParams.Memory < 19*1024 || DefaultParams.Time < 2 || DefaultParams.Threads < 1 {
		t.Errorf("DefaultParams %v are below OWASP's argon2id minimum", DefaultParams)
	}
	again, err := Hash("482916", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if again == enc {
		t.Error("two hashes of the same PIN are equal: the salt is not random")
	}
	for pin, want := range map[string]bool{"482916": true, "482917": false, "": false, "482916 ": false} {
		got, err := Match(enc, pin)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Match(%q) = %v, want %v", pin, got, want)
		}
	}
}

func TestHigherParamsStillMatch(t *testing.T) {
	high := Params{Memory: 32 * 1024, Time: 3, Threads: 2, SaltLen: 32, KeyLen: 64}
	enc, err := Hash("482916", high)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(enc, "$m=32768,t=3,p=2$") {
		t.Fatalf("hash %q does not carry its parameters", enc)
	}
	p, err := ParseParams(enc)
	if err != nil {
		t.Fatal(err)
	}
	if p != high {
		t.Errorf("params read back = %+v, want %+v", p, high)
	}
	if ok, err := Match(enc, "482916"); !ok || err != nil {
		t.Errorf("Match with higher params = %v, %v; want true, nil", ok, err)
	}
}

func TestMatchComparesInConstantTime(t *testing.T) {
	calls := 0
	orig := compare
	compare = func(x, y []byte) int { calls++; return orig(x, y) }
	defer func() { compare = orig }()
	enc, err := Hash("482916", testParams)
	if err != nil {
		t.Fatal(err)
	}
	for _, pin := range []string{"482916", "000001"} {
		if _, err := Match(enc, pin); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("constant-time compare called %d times for 2 matches, want 2", calls)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43)
	if _, err := ParseParams(good); err != nil {
		t.Fatalf("control %q: %v", good, err)
	}
	for _, enc := range []string{
		"",
		"482916",
		"$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=16$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$t=2,m=19456,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=2$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=0,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=2,p=0$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=2,p=1$c2Fs$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$AAAA",
		"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("*", 43),
		"$argon2id$v=19$m=x,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
	} {
		if _, err := ParseParams(enc); !errors.Is(err, ErrFormat) {
			t.Errorf("ParseParams(%q) = %v, want ErrFormat", enc, err)
		}
		if _, err := Match(enc, "482916"); !errors.Is(err, ErrFormat) {
			t.Errorf("Match(%q) = %v, want ErrFormat", enc, err)
		}
	}
}

// BenchmarkVerify measures one argon2id verification with DefaultParams:
// the latency a user waits after typing the PIN.
func BenchmarkVerify(b *testing.B) {
	enc, err := Hash("482916", DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ok, err := Match(enc, "482916"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
