// Package webdav talks to the hosts' WebDAV server (Nextcloud, ownCloud, a
// NAS, rclone, Apache or nginx dav) for the cloud export: it checks the
// settings, lists a folder, and uploads one file at a time under a
// temporary name before moving it to its final name, so no partial file
// ever sits under a final name.
//
// It wraps github.com/studio-b12/gowebdav (docs/decisions.md, "Cloud
// export"): that client sends a PUT with a known Content-Length from an
// *os.File without buffering it, negotiates Basic or Digest auth, answers
// size and ETag from PROPFIND, and copes with the servers' quirks (MKCOL
// answered 405 for an existing folder, MOVE answered 409 for a missing
// parent). It takes no context, so every Remote is bound to one through
// its transport, which also keeps the server's own words of a refusal
// for the console.
package webdav

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/internal/stallnet"
	"github.com/studio-b12/gowebdav"
)

// Settings say where to export.
type Settings struct {
	// URL is the WebDAV root the user and password open: for Nextcloud
	// https://host/remote.php/dav/files/<user>/.
	URL      string
	User     string
	Password string
}

// Entry is a file on the server.
type Entry struct {
	Size int64
	ETag string
}

// Remote is a WebDAV server seen through one context. It is used by one
// goroutine at a time.
type Remote struct {
	c  *gowebdav.Client
	rt *boundTransport
}

// Config holds what New needs besides the settings.
type Config struct {
	// Transport makes the requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Timeout bounds a request that is not a file upload (PROPFIND,
	// MKCOL, MOVE); zero means one minute.
	Timeout time.Duration
	// Stall cuts a connection of the default transport on which nothing
	// could be written or read for that long; zero means StallTimeout.
	Stall time.Duration
	// MaxListing caps the body of a listing; zero means MaxListingBytes.
	MaxListing int64
}

// New returns a Remote for s whose requests end when ctx ends.
func New(ctx context.Context, s Settings, cfg Config) (*Remote, error) {
	u, err := url.Parse(strings.TrimSpace(s.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &SetupError{Msg: "the address must start with https:// or http://"}
	}
	base := cfg.Transport
	if cfg.Stall <= 0 {
		cfg.Stall = StallTimeout
	}
	if base == nil {
		base = stallnet.Transport(cfg.Stall)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.MaxListing <= 0 {
		cfg.MaxListing = MaxListingBytes
	}
	rt := &boundTransport{ctx: ctx, base: base, timeout: cfg.Timeout, maxListing: cfg.MaxListing}
	c := gowebdav.NewClient(u.String(), s.User, s.Password)
	c.SetTransport(rt)
	c.SetHeader("User-Agent", "eventbox")
	return &Remote{c: c, rt: rt}, nil
}

// StallTimeout cuts a connection on which nothing could be written or read
// for that long: a server that stops reading an upload, or never answers.
const StallTimeout = 2 * time.Minute

// SetupError is a setting that cannot work, found before any request.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// boundTransport gives every request the Remote's context (gowebdav takes
// none), bounds the requests that carry no file, and keeps the start of an
// error answer's body, which holds the server's explanation.
type boundTransport struct {
	ctx        context.Context
	base       http.RoundTripper
	timeout    time.Duration
	maxListing int64

	mu   sync.Mutex
	last string // the latest refusal: status and the server's message
	// over is set when a listing was cut at MaxListingBytes: gowebdav
	// takes a cut listing for a whole one, so each listing checks it.
	over atomic.Bool
}

// MaxListingBytes caps the body of a PROPFIND answer. A folder's listing
// takes under 1 KiB per file on the usual servers, so this is tens of
// thousands of files, far more than an event folder holds; a server that
// sends more fails the listing instead of filling the box's memory
// (docs/decisions.md, "Outbound servers: what the box reads from them").
const MaxListingBytes = 32 << 20

// RedirectError is a server that answered with a redirect. Redirects are
// not followed: the WebDAV address must be the final one, and a redirect
// must not make the box ask another server (an internal one, say) and show
// its answer.
type RedirectError struct {
	// Status is the redirect's status (301, 302, 307, …).
	Status int
	// To is the host the redirect points to.
	To string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server answered %d %s, a redirect to %s, which eventbox does not follow: enter the final WebDAV address",
		e.Status, http.StatusText(e.Status), e.To)
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response != nil {
		// The client is following a redirect: refuse before anything
		// is sent to where it points.
		return nil, &RedirectError{Status: req.Response.StatusCode, To: req.URL.Host}
	}
	ctx := t.ctx
	var cancel context.CancelFunc
	if req.Method != http.MethodPut && req.Method != http.MethodGet {
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
	}
	res, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		if cancel != nil {
			cancel()
		}
		return nil, err
	}
	if res.StatusCode >= 400 {
		head, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(head))
		t.mu.Lock()
		t.last = strings.TrimSpace(res.Status + ": " + serverMessage(head))
		t.last = strings.TrimSuffix(t.last, ":")
		t.mu.Unlock()
	}
	if req.Method == "PROPFIND" {
		res.Body = &cappedBody{ReadCloser: res.Body, left: t.maxListing, over: &t.over}
	}
	if cancel != nil {
		res.Body = stallnet.CancelOnClose(res.Body, cancel)
	}
	return res, nil
}

