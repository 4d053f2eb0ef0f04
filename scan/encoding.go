package scan

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Byte order marks.
var (
	bomUTF8    = []byte("\xef\xbb\xbf")
	bomUTF16LE = []byte("\xff\xfe")
	bomUTF16BE = []byte("\xfe\xff")
	bomUTF32LE = []byte("\xff\xfe\x00\x00")
	bomUTF32BE = []byte("\x00\x00\xfe\xff")
)

// bomTolerantExts are the formats whose readers here refuse a UTF-8 byte
// order mark that the tools reading them skip (npm, VS Code and Composer
// strip it from their JSON; TOML allows it).
var bomTolerantExts = []string{".json", ".jsonc", ".json5", ".toml"}

// textOf is a file's text as the readers here take it, UTF-8: a UTF-16
// file (with its byte order mark) is decoded, so what a tool that
// decodes it runs is reviewed, not skipped as text with NUL bytes (a
// UTF-16 Makefile gave no snippet and no finding); a UTF-8 mark before
// JSON or TOML becomes blanks (same offsets), as those tools skip it.
// msg is set when the file cannot be read as text: a UTF-32 or broken
// UTF-16 encoding, or a NUL byte, which tools read in different ways
// (C stops there, others read on). Every such file is a finding, never
// nothing. nulOK: the kind's reader reports NUL bytes itself.
func textOf(name string, src []byte, nulOK bool) (out []byte, msg string) {
	switch {
	case bytes.HasPrefix(src, bomUTF32LE) || bytes.HasPrefix(src, bomUTF32BE):
		return nil, "the file is UTF-32 text, which guard does not read"
	case bytes.HasPrefix(src, bomUTF16LE) || bytes.HasPrefix(src, bomUTF16BE):
		body := src[2:]
		if len(body)%2 != 0 {
			return nil, "the file starts as UTF-16 text but has an odd number of bytes"
		}
		u := make([]uint16, len(body)/2)
		for i := range u {
			if src[0] == 0xff {
				u[i] = uint16(body[2*i]) | uint16(body[2*i+1])<<8
			} else {
				u[i] = uint16(body[2*i])<<8 | uint16(body[2*i+1])
			}
		}
		runes := utf16.Decode(u)
		var b bytes.Buffer
		for _, r := range runes {
			if r == utf8.RuneError {
				return nil, "the file is UTF-16 text with a broken character"
			}
			b.WriteRune(r)
		}
		src = b.Bytes()
	case bytes.HasPrefix(src, bomUTF8):
		ext := strings.ToLower(path.Ext(name))
		for _, e := range bomTolerantExts {
			if ext == e {
				src = append([]byte("   "), src[3:]...)
				break
			}
		}
	}
	if !nulOK && bytes.IndexByte(src, 0) >= 0 {
		return nil, "the file holds a NUL byte, which tools read in different ways (some stop there, some read on); guard cannot review it"
	}
	return src, ""
}
