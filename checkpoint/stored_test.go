package checkpoint

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"testing"
)

// TestStoredZlibMatchesZlib: guard's stored zlib stream is, byte for
// byte, what compress/zlib wrote at NoCompression before it (the packs
// and the blobs guard hands to git), for any data and any way of writing
// it, across the 65,535-byte block boundary; it reads back as the data;
// and Reset starts a stream as zlib.Writer.Reset does.
func TestStoredZlibMatchesZlib(t *testing.T) {
	sizes := []int{0, 1, 100, maxStored - 1, maxStored, maxStored + 1, 2 * maxStored, 2*maxStored + 7, 200000}
	chunks := []int{1 << 30, 1, 4096, maxStored, maxStored + 3}
	for _, size := range sizes {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		for _, chunk := range chunks {
			if chunk == 1 && size > 2*maxStored {
				continue // a byte at a time: slow, and covered by the smaller sizes
			}
			t.Run(fmt.Sprintf("%d bytes in writes of %d", size, min(chunk, size)), func(t *testing.T) {
				var want bytes.Buffer
				zw, err := zlib.NewWriterLevel(&want, zlib.NoCompression)
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				sw := newStoredZlib(&got)
				for p := data; len(p) > 0; {
					k := min(chunk, len(p))
					zw.Write(p[:k])
					if n, err := sw.Write(p[:k]); n != k || err != nil {
						t.Fatalf("Write = %d, %v", n, err)
					}
					p = p[k:]
				}
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				if err := sw.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("stream of %d bytes differs from compress/zlib's (%d bytes against %d)", size, got.Len(), want.Len())
				}
				r, err := zlib.NewReader(&got)
				if err != nil {
					t.Fatal(err)
				}
				back, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(back, data) {
					t.Fatalf("read back %d bytes, %v", len(back), err)
				}
			})
		}
	}
	t.Run("Reset", func(t *testing.T) {
		var want, got bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&want, zlib.NoCompression)
		sw := newStoredZlib(&got)
		for _, s := range []string{"tree 0\x00", "", "blob a little longer\n"} {
			zw.Reset(&want)
			sw.Reset(&got)
			zw.Write([]byte(s))
			sw.Write([]byte(s))
			zw.Close()
			sw.Close()
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("streams after Reset differ:\n got %q\nwant %q", got.Bytes(), want.Bytes())
		}
	})
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, io.ErrShortWrite
	}
	w.n -= len(p)
	return len(p), nil
}

// TestStoredZlibWriteError: a write the underlying writer refuses is
// returned, by that Write or by Close, and by every call after it.
func TestStoredZlibWriteError(t *testing.T) {
	sw := newStoredZlib(&failingWriter{n: 2 + 5 + 10})
	if _, err := sw.Write(make([]byte, maxStored+1)); err == nil {
		t.Fatal("Write of more than a block to a writer that refuses it succeeded")
	}
	if _, err := sw.Write([]byte("x")); err == nil {
		t.Fatal("Write after a failed write succeeded")
	}
	if err := sw.Close(); err == nil {
		t.Fatal("Close after a failed write succeeded")
	}
	sw = newStoredZlib(&failingWriter{n: 2})
	if _, err := sw.Write([]byte("small")); err != nil {
		t.Fatalf("Write of a gathered block: %v", err)
	}
	if err := sw.Close(); err == nil {
		t.Fatal("Close to a writer that refuses the block succeeded")
	}
}
