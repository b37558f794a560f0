package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/assets"
	"eventbox/daemon"
	"eventbox/daemon/outbox"
	"eventbox/store"
)

const ownerPassword = "correct-horse-battery"

// fakeClock is the injected clock of the tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness is the real daemon over a real bbolt file in a temp dir, served
// by httptest.
type harness struct {
	t     *testing.T
	srv   *httptest.Server
	st    *store.Store
	clock *fakeClock
	cfg   daemon.Config
	d     *daemon.Server
	// transport is the clients' transport: nil for the default one, the
	// in-memory network's for a harness inside a synctest bubble.
	transport http.RoundTripper
	// pn is the in-memory network of a bubble harness, else nil.
	pn *pipeNet
}

// testPages is the web interface prepared once for the whole test binary:
// translating and hashing it for each of the hundreds of daemons the tests
// start was a tenth of their CPU under -race.
var testPages = sync.OnceValues(func() (*daemon.Pages, error) { return daemon.PreparePages(assets.Web()) })

func newHarness(t *testing.T, opts ...func(*daemon.Config)) *harness {
	t.Helper()
	return startHarness(t, nil, opts)
}

// newBubbleHarness is newHarness for a test inside a testing/synctest
// bubble: the server and its clients talk over an in-memory network
// (net.Pipe), so every wait in the test (a countdown, a poll, a stream's
// next event) runs on the bubble's fake time and takes no real time.
func newBubbleHarness(t *testing.T, opts ...func(*daemon.Config)) *harness {
	t.Helper()
	return startHarness(t, newPipeNet(), opts)
}

func startHarness(t *testing.T, pn *pipeNet, opts []func(*daemon.Config)) *harness {
	t.Helper()
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.AdminPassword = ownerPassword
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Now = clock.Now
	cfg.Clock.Synced = func() (bool, error) { return true, nil } // NTP keeps the box's clock unless a test says otherwise (clock_test.go)
	cfg.UI = assets.Web()
	pages, err := testPages()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pages = pages
	// No test reaches the machine's own CUPS: printing tests give their
	// private server's address (daemon/printing/cupstest).
	cfg.CUPS = filepath.Join(dir, "no-cups.sock")
	if pn != nil {
		// Inside a bubble nothing may wait in a system call (netlink):
		// the network never changes.
		cfg.NetChanges = outbox.NoChanges
	}
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	st, err := store.Open(ctx, cfg.DataDir, store.Options{Now: clock.Now})
	if err != nil {
		t.Fatalf("opening store: %v", err)
	}
	d, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatalf("new daemon: %v", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		_ = d.Run(runCtx)
		close(done)
	}()
	// httptest.NewServer listens on 127.0.0.1, a loopback address and so
	// one of the box's own names: requests name it in their Host. A test
	// that sends another Host (httptest.NewRequest's example.com, a
	// made-up .local name) must list it in cfg.OwnHosts, or it gets 421.
	srv := httptest.NewUnstartedServer(checkAnswers(t, d.Handler()))
	var transport *http.Transport
	if pn != nil {
		srv.Listener.Close()
		srv.Listener = pn
		transport = &http.Transport{DialContext: pn.DialContext}
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if transport != nil {
			transport.CloseIdleConnections()
		}
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("daemon workers did not stop within 10 s")
		}
		if err := st.Close(); err != nil {
			t.Errorf("closing store: %v", err)
		}
	})
	h := &harness{t: t, srv: srv, st: st, clock: clock, cfg: cfg, d: d}
	if transport != nil {
		h.transport, h.pn = transport, pn
	}
	return h
}

// dial opens a raw connection to the server, for tests that write HTTP by
// hand.
func (h *harness) dial() (net.Conn, error) {
	if h.pn != nil {
		return h.pn.DialContext(context.Background(), "tcp", "")
	}
	return net.Dial("tcp", h.srv.Listener.Addr().String())
}