// cappedBody ends a body after left bytes, and sets over when the body
// had more.
type cappedBody struct {
	io.ReadCloser
	left int64
	over *atomic.Bool
}

// listingTooLarge is the error of a listing over max bytes.
func listingTooLarge(max int64) error {
	if max >= 1<<20 {
		return fmt.Errorf("the server's listing is larger than %d MiB", max>>20)
	}
	return fmt.Errorf("the server's listing is larger than %d KiB", max>>10)
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			b.over.Store(true)
			return 0, errors.New("listing cut")
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

// serverMessage picks the explanation out of an error body: Sabre's
// (Nextcloud, ownCloud) <s:message>, or the first line of plain text.
func serverMessage(body []byte) string {
	var sabre struct {
		Message string `xml:"message"`
	}
	if xml.Unmarshal(body, &sabre) == nil && sabre.Message != "" {
		return strings.TrimSpace(sabre.Message)
	}
	if bytes.Contains(body, []byte("<")) {
		return "" // an HTML page: its status says it
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	return strings.TrimSpace(line)
}

// refusal answers the latest refusal's words.
func (r *Remote) refusal() string {
	r.rt.mu.Lock()
	defer r.rt.mu.Unlock()
	return r.rt.last
}

// Error is a failed WebDAV step, with the server's words when it answered.
type Error struct {
	// Op says what was being done ("creating the folder Photos").
	Op string
	// Status is the HTTP status of a refusal; 0 when the server did not
	// answer (network, TLS, DNS).
	Status int
	// Words is what the server said, or the network error.
	Words string
	Err   error
}

func (e *Error) Error() string { return e.Op + ": " + e.Words }
func (e *Error) Unwrap() error { return e.Err }

// Permanent reports whether retrying cannot help: the server refused the
// user or the request (401, 403, 400, 405, 501), or its certificate is
// not valid. A full server (507), a missing folder or the network can
// change by themselves.
func (e *Error) Permanent() bool {
	switch e.Status {
	case 400, 401, 403, 405, 501:
		return true
	}
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var redirect *RedirectError
	return errors.As(e.Err, &redirect) || errors.As(e.Err, &cert) || errors.As(e.Err, &unknown) || errors.As(e.Err, &host)
}

// wrap turns a gowebdav error into an Error saying op.
func (r *Remote) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Op: op, Err: err}
	var se gowebdav.StatusError
	var pe *os.PathError
	if errors.As(err, &pe) && errors.As(pe.Err, &se) {
		e.Status = se.Status
		e.Words = r.refusal()
		if e.Words == "" || !strings.HasPrefix(e.Words, fmt.Sprint(se.Status)) {
			e.Words = fmt.Sprintf("%d %s", se.Status, http.StatusText(se.Status))
		}
		switch se.Status {
		case 401:
			e.Words += " (wrong user or password?)"
		case 405:
			e.Words += " (is this a WebDAV address?)"
		}
		return e
	}
	e.Words = networkWords(err)
	return e
}

