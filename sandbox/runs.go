package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Concurrent runs. An agent runs several commands at once, and every
// writing run snapshots the protected paths before its command and puts
// them back after it. A snapshot taken while another run's command is
// running may hold what that command planted (a git hook): when the
// other run's check has removed it, this run would find it "removed"
// and recreate it. So each writing run registers in Spec.Runs (a
// directory in guard's state, hidden from commands) for as long as it
// may change or restore protected paths, and its snapshot knows when the
// oldest run still registered began: an entry whose status changed
// since then may be another command's, and is never recreated from this
// snapshot (protect.go, restore).

// runSlack: a file's change time comes from the kernel's coarse clock;
// the cutoff is taken this much earlier, so a change made just after a
// run began never counts as older.
const runSlack = time.Second

// runPrefix names a published registration.
const runPrefix = "run-"

// registration is this run's entry in the registry: an exclusive lock
// on a file of its own, held until release.
type registration struct {
	f    *os.File
	path string
	dir  string
	// seq is the size of the registry's sequence file after this run
	// appended its byte: every registration appends one, so a larger
	// size later means a run registered since (and may have finished).
	seq int64
}

// seqName is the registry's sequence file.
const seqName = "seq"

// register enters a run in the registry dir and returns its
// registration and the cutoff: the time the oldest other live run
// registered, less runSlack (zero when no other run is live). A
// registry that cannot be used is an error: the caller fails closed.
func register(dir string) (*registration, time.Time, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, time.Time{}, err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	name := hex.EncodeToString(nonce[:])
	tmp := filepath.Join(dir, "new-"+name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, time.Time{}, err
	}
	// Locked before it is published under its name: another run that
	// finds it unlocked takes it for a stale one and removes it.
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, time.Time{}, err
	}
	path := filepath.Join(dir, runPrefix+name)
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, time.Time{}, err
	}
	reg := &registration{f: f, path: path, dir: dir}
	seq, err := os.OpenFile(filepath.Join(dir, seqName), os.O_CREATE|os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW, 0o600)
	if err == nil {
		_, err = seq.Write([]byte{'.'})
		if err == nil {
			var st os.FileInfo
			if st, err = seq.Stat(); err == nil {
				reg.seq = st.Size()
			}
		}
		seq.Close()
	}
	if err != nil {
		reg.release()
		return nil, time.Time{}, err
	}
	cutoff, err := liveSince(dir, f)
	if err != nil {
		reg.release()
		return nil, time.Time{}, err
	}
	return reg, cutoff, nil
}

// liveSince returns the time the oldest live run other than own
// registered, less runSlack, and removes the registrations of runs that
// are gone (their lock went with their process).
func liveSince(dir string, own *os.File) (time.Time, error) {
	var ownSt unix.Stat_t
	if err := unix.Fstat(int(own.Fd()), &ownSt); err != nil {
		return time.Time{}, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, err
	}
	var oldest time.Time
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), runPrefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // gone meanwhile
		}
		if err != nil {
			return time.Time{}, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Ino == ownSt.Ino && st.Dev == ownSt.Dev {
			unix.Close(fd)
			continue
		}
		err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
		if err == nil {
			// Stale: its run is gone without removing it.
			os.Remove(p)
			unix.Close(fd)
			continue
		}
		unix.Close(fd)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return time.Time{}, err
		}
		began := time.Unix(st.Ctim.Unix()).Add(-runSlack)
		if oldest.IsZero() || began.Before(oldest) {
			oldest = began
		}
	}
	return oldest, nil
}

// overlapped reports whether another run was registered at some time
// since this one registered: one is live now, or one registered since
// (the sequence file grew). Unsure is yes.
func (r *registration) overlapped() bool {
	if r == nil || r.f == nil {
		return false
	}
	st, err := os.Stat(filepath.Join(r.dir, seqName))
	if err != nil || st.Size() != r.seq {
		return true
	}
	live, err := liveSince(r.dir, r.f)
	return err != nil || !live.IsZero()
}

// release ends the registration; nil does nothing.
func (r *registration) release() {
	if r == nil || r.f == nil {
		return
	}
	os.Remove(r.path)
	r.f.Close()
	r.f = nil
}
