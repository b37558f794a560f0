package daemon

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"eventbox/daemon/ingest"
	"eventbox/daemon/web"
)

// failingWriter fails every write with err, as a file on a full or broken
// disk does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// failingReader gives some bytes, then fails with err, as a client that
// stops sending does.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := min(r.n, len(p))
	r.n -= k
	return k, nil
}

// TestUploadFaultsAreTold checks whose fault a failed upload copy is: the
// box's disk answers 507 or 503, a client that stops sending 400, a body
// over the limit 413.
func TestUploadFaultsAreTold(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: "/data/tmp/up-1", Err: syscall.ENOSPC}
	quota := &fs.PathError{Op: "write", Path: "/data/tmp/up-1", Err: syscall.EDQUOT}
	broken := &fs.PathError{Op: "write", Path: "/data/tmp/up-1", Err: syscall.EIO}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: fmt.Errorf("wrapped: %w", syscall.ECONNRESET)}
	tests := []struct {
		name       string
		dst        io.Writer
		src        io.Reader
		wantStatus int
		wantCode   string
	}{
		{"a full card is insufficient_storage", failingWriter{full}, strings.NewReader("photo"), 507, "insufficient_storage"},
		{"a full quota is insufficient_storage", failingWriter{quota}, strings.NewReader("photo"), 507, "insufficient_storage"},
		{"an I/O error of the disk is unavailable", failingWriter{broken}, strings.NewReader("photo"), 503, "unavailable"},
		{"a client that stops sending is a bad request", io.Discard, &failingReader{n: 10, err: io.ErrUnexpectedEOF}, 400, "bad_request"},
		{"a connection reset by the client is a bad request", io.Discard, &failingReader{n: 10, err: reset}, 400, "bad_request"},
		{"a body over the limit is too_large", io.Discard, &failingReader{n: 10, err: &http.MaxBytesError{Limit: 10}}, 413, "too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ingest.Receive(tt.dst, tt.src, "photo")
			ae := web.ToError(err)
			if ae.Status != tt.wantStatus || ae.Code != tt.wantCode {
				t.Fatalf("%v answers %d %s; want %d %s", err, ae.Status, ae.Code, tt.wantStatus, tt.wantCode)
			}
		})
	}
	t.Run("a network error that reaches the error writer is not a disk fault", func(t *testing.T) {
		if ae := web.ToError(fmt.Errorf("decoding body: %w", reset)); ae.Status == 503 || ae.Status == 507 {
			t.Fatalf("a client's connection reset answers %d %s", ae.Status, ae.Code)
		}
	})
	t.Run("a failed commit of the database on a full card is insufficient_storage", func(t *testing.T) {
		err := fmt.Errorf("adding photo: %w", errors.Join(&fs.PathError{Op: "write", Path: "eventbox.db", Err: syscall.ENOSPC}))
		if ae := web.ToError(err); ae.Status != 507 {
			t.Fatalf("answers %d %s; want 507", ae.Status, ae.Code)
		}
	})
}
