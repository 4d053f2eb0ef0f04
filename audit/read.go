package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/guard-sh/guard/review"
)

// Filter selects records. The zero Filter selects all of them.
type Filter struct {
	// Since keeps records at or after this time.
	Since time.Time
	// Within keeps records no older than this, measured from the clock
	// when Read runs.
	Within time.Duration
	// Levels and Decisions keep records with one of these (any if empty).
	Levels    []review.Level
	Decisions []Decision
	// Session keeps records of this session (any if "").
	Session string
	// Last keeps only the last N matching records (all if 0).
	Last int
}

// clock is what Filter.Within is measured from; tests replace it.
var clock = time.Now

func (f Filter) match(r *Record, since time.Time) bool {
	return (since.IsZero() || !r.Time.Before(since)) &&
		(len(f.Levels) == 0 || slices.Contains(f.Levels, r.Level)) &&
		(len(f.Decisions) == 0 || slices.Contains(f.Decisions, r.Decision)) &&
		(f.Session == "" || r.Session == f.Session)
}

// Read returns the records in dir that f selects, oldest first, with Hash
// filled in. It does not check the chain (Verify does), but a line in the
// middle that is not a record is an error; a torn last line is skipped. A
// missing log has no records.
func Read(dir string, f Filter) ([]Record, error) {
	since := f.Since
	if f.Within > 0 {
		if w := clock().Add(-f.Within); w.After(since) {
			since = w
		}
	}
	unlock, err := readLock(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	files, err := logFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	var out []Record
	sets := newSetCache(dir)
	for fi, lf := range files {
		lastFile := fi == len(files)-1
		err := eachLine(filepath.Join(dir, lf.name), func(n int, line []byte, terminated, last bool) error {
			var r Record
			if err := json.Unmarshal(line, &r); err != nil || !terminated {
				if lastFile && last {
					return nil // torn by a crash: never acknowledged
				}
				return &ChainError{lf.name, n, false, "the line is not a valid record (edited?)"}
			}
			if !f.match(&r, since) {
				return nil
			}
			// A set file that is missing or edited leaves the lists out
			// and the names in: Verify is what reports it.
			_ = sets.expand(&r)
			r.Hash = lineHash(line)
			out = append(out, r)
			if f.Last > 0 && len(out) >= 2*f.Last {
				// Keep memory bounded on a long log.
				out = append(out[:0], out[len(out)-f.Last:]...)
			}
			return nil
		})
		if err != nil {
			var ce *ChainError
			if !errors.As(err, &ce) {
				err = fmt.Errorf("read audit log: %w", err)
			}
			return nil, err
		}
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	return out, nil
}

// Summary is what a person wants to know about a stretch of the log.
type Summary struct {
	// Records is how many records there are; Requests how many distinct
	// request ids (records without an id count one each).
	Records, Requests int
	// First and Last are the times of the first and last record.
	First, Last time.Time
	// Levels counts requests by level (the last level a request was
	// recorded with); requests never reviewed are not counted.
	Levels map[review.Level]int
	// Decisions counts records by decision.
	Decisions map[Decision]int
	// Ran are the records of commands that ran, oldest first; Failed
	// counts those with a non-zero exit.
	Ran    []Record
	Failed int
	// NotRun are refusals, time-outs and denials, and commands guard
	// could not start or find, oldest first.
	NotRun []Record
	// Pending are requests whose last record is pending, oldest first.
	Pending []Record
}

// Summarize counts rs (oldest first, as Read returns them).
func Summarize(rs []Record) Summary {
	s := Summary{
		Records:   len(rs),
		Levels:    map[review.Level]int{},
		Decisions: map[Decision]int{},
	}
	if len(rs) > 0 {
		s.First, s.Last = rs[0].Time, rs[len(rs)-1].Time
	}
	// The last record of each request decides its level and whether it
	// is still pending.
	lastOf := map[string]int{}
	for i, r := range rs {
		s.Decisions[r.Decision]++
		if r.ID != "" {
			lastOf[r.ID] = i
		}
	}
	levelOf := map[string]review.Level{}
	for i, r := range rs {
		key := r.ID
		if key == "" {
			key = fmt.Sprintf("#%d", i)
		}
		if _, seen := levelOf[key]; !seen {
			s.Requests++
			levelOf[key] = 0
		}
		if r.Level != 0 {
			levelOf[key] = r.Level
		}
		switch {
		case r.Decision == Ran:
			s.Ran = append(s.Ran, r)
			if r.Exit != nil && *r.Exit != 0 {
				s.Failed++
			}
		case r.Decision == Failed || r.Decision == NotFound || r.Decision.class() == classNotRun:
			s.NotRun = append(s.NotRun, r)
		case r.Decision == Pending && (r.ID == "" || lastOf[r.ID] == i):
			s.Pending = append(s.Pending, r)
		}
	}
	for _, l := range levelOf {
		if l != 0 {
			s.Levels[l]++
		}
	}
	return s
}