// pipeNet is an in-memory network with one listener: each dial makes a
// net.Pipe and hands its other end to Accept. Its connections say they
// are from and to 127.0.0.1, a loopback address and one of the box's own
// names.
type pipeNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	port   int
	mu     sync.Mutex
}

func newPipeNet() *pipeNet {
	return &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{}), port: 40000}
}

// Accept answers the server end of the next dial.
func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and dials.
func (n *pipeNet) Close() error {
	n.once.Do(func() { close(n.closed) })
	return nil
}

// Addr is the listener's made-up address.
func (n *pipeNet) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }

// DialContext connects a client to the listener.
func (n *pipeNet) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	n.mu.Lock()
	n.port++
	from := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: n.port}
	n.mu.Unlock()
	client, server := net.Pipe()
	select {
	case n.conns <- pipeConn{Conn: server, local: n.Addr(), remote: from}:
		return pipeConn{Conn: client, local: from, remote: n.Addr()}, nil
	case <-n.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeConn is one end of a net.Pipe with TCP addresses.
type pipeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c pipeConn) LocalAddr() net.Addr  { return c.local }
func (c pipeConn) RemoteAddr() net.Addr { return c.remote }

// client is one browser: its own cookie jar, and the page's Origin on
// every request unless told otherwise.
type client struct {
	h      *harness
	hc     *http.Client
	origin string
}

func (h *harness) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{h: h, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: h.transport}, origin: h.srv.URL}
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (r response) code() string {
	s, _ := r.JSON["error"].(string)
	return s
}

func (r response) details() map[string]any {
	d, _ := r.JSON["details"].(map[string]any)
	return d
}

// do sends a request; body is JSON-encoded unless it is a string or
// []byte, sent as is.
func (c *client) do(method, path string, body any, headers ...string) response {
	c.h.t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.h.t.Fatalf("encoding body: %v", err)
		}
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.h.srv.URL+path, rdr)
	if err != nil {
		c.h.t.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if http.CanonicalHeaderKey(headers[i]) == "Host" {
			// net/http sends req.Host, never a Host in the header map.
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		c.h.t.Fatalf("reading %s %s: %v", method, path, err)
	}
	out := response{Status: res.StatusCode, Header: res.Header, Body: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.JSON); err != nil {
			c.h.t.Fatalf("%s %s: answer is not JSON: %v: %s", method, path, err, raw)
		}
	}
	return out
}

// expect fails the test unless the answer has the status and, for an
// error, the code.
func (r response) expect(t *testing.T, status int, code string) response {
	t.Helper()
	if r.Status != status || r.code() != code {
		t.Fatalf("got %d %q, want %d %q; body: %s", r.Status, r.code(), status, code, r.Body)
	}
	return r
}

// owner returns a client signed in as the first owner.
func (h *harness) owner() *client {
	c := h.client()
	c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(h.t, 200, "")
	return c
}

// organizer creates an organizer account for the events and returns a
// client signed in as it.
func (h *harness) organizer(username string, eventIDs ...string) *client {
	h.t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("organizer-password"), bcrypt.MinCost)
	if err != nil {
		h.t.Fatal(err)
	}
	a := store.Account{Username: username, Role: store.RoleOrganizer, EventIDs: eventIDs, PasswordHash: string(hash)}
	if err := h.st.Accounts().Create(context.Background(), &a); err != nil {
		h.t.Fatalf("creating organizer: %v", err)
	}
	c := h.client()
	c.do("POST", "/api/admin/login", map[string]any{"username": username, "password": "organizer-password"}).expect(h.t, 200, "")
	return c
}

// createEvent makes an event as the owner and returns its JSON.
func (h *harness) createEvent(c *client, fields map[string]any) map[string]any {
	h.t.Helper()
	r := c.do("POST", "/api/admin/events", fields).expect(h.t, 201, "")
	return r.JSON["event"].(map[string]any)
}

// waitVariants waits until no photo of the store has a variant job left.
func waitVariants(t *testing.T, h *harness) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		jobs := variantJobs(t, h.st)
		if len(jobs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d variant jobs still queued after 60 s", len(jobs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
