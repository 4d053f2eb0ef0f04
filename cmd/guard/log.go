package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/review"
	"github.com/spf13/cobra"
)

// exitLogBroken: `guard log verify` found a chain that does not hold (a
// torn last line or a break in the middle).
const exitLogBroken = 1

// logOptions are the flags of `guard log` and `guard log summary`.
type logOptions struct {
	last      int
	since     string
	levels    []string
	decisions []string
	session   string
	json      bool
}

func newLogCmd(s *streams) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log [flags]",
		Short: "Show the audit log of guard's decisions",
		Long: `Show the most recent records of the audit log: every decision guard made
(approved, refused, pending, denied) and every outcome (ran, with its exit
status). Secrets in commands are masked before they are written.

The log lives in $XDG_STATE_HOME/guard/audit.log (default
~/.local/state/guard/). Each record carries the hash of the one before it;
'guard log verify' checks that chain.`,
		Example: `  guard log
  guard log -n 100 --level B,C
  guard log --since 1h --decision refused,denied-policy
  guard log --json --since 2025-06-01 | jq .command`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runLog(s, opts) },
	}
	f := cmd.Flags()
	f.IntVarP(&opts.last, "last", "n", 20, "show the last `N` matching records (0: all)")
	addFilterFlags(cmd, opts)
	f.StringSliceVar(&opts.levels, "level", nil, "only records of these `levels` (A, B, C, deny)")
	f.StringSliceVar(&opts.decisions, "decision", nil, "only records with these `decisions` (ran, refused, pending, …)")
	f.BoolVar(&opts.json, "json", false, "print records as NDJSON")
	cmd.AddCommand(newLogVerifyCmd(s), newLogSummaryCmd(s), newLogPruneCmd(s))
	return cmd
}

func addFilterFlags(cmd *cobra.Command, opts *logOptions) {
	cmd.Flags().StringVar(&opts.since, "since", "", "only records since a `time` (RFC 3339 or 2006-01-02) or within a duration (1h, 7d)")
	cmd.Flags().StringVar(&opts.session, "session", "", "only records of this `session` (a hook's session id, or ppid:N)")
}

func newLogVerifyCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check the audit log's hash chain",
		Long: `Check that every record of the audit log carries the hash of the one before
it, across rotated files. Exit 0 when the chain holds; otherwise name the
first bad line, say whether it is a torn last line (guard crashed while
writing it) or a break in the middle (lines were edited, removed or
inserted), and exit 1.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runLogVerify(s) },
	}
}

func newLogPruneCmd(s *streams) *cobra.Command {
	keep := 0
	cmd := &cobra.Command{
		Use:   "prune --keep N",
		Short: "Remove the oldest rotated audit files, keeping the chain verifiable",
		Long: `Remove the oldest rotated audit files (audit.log.1, audit.log.2, …) so that
at most N remain; audit.log itself is never removed. Before each removal the
hash of the file's last record is kept in audit.anchor, so 'guard log verify'
still checks the records that remain. A rotated file removed any other way is
reported as a broken chain.`,
		Example: `  guard log prune --keep 4`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if keep < 0 {
				return usagef("use --keep 0 or more", "--keep must not be negative")
			}
			dir, err := auditDir()
			if err != nil {
				return err
			}
			l, err := openAudit(dir)
			if err != nil {
				return err
			}
			defer l.Close()
			removed, err := l.Prune(keep)
			for _, r := range removed {
				fmt.Fprintf(s.err, "guard: removed %s\n", r)
			}
			if err != nil {
				return failf(nil, "%v", err)
			}
			if len(removed) == 0 {
				fmt.Fprintln(s.err, "guard: nothing to prune")
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&keep, "keep", 4, "how many rotated files to keep")
	return cmd
}

func newLogSummaryCmd(s *streams) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "summary [flags]",
		Short: "Summarise the audit log",
		Long: `Summarise the audit log: how many requests at each level, what guard decided,
