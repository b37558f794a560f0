package ingest

import (
	"fmt"
	"io"
	"net/http"
	"slices"

	"eventbox/imaging"
	"eventbox/store"
)

// multipartSlack is what a multipart body may carry beyond the file:
// boundaries, part headers and the small text fields.
const multipartSlack = 64 << 10

// Form describes a multipart upload form.
type Form struct {
	// Limit is the most bytes the file part may have.
	Limit int64
	// FileField is the file part's name.
	FileField string
	// TextFields are the text parts to read; others are skipped.
	TextFields []string
	// MaxText is the most bytes of each text part.
	MaxText int
	// FileRequired makes a form without a file part a FieldError.
	FileRequired bool
}

// File is an upload streamed to the temp area. The caller owns Tmp:
// it commits it, or aborts it (Abort is safe after Commit).
type File struct {
	// Tmp is the temp file; nil when the form had no file part.
	Tmp *store.TempFile
	// Size is the bytes received.
	Size int64
	// Fingerprint is the retry key of the bytes received (fingerprint.go).
	Fingerprint string
	// shared: Tmp's bytes are an adopted upload's own (WithFile), which
	// must not be changed in place.
	shared bool
	// end has seen the bytes as they were received: a JPEG's end,
	// found without reading the file again; nil for an adopted upload.
	end *imaging.JPEGEnd
}

// ReadForm streams a multipart upload: the file part goes to a temp file
// in DATA_DIR (fingerprinted on the way), the named text fields are read
// small, anything else is skipped. A body over the limit is cut off while
// streaming with ErrTooLarge; w is the response the body limit closes the
// connection of. Without a file part the returned File has a nil Tmp
// (or, when the file is required, the error is a FieldError).
func (in *Ingester) ReadForm(w http.ResponseWriter, r *http.Request, form Form) (map[string]string, File, error) {
	limit, fileField := form.Limit, form.FileField
	slack := int64(multipartSlack + len(form.TextFields)*form.MaxText)
	if r.ContentLength > limit+slack {
		return nil, File{}, ErrTooLarge
	}
	boundary, ok := boundaryOf(r.Header.Get("Content-Type"))
	if !ok {
		return nil, File{}, &FieldError{Field: fileField, Message: "send the file as multipart/form-data"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit+slack)
	bufs := in.buffers()
	defer in.bufs.Put(bufs)
	mr := newFormReader(r.Body, boundary, bufs.form[:])
	fields := map[string]string{}
	var file File
	fail := func(err error) (map[string]string, File, error) {
		if file.Tmp != nil {
			file.Tmp.Abort()
		}
		return nil, File{}, tooLarge(err)
	}
	for {
		name, part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(clientFault(err, "body", "is not a readable multipart form"))
		}
		switch {
		case name == fileField && file.Tmp == nil:
			if src, ok := fileOf(r.Context()); ok {
				// The file is a finished upload's: the part is empty.
				if _, err := io.Copy(io.Discard, part); err != nil {
					return fail(clientFault(err, "body", "is not a readable multipart form"))
				}
				if src.size > limit {
					return fail(ErrTooLarge)
				}
				fp := newFingerprinter()
				tmp, shared, err := in.adopt(r.Context(), src, fp)
				if err != nil {
					return fail(err)
				}
				file.Tmp, file.Size, file.shared = tmp, src.size, shared
				if file.Fingerprint, err = fp.sum(tmp, src.size); err != nil {
					return fail(fmt.Errorf("reading the upload back: %w", err))
				}
				continue
			}
			tmp, err := in.media.CreateTemp()
			if err != nil {
				return fail(err)
			}
			file.Tmp = tmp
			fp := newFingerprinter()
			file.end = new(imaging.JPEGEnd)
			n, err := receive(io.MultiWriter(tmp, fp, file.end), io.LimitReader(part, limit+1), fileField, bufs.copy[:])
			if err != nil {
				return fail(err)
			}
			if n > limit {
				return fail(ErrTooLarge)
			}
			file.Size = n
			if file.Fingerprint, err = fp.sum(tmp, n); err != nil {
				return fail(fmt.Errorf("reading the upload back: %w", err))
			}
		case name != "" && slices.Contains(form.TextFields, name):
			b, err := io.ReadAll(io.LimitReader(part, int64(form.MaxText)+1))
			if err != nil {
				return fail(clientFault(err, name, "could not be read"))
			}
			if len(b) > form.MaxText {
				return fail(&FieldError{Field: name, Message: "is too long"})
			}
			fields[name] = string(b)
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return fail(clientFault(err, "body", "is not a readable multipart form"))
			}
		}
	}
	if file.Tmp == nil {
		if form.FileRequired {
			return nil, File{}, &FieldError{Field: fileField, Message: "required"}
		}
		return fields, file, nil
	}
	if file.Size == 0 {
		file.Tmp.Abort()
		return nil, File{}, &FieldError{Field: fileField, Message: "is empty"}
	}
	return fields, file, nil
}

// Receive copies an upload's body to the temp file dst and tells whose
// fault a failure is. A read that fails is the client's (it stopped
// sending, or sent too much): a FieldError naming field, or ErrTooLarge.
// A write that fails is the box's (a full card, an I/O error): it is
// returned wrapped, with its file-system error (ENOSPC, EIO) inside, so
// the guest's page keeps the file and tries again (docs/design.md, "Server
// faults are retryable").
func Receive(dst io.Writer, src io.Reader, field string) (int64, error) {
	return receive(dst, src, field, nil)
}

// receive is Receive through buf (nil: one of io.Copy's own).
func receive(dst io.Writer, src io.Reader, field string, buf []byte) (int64, error) {
	cr := &clientReader{r: src}
	n, err := io.CopyBuffer(dst, cr, buf)
	switch {
	case err == nil:
		return n, nil
	case cr.err != nil:
		return n, clientFault(cr.err, field, "upload was interrupted")
	default:
		return n, fmt.Errorf("storing the upload: %w", err)
	}
}

// clientReader remembers the error of the client's side of a copy.
type clientReader struct {
	r   io.Reader
	err error
}

func (c *clientReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// formBuffers are the buffers one form is read through: its multipart
// body, and the file part on its way to the card.
type formBuffers struct {
	form, copy [formBuffer]byte
}

// buffers takes a form's buffers from the ingester's pool (put them back
// in in.bufs).
func (in *Ingester) buffers() *formBuffers {
	if b, ok := in.bufs.Get().(*formBuffers); ok {
		return b
	}
	return new(formBuffers)
}
