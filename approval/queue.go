package approval

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/guard-sh/guard/internal/safefile"
	"github.com/guard-sh/guard/review"
)

// lockFile is the flock every state change holds.
const lockFile = ".lock"

// keepFinished is how long finished requests stay listed before Add
// removes them.
const keepFinished = 7 * 24 * time.Hour

// testHookConsume runs between Consume's read and write; tests widen the
// window with it to show the lock is what keeps consumers apart.
var testHookConsume = func() {}

// ValidID reports whether id has the form Add gives ids: 8 hex digits.
func ValidID(id string) bool {
	return len(id) == 8 && strings.Trim(id, "0123456789abcdef") == ""
}

// Add queues req as pending and returns its new id. The caller fills
// Created (from its clock), the Binding, Level (B or C) and the texts;
// Add sets ID and State, and Expires if zero. Add never replaces a file,
// so concurrent Adds never lose a request.
func Add(dir string, req Request) (string, error) {
	switch {
	case req.Created.IsZero():
		return "", errors.New("queue approval request: no creation time")
	case req.Command == "":
		return "", errors.New("queue approval request: no command")
	case req.Level != review.B && req.Level != review.C:
		return "", fmt.Errorf("queue approval request: level %v cannot be approved", req.Level)
	}
	if req.Expires.IsZero() {
		req.Expires = req.Created.Add(DefaultPendingTTL)
	}
	req.State, req.Decided, req.PIN, req.Used = Pending, time.Time{}, false, time.Time{}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create approvals dir: %w", err)
	}
	for range 16 {
		id, err := newID()
		if err != nil {
			return "", err
		}
		req.ID = id
		err = writeRequest(dir, req, func(tmp, dst string) error { return os.Link(tmp, dst) })
		if errors.Is(err, fs.ErrExist) {
			continue // an id collision: draw again
		}
		if err != nil {
			return "", err
		}
		prune(dir, req.Created.Add(-keepFinished))
		return id, nil
	}
	return "", errors.New("queue approval request: no free id after 16 tries")
}

