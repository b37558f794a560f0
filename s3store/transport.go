package s3store

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"eventbox/internal/stallnet"
)

// boundTransport bounds the
// requests that carry no object, cuts the body of an error answer at
// MaxErrorBody and of a listing at maxListing, and refuses redirects (the
// client would take a 3xx's body for the store's answer).
type boundTransport struct {
	base       http.RoundTripper
	timeout    time.Duration
	maxListing int64
}

// RedirectError is a store that answered with a redirect. Redirects are
// not followed: the endpoint must be the final one, and a redirect must not
// make the box ask another server (an internal one, say).
type RedirectError struct {
	// Status is the redirect's status (301, 302, 307, …).
	Status int
	// To is the host the redirect points to.
	To string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the store answered %d %s, a redirect to %s, which eventbox does not follow: enter the final endpoint and the bucket's region",
		e.Status, http.StatusText(e.Status), e.To)
}

// MaxObjectBody caps any other answer's body: an object read (the box
// reads only the settings test's, a few bytes) or the body of a PUT's or a
// DELETE's answer, which is empty.
const MaxObjectBody = 1 << 20

// tooLargeError is an answer cut at its cap.
type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string {
	if e.max >= 1<<20 {
		return fmt.Sprintf("the store's answer is larger than %d MiB", e.max>>20)
	}
	return fmt.Sprintf("the store's answer is larger than %d KiB", e.max>>10)
}

// listing reports whether a request asks for a listing (of objects, of an
// upload's parts, of uploads), whose answer is parsed whole.
func listing(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	q := r.URL.Query()
	return q.Has("list-type") || q.Has("uploadId") || q.Has("uploads") || q.Has("location") || q.Has("prefix")
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var cancel context.CancelFunc
	if object := req.Method == http.MethodPut || (req.Method == http.MethodGet && !listing(req)); !object {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(req.Context(), t.timeout)
		req = req.WithContext(ctx)
	}
	res, err := t.base.RoundTrip(req)
	if err != nil {
		if cancel != nil {
			cancel()
		}
		return nil, err
	}
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		_ = res.Body.Close()
		if cancel != nil {
			cancel()
		}
		to := res.Header.Get("Location")
		if u, err := req.URL.Parse(to); err == nil && u.Host != "" {
			to = u.Host
		}
		return nil, &RedirectError{Status: res.StatusCode, To: to}
	}
	// Every body is cut: minio-go reads an error's whole (up to 5 MiB)
	// and drains any body it closes to reuse the connection, which an
	// endless one would keep doing.
	switch {
	case res.StatusCode >= 400:
		res.Body = &cappedBody{ReadCloser: res.Body, left: MaxErrorBody, max: MaxErrorBody, quiet: true}
	case listing(req) || req.Method == http.MethodPost:
		res.Body = &cappedBody{ReadCloser: res.Body, left: t.maxListing, max: t.maxListing}
	default:
		res.Body = &cappedBody{ReadCloser: res.Body, left: MaxObjectBody, max: MaxObjectBody}
	}
	if cancel != nil {
		res.Body = stallnet.CancelOnClose(res.Body, cancel)
	}
	return res, nil
}

// cappedBody ends a body after left bytes: quietly (an error's
// explanation, whose start is enough) or with an error (a listing, which
// must not be taken whole when it was cut).
type cappedBody struct {
	io.ReadCloser
	left, max int64
	quiet     bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.quiet {
			return 0, io.EOF
		}
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, &tooLargeError{max: b.max}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