what ran, what was not run, and what is still waiting for approval.`,
		Example: `  guard log summary --since 1d`,
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return runLogSummary(s, opts) },
	}
	addFilterFlags(cmd, opts)
	return cmd
}

func runLog(s *streams, opts *logOptions) error {
	if opts.last < 0 {
		return usagef("use -n 0 for all records", "invalid -n %d", opts.last)
	}
	f, err := opts.filter()
	if err != nil {
		return err
	}
	f.Last = opts.last
	rs, err := readLog(f)
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		for _, r := range rs {
			if err := enc.Encode(logRecordJSON{Version: jsonVersion, Record: r}); err != nil {
				return failf(nil, "write records: %v", err)
			}
		}
		return nil
	}
	if len(rs) == 0 {
		fmt.Fprintln(s.out, "no records")
		return nil
	}
	for _, r := range rs {
		fmt.Fprintln(s.out, recordLine(r))
	}
	return nil
}

// logRecordJSON is one line of guard log --json: the audit record (whose
// "v" is the log file's record format) with the output's schema version
// (docs/json.md).
type logRecordJSON struct {
	Version int `json:"version"`
	audit.Record
}

func runLogVerify(s *streams) error {
	dir, err := auditDir()
	if err != nil {
		return err
	}
	rep, err := audit.Verify(dir)
	var ce *audit.ChainError
	switch {
	case errors.As(err, &ce):
		path := filepath.Join(dir, ce.File)
		hints := []string{
			fmt.Sprintf("line %d of %s, or what came after it, was edited, removed or inserted: do not trust the records from there on", ce.Line, path),
			"keep a copy of the log before guard writes to it again",
		}
		if ce.Torn {
			hints = []string{
				"guard stopped while writing this record, so it was never acknowledged; the records before it are intact",
				"the next record guard writes sets the torn line aside in " + filepath.Join(dir, "audit.torn") + " and continues the chain",
			}
		}
		return &exitError{code: exitLogBroken, err: fmt.Errorf("audit log: %w", ce), hints: hints}
	case err != nil:
		return failf(nil, "%v", err)
	}
	switch {
	case rep.Records == 0:
		fmt.Fprintln(s.out, "audit log intact: no records")
	default:
		files := "1 file"
		if n := len(rep.Files); n != 1 {
			files = fmt.Sprintf("%d files", n)
		}
		fmt.Fprintf(s.out, "audit log intact: %d records in %s\nhead: %s\n", rep.Records, files, rep.Head)
		if rep.Start != "" {
			fmt.Fprintf(s.out, "starts after removed files, at %s\n", rep.Start)
		}
	}
	return nil
}

func runLogSummary(s *streams, opts *logOptions) error {
	f, err := opts.filter()
	if err != nil {
		return err
	}
	rs, err := readLog(f)
	if err != nil {
		return err
	}
	writeSummary(s.out, audit.Summarize(rs))
	return nil
}

// filter turns the flags into an audit.Filter.
func (o *logOptions) filter() (audit.Filter, error) {
	f := audit.Filter{Session: o.session}
	if o.since != "" {
		since, within, err := parseSince(o.since)
		if err != nil {
			return f, usagef("use a duration like 90m, 1h or 7d, or a time like 2025-06-01 or 2025-06-01T10:00:00Z", "invalid --since %q", o.since)
		}
		f.Since, f.Within = since, within
	}
	for _, l := range o.levels {
		lvl, err := review.ParseLevel(l)
		if err != nil {
			return f, usagef("levels are A, B, C and deny", "invalid --level %q", l)
		}
		f.Levels = append(f.Levels, lvl)
	}
	for _, d := range o.decisions {
		dec, err := audit.ParseDecision(d)
		if err != nil {
			return f, usagef("decisions are "+decisionList(), "invalid --decision %q", d)
		}
		f.Decisions = append(f.Decisions, dec)
	}
	return f, nil
}

// parseSince reads a duration (1h, 7d) or a time (RFC 3339, or a date at
// local midnight).
func parseSince(s string) (since time.Time, within time.Duration, err error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return time.Time{}, time.Duration(n) * 24 * time.Hour, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return time.Time{}, d, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, 0, nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, time.Local)
	return t, 0, err
}

func decisionList() string {
	var names []string
	for _, d := range audit.Decisions() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}

func auditDir() (string, error) {
	d, err := guardDirs()
	if err != nil {
		return "", err
	}
	return d.State, nil
}

func readLog(f audit.Filter) ([]audit.Record, error) {
	dir, err := auditDir()
	if err != nil {
		return nil, err
	}
	rs, err := audit.Read(dir, f)
	if err != nil {
		return nil, failf([]string{"run 'guard log verify' to check the log"}, "audit log: %v", err)
	}
	return rs, nil
}

// recordLine is one record for people: time, level, decision, command, and
// how it ended.
func recordLine(r audit.Record) string {
	line := fmt.Sprintf("%s  %-4s  %-14s  %s", when(r.Time), levelOf(r), r.Decision, commandLine(r.Command))
	if r.Exit != nil {
		line += fmt.Sprintf("  (exit %d, %s)", *r.Exit, r.Duration.Round(time.Millisecond))
	}
	return line
}

func writeSummary(w io.Writer, s audit.Summary) {
	if s.Records == 0 {
		fmt.Fprintln(w, "audit log: no records")
		return
	}
	fmt.Fprintf(w, "audit log: %d records, %d requests, %s to %s (%s)\n",
		s.Records, s.Requests, when(s.First), when(s.Last), s.Last.Sub(s.First).Round(time.Second))
	var levels []string
	for _, l := range []review.Level{review.A, review.B, review.C, review.Deny} {
		if n := s.Levels[l]; n > 0 {
			levels = append(levels, fmt.Sprintf("%s %d", l, n))
		}
	}
	if len(levels) > 0 {
		fmt.Fprintf(w, "levels:     %s\n", strings.Join(levels, ", "))
	}
	var decisions []string
	for _, d := range audit.Decisions() {
		if n := s.Decisions[d]; n > 0 {
			decisions = append(decisions, fmt.Sprintf("%s %d", d, n))
		}
	}
	fmt.Fprintf(w, "decisions:  %s\n", strings.Join(decisions, ", "))

	ran := fmt.Sprintf("%d", len(s.Ran))
	if s.Failed > 0 {
		ran += fmt.Sprintf(" (%d with a non-zero exit)", s.Failed)
	}
	summaryList(w, "ran", ran, s.Ran)
	summaryList(w, "not run", fmt.Sprint(len(s.NotRun)), s.NotRun)
	summaryList(w, "pending", fmt.Sprint(len(s.Pending)), s.Pending)
}

// summaryShown is how many records each list of a summary shows.
const summaryShown = 5

// summaryList prints a heading and the most recent records under it.
func summaryList(w io.Writer, title, count string, rs []audit.Record) {
	fmt.Fprintf(w, "%-11s %s\n", title+":", count)
	if n := len(rs) - summaryShown; n > 0 {
		fmt.Fprintf(w, "  … %d earlier\n", n)
		rs = rs[n:]
	}
	for _, r := range rs {
		fmt.Fprintf(w, "  %s\n", recordLine(r))
	}
}

func when(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

func levelOf(r audit.Record) string {
	if r.Level == 0 {
		return "-"
	}
	return r.Level.String()
}

// maxCommandWidth is how much of a command a line shows.
const maxCommandWidth = 100

// commandLine is a command as one line a terminal shows safely: masked
// again (in case an older guard wrote it), control characters escaped,
// only the first line, and cut at maxCommandWidth characters.
func commandLine(cmd string) string {
	cmd = strings.TrimRight(audit.Mask(cmd), "\n")
	first, rest, multi := strings.Cut(cmd, "\n")
	var b strings.Builder
	n := 0
	for _, r := range first {
		if n == maxCommandWidth {
			b.WriteString("…")
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteString("\\ufffd")
		case r == '\t':
			b.WriteString(" ")
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		n++
	}
	if multi {
		if more := strings.Count(rest, "\n") + 1; more == 1 {
			b.WriteString(" […1 more line]")
		} else {
			fmt.Fprintf(&b, " […%d more lines]", more)
		}
	}
	return b.String()
}
