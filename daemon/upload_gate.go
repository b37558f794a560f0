package daemon

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
)

// The pace and concurrency of upload bodies (docs/decisions.md, "Slow and
// concurrent uploads").
const (
	// defaultUploadWindow and defaultUploadMinBytes: every 30 s of an
	// upload must bring at least 16 KiB (about 550 bytes/s), or the body
	// is cut. A phone at the edge of a busy 2.4 GHz hotspot still sends
	// tens of KB/s; a client that sends nothing, or a byte now and then,
	// holds its temp file and descriptors for at most one window.
	defaultUploadWindow   = 30 * time.Second
	defaultUploadMinBytes = 16 << 10
	// maxUploadsPerGuest is how many upload bodies one guest (or one
	// console account) may send at once; the guest page sends two, the
	// booth one.
	maxUploadsPerGuest = 3
	// maxUploadsPerAddress is how many upload bodies one client address
	// may send at once, whoever it claims to be.
	maxUploadsPerAddress = 8
	// lingerTime is the longest the box reads and throws away the rest
	// of a refused upload's body (refuseUpload): a 40 MB photo at a
	// hotspot's edge, about 1 MB/s, is in within it.
	lingerTime = 60 * time.Second
	// lingerFactor times the largest body the box takes is the most of a
	// refused body it reads and throws away: a phone's 4K video or a
	// 48 MP RAW is a few times the limits, not a hundred.
	lingerFactor = 4
	// uploadBusyRetry is the Retry-After of an upload refused for being
	// one too many at once, in seconds.
	uploadBusyRetry = 5
)

// uploadGate counts the upload bodies in progress per key and paces them.
// It is safe for concurrent use.
type uploadGate struct {
	window   time.Duration
	minBytes int64
	// lingerBytes is the most of a refused body read and thrown away
	// (refuseUpload): lingerFactor times the largest body the box takes.
	lingerBytes int64

	mu     sync.Mutex
	active map[string]int
	// uploads counts upload bodies being received; gen moves at each
	// start and end of one, and change is closed and replaced when it
	// does. The cloud export reads them to pause while guests upload
	// (activity).
	uploads int
	gen     uint64
	change  chan struct{}
}

// activity answers the upload activity: how many uploads are being
// received, a counter that moves whenever one starts or ends, and a
// channel closed at the next move. It is cheap: one lock, no allocation.
func (g *uploadGate) activity() (busy int, gen uint64, change <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.uploads, g.gen, g.change
}

// moved records a start or end of an upload; g.mu is held.
func (g *uploadGate) moved(by int) {
	g.uploads += by
	g.gen++
	close(g.change)
	g.change = make(chan struct{})
}

// newUploadGate paces bodies at minBytes per window (zero values take the
// defaults) and drains refused bodies up to lingerBytes.
func newUploadGate(window time.Duration, minBytes, lingerBytes int64) *uploadGate {
	if window <= 0 {
		window = defaultUploadWindow
	}
	if minBytes <= 0 {
		minBytes = defaultUploadMinBytes
	}
	return &uploadGate{window: window, minBytes: minBytes, lingerBytes: lingerBytes, active: map[string]int{}, change: make(chan struct{})}
}

// uploadKey is one counted key and its limit.
type uploadKey struct {
	key   string
	limit int
}

// acquire takes a slot under every key, or none when one of them is full.
// The returned release must be called once when the body is done.
func (g *uploadGate) acquire(keys ...uploadKey) (release func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		if g.active[k.key] >= k.limit {
			return nil, false
		}
	}
	for _, k := range keys {
		g.active[k.key]++
	}
	g.moved(1)
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.moved(-1)
		for _, k := range keys {
			if g.active[k.key]--; g.active[k.key] <= 0 {
				delete(g.active, k.key)
			}
		}
	}, true
}

// upload wraps an upload route. Before any byte of the body is read it
// takes a slot for the uploader (who(r): a guest or account id, "" when
// unknown; the handler then refuses the request itself) and for the
// client address, answering 429 rate_limited with Retry-After when either
// already has its most uploads in progress; that answer closes the
// connection, so it goes out at once instead of after the body. The body
// itself is paced by paceBodies; when the pace cut it, the handler's read
// failed (its temp file is removed) and the answer is 408 timeout. Any
// other refusal, before the body or in the middle of it, a full card's
// 507 as much as a 413, goes out through refuseUpload.
func (s *Server) upload(who func(r *http.Request) string, h web.HandlerFunc) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		keys := []uploadKey{{"addr:" + web.ClientIP(r), maxUploadsPerAddress}}
		if id := who(r); id != "" {
			keys = append(keys, uploadKey{"who:" + id, maxUploadsPerGuest})
		}
		release, ok := s.uploads.acquire(keys...)
		if !ok {
			w.Header().Set("Connection", "close")
			return web.RateLimited(uploadBusyRetry)
		}
		defer release()
		body, _ := r.Body.(*pacedBody)
		err := h(w, r)
		if body != nil && body.cut {
			// The rest of this body may still be on its way: the
			// connection cannot carry another request.
			w.Header().Set("Connection", "close")
			s.log.DebugContext(r.Context(), "upload body too slow, cut", "path", web.LogPath(r))
			return web.ErrBodyTimeout
		}
		if err != nil && body != nil {
			s.refuseUpload(w, r, body, err)
			return nil
		}
		return err
	}
}

