package scan

import (
	"encoding/json"
	"fmt"
	"github.com/guard-sh/guard/internal/printable"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/review"
)

// Formats are the output formats Write knows.
var Formats = []string{"text", "json", "sarif", "github"}

// Tool names the program in SARIF output. DocsURI, when set, is the base
// of the rules' helpUri: the topic's page name is appended ("ci.md").
type Tool struct {
	Name, Version, InformationURI, DocsURI string
}

// WriteOptions say what to report.
type WriteOptions struct {
	// Report is the lowest level reported (B by default: A is noise).
	// Findings that exceed Max are reported whatever their level.
	Report review.Level
	// Max is the threshold: a finding above it, not suppressed, fails.
	Max  review.Level
	Tool Tool
}

func (o WriteOptions) withDefaults() WriteOptions {
	if o.Report == 0 {
		o.Report = review.B
	}
	if o.Max == 0 {
		o.Max = review.B
	}
	if o.Tool.Name == "" {
		o.Tool.Name = "guard"
	}
	return o
}

// reported returns the findings o asks to report.
func (o WriteOptions) reported(r *Report) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Level >= o.Report || f.Suppressed == nil && f.Level > o.Max {
			out = append(out, f)
		}
	}
	return out
}

// Write renders the report in one of Formats.
func Write(w io.Writer, r *Report, format string, o WriteOptions) error {
	o = o.withDefaults()
	switch format {
	case "text":
		return writeText(w, r, o)
	case "json":
		return writeJSON(w, r, o)
	case "sarif":
		return writeSARIF(w, r, o)
	case "github":
		return writeGitHub(w, r, o)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// writeText writes `path:line:col: C rule-id: message` per finding, and
// the verdict's explanation, indented, after the last finding of each
// command. Suppressed and baselined findings are left out.
func writeText(w io.Writer, r *Report, o WriteOptions) error {
	var fs []Finding
	for _, f := range o.reported(r) {
		if f.counts() {
			fs = append(fs, f)
		}
	}
	var b strings.Builder
	for i, f := range fs {
		fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", TextSafe(f.Path), f.Line, f.Col, f.Level, f.Rule, TextSafe(f.Message))
		last := i+1 == len(fs) || fs[i+1].Path != f.Path || fs[i+1].snippet != f.snippet
		if last && f.Explanation != "" {
			for _, l := range strings.Split(strings.TrimRight(f.Explanation, "\n"), "\n") {
				if l == "" {
					b.WriteString("\n")
				} else {
					b.WriteString("    " + TextSafe(l) + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TextSafe is s as one line of text output that a terminal or a CI log
// shows as it is: control characters (a newline, an escape sequence) in
// a path or a command word become \n, \xNN or \uNNNN, and a line that
// would begin a GitHub Actions workflow command ("::stop-commands::…",
// "::error::…", after blanks) has its first colon written \x3a. A file's
// text must not rewrite the screen of the person reading the findings,
// or give orders to the runner printing them.
func TextSafe(s string) string { return printable.String(s, false) }

// JSONVersion is the version of the schema of scan's JSON output
// (docs/json.md). It changes only when a field changes meaning or goes
// away; new fields may appear within a version.
const JSONVersion = 1

type jsonReport struct {
	Version  int        `json:"version"`
	Findings []Finding  `json:"findings"`
	Problems []Problem  `json:"problems"`
	Summary  jsonCounts `json:"summary"`
}

type jsonCounts struct {
	Files      int          `json:"files"`
	Commands   int          `json:"commands"`
	Reported   int          `json:"reported"`
	Suppressed int          `json:"suppressed"`
	Baselined  int          `json:"baselined"`
	Exceeding  int          `json:"exceeding"`
	MaxLevel   review.Level `json:"max_level"`
	Passed     bool         `json:"passed"`
}

func writeJSON(w io.Writer, r *Report, o WriteOptions) error {
	fs := o.reported(r)
	out := jsonReport{Version: JSONVersion, Findings: fs, Problems: r.Problems}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if out.Problems == nil {
		out.Problems = []Problem{}
	}
	exceeding := len(r.Exceeding(o.Max))
	out.Summary = jsonCounts{Files: r.Files, Commands: r.Commands, Reported: len(fs),
		Exceeding: exceeding, MaxLevel: o.Max, Passed: exceeding == 0 && len(r.Problems) == 0}
	for _, f := range fs {
		if f.Suppressed != nil {
			out.Summary.Suppressed++
		}
		if f.Baselined {
			out.Summary.Baselined++
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// writeGitHub writes GitHub Actions workflow commands, one annotation per
// finding that is not suppressed.
func writeGitHub(w io.Writer, r *Report, o WriteOptions) error {
	var b strings.Builder
	for _, f := range o.reported(r) {
		if !f.counts() {
			continue
		}
		cmd := "warning"
		switch {
		case f.Level >= review.C:
			cmd = "error"
		case f.Level <= review.A:
			cmd = "notice"
		}
		msg := f.Message
		if f.Explanation != "" {
			msg += "\n\n" + strings.TrimRight(f.Explanation, "\n")
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
			ghProperty(f.Path), f.Line, f.Col, ghProperty(fmt.Sprintf("guard %s %s", f.Level, f.Rule)), ghData(msg))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "::error file=%s,line=%d,col=%d,title=%s::%s\n",
			ghProperty(p.Path), p.Line, p.Col, ghProperty("guard allowance"), ghData(p.Msg+"\n"+p.Hint))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIFSchema is the schema SARIF output names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	ColumnKind  string            `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name,omitempty"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	FullDescription      sarifMessage       `json:"fullDescription"`
	Help                 sarifHelp          `json:"help"`
	HelpURI              string             `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags"`
	// SecuritySeverity is GitHub code scanning's 0–10 score; set for
	// rules reported at C.
	SecuritySeverity string `json:"security-severity,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	BaselineState       string             `json:"baselineState,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
}

// sarifFingerprintKey names guard's fingerprint in partialFingerprints.
const sarifFingerprintKey = "guardFindingHash/v1"

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

// sarifLevel maps review levels to SARIF's: C (and deny) is an error, B a
// warning, A a note.
func sarifLevel(l review.Level) string {
	switch {
	case l >= review.C:
		return "error"
	case l == review.B:
		return "warning"
	}
	return "note"
}

// securitySeverity is GitHub code scanning's 0–10 score: 8.0 (high)
// for C, none below.
func securitySeverity(l review.Level) string {
	if l >= review.C {
		return "8.0"
	}
	return ""
}

// sarifRuleOf describes a rule from the rule table (Describe), never from
// a finding: GitHub shows the same text for every alert of the rule.
func sarifRuleOf(id string, top review.Level, docs string) sarifRule {
	info := Describe(id)
	rule := sarifRule{
		ID:                   id,
		ShortDescription:     sarifMessage{Text: info.Short},
		FullDescription:      sarifMessage{Text: info.Full},
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(top)},
		Properties:           sarifRuleProps{Tags: info.Tags, SecuritySeverity: securitySeverity(top)},
	}
	if docs != "" && info.Topic != "" {
		rule.HelpURI = docs + info.Topic + ".md"
	}
	meaning := levelMeaning(top)
	allow := "# guard:allow " + id + " -- <why this is safe here>"
	var text, md strings.Builder
	text.WriteString(info.Full + "\n\n" + meaning + "\n")
	md.WriteString(info.Full + "\n\n" + meaning + "\n")
	if info.Fix != "" {
		text.WriteString("\nFix: " + info.Fix + "\n")
		md.WriteString("\n**Fix:** " + info.Fix + "\n")
	}
	text.WriteString("\nIf the command is safe here, say why in the code, on its line or the line above:\n    " + allow + "\n")
	md.WriteString("\nIf the command is safe here, say why in the code, on its line or the line above:\n\n```sh\n" + allow + "\n```\n")
	if info.Topic != "" {
		text.WriteString("\nMore: guard help " + info.Topic + "\n")
		md.WriteString("\nMore: `guard help " + info.Topic + "`\n")
	}
	rule.Help = sarifHelp{Text: text.String(), Markdown: md.String()}
	return rule
}

// levelMeaning says what a level means for a command in a repository.
func levelMeaning(l review.Level) string {
	head := strings.TrimSpace(review.Heading(l))
	switch {
	case l >= review.C:
		return head + " guard scan fails on it by default (--max-level B)."
	case l == review.B:
		return head + " guard scan reports it and passes by default; --max-level A fails on it."
	}
	return head + " guard scan reports it only with --report-level A."
}

func writeSARIF(w io.Writer, r *Report, o WriteOptions) error {
	fs := o.reported(r)
	// Rules, sorted by id, described by the rule table.
	index := map[string]int{}
	var ids []string
	top := map[string]review.Level{}
	for _, f := range fs {
		if _, ok := top[f.Rule]; !ok {
			ids = append(ids, f.Rule)
		}
		top[f.Rule] = review.Max(top[f.Rule], f.Level)
	}
	slices.Sort(ids)
	rules := make([]sarifRule, len(ids))
	for i, id := range ids {
		index[id] = i
		rules[i] = sarifRuleOf(id, top[id], o.Tool.DocsURI)
	}
	results := make([]sarifResult, 0, len(fs))
	for _, f := range fs {
		res := sarifResult{
			RuleID:              f.Rule,
			RuleIndex:           index[f.Rule],
			Level:               sarifLevel(f.Level),
			Message:             sarifMessage{Text: f.Message},
			Locations:           []sarifLocation{location(f.Path, f.Line, f.col16)},
			PartialFingerprints: map[string]string{sarifFingerprintKey: f.Fingerprint},
		}
		if r.Baseline {
			res.BaselineState = "new"
			if f.Baselined {
				res.BaselineState = "unchanged"
			}
		}
		if f.Suppressed != nil {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Status: "accepted",
				Justification: f.Suppressed.Reason + " (guard:allow at line " + strconv.Itoa(f.Suppressed.Line) + ")"}}
		}
		results = append(results, res)
	}
	inv := sarifInvocation{ExecutionSuccessful: len(r.Problems) == 0}
	for _, p := range r.Problems {
		inv.Notifications = append(inv.Notifications, sarifNotification{
			Level: "error", Message: sarifMessage{Text: p.Msg + "; " + p.Hint},
			Locations: []sarifLocation{location(p.Path, p.Line, p.Col)},
		})
	}
	log := sarifLog{
		Version: "2.1.0",
		Schema:  SARIFSchema,
		Runs: []sarifRun{{
			Tool:        sarifTool{Driver: sarifDriver{Name: o.Tool.Name, Version: o.Tool.Version, InformationURI: o.Tool.InformationURI, Rules: rules}},
			Invocations: []sarifInvocation{inv},
			Results:     results,
			ColumnKind:  "utf16CodeUnits",
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

func location(path string, line, col int) sarifLocation {
	if col < 1 {
		col = 1
	}
	return sarifLocation{PhysicalLocation: sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: sarifURI(path)},
		Region:           sarifRegion{StartLine: line, StartColumn: col},
	}}
}

// sarifURI writes a relative path as a URI reference: forward slashes,
// characters outside the unreserved set percent-encoded.
func sarifURI(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/!$&'()*+,;=@", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
