package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
)

// This file reads a git index (gitformat-index: versions 2, 3 and 4) so
// that a checkpoint can compare the work tree with guard's own index by
// stat data without running git. guard only reads indexes; git writes
// them.

// statData is what git keeps of a file's lstat, as it keeps it (32-bit
// fields; the size truncated to 32 bits).
type statData struct {
	CtimeS, CtimeNs, MtimeS, MtimeNs uint32
	Ino, UID, GID, Size              uint32
}

// ientry is one index entry.
type ientry struct {
	path  string
	mode  uint32 // 0100644, 0100755, 0120000 (symlink), 0160000 (gitlink)
	oid   [sha1.Size]byte
	stat  statData
	stage int
	// skip: skip-worktree (sparse checkout: not in the work tree, kept as
	// it is); ita: intent-to-add (no content recorded yet).
	skip, ita bool
	// at is the offset of the entry in the index file (seed.go).
	at int
}

const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

// errIndexFormat: an index guard does not read (or a damaged one).
var errIndexFormat = errors.New("index: unsupported format")

// parseIndex reads the index in data, whose object ids are hashLen bytes
// long. It fails on a version it does not know, a required extension (a
// split or sparse index) or a truncated file: the caller then lets git
// do the work.
func parseIndex(data []byte, hashLen int) ([]ientry, error) {
	es, _, err := parseEntries(data, hashLen)
	return es, err
}

// parseEntries is parseIndex, and the offset where the entries end (the
// extensions, or the checksum, start).
func parseEntries(data []byte, hashLen int) ([]ientry, int, error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, 0, errIndexFormat
	}
	// The trailing checksum is not verified: git does not either (only
	// fsck does), and git replaces the file whole when it writes it.
	body := data[:len(data)-hashLen]
	if hashLen != sha1.Size {
		return nil, 0, errIndexFormat
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, 0, errIndexFormat
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	// The count comes from the file (the user's index, which commands
	// can write): no more entries than the smallest entry fits.
	if n > (len(body)-12)/(40+hashLen+3) {
		return nil, 0, errIndexFormat
	}
	es := make([]ientry, 0, n)
	// One string for every path of a v2/v3 index, sliced (no copy each).
	str := ""
	if version < 4 {
		str = string(body)
	}
	p := 12
	prev := ""
	be := binary.BigEndian
	for i := 0; i < n; i++ {
		start := p
		if p+40+hashLen+2 > len(body) {
			return nil, 0, errIndexFormat
		}
		e := ientry{at: p}
		e.stat = statData{
			CtimeS: be.Uint32(body[p:]), CtimeNs: be.Uint32(body[p+4:]),
			MtimeS: be.Uint32(body[p+8:]), MtimeNs: be.Uint32(body[p+12:]),
			Ino: be.Uint32(body[p+20:]), UID: be.Uint32(body[p+28:]), GID: be.Uint32(body[p+32:]), Size: be.Uint32(body[p+36:]),
		}
		e.mode = be.Uint32(body[p+24:])
		p += 40
		copy(e.oid[:], body[p:p+hashLen])
		p += hashLen
		flags := be.Uint16(body[p:])
		p += 2
		e.stage = int(flags>>12) & 3
		if flags&0x4000 != 0 { // extended
			if version < 3 || p+2 > len(body) {
				return nil, 0, errIndexFormat
			}
			ext := be.Uint16(body[p:])
			p += 2
			e.skip, e.ita = ext&0x4000 != 0, ext&0x2000 != 0
		}
		if version == 4 {
			strip, w := varint(body[p:])
			if w == 0 || strip > len(prev) {
				return nil, 0, errIndexFormat
			}
			p += w
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return nil, 0, errIndexFormat
			}
			e.path = prev[:len(prev)-strip] + string(body[p:p+end])
			p += end + 1
		} else {
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return nil, 0, errIndexFormat
			}
			e.path = str[p : p+end]
			// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
			p = start + (p+end-start+8)&^7
			if p > len(body) {
				return nil, 0, errIndexFormat
			}
		}
		prev = e.path
		es = append(es, e)
	}
	entriesEnd := p
	// Extensions: an optional one (its signature starts with A-Z) may be
	// skipped; a required one changes what the entries mean.
	for p+8 <= len(body) {
		sig := body[p : p+4]
		size := int(be.Uint32(body[p+4:]))
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, 0, errIndexFormat
		}
		p += 8 + size
	}
	if p != len(body) {
		return nil, 0, errIndexFormat
	}
	return es, entriesEnd, nil
}

// varint decodes git's offset varint (the v4 path prefix length); w is
// the bytes read, 0 on a bad one.
func varint(b []byte) (val, w int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val, w = int(c&127), 1
	for c&128 != 0 {
		if w >= len(b) || val > 1<<40 {
			return 0, 0
		}
		c = b[w]
		w++
		val = ((val + 1) << 7) + int(c&127)
	}
	return val, w
}
