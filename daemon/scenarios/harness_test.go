package scenarios_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"eventbox/daemon"
	"eventbox/daemon/daemontest"
	"eventbox/store"
)

// The harness is the test kit's (daemon/daemontest): the real daemon over
// a real store in a temp dir, served by httptest, every answer checked
// against api/openapi.yaml. What is here are the scenarios' short names
// for it, and the methods the scenarios add to its harness and clients.

const ownerPassword = daemontest.OwnerPassword

// harness is the kit's harness, with its fields under the scenarios'
// names.
type harness struct {
	*daemontest.Harness
	t     *testing.T
	srv   *httptest.Server
	st    *store.Store
	clock *daemontest.FakeClock
	cfg   daemon.Config
	d     *daemon.Server
}

// wrap names the kit's harness for the scenarios.
func wrap(t *testing.T, k *daemontest.Harness) *harness {
	return &harness{Harness: k, t: t, srv: k.Server, st: k.Store, clock: k.Clock, cfg: k.Config, d: k.Daemon}
}

func newHarness(t *testing.T, opts ...func(*daemon.Config)) *harness {
	t.Helper()
	return wrap(t, daemontest.New(t, opts...))
}

// newBubbleHarness is newHarness for a test inside a testing/synctest
// bubble (daemontest.NewBubble): every wait runs on the bubble's fake
// time.
func newBubbleHarness(t *testing.T, opts ...func(*daemon.Config)) *harness {
	t.Helper()
	return wrap(t, daemontest.NewBubble(t, opts...))
}

// dial opens a raw connection to the server, for tests that write HTTP by
// hand.
func (h *harness) dial() (net.Conn, error) { return h.Dial() }

// client is one browser: its own cookie jar, and the page's Origin on
// every request unless told otherwise.
type client struct {
	h      *harness
	hc     *http.Client
	origin string
}

// kit is the client as the kit's, with its current origin.
func (c *client) kit() *daemontest.Client {
	return &daemontest.Client{H: c.h.Harness, HTTP: c.hc, Origin: c.origin}
}

func (h *harness) client() *client { return h.adopt(h.Client()) }

// adopt is the kit's client as the scenarios'.
func (h *harness) adopt(k *daemontest.Client) *client {
	return &client{h: h, hc: k.HTTP, origin: k.Origin}
}

// response is a decoded answer.
type response daemontest.Response

func (r response) code() string { return daemontest.Response(r).Code() }

func (r response) details() map[string]any { return daemontest.Response(r).Details() }

// expect fails the test unless the answer has the status and, for an
// error, the code.
func (r response) expect(t *testing.T, status int, code string) response {
	t.Helper()
	return response(daemontest.Response(r).Expect(t, status, code))
}

// do sends a request; body is JSON-encoded unless it is a string or
// []byte, sent as is.
func (c *client) do(method, path string, body any, headers ...string) response {
	c.h.t.Helper()
	return response(c.kit().Do(method, path, body, headers...))
}

// upload sends a photo as a guest and returns the answer.
func (c *client) upload(slug string, data []byte, fields map[string]string, query string) response {
	c.h.t.Helper()
	return response(c.kit().Upload(slug, data, fields, query))
}

// owner returns a client signed in as the first owner.
func (h *harness) owner() *client { return h.adopt(h.Owner()) }

// organizer creates an organizer account for the events and returns a
// client signed in as it.
func (h *harness) organizer(username string, eventIDs ...string) *client {
	h.t.Helper()
	return h.adopt(h.Organizer(username, eventIDs...))
}

// createEvent makes an event as the owner and returns its JSON.
func (h *harness) createEvent(c *client, fields map[string]any) map[string]any {
	h.t.Helper()
	return h.CreateEvent(c.kit(), fields)
}

// guest returns a client that joined the event with the slug.
func (h *harness) guest(slug string) *client { return h.adopt(h.Guest(slug)) }

// waitVariants waits until no photo of the store has a variant job left.
func waitVariants(t *testing.T, h *harness) {
	t.Helper()
	daemontest.WaitVariants(t, h.st)
}
