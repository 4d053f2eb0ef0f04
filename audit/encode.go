package audit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/guard-sh/guard/review"
)

// encode renders r as one NDJSON line, newline included: the bytes
// encoding/json writes for a Record with HTML left as it is (commands are
// full of & and >). It writes them without encoding/json's reflection,
// which builds the type's encoder on the first record of every guard
// process (every decision): BenchmarkFirstEncode, a fresh process per
// op, measured 0.133 ms for encoding/json's first record against
// 0.035 ms for encode's (medians of 40, on the development machine).
// TestEncodeMatchesJSON and
// FuzzEncode hold the two byte-identical; a record this encoder does not
// render the same way (a time outside years 0–9999, which encoding/json
// refuses) goes through encoding/json.
func encode(r Record) ([]byte, error) {
	t, err := r.Time.MarshalJSON()
	if err != nil {
		return encodeJSON(r)
	}
	b := make([]byte, 0, 256+len(r.Command)+len(r.Note))
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(r.V), 10)
	b = append(b, `,"time":`...)
	b = append(b, t...)
	b = optString(b, "id", r.ID)
	b = optString(b, "session", r.Session)
	b = optString(b, "provenance", r.Provenance)
	b = optString(b, "cwd", r.Cwd)
	b = optString(b, "workspace", r.Workspace)
	b = field(b, "command")
	b = appendString(b, r.Command)
	if r.Level != 0 {
		b = field(b, "level")
		b = appendString(b, r.Level.String())
	}
	if len(r.Rules) > 0 {
		b = field(b, "rules")
		b = appendStrings(b, r.Rules)
	}
	b = field(b, "decision")
	b = appendString(b, string(r.Decision))
	if r.Sandbox != nil {
		b = field(b, "sandbox")
		b = appendSandbox(b, r.Sandbox)
	}
	b = optString(b, "hide_set", r.HideSet)
	b = optString(b, "protect_set", r.ProtectSet)
	if r.Exit != nil {
		b = field(b, "exit")
		b = strconv.AppendInt(b, int64(*r.Exit), 10)
	}
	if r.Duration != 0 {
		b = field(b, "duration_ns")
		b = strconv.AppendInt(b, int64(r.Duration), 10)
	}
	if len(r.Violations) > 0 {
		b = field(b, "violations")
		b = appendStrings(b, r.Violations)
	}
	b = optString(b, "note", r.Note)
	b = field(b, "prev")
	b = appendString(b, r.Prev)
	return append(b, "}\n"...), nil
}

// encodeJSON is encode through encoding/json.
func encodeJSON(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func appendSandbox(b []byte, s *review.Sandbox) []byte {
	b = append(b, `{"write":`...)
	b = strconv.AppendBool(b, s.Write)
	if len(s.ExtraWrite) > 0 {
		b = field(b, "extra_write")
		b = appendStrings(b, s.ExtraWrite)
	}
	b = field(b, "net")
	b = strconv.AppendBool(b, s.Net)
	b = field(b, "hide")
	b = appendStrings(b, s.Hide)
	if len(s.Reveal) > 0 {
		b = field(b, "reveal")
		b = appendStrings(b, s.Reveal)
	}
	if s.Daemons {
		b = append(b, `,"daemons":true`...)
	}
	b = field(b, "protect")
	b = appendStrings(b, s.Protect)
	return append(b, '}')
}

// field starts a member after the first: ,"name":
func field(b []byte, name string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// optString is an omitempty string member.
func optString(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(field(b, name), v)
}

// appendStrings is a []string member's value: null when nil.
func appendStrings(b []byte, vs []string) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off:
// " and \ escaped, control characters as \b \f \n \r \t or \u00XX,
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