// networkWords says a transport failure plainly.
func networkWords(err error) string {
	if w := stallnet.Words(err); w != "" {
		return w
	}
	var syntax *xml.SyntaxError
	switch {
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server does not answer like WebDAV: " + err.Error()
	}
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		return redirect.Error()
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// clean makes p a slash-separated path inside the root.
func clean(p string) string { return strings.Trim(path.Clean("/"+p), "/") }

// List answers the files directly in dir by name, and false when dir does
// not exist. A listing over MaxListingBytes fails.
func (r *Remote) List(dir string) (map[string]Entry, bool, error) {
	r.rt.over.Store(false)
	infos, err := r.c.ReadDir(clean(dir))
	if gowebdav.IsErrNotFound(err) {
		return nil, false, nil
	}
	if err == nil && r.rt.over.Load() {
		err = listingTooLarge(r.rt.maxListing)
	}
	if err != nil {
		return nil, false, r.wrap("listing "+dir, err)
	}
	out := make(map[string]Entry, len(infos))
	for _, fi := range infos {
		if fi.IsDir() {
			continue
		}
		e := Entry{Size: fi.Size()}
		if f, ok := fi.(gowebdav.File); ok {
			e.ETag = f.ETag()
		}
		out[fi.Name()] = e
	}
	return out, true, nil
}

// MkdirAll makes dir and its parents; existing ones are fine.
func (r *Remote) MkdirAll(dir string) error {
	if clean(dir) == "" {
		return nil
	}
	return r.wrap("creating the folder "+dir, r.c.MkdirAll(clean(dir), 0))
}

// Put uploads size bytes of body as dir/name: first under a temporary
// name in dir, then moved over name, so a cut upload never leaves a
// partial file under name. It answers the file as the server sees it
// (size and ETag). body is read once, in the caller's goroutine's pace.
func (r *Remote) Put(dir, name string, body io.Reader, size int64) (Entry, error) {
	final := clean(dir + "/" + name)
	tmp := clean(dir + "/" + TempPrefix + name + ".tmp")
	if err := r.c.WriteStreamWithLength(tmp, body, size, 0); err != nil {
		return Entry{}, r.wrap("sending "+name, err)
	}
	if err := r.c.Rename(tmp, final, true); err != nil {
		_ = r.c.Remove(tmp)
		return Entry{}, r.wrap("moving "+name+" into place", err)
	}
	r.rt.over.Store(false)
	fi, err := r.c.Stat(final)
	if err == nil && r.rt.over.Load() {
		err = listingTooLarge(r.rt.maxListing)
	}
	if err != nil {
		return Entry{}, r.wrap("checking "+name, err)
	}
	f, ok := fi.(*gowebdav.File)
	if !ok || f == nil {
		return Entry{}, &Error{Op: "checking " + name, Words: "the server does not list the file it took"}
	}
	e := Entry{Size: f.Size(), ETag: f.ETag()}
	if e.Size != size {
		return Entry{}, &Error{Op: "checking " + name, Words: fmt.Sprintf("the server kept %d bytes of %d", e.Size, size)}
	}
	return e, nil
}

// TempPrefix starts the name a file is uploaded under before it is moved
// to its own; a leftover one is replaced by the next attempt.
const TempPrefix = ".eventbox-upload-"

// Test checks that folder exists or can be made, and that a small file can
// be written there, read back and removed.
func (r *Remote) Test(folder string) error {
	if err := r.MkdirAll(folder); err != nil {
		return err
	}
	if _, ok, err := r.List(folder); err != nil {
		return err
	} else if !ok {
		return &Error{Op: "opening the folder " + folder, Status: 404, Words: "404 Not Found"}
	}
	name := clean(folder + "/" + TempPrefix + "test.txt")
	want := []byte("eventbox can write here. This file removes itself.\n")
	if err := r.c.Write(name, want, 0); err != nil {
		return r.wrap("writing a test file", err)
	}
	// The file is read back up to one byte more than was written: a
	// server that answers more is wrong, however much more it has.
	body, err := r.c.ReadStream(name)
	if err != nil {
		return r.wrap("reading the test file back", err)
	}
	got, err := io.ReadAll(io.LimitReader(body, int64(len(want))+1))
	if cerr := body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r.wrap("reading the test file back", err)
	}
	if !bytes.Equal(got, want) {
		return &Error{Op: "reading the test file back", Words: "the server gave back other bytes than were written"}
	}
	return r.wrap("removing the test file", r.c.Remove(name))
}
