package pin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// testParams keep the tests fast; the format tests use DefaultParams.
var testParams = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// fakeClock is a settable clock; sleeps are recorded, not slept.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
}
func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// newStore is a Store in fresh dirs; each call with the same dirs is like
// a new guard process: no state is kept in memory.
func newStore(cfg, state string, c *fakeClock) *Store {
	return &Store{ConfigDir: cfg, StateDir: state, Now: c.Now, Sleep: c.Sleep, Params: testParams}
}

func dirs(t *testing.T) (cfg, state string) {
	root := t.TempDir()
	return filepath.Join(root, "config", "guard"), filepath.Join(root, "state", "guard")
}

func TestSetModesAndExists(t *testing.T) {
	cfg, state := dirs(t)
	if err := Set(cfg, "482916"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(cfg, HashFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("pin file mode = %#o, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode = %#o, want 0700", di.Mode().Perm())
	}
	b, _ := os.ReadFile(filepath.Join(cfg, HashFile))
	if p, err := ParseParams(string(b)); err != nil || p != DefaultParams {
		t.Errorf("stored hash params = %v, %v; want %v", p, err, DefaultParams)
	}
	if err := Set(cfg, "739154"); !errors.Is(err, ErrExists) {
		t.Errorf("second Set = %v, want ErrExists", err)
	}
	if err := Verify(cfg, state, "482916", time.Now); err != nil {
		t.Errorf("Verify after Set = %v", err)
	}
	entries, _ := os.ReadDir(cfg)
	if len(entries) != 1 {
		t.Errorf("config dir holds %d entries, want only the pin file", len(entries))
	}
	fi, err = os.Stat(filepath.Join(state, AttemptsFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("attempts file mode = %#o, want 0600", fi.Mode().Perm())
	}

	if err := os.Chmod(filepath.Join(cfg, HashFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Verify(cfg, state, "482916", time.Now); err == nil {
		t.Error("Verify accepted a PIN file readable by others")
	}
}

func TestSetRefusesWeak(t *testing.T) {
	cfg, _ := dirs(t)
	if err := Set(cfg, "123456"); !errors.Is(err, ErrWeak) {
		t.Errorf("Set(123456) = %v, want ErrWeak", err)
	}
	if _, err := os.Stat(filepath.Join(cfg, HashFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a weak PIN left a pin file behind: %v", err)
	}
}

func TestNoPIN(t *testing.T) {
	cfg, state := dirs(t)
	if err := Verify(cfg, state, "482916", time.Now); !errors.Is(err, ErrNoPIN) {
		t.Errorf("Verify without a PIN = %v, want ErrNoPIN", err)
	}
	info, err := Status(cfg, state, time.Now)
	if err != nil || info.Set {
		t.Errorf("Status without a PIN = %+v, %v", info, err)
	}
}

func TestLockout(t *testing.T) {
	cfg, state := dirs(t)
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if err := newStore(cfg, state, c).Set("482916"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		err := newStore(cfg, state, c).Verify("000001")
		var we *WrongError
		if !errors.As(err, &we) || we.Remaining != 5-i || !errors.Is(err, ErrWrong) {
			t.Fatalf("failure %d: %v, want WrongError{Remaining: %d}", i, err, 5-i)
		}
		c.Advance(time.Second)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; fmt.Sprint(c.sleeps) != fmt.Sprint(want) {
		t.Errorf("delays = %v, want %v", c.sleeps, want)
	}
	start := c.Now()
	err := newStore(cfg, state, c).Verify("000001")
	var le *LockedError
	if !errors.As(err, &le) || !le.Now || !le.Until.Equal(start.Add(10*time.Minute)) || !errors.Is(err, ErrLocked) {
		t.Fatalf("fifth failure: %v, want LockedError until %v", err, start.Add(10*time.Minute))
	}

	// Locked: even the right PIN is refused, by a new "process".
	c.Advance(10*time.Minute - time.Second)
	if err := newStore(cfg, state, c).Verify("482916"); !errors.As(err, &le) || le.Now {
		t.Fatalf("right PIN during lockout: %v, want LockedError", err)
	}
	info, err := Status(cfg, state, c.Now)
	if err != nil || !info.LockedUntil.Equal(start.Add(10*time.Minute)) || info.Failures != 5 {
		t.Fatalf("Status during lockout = %+v, %v", info, err)
	}

	// Expired: a fresh start, a full count of attempts.
	c.Advance(time.Second)
	if err := newStore(cfg, state, c).Verify("000001"); !errors.As(err, new(*WrongError)) || err.(*WrongError).Remaining != 4 {
		t.Fatalf("failure after lockout expiry: %v, want 4 attempts left", err)
	}
	if err := newStore(cfg, state, c).Verify("482916"); err != nil {
		t.Fatalf("right PIN after expiry: %v", err)
	}
	if info, err := Status(cfg, state, c.Now); err != nil || info.Failures != 0 || !info.LockedUntil.IsZero() {
		t.Fatalf("Status after success = %+v, %v; want cleared", info, err)
	}
}

func TestSuccessClearsFailures(t *testing.T) {
	cfg, state := dirs(t)
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := newStore(cfg, state, c)
	if err := s.Set("482916"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.Verify("000001"); !errors.Is(err, ErrWrong) {
			t.Fatal(err)
		}
	}
	if err := s.Verify("482916"); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.Verify("000001"); !errors.Is(err, ErrWrong) {
			t.Fatalf("failure %d after a success: %v; the count was not cleared", i+1, err)
		}
	}
}

func TestChange(t *testing.T) {
	cfg, state := dirs(t)
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := newStore(cfg, state, c)
	if err := s.Set("482916"); err != nil {
		t.Fatal(err)
	}
	if err := s.Change("000001", "739154"); !errors.Is(err, ErrWrong) {
		t.Fatalf("Change with a wrong old PIN = %v, want ErrWrong", err)
	}
	if err := s.Change("482916", "654321"); !errors.Is(err, ErrWeak) {
		t.Fatalf("Change to a weak PIN = %v, want ErrWeak", err)
	}
	if err := s.Change("482916", "739154"); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify("482916"); !errors.Is(err, ErrWrong) {
		t.Errorf("old PIN after Change = %v, want ErrWrong", err)
	}
	if err := s.Verify("739154"); err != nil {
		t.Errorf("new PIN after Change = %v", err)
	}
}

func TestVerifyUpgradesWeakHash(t *testing.T) {
	cfg, state := dirs(t)
	weak := &Store{ConfigDir: cfg, StateDir: state, Now: time.Now, Params: testParams}
	if err := weak.Set("482916"); err != nil {
		t.Fatal(err)
	}
	high := Params{Memory: 32 * 1024, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32}
	s := &Store{ConfigDir: cfg, StateDir: state, Now: time.Now, Params: high}
	if err := s.Verify("482916"); err != nil {
		t.Fatal(err)
	}
	info, err := s.Status()
	if err != nil || info.Params != high {
		t.Fatalf("params after Verify = %v, %v; want upgraded to %v", info.Params, err, high)
	}
	// A stronger stored hash is never lowered by a Store with weaker params.
	if err := weak.Verify("482916"); err != nil {
		t.Fatal(err)
	}
	if info, _ := weak.Status(); info.Params != high {
		t.Errorf("params after Verify with weaker defaults = %v, want still %v", info.Params, high)
	}
}

func TestDamagedAttemptsFailClosed(t *testing.T) {
	cfg, state := dirs(t)
	s := newStore(cfg, state, &fakeClock{t: time.Unix(1_800_000_000, 0)})
	if err := s.Set("482916"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, AttemptsFile), []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify("482916"); err == nil {
		t.Error("Verify succeeded with a damaged attempts file")
	}
	// A crash between the write and the truncation leaves the new line
	// first: that line is what counts.
	if err := os.WriteFile(filepath.Join(state, AttemptsFile), []byte(`{"failures":3}`+"\n"+`{"failures":0,"tail":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if info, err := s.Status(); err != nil || info.Failures != 3 {
		t.Errorf("Status with a stale tail = %+v, %v; want 3 failures", info, err)
	}
}

func TestConcurrentFailuresCountedExactly(t *testing.T) {
	cfg, state := dirs(t)
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	lim := Limits{MaxFailures: 1000, Lockout: time.Minute, Delays: []time.Duration{0}}
	if err := newStore(cfg, state, c).Set("482916"); err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 3
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				s := newStore(cfg, state, c) // its own file descriptor and flock
				s.Limits = lim
				if err := s.Verify("000001"); !errors.Is(err, ErrWrong) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	info, err := Status(cfg, state, c.Now)
	if err != nil {
		t.Fatal(err)
	}
	if info.Failures != workers*each {
		t.Errorf("failures = %d, want %d", info.Failures, workers*each)
	}
}

func TestConcurrentLockoutAllowsExactlyFive(t *testing.T) {
	cfg, state := dirs(t)
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	if err := newStore(cfg, state, c).Set("482916"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var wrong, lockedNow, lockedBefore int
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			err := newStore(cfg, state, c).Verify("000001")
			mu.Lock()
			defer mu.Unlock()
			var le *LockedError
			switch {
			case errors.Is(err, ErrWrong):
				wrong++
			case errors.As(err, &le) && le.Now:
				lockedNow++
			case errors.As(err, &le):
				lockedBefore++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wrong != 4 || lockedNow != 1 || lockedBefore != 7 {
		t.Errorf("12 concurrent wrong PINs: %d wrong, %d locking, %d refused; want 4, 1, 7", wrong, lockedNow, lockedBefore)
	}
}

// TestConcurrentProcesses runs Verify in separate processes (this test
// binary re-executed) so the flock is exercised across processes.
func TestConcurrentProcesses(t *testing.T) {
	cfg, state := dirs(t)
	if err := (&Store{ConfigDir: cfg, Params: testParams}).Set("482916"); err != nil {
		t.Fatal(err)
	}
	const procs, each = 4, 5
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "PIN_TEST_HELPER=verify", "PIN_TEST_CFG="+cfg, "PIN_TEST_STATE="+state, "PIN_TEST_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("helper: %v: %s", err, out)
			}
		})
	}
	wg.Wait()
	info, err := Status(cfg, state, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if info.Failures != procs*each {
		t.Errorf("failures = %d, want %d", info.Failures, procs*each)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("PIN_TEST_HELPER") == "verify" {
		n, _ := strconv.Atoi(os.Getenv("PIN_TEST_N"))
		s := &Store{ConfigDir: os.Getenv("PIN_TEST_CFG"), StateDir: os.Getenv("PIN_TEST_STATE"), Now: time.Now,
			Sleep: func(time.Duration) {}, Params: testParams, Limits: Limits{MaxFailures: 1000, Lockout: time.Minute}}
		for range n {
			if err := s.Verify("000001"); !errors.Is(err, ErrWrong) {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
