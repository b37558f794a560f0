package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

const (
	// windowSize is the one buffer a probe allocates for reading; small
	// header reads are served from it so that walking thousands of small
	// audio blocks or MP3 frames costs few system calls. It stays small
	// because between video blocks most of what a refill reads is payload
	// the probe skips.
	windowSize = 4 << 10
	// maxSteps caps the boxes, elements, pages, samples and frames one
	// probe may visit. A one-minute phone video needs a few thousand; a
	// hostile file of tiny elements stops here.
	maxSteps = 1 << 21
	// ctxEvery is how many steps pass between context checks.
	ctxEvery = 1024
)

// kind is the container family guessed from the first bytes.
type kind int

const (
	kindUnknown kind = iota
	kindISO
	kindEBML
	kindOgg
)

// source is a bounded, windowed reader over one file. It is not safe for
// concurrent use; each probe makes its own.
type source struct {
	ctx    context.Context
	r      io.ReaderAt
	size   int64
	win    []byte // window contents, len ≤ windowSize
	winOff int64  // file offset of win[0]
	buf    []byte // backing array of win, allocated on first use
	steps  int
}

func newSource(ctx context.Context, r io.ReaderAt, size int64) (*source, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("probing: %w", err)
	}
	if r == nil || size < 0 {
		return nil, invalid("no file")
	}
	return &source{ctx: ctx, r: r, size: size}, nil
}

// step counts one unit of work (a box, element, page, sample or frame). It
// fails with ErrInvalid past maxSteps and with the context's error once it
// is done.
func (s *source) step() error {
	s.steps++
	if s.steps > maxSteps {
		return invalid("too many elements")
	}
	if s.steps%ctxEvery == 0 {
		if err := s.ctx.Err(); err != nil {
			return fmt.Errorf("probing: %w", err)
		}
	}
	return nil
}

// readAt fills p from offset off. Reading past size fails with ErrInvalid
// (the file is truncated); a failing reader's error is returned wrapped.
// Every read goes through the window, so p never reaches the io.ReaderAt
// and callers' small stack buffers stay on the stack.
func (s *source) readAt(p []byte, off int64) error {
	if off < 0 || off > s.size || int64(len(p)) > s.size-off {
		return invalid("truncated")
	}
	for len(p) > 0 {
		if off >= s.winOff && off < s.winOff+int64(len(s.win)) {
			n := copy(p, s.win[off-s.winOff:])
			p, off = p[n:], off+int64(n)
			continue
		}
		if err := s.fill(off); err != nil {
			return err
		}
	}
	return nil
}

// fill loads the window with the bytes from off, as many as fit.
func (s *source) fill(off int64) error {
	if s.buf == nil {
		s.buf = make([]byte, min(windowSize, s.size))
	}
	n := min(int64(len(s.buf)), s.size-off)
	s.win = s.buf[:0]
	rn, err := s.r.ReadAt(s.buf[:n], off)
	if int64(rn) == n {
		s.win, s.winOff = s.buf[:n], off
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return invalid("file shorter than its size")
	}
	return fmt.Errorf("reading at %d: %w", off, err)
}

// readUpTo reads min(len(p), size-off) bytes at off and returns how many.
func (s *source) readUpTo(p []byte, off int64) (int, error) {
	if off < 0 || off > s.size {
		return 0, invalid("truncated")
	}
	if rest := s.size - off; int64(len(p)) > rest {
		p = p[:rest]
	}
	return len(p), s.readAt(p, off)
}

// sniff guesses the container from the first bytes. A file too short to
// tell is kindUnknown; only the reader's own failure is an error.
func (s *source) sniff() (kind, error) {
	var head [12]byte
	n, err := s.readUpTo(head[:], 0)
	if errors.Is(err, ErrInvalid) {
		return kindUnknown, nil
	}
	if err != nil {
		return kindUnknown, err
	}
	h := head[:n]
	switch {
	case len(h) >= 8 && bytes.Equal(h[4:8], []byte("ftyp")):
		return kindISO, nil
	case bytes.HasPrefix(h, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return kindEBML, nil
	case bytes.HasPrefix(h, []byte("OggS")):
		return kindOgg, nil
	}
	return kindUnknown, nil
}
