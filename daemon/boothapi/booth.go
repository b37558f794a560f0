// Package boothapi is the photo booth's side of the daemon: the console's
// routes that turn an event's booth on and off (/api/admin/events/:id/booth),
// the booth device's set-up and its stream of button presses and LED
// status (/api/e/:slug/booth, /api/e/:slug/booth/events), and the [Relay],
// the service that runs the box's booth hardware (package booth, the GPIO)
// and relays its presses to the booth pages.
package boothapi

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"eventbox/daemon/dto"
	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/qr"
	"eventbox/store"
)

// Booth key limits (docs/design.md, "Booth key").
const (
	minBoothKey = 16
	maxBoothKey = 128
)

// Config sets up the booth routes.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	// Relay is the box's booth relay: the device's stream, and the
	// streams ended when the booth's key changes.
	Relay *Relay
	// QR draws the booth link's QR code.
	QR *qr.Renderer
	// Origin is the box's address as the request reached it, for the
	// booth link.
	Origin func(r *http.Request) string
}

// API is the booth routes. Build it with New.
type API struct {
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	relay    *Relay
	qr       *qr.Renderer
	origin   func(r *http.Request) string
}

// New makes the booth routes.
func New(cfg Config) *API {
	return &API{store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, relay: cfg.Relay, qr: cfg.QR,
		origin: cfg.Origin}
}

type boothRequest struct {
	BoothKey web.Nullable[string] `json:"boothKey"`
}

type boothBody struct {
	Event    dto.Event `json:"event"`
	BoothKey string    `json:"boothKey"`
	URL      string    `json:"url"`
	// QR is the booth link as a QR code, an SVG data: URL, for the
	// console to show once: the tablet opens the link with one scan. Not
	// in the spec (docs/decisions.md, "Booth link as a QR code").
	QR string `json:"qr"`
}

// boothKeyProblem checks a key the hosts chose: 16 to 128 characters, no
// spaces or control characters (it travels in a URL and is typed rarely).
func boothKeyProblem(key string) string {
	msg := fmt.Sprintf("must be %d to %d characters without spaces (null: the box makes one)", minBoothKey, maxBoothKey)
	if n := utf8.RuneCountInString(key); n < minBoothKey || n > maxBoothKey || !utf8.ValidString(key) {
		return msg
	}
	if strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return msg
	}
	return ""
}

// boothURL opens the booth page of the event on a device, carrying the key
// (the guest page turns into the booth with ?booth=).
func (a *API) boothURL(r *http.Request, e store.Event, key string) string {
	return a.origin(r) + "/e/" + url.PathEscape(e.Slug) + "?booth=" + url.QueryEscape(key)
}

// Enable turns the event's booth on, or gives it a new key: the
// device holding the old key stops working at once (its stream ends, its
// uploads get 403). The key is answered once; only its hash is kept.
func (a *API) Enable(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	var req boothRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	key := req.BoothKey.Value
	if !req.BoothKey.Set || req.BoothKey.Null {
		key = store.NewToken()
	} else if msg := boothKeyProblem(key); msg != "" {
		return web.Field("boothKey", msg)
	}
	hash := store.HashToken(key)
	old := e.BoothKeyHash
	e, err = a.store.Events().Update(r.Context(), e.ID, func(e *store.Event) error {
		e.BoothKeyHash = hash
		return nil
	})
	if err != nil {
		return err
	}
	if old != hash {
		a.relay.Drop(e.ID)
	}
	a.log.InfoContext(r.Context(), "booth turned on", "event", e.ID, "replaced", old != "" && old != hash, "by", visitor.Account(r).Username)
	link := a.boothURL(r, e, key)
	var svg bytes.Buffer
	// Plain black on white: the code holds a long link, and the tablet's
	// camera must read it at once.
	if err := a.qr.SVG(&svg, link, qr.MinSize, qr.DefaultStyle(), ""); err != nil {
		return fmt.Errorf("drawing the booth link's qr code: %w", err)
	}
	return web.JSON(w, r, http.StatusOK, boothBody{Event: dto.EventOf(e), BoothKey: key, URL: link,
		QR: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg.Bytes())})
}

// Disable turns the event's booth off: its device is refused
// from now on.
func (a *API) Disable(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if _, err := a.store.Events().Update(r.Context(), e.ID, func(e *store.Event) error {
		e.BoothKeyHash = ""
		return nil
	}); err != nil {
		return err
	}
	a.relay.Drop(e.ID)
	a.log.InfoContext(r.Context(), "booth turned off", "event", e.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

type boothJoinRequest struct {
	Key string `json:"key"`
}

// boothKeyMatches compares a key with the event's current one in constant
// time; an event without a booth matches nothing.
func boothKeyMatches(e store.Event, key string) bool {
	if e.BoothKeyHash == "" || key == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(store.HashToken(key)), []byte(e.BoothKeyHash)) == 1
}

// Join makes this device the event's booth: a guest that
// uploads as "Photo booth" without the per-guest quota. A wrong or replaced
// key, or a booth that is off, gets 403. A device that is already the
// booth with the current key stays the same guest.
func (a *API) Join(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	var req boothJoinRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if !boothKeyMatches(e, req.Key) {
		return web.ErrForbidden
	}
	if g, err := a.visitors.JoinedGuest(r, e); err == nil && isBooth(g, e) {
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if _, err := a.visitors.AddGuest(w, r, e, store.Guest{Booth: true, BoothKeyHash: e.BoothKeyHash}); err != nil {
		return err
	}
	a.log.InfoContext(r.Context(), "booth device set up", "event", e.ID)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// isBooth reports whether g is the event's booth device with the current
// key.
func isBooth(g store.Guest, e store.Event) bool {
	return g.Booth && e.BoothKeyHash != "" &&
		subtle.ConstantTimeCompare([]byte(g.BoothKeyHash), []byte(e.BoothKeyHash)) == 1
}

// Events streams the button's triggers and the LED's status to
// the event's booth device as Server-Sent Events (docs/design.md, "Booth
// push"). Anyone else, or a device whose key was replaced, gets 403.
func (a *API) Events(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	g, err := a.visitors.JoinedGuest(r, e)
	if err != nil {
		return err
	}
	if !isBooth(g, e) {
		return web.ErrForbidden
	}
	return a.relay.Serve(w, r, e.ID)
}
