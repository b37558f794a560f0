package daemontest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/assets"
	"eventbox/daemon"
	"eventbox/daemon/outbox"
	"eventbox/store"
)

// OwnerPassword is the first owner's password on every harness's daemon.
const OwnerPassword = "correct-horse-battery"

// Harness is the real daemon over a real bbolt file in a temp dir, served
// by httptest. A test that starts its daemon its own way may fill the
// fields itself; Daemon may then be nil.
type Harness struct {
	// T is the test the harness belongs to: its helpers fail it.
	T testing.TB
	// Server serves the daemon's handler, wrapped in CheckAnswers.
	Server *httptest.Server
	// Store is the daemon's store.
	Store *store.Store
	// Clock is the daemon's and the store's clock.
	Clock *FakeClock
	// Config is the configuration the daemon was built with.
	Config daemon.Config
	// Daemon is the running daemon.
	Daemon *daemon.Server
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

// New starts the daemon over a store in t's temp dir, its configuration
// the defaults with OwnerPassword, the cheapest bcrypt cost, a discarded
// log, a FakeClock at 2026-06-20 15:00 UTC, a synced NTP clock and no
// CUPS, changed by opts in order. Everything stops when t ends.
func New(t testing.TB, opts ...func(*daemon.Config)) *Harness {
	t.Helper()
	return start(t, nil, opts)
}

// NewBubble is New for a test inside a testing/synctest bubble: the
// server and its clients talk over an in-memory network (net.Pipe), so
// every wait in the test (a countdown, a poll, a stream's next event) runs
// on the bubble's fake time and takes no real time.
func NewBubble(t testing.TB, opts ...func(*daemon.Config)) *Harness {
	t.Helper()
	return start(t, newPipeNet(), opts)
}

func start(t testing.TB, pn *pipeNet, opts []func(*daemon.Config)) *Harness {
	t.Helper()
	ctx := context.Background()
	clock := NewFakeClock(time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.AdminPassword = OwnerPassword
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Now = clock.Now
	cfg.Clock.Synced = func() (bool, error) { return true, nil } // NTP keeps the box's clock unless a test says otherwise (daemon/scenarios/clock_test.go)
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
	srv := httptest.NewUnstartedServer(CheckAnswers(t, d.Handler()))
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
	h := &Harness{T: t, Server: srv, Store: st, Clock: clock, Config: cfg, Daemon: d}
	if transport != nil {
		h.transport, h.pn = transport, pn
	}
	return h
}

// Dial opens a raw connection to the server, for tests that write HTTP by
// hand.
func (h *Harness) Dial() (net.Conn, error) {
	if h.pn != nil {
		return h.pn.DialContext(context.Background(), "tcp", "")
	}
	return net.Dial("tcp", h.Server.Listener.Addr().String())
}

// Transport is the transport the harness's clients use: nil for the
// default one, the in-memory network's for a harness of NewBubble.
func (h *Harness) Transport() http.RoundTripper { return h.transport }

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

// WaitVariants waits until no photo of the store has a variant job left,
// failing t after 60 s.
func WaitVariants(t testing.TB, st *store.Store) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		jobs := VariantJobs(t, st)
		if len(jobs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d variant jobs still queued after 60 s", len(jobs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// VariantJobs returns the store's unfinished (queued or running) variant
// jobs.
func VariantJobs(t testing.TB, st *store.Store) []store.Job {
	t.Helper()
	jobs, err := st.Jobs().Unfinished(context.Background(), store.VariantJobKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
