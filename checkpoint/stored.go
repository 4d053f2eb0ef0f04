package checkpoint

import (
	"encoding/binary"
	"hash"
	"hash/adler32"
	"io"
)

// maxStored is the most a stored deflate block holds (RFC 1951 3.2.4).
const maxStored = 65535

// storedZlib writes a zlib stream (RFC 1950) whose deflate data are
// stored blocks (RFC 1951 3.2.4, BTYPE 00): byte for byte what
// compress/zlib writes at zlib.NoCompression (TestStoredZlibMatchesZlib),
// which is all guard ever wrote into its packs. guard writes it itself so
// that no guard process links compress/flate, whose init builds its
// Huffman tables for every hook call and every guard check.
//
// As compress/flate does, data are gathered into blocks of maxStored
// bytes, none of them final, and Close ends the stream with an empty
// final block and the Adler-32 of the data.
type storedZlib struct {
	w      io.Writer
	block  []byte // the data of the block being gathered
	sum    hash.Hash32
	header bool // the zlib header was written
	err    error
}

func newStoredZlib(w io.Writer) *storedZlib {
	z := &storedZlib{}
	z.Reset(w)
	return z
}

// Reset starts a new stream on w, as zlib.Writer.Reset does.
func (z *storedZlib) Reset(w io.Writer) {
	z.w = w
	if z.block == nil {
		z.block = make([]byte, 0, maxStored)
	}
	z.block = z.block[:0]
	if z.sum == nil {
		z.sum = adler32.New()
	}
	z.sum.Reset()
	z.header = false
	z.err = nil
}

func (z *storedZlib) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.writeHeader()
	n := len(p)
	z.sum.Write(p)
	for len(p) > 0 && z.err == nil {
		if len(z.block) == maxStored {
			z.writeBlock(z.block, false)
			z.block = z.block[:0]
		}
		k := min(len(p), maxStored-len(z.block))
		z.block = append(z.block, p[:k]...)
		p = p[k:]
	}
	if z.err != nil {
		return 0, z.err
	}
	return n, nil
}

// Close writes what is gathered, the final empty block and the checksum.
// It does not close the underlying writer.
func (z *storedZlib) Close() error {
	if z.err != nil {
		return z.err
	}
	z.writeHeader()
	if len(z.block) > 0 {
		z.writeBlock(z.block, false)
		z.block = z.block[:0]
	}
	z.writeBlock(nil, true)
	if z.err == nil {
		_, z.err = z.w.Write(binary.BigEndian.AppendUint32(nil, z.sum.Sum32()))
	}
	return z.err
}

// writeHeader writes CMF 0x78 (deflate, 32 KiB window) and FLG 0x01
// (FLEVEL 0, the fastest; no dictionary; FCHECK making it a multiple of
// 31) before the first data, once.
func (z *storedZlib) writeHeader() {
	if z.header || z.err != nil {
		return
	}
	z.header = true
	_, z.err = z.w.Write([]byte{0x78, 0x01})
}

// writeBlock writes one stored block: BFINAL and BTYPE 00 in a byte of
// its own (every block starts on a byte), LEN and its complement NLEN
// (little-endian), the data.
func (z *storedZlib) writeBlock(data []byte, final bool) {
	if z.err != nil {
		return
	}
	h := []byte{0, byte(len(data)), byte(len(data) >> 8), ^byte(len(data)), ^byte(len(data) >> 8)}
	if final {
		h[0] = 1
	}
	if _, z.err = z.w.Write(h); z.err == nil && len(data) > 0 {
		_, z.err = z.w.Write(data)
	}
}
