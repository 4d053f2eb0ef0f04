package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/review"
)

// BaselineVersion is the version of the baseline file format.
const BaselineVersion = 1

// Baseline is a set of findings recorded earlier (guard scan
// --write-baseline) that a later scan does not count: CI fails only on
// findings that are not in it. Findings are matched by Fingerprint, which
// does not depend on line numbers, so moving code does not make an old
// finding new.
type Baseline struct {
	Version  int             `json:"version"`
	Findings []BaselineEntry `json:"findings"`

	set map[string]bool
}

// BaselineEntry is one recorded finding. Only Fingerprint is matched; the
// rest is there for people reading the file.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Message     string `json:"message"`
}

// NewBaseline records the findings of r that could fail a scan: B and
// above, not suppressed by an allowance (those are recorded in the code
// already).
func NewBaseline(r *Report) *Baseline {
	b := &Baseline{Version: BaselineVersion, Findings: []BaselineEntry{}}
	for _, f := range r.Findings {
		if f.Suppressed != nil || f.Level <= review.A {
			continue
		}
		b.Findings = append(b.Findings, BaselineEntry{Fingerprint: f.Fingerprint, Path: f.Path,
			Rule: f.Rule, Line: f.Line, Message: f.Message})
	}
	return b
}

// Write writes the baseline as indented JSON.
func (b *Baseline) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// ReadBaseline reads a baseline file's content.
func ReadBaseline(data []byte) (*Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline: version %d, want %d", b.Version, BaselineVersion)
	}
	b.set = map[string]bool{}
	for i, e := range b.Findings {
		if e.Fingerprint == "" {
			return nil, fmt.Errorf("baseline: finding %d has no fingerprint", i+1)
		}
		b.set[e.Fingerprint] = true
	}
	return &b, nil
}

// Apply marks the findings of r that b holds as Baselined; they are
// reported but do not count. It returns how many were marked.
func (b *Baseline) Apply(r *Report) int {
	r.Baseline = true
	n := 0
	for i := range r.Findings {
		if b.set[r.Findings[i].Fingerprint] {
			r.Findings[i].Baselined = true
			n++
		}
	}
	return n
}

// lineHash is the part of a fingerprint that does not depend on where the
// finding is: the file, the rule and the text of the finding's line with
// its white space collapsed.
func lineHash(path, rule string, line []byte) string {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(rule))
	h.Write([]byte{0})
	h.Write([]byte(strings.Join(strings.Fields(string(line)), " ")))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// logicalLine is the text of line n joined with the lines of the same
// command around it: lines continued by a trailing backslash, |, && or ||,
// or by a next line that starts with one of those. A finding in a command
// written over several lines ("curl URL \\" then "| sh") is then matched
// by the whole command: changing the URL makes it a new finding, not the
// recorded one.
// from is the command's first line.
func logicalLine(li *lineIndex, n int) (text []byte, from int) {
	last := len(li.starts)
	continues := func(ln int) bool { // line ln goes on at line ln+1
		if ln < 1 || ln >= last {
			return false
		}
		this := bytes.TrimSpace(trimCR(li.line(ln)))
		next := bytes.TrimSpace(trimCR(li.line(ln + 1)))
		for _, op := range []string{"\\", "|", "&&", "||"} {
			if bytes.HasSuffix(this, []byte(op)) {
				return true
			}
		}
		for _, op := range []string{"|", "&&", "||"} {
			if bytes.HasPrefix(next, []byte(op)) {
				return true
			}
		}
		return false
	}
	from, to := n, n
	for from > 1 && continues(from-1) {
		from--
	}
	for continues(to) {
		to++
	}
	for ln := from; ln <= to; ln++ {
		text = append(append(text, trimCR(li.line(ln))...), '\n')
	}
	return text, from
}

// fingerprint sets the Fingerprint of each finding (in report order):
// its lineHash and how many findings with the same hash came before it in
// the file, so two equal lines keep distinct fingerprints.
func fingerprint(fs []Finding) {
	seen := map[string]int{}
	for i := range fs {
		h := fs[i].lineHash
		fs[i].Fingerprint = h + ":" + strconv.Itoa(seen[h])
		seen[h]++
	}
}