// refuseUpload answers an upload refused before its body was all read
// (too_large, uploads_closed, quota_reached, videos_off, a bad form, and
// the box's own faults: insufficient_storage from the storage guard or
// from a write that met the full card mid-body, unavailable) so
// that a client that sends its whole body before reading the answer (a
// browser's fetch of a file, Python's http.client) reads it: the answer
// goes out, the rest of the body is read and thrown away, up to
// lingerBytes and lingerTime, and then the connection closes. Closing
// with the body still arriving would make the box's TCP stack reset the
// connection, and the client would lose the answer with it
// (docs/decisions.md, "Refusals a sending client can read"). The upload
// slot stays taken while the body drains, so draining is bounded by the
// same per-guest and per-address counts as receiving.
func (s *Server) refuseUpload(w http.ResponseWriter, r *http.Request, body *pacedBody, err error) {
	w.Header().Set("Connection", "close")
	s.writeError(w, r, err)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	// A client that waits for 100 Continue and never got it (nothing of
	// the body was read) has sent nothing: reading now would invite it.
	if body.total == 0 && r.Header.Get("Expect") != "" {
		return
	}
	// Network deadlines are real time, as in pace.
	body.until = time.Now().Add(lingerTime)
	deadline := time.Now().Add(body.window)
	if deadline.After(body.until) {
		deadline = body.until
	}
	if rc.SetReadDeadline(deadline) != nil {
		// A connection without read deadlines (only a test's recorder):
		// a drain could not be bounded in time.
		return
	}
	limit := s.uploads.lingerBytes
	n, derr := io.Copy(io.Discard, io.LimitReader(body, limit))
	s.log.DebugContext(r.Context(), "refused upload drained", "path", web.LogPath(r),
		"bytes", n, "complete", derr == nil && n < limit)
}

// paceBodies paces every request body (uploadGate.pace): a client that
// announces a body and then sends it too slowly, or not at all, is cut
// after one window instead of holding its connection, its goroutine and,
// for an upload, a temp file.
func (s *Server) paceBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			r.Body = s.uploads.pace(w, r.Body)
		}
		next.ServeHTTP(w, r)
	})
}

// pacedBody is a request body whose connection read deadline moves ahead
// as the body arrives at the gate's pace.
type pacedBody struct {
	io.ReadCloser
	rc       *http.ResponseController
	window   time.Duration
	minBytes int64
	got      int64 // bytes since the deadline last moved
	total    int64 // bytes read in all
	cut      bool  // a read failed on the deadline
	// until, when set, is the latest the deadline may move to: the
	// end of a refused body's drain (refuseUpload).
	until time.Time
}

// pace sets the first deadline and wraps body. Read deadlines are the
// network's real time, so they use time.Now, not the injected clock.
func (g *uploadGate) pace(w http.ResponseWriter, body io.ReadCloser) *pacedBody {
	b := &pacedBody{ReadCloser: body, rc: http.NewResponseController(w), window: g.window, minBytes: g.minBytes}
	// A writer without deadlines (a test recorder) leaves the body
	// unpaced; every real connection supports them.
	_ = b.rc.SetReadDeadline(time.Now().Add(g.window))
	return b
}

func (b *pacedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// At the body's end net/http clears the deadline itself and
		// starts watching the connection for the client going away:
		// a deadline set now would end the request's context while the
		// handler still stores the upload. So the deadline is left alone.
		if isTimeout(err) {
			b.cut = true
		}
		return n, err
	}
	b.got += int64(n)
	b.total += int64(n)
	if b.got >= b.minBytes {
		b.got = 0
		deadline := time.Now().Add(b.window)
		if !b.until.IsZero() && deadline.After(b.until) {
			deadline = b.until
		}
		_ = b.rc.SetReadDeadline(deadline)
	}
	return n, err
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// guestUploader is who(r) for guest upload routes: the guest id of the
// browser's pass for the :slug event.
func (s *Server) guestUploader(r *http.Request) string {
	e, err := photos.EventBySlug(r, s.store.Events())
	if err != nil {
		return ""
	}
	return s.visitors.GuestPass(r)[e.ID].GuestID
}

// accountUploader is who(r) for console upload routes (behind s.admin):
// the signed-in account.
func (s *Server) accountUploader(r *http.Request) string {
	if a := visitor.Account(r); a.ID != "" {
		return "account:" + a.ID
	}
	return ""
}