// Get returns the request with that id, its State as stored (use StateAt
// for expiry).
func Get(dir, id string) (Request, error) {
	if !ValidID(id) {
		return Request{}, fmt.Errorf("%q is not an approval id (want 8 hex digits)", id)
	}
	r, err := readRequest(filepath.Join(dir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Request{}, fmt.Errorf("approval request %s: %w", id, ErrNotFound)
	}
	return r, err
}

// List returns every request in the queue, oldest first, each with State
// set to its state at now(). Files that cannot be read as requests are
// skipped: they can never be consumed either.
func List(dir string, now func() time.Time) ([]Request, error) {
	reqs, err := readAll(dir)
	if err != nil {
		return nil, err
	}
	t := now()
	for i := range reqs {
		reqs[i].State = reqs[i].StateAt(t)
	}
	return reqs, nil
}

// Approve marks a pending, unexpired request approved until now + TTL.
// A level C request needs g.PIN. Anything but a pending request gives a
// *StateError.
func Approve(dir, id string, g Grant, now func() time.Time) (Request, error) {
	return update(dir, id, now, func(r *Request, t time.Time) error {
		switch {
		case r.Level != review.B && r.Level != review.C:
			return fmt.Errorf("approval request %s: level %v cannot be approved", r.ID, r.Level)
		case r.Level == review.C && !g.PIN:
			return ErrNeedsPIN
		}
		ttl := g.TTL
		if ttl <= 0 {
			ttl = DefaultApprovalTTL
		}
		r.State, r.Decided, r.Expires, r.PIN = Approved, t, t.Add(ttl), g.PIN
		return nil
	})
}

// NewToken is a fresh secret for AddAsked: 128 random bits, hex.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("read random token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// hashToken is what the queue stores of a token.
func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// AddAsked queues req (level B only) as approved through agent's own
// prompt, bound to token as well as to its Binding: the hook that asked
// hands the agent a command carrying the token, which the agent runs only
// when its user says yes. The approval lasts as long as a pending request
// would (the user may answer the agent's prompt late); unused, it lapses.
func AddAsked(dir string, req Request, agent, token string) (Request, error) {
	switch {
	case req.Level != review.B:
		return req, fmt.Errorf("queue approval request: level %v cannot be approved in an agent's prompt", req.Level)
	case agent == "" || len(token) < 32:
		return req, errors.New("queue approval request: an agent's approval needs the agent and a token")
	}
	id, err := Add(dir, req)
	if err != nil {
		return req, err
	}
	return update(dir, id, func() time.Time { return req.Created }, func(r *Request, t time.Time) error {
		r.State, r.Decided, r.Asked, r.TokenHash = Approved, t, agent, hashToken(token)
		return nil
	})
}

// ConsumeAsked is Consume for an approval given in an agent's prompt: it
// honours, once, only an AddAsked approval bound to key and to token.
func ConsumeAsked(dir string, key Binding, token string, now func() time.Time) (Request, error) {
	if token == "" {
		return Request{}, ErrNotFound
	}
	reqs, unlock, err := lockedAll(dir)
	if err != nil {
		return Request{}, err
	}
	defer unlock()
	t, want := now(), hashToken(token)
	for i := range reqs {
		r := &reqs[i]
		if r.Binding != key || r.TokenHash == "" || subtle.ConstantTimeCompare([]byte(r.TokenHash), []byte(want)) != 1 {
			continue
		}
		if !r.Usable(t) {
			st := r.StateAt(t)
			return *r, &StateError{ID: r.ID, State: st}
		}
		r.State, r.Used = Consumed, t
		if err := writeRequest(dir, *r, os.Rename); err != nil {
			return Request{}, err
		}
		return *r, nil
	}
	return Request{}, ErrNotFound
}

// RevokePINApprovals withdraws every approval given with the PIN and not
// used yet, for when the PIN changes: whoever knew the old PIN gave them,
// and a user changes a PIN they think another knows. It returns the
// requests it revoked; on an error the ones before it stay revoked.
func RevokePINApprovals(dir string, now func() time.Time) ([]Request, error) {
	reqs, unlock, err := lockedAll(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t := now()
	var out []Request
	for _, r := range reqs {
		if !r.PIN || r.StateAt(t) != Approved {
			continue
		}
		r.State, r.Decided = Revoked, t
		if err := writeRequest(dir, r, os.Rename); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Revoke withdraws request id: an approval not used yet (approved,
// unexpired) or a request still pending. Anything else gives a
// *StateError.
func Revoke(dir, id string, now func() time.Time) (Request, error) {
	return updateFrom(dir, id, now, []State{Pending, Approved}, func(r *Request, t time.Time) error {
		r.State, r.Decided = Revoked, t
		return nil
	})
}

// Deny marks a pending, unexpired request denied.
func Deny(dir, id string, now func() time.Time) (Request, error) {
	return update(dir, id, now, func(r *Request, t time.Time) error {
		r.State, r.Decided = Denied, t
		return nil
	})
}

// Consume finds an approved, unexpired, unused request bound to exactly
// key, marks it consumed and returns it. Concurrent calls are serialised,
// so one approval is honoured once. Without such a request it returns an
// error: ErrNotFound when nothing was ever queued for key; otherwise a
// *StateError (ErrPending, ErrDenied, ErrExpired, ErrUsed) about the most
// recent request for key, which it returns too, so the caller can name it.
func Consume(dir string, key Binding, now func() time.Time) (Request, error) {
	reqs, unlock, err := lockedAll(dir)
	if err != nil {
		return Request{}, err
	}
	defer unlock()
	testHookConsume()
	t := now()
	var latest *Request
	for i := range reqs {
		r := &reqs[i]
		if r.Binding != key || r.TokenHash != "" {
			continue
		}
		if r.Usable(t) {
			r.State, r.Used = Consumed, t
			if err := writeRequest(dir, *r, os.Rename); err != nil {
				return Request{}, err
			}
			return *r, nil
		}
		if latest == nil || !r.Created.Before(latest.Created) {
			latest = r
		}
	}
	if latest == nil {
		return Request{}, ErrNotFound
	}
	st := latest.StateAt(t)
	if st == Approved { // a C approval without the PIN, or a bad level: never honoured
		st = Pending
	}
	latest.State = st
	return *latest, &StateError{ID: latest.ID, State: st}
}

// Find looks for requests bound to exactly key without changing any:
// approved is a usable approval's id (see Usable), pending a request still
// waiting for the user. Hooks use it; the guard run they hand the command
// to is the one that consumes the approval.
func Find(dir string, key Binding, now func() time.Time) (approved, pending string, err error) {
	reqs, err := List(dir, now)
	if err != nil {
		return "", "", err
	}
	t := now()
	for _, r := range reqs {
		if r.Binding != key || r.TokenHash != "" {
			continue
		}
		switch {
		case r.Usable(t):
			approved = r.ID
		case r.State == Pending:
			pending = r.ID
		}
	}
	return approved, pending, nil
}

// update applies change to a pending, unexpired request under the lock.
func update(dir, id string, now func() time.Time, change func(*Request, time.Time) error) (Request, error) {
	return updateFrom(dir, id, now, []State{Pending}, change)
}

// updateFrom applies change under the lock to a request whose state at
// now() is one of from.
func updateFrom(dir, id string, now func() time.Time, from []State, change func(*Request, time.Time) error) (Request, error) {
	if !ValidID(id) {
		return Request{}, fmt.Errorf("%q is not an approval id (want 8 hex digits)", id)
	}
	unlock, err := lock(dir)
	if err != nil {
		return Request{}, err
	}
	defer unlock()
	r, err := Get(dir, id)
	if err != nil {
		return Request{}, err
	}
	t := now()
	if st := r.StateAt(t); !slices.Contains(from, st) {
		r.State = st
		return r, &StateError{ID: id, State: st}
	}
	if err := change(&r, t); err != nil {
		return r, err
	}
	if err := writeRequest(dir, r, os.Rename); err != nil {
		return Request{}, err
	}
	return r, nil
}

func newID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("read random id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// lockedAll takes the lock and reads every request; the caller releases
// the lock with unlock.
func lockedAll(dir string) (reqs []Request, unlock func(), err error) {
	unlock, err = lock(dir)
	if err != nil {
		return nil, nil, err
	}
	if reqs, err = readAll(dir); err != nil {
		unlock()
		return nil, nil, err
	}
	return reqs, unlock, nil
}

// lock takes the queue's exclusive flock and returns its release.
func lock(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create approvals dir: %w", err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open approvals lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// writeRequest writes r to a temporary 0600 file and installs it as
// <id>.json with install: os.Link to create (fails if it exists),
// os.Rename to replace.
func writeRequest(dir string, r Request, install func(tmp, dst string) error) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode approval request: %w", err)
	}
	b = append(b, '\n')
	tmp, err := safefile.WriteTemp(dir, ".tmp-", b)
	if err != nil {
		return fmt.Errorf("write approval request: %w", err)
	}
	defer os.Remove(tmp)
	if err := install(tmp, filepath.Join(dir, r.ID+".json")); err != nil {
		return fmt.Errorf("install approval request %s: %w", r.ID, err)
	}
	return nil
}

// maxRequestFile bounds one request file: a command, an explanation and
// the profile's details.
const maxRequestFile = 8 << 20

func readRequest(path string) (Request, error) {
	var r Request
	b, err := safefile.Read(path, maxRequestFile)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read approval request %s: %w", filepath.Base(path), err)
	}
	if !ValidID(r.ID) || r.ID+".json" != filepath.Base(path) {
		return r, fmt.Errorf("read approval request %s: id %q does not match the file name", filepath.Base(path), r.ID)
	}
	return r, nil
}

// readAll reads every request file, skipping unreadable ones, sorted by
// creation time then id.
func readAll(dir string) ([]Request, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read approvals dir: %w", err)
	}
	var reqs []Request
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || !ValidID(strings.TrimSuffix(name, ".json")) {
			continue
		}
		r, err := readRequest(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		reqs = append(reqs, r)
	}
	sort.Slice(reqs, func(i, j int) bool {
		if !reqs[i].Created.Equal(reqs[j].Created) {
			return reqs[i].Created.Before(reqs[j].Created)
		}
		return reqs[i].ID < reqs[j].ID
	})
	return reqs, nil
}

// prune removes requests that finished before cutoff, and temporary files
// left by crashed writers. It is housekeeping: it skips if another guard
// holds the lock, and its errors do not matter.
func prune(dir string, cutoff time.Time) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".tmp-") {
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
				os.Remove(full)
			}
			continue
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		r, err := readRequest(full)
		if err != nil {
			continue
		}
		end := r.Expires
		for _, t := range []time.Time{r.Decided, r.Used} {
			if t.After(end) {
				end = t
			}
		}
		if end.Before(cutoff) {
			os.Remove(full)
		}
	}
}
