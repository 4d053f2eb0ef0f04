package policy

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/guard-sh/guard/profile"
)

// GrantPrefix starts the id of every rule `guard approve --grant` writes.
const GrantPrefix = "grant-"

// Grant is a standing allowance the user gives from `guard approve ID
// --grant DURATION`: an allow rule, limited to one workspace and until
// Expires, written to the user's policy. Its examples (the approved
// command) are checked whenever the policy loads in that workspace.
type Grant struct {
	ID          string // GrantPrefix + the approval's id
	Description string
	Workspace   string
	Expires     time.Time
	// The match: the exact text (Regex, anchored) and the caps it
	// covers, or a command pattern, or caps, with Paths keeping it to the
	// workspace.
	Regex    string
	Command  string
	Paths    []string
	Caps     []profile.Cap
	Examples []string
}

// grantTOML is a Grant as written: the keys of ruleTOML, in the order a
// reader expects.
type grantTOML struct {
	ID          string    `toml:"id"`
	Description string    `toml:"description"`
	Workspace   string    `toml:"workspace"`
	Expires     time.Time `toml:"expires"`
	Command     string    `toml:"command,omitempty"`
	Regex       string    `toml:"regex,omitempty"`
	Paths       []string  `toml:"paths,omitempty"`
	Caps        []string  `toml:"caps,omitempty"`
	Allow       bool      `toml:"allow"`
	Examples    []string  `toml:"examples"`
}

// AppendGrant returns data, a user policy file, with g appended as a
// [[rules]] table (written by go-toml; the rest of the file is kept byte
// for byte). The result must parse as a user policy, or it is an error and
// nothing should be written.
func AppendGrant(file string, data []byte, g Grant) ([]byte, error) {
	if !strings.HasPrefix(g.ID, GrantPrefix) || g.Workspace == "" || g.Expires.IsZero() || len(g.Examples) == 0 {
		return nil, fmt.Errorf("grant %q: a grant needs its id, workspace, expiry and example", g.ID)
	}
	gt := grantTOML{
		ID: g.ID, Description: g.Description, Workspace: g.Workspace, Expires: g.Expires.UTC().Truncate(time.Second),
		Command: g.Command, Regex: g.Regex, Paths: g.Paths, Allow: true, Examples: g.Examples,
	}
	for _, c := range g.Caps {
		gt.Caps = append(gt.Caps, string(c))
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.SetArraysMultiline(false)
	if err := enc.Encode(struct {
		Rules []grantTOML `toml:"rules"`
	}{[]grantTOML{gt}}); err != nil {
		return nil, fmt.Errorf("encode grant %s: %w", g.ID, err)
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, buf.Bytes()...)
	if _, err := Parse(file, out, User); err != nil {
		return nil, err
	}
	return out, nil
}

// RemoveRule returns data without the [[rules]] table of rule id (from
// its header to the next rule's, or the end). found is false when no such
// rule exists.
func RemoveRule(file string, data []byte, id string) (out []byte, found bool, err error) {
	f, err := Parse(file, data, User)
	if err != nil {
		return nil, false, err
	}
	start, end := -1, -1
	for i, r := range f.Rules {
		if r.ID != id {
			continue
		}
		start = r.Origin.Line
		if i+1 < len(f.Rules) {
			end = f.Rules[i+1].Origin.Line
		}
	}
	if start < 0 {
		return data, false, nil
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if end < 0 {
		end = len(lines) + 1
	}
	var b bytes.Buffer
	for i, l := range lines {
		if n := i + 1; n < start || n >= end {
			b.Write(l)
		}
	}
	out = bytes.TrimRight(b.Bytes(), "\n")
	if len(out) > 0 {
		out = append(out, '\n')
	}
	if _, err := Parse(file, out, User); err != nil {
		return nil, true, err
	}
	return out, true, nil
}
