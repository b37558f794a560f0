package album

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
)

// objWriter writes PDF objects to a buffered stream and remembers where
// each one starts. Object numbers are handed out by alloc before or while
// the object is written; every allocated object must be written before
// the cross-reference table.
type objWriter struct {
	w       *bufio.Writer
	n       int64   // bytes written so far
	offsets []int64 // by object number - 1; -1 until written
	err     error   // the first write error; later writes are skipped
}

func newObjWriter(w io.Writer) *objWriter {
	return &objWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write implements io.Writer, counting the bytes. After a failure every
// later call returns the first error.
func (o *objWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.n += int64(n)
	if err != nil {
		o.err = fmt.Errorf("writing album: %w", err)
	}
	return n, o.err
}

// ReadFrom implements io.ReaderFrom, so that copying an image goes
// through the output buffer without a copy buffer of its own.
func (o *objWriter) ReadFrom(r io.Reader) (int64, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.ReadFrom(r)
	o.n += n
	if err != nil {
		o.err = fmt.Errorf("writing album: %w", err)
	}
	return n, o.err
}

// printf writes formatted text; errors are kept in o.err.
func (o *objWriter) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(o, format, args...)
}

// alloc reserves the next object number.
func (o *objWriter) alloc() int {
	o.offsets = append(o.offsets, -1)
	return len(o.offsets)
}

// begin starts object num, which alloc returned.
func (o *objWriter) begin(num int) {
	o.offsets[num-1] = o.n
	o.printf("%d 0 obj\n", num)
}

// end closes the object begun last.
func (o *objWriter) end() {
	o.printf("endobj\n")
}

// object writes a whole dictionary (or other value) object.
func (o *objWriter) object(num int, body string) {
	o.begin(num)
	o.printf("%s\n", body)
	o.end()
}

// stream writes a stream object of known length: dict holds every entry
// but /Length.
func (o *objWriter) stream(num int, dict string, data []byte) {
	o.begin(num)
	o.printf("<<%s /Length %d>>\nstream\n", dict, len(data))
	_, _ = o.Write(data)
	o.printf("\nendstream\n")
	o.end()
}

// streamFrom writes a stream object whose body is read from r; the length
// is written afterwards as its own object, so nothing is held in memory.
// fill copies the body to the writer it is given.
func (o *objWriter) streamFrom(num int, dict string, fill func(w io.Writer) error) error {
	lengthNum := o.alloc()
	o.begin(num)
	o.printf("<<%s /Length %d 0 R>>\nstream\n", dict, lengthNum)
	start := o.n
	if err := fill(o); err != nil {
		return err
	}
	length := o.n - start
	o.printf("\nendstream\n")
	o.end()
	o.object(lengthNum, strconv.FormatInt(length, 10))
	return o.err
}

// finish writes the cross-reference table and the trailer and flushes.
func (o *objWriter) finish(root, info int) error {
	for i, off := range o.offsets {
		if off < 0 {
			return fmt.Errorf("writing album: object %d was never written", i+1)
		}
	}
	xref := o.n
	o.printf("xref\n0 %d\n0000000000 65535 f \n", len(o.offsets)+1)
	for _, off := range o.offsets {
		o.printf("%010d 00000 n \n", off)
	}
	o.printf("trailer\n<</Size %d /Root %d 0 R", len(o.offsets)+1, root)
	if info > 0 {
		o.printf(" /Info %d 0 R", info)
	}
	o.printf(">>\nstartxref\n%d\n%%%%EOF\n", xref)
	if o.err != nil {
		return o.err
	}
	if err := o.w.Flush(); err != nil {
		return fmt.Errorf("writing album: %w", err)
	}
	return nil
}

// num formats a coordinate in points with at most two decimals.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// textString encodes s as a PDF text string: UTF-16BE with a byte order
// mark, in hex, which any reader shows in any script.
func textString(s string) string {
	var b strings.Builder
	b.WriteString("<FEFF")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04X", u)
	}
	b.WriteString(">")
	return b.String()
}

// name encodes s as a PDF name, escaping anything outside the regular
// printable characters.
func name(s string) string {
	var b strings.Builder
	b.WriteByte('/')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("#()<>[]{}/%", c) >= 0 {
			fmt.Fprintf(&b, "#%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
