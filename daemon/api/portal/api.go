package portal

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"eventbox/daemon/web"
)

// PagePath is the portal page, which the probes of a device that has not
// gone through, and the pages its mini-browser asks, are sent to.
const PagePath = "/portal"

// Config is what the portal page's routes need.
type Config struct {
	// Passes remembers the devices that went on; it must not be nil.
	Passes *Passes
	// Limit counts the continues of each device (Device: an IPv4
	// address, an IPv6 /64); it must not be nil.
	Limit *web.RateLimiter
	// Event is the path of the page the guest should open (the one open
	// event's, or the start page); Origin is the box's origin for the
	// request (no final slash). Neither may be nil.
	Event  func(r *http.Request) string
	Origin func(r *http.Request) string
}

// API answers the portal page's routes: where the event is, and the
// guest's "continue" that marks the device as gone through.
type API struct {
	cfg Config
}

// New makes the portal page's routes.
func New(cfg Config) *API { return &API{cfg: cfg} }

// Passes is the memory of the devices that went on.
func (a *API) Passes() *Passes { return a.cfg.Passes }

// stateBody is GET /api/portal's answer.
type stateBody struct {
	Address string `json:"address"`
	Through bool   `json:"through"`
}

// continueBody is POST /api/portal/continue's answer.
type continueBody struct {
	Address string `json:"address"`
	Until   int64  `json:"until"`
}

// address is the event's absolute address for r.
func (a *API) address(r *http.Request) string {
	return a.cfg.Origin(r) + a.cfg.Event(r)
}

// State answers GET /api/portal: the address to open in the phone's own
// browser, and whether this device already went on.
func (a *API) State(w http.ResponseWriter, r *http.Request) error {
	through := false
	if addr, ok := clientAddr(r); ok {
		through = a.cfg.Passes.Has(addr)
	}
	return web.JSON(w, r, http.StatusOK, stateBody{Address: a.address(r), Through: through})
}

// Continue answers POST /api/portal/continue: the device's address is
// remembered as gone through for a lease, so that its probes are answered
// as connected (Connected) and the sheet goes away. A device over its
// limit, or a new one while every remembered pass is live, gets 429
// rate_limited with Retry-After: no live pass is ever dropped for it.
func (a *API) Continue(w http.ResponseWriter, r *http.Request) error {
	addr, ok := clientAddr(r)
	if !ok {
		return fmt.Errorf("reading the client's address %q for the portal", r.RemoteAddr)
	}
	if ok, retry := a.cfg.Limit.Allow(Device(addr).String()); !ok {
		return web.RateLimited(retry)
	}
	until, err := a.cfg.Passes.Mark(addr)
	var full *FullError
	if errors.As(err, &full) {
		return web.RateLimited(secondsUntil(full.Free, a.cfg.Passes.now()))
	}
	if err != nil {
		return fmt.Errorf("remembering %s's pass: %w", addr, err)
	}
	return web.JSON(w, r, http.StatusOK, continueBody{Address: a.address(r), Until: until.UnixMilli()})
}

// secondsUntil is the whole seconds from now to t, at least 1, for
// Retry-After.
func secondsUntil(t, now time.Time) int {
	return max(int((t.Sub(now)+time.Second-1)/time.Second), 1)
}
