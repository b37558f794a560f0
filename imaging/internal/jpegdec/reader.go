package jpegdec

import (
	"fmt"
	"io"
)

const readBufSize = 32 << 10

// reader is a forward-only buffered reader over an io.ReaderAt. The entropy
// decoder reads buf[pos:end] directly and calls more when it runs dry.
type reader struct {
	r    io.ReaderAt
	off  int64 // file offset of the next byte to read into buf
	size int64
	buf  []byte
	pos  int
	end  int
	err  error // sticky read error other than io.EOF
}

func newReader(r io.ReaderAt, size int64) *reader {
	return &reader{r: r, size: size, buf: make([]byte, readBufSize)}
}

// more moves the unread bytes to the front of buf and reads more after them.
// It reports whether at least one new byte arrived.
func (rd *reader) more() bool {
	if rd.err != nil || rd.off >= rd.size {
		return false
	}
	n := copy(rd.buf, rd.buf[rd.pos:rd.end])
	rd.pos, rd.end = 0, n
	want := min(int64(len(rd.buf)-n), rd.size-rd.off)
	got, err := rd.r.ReadAt(rd.buf[n:n+int(want)], rd.off)
	rd.off += int64(got)
	rd.end += got
	if err != nil && err != io.EOF {
		rd.err = fmt.Errorf("reading: %w", err)
	} else if got == 0 {
		rd.off = rd.size
	}
	return got > 0
}

func (rd *reader) eofErr() error {
	if rd.err != nil {
		return rd.err
	}
	return fmt.Errorf("%w: unexpected end of file", ErrFormat)
}

func (rd *reader) readByte() (byte, error) {
	if rd.pos >= rd.end && !rd.more() {
		return 0, rd.eofErr()
	}
	b := rd.buf[rd.pos]
	rd.pos++
	return b, nil
}

// readFull fills p.
func (rd *reader) readFull(p []byte) error {
	for len(p) > 0 {
		if rd.pos >= rd.end && !rd.more() {
			return rd.eofErr()
		}
		n := copy(p, rd.buf[rd.pos:rd.end])
		rd.pos += n
		p = p[n:]
	}
	return nil
}

// skip discards n bytes.
func (rd *reader) skip(n int) error {
	for n > 0 {
		if rd.pos >= rd.end && !rd.more() {
			return rd.eofErr()
		}
		k := min(n, rd.end-rd.pos)
		rd.pos += k
		n -= k
	}
	return nil
}
