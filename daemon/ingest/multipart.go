package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
)

// formBuffer is how much of a multipart body formReader holds at once,
// and the most a part's Read hands on. The standard library's reader
// hands a part on 4 KiB at a time, each piece one read from the
// connection and one write to the card: on one core those system calls
// were a fifth of a burst of uploads' time.
const formBuffer = 256 << 10

// maxPartHeader bounds a part's header section (its Content-Disposition
// and Content-Type lines; a browser writes about 150 bytes).
const maxPartHeader = 16 << 10

// errNotMultipart is a body that is not the multipart/form-data it says
// it is: no boundary where one must be, or a part's header unreadable.
var errNotMultipart = errors.New("malformed multipart body")

// formReader reads a multipart/form-data body (RFC 7578) part by part,
// in large pieces. It takes what browsers, phones and HTTP libraries
// send: parts separated by CRLF "--" boundary lines (transport padding
// after a boundary allowed), each with its header lines and a blank line
// before its content, a preamble and an epilogue ignored. It does not
// decode a Content-Transfer-Encoding (RFC 7578 deprecates it and no
// browser sends one).
type formReader struct {
	r      io.Reader
	buf    []byte // buf[off:n] is read and not yet used
	off, n int
	err    error  // the read error met, once buf is used up
	delim  []byte // CRLF "--" boundary
	part   *formPart
	done   bool // the closing boundary was read
}

// newFormReader reads the body r of boundary through buf, which must be
// longer than maxPartHeader.
func newFormReader(r io.Reader, boundary string, buf []byte) *formReader {
	f := &formReader{r: r, buf: buf, delim: []byte("\r\n--" + boundary)}
	// The first boundary may start the body: a CRLF before it makes it
	// like the others.
	f.n = copy(f.buf, "\r\n")
	return f
}

// boundaryOf answers the boundary of a multipart/form-data Content-Type.
func boundaryOf(contentType string) (string, bool) {
	d, params, err := mime.ParseMediaType(contentType)
	if err != nil || d != "multipart/form-data" {
		return "", false
	}
	b := params["boundary"]
	return b, b != "" && len(b) <= 70
}

// fill reads more of the body after buf[off:n], moving that to the
// start of buf first when needed. It answers the read error (io.EOF at
// the body's end) when nothing could be read.
func (f *formReader) fill() error {
	if f.err != nil {
		return f.err
	}
	if f.off > 0 && (f.n == len(f.buf) || f.off > len(f.buf)/2) {
		f.n = copy(f.buf, f.buf[f.off:f.n])
		f.off = 0
	}
	if f.n == len(f.buf) {
		return fmt.Errorf("%w: a line longer than %d bytes", errNotMultipart, len(f.buf))
	}
	for range 100 {
		k, err := f.r.Read(f.buf[f.n:])
		f.n += k
		if err != nil {
			f.err = err
		}
		if k > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	f.err = io.ErrNoProgress
	return f.err
}

// NextPart skips what is left of the part being read and answers the
// next part's form name (empty when its Content-Disposition names none)
// and content; io.EOF after the last part.
func (f *formReader) NextPart() (string, io.Reader, error) {
	if f.done {
		return "", nil, io.EOF
	}
	// To the next delimiter: the preamble, or what is left of a part.
	for {
		if k := bytes.Index(f.buf[f.off:f.n], f.delim); k >= 0 {
			f.off += k + len(f.delim)
			break
		}
		f.off = max(f.off, f.n-len(f.delim)+1)
		if err := f.fill(); err != nil {
			return "", nil, unexpected(err)
		}
	}
	// The rest of the boundary's line: "--" closes the body (what follows
	// is the epilogue, and the line may end with the body); then optional
	// padding.
	line, err := f.line()
	if err == io.ErrUnexpectedEOF && bytes.HasPrefix(f.buf[f.off:f.n], []byte("--")) {
		line, err = string(f.buf[f.off:f.n]), nil
	}
	if err != nil {
		return "", nil, err
	}
	rest, closing := strings.CutPrefix(line, "--")
	if strings.Trim(rest, " \t") != "" {
		return "", nil, fmt.Errorf("%w: text after a boundary", errNotMultipart)
	}
	if closing {
		f.done = true
		return "", nil, io.EOF
	}
	name, err := f.header()
	if err != nil {
		return "", nil, err
	}
	f.part = &formPart{f: f}
	return name, f.part, nil
}

// line answers the next line without its CRLF.
func (f *formReader) line() (string, error) {
	for {
		if k := bytes.Index(f.buf[f.off:f.n], []byte("\r\n")); k >= 0 {
			s := string(f.buf[f.off : f.off+k])
			f.off += k + 2
			return s, nil
		}
		if f.n-f.off > maxPartHeader {
			return "", fmt.Errorf("%w: a line over %d bytes", errNotMultipart, maxPartHeader)
		}
		if err := f.fill(); err != nil {
			return "", unexpected(err)
		}
	}
}

// header reads a part's header lines up to the blank line and answers
// the form name its Content-Disposition gives.
func (f *formReader) header() (string, error) {
	name, size, disposition := "", 0, false
	for {
		line, err := f.line()
		if err != nil {
			return "", err
		}
		if line == "" {
			return name, nil
		}
		if size += len(line); size > maxPartHeader {
			return "", fmt.Errorf("%w: a part's header over %d bytes", errNotMultipart, maxPartHeader)
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || !validField(key, value) {
			return "", fmt.Errorf("%w: a part's header line is not a field", errNotMultipart)
		}
		if !disposition && strings.EqualFold(key, "Content-Disposition") {
			// The first one counts, as for the standard library.
			disposition = true
			d, params, err := mime.ParseMediaType(strings.TrimSpace(value))
			if err == nil && d == "form-data" {
				name = params["name"]
			}
		}
	}
}

// validField reports whether key is a header field name (an RFC 9110
// token) and value holds no control character but tabs.
func validField(key, value string) bool {
	if key == "" {
		return false
	}
	for _, c := range []byte(key) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	for _, c := range []byte(value) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// unexpected makes the body's end before its closing boundary an
// unexpected end.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// formPart is the content of the part being read.
type formPart struct {
	f       *formReader
	started bool // the start of the content has been looked at
}

// Read hands on the content up to the delimiter, as much as is held.
func (p *formPart) Read(b []byte) (int, error) {
	f := p.f
	if f.part != p {
		return 0, io.EOF // a part NextPart has gone past
	}
	for !p.started {
		// A boundary right after the header's blank line, without a CRLF
		// of its own: not a form any client writes.
		held := f.buf[f.off:f.n]
		if dash := f.delim[2:]; len(held) >= len(dash) {
			if bytes.HasPrefix(held, dash) {
				return 0, fmt.Errorf("%w: a boundary without its line end", errNotMultipart)
			}
			p.started = true
		} else if err := f.fill(); err != nil {
			return 0, unexpected(err)
		}
	}
	for {
		held := f.buf[f.off:f.n]
		if k := bytes.Index(held, f.delim); k >= 0 {
			if k == 0 {
				return 0, io.EOF
			}
			n := copy(b, held[:k])
			f.off += n
			return n, nil
		}
		// All but what could be the start of the delimiter is content.
		if safe := len(held) - len(f.delim) + 1; safe > 0 {
			n := copy(b, held[:safe])
			f.off += n
			return n, nil
		}
		if err := f.fill(); err != nil {
			return 0, unexpected(err)
		}
	}
}
