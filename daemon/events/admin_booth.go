package events

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"eventbox/daemon/dto"
	"eventbox/daemon/qr"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Booth key limits (docs/design.md, "Booth key").
const (
	minBoothKey = 16
	maxBoothKey = 128
)

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

// EnableBooth turns the event's booth on, or gives it a new key: the
// device holding the old key stops working at once (its stream ends, its
// uploads get 403). The key is answered once; only its hash is kept.
func (a *API) EnableBooth(w http.ResponseWriter, r *http.Request) error {
	e, err := a.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
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
		a.cfg.DropBooth(e.ID)
	}
	a.log.InfoContext(r.Context(), "booth turned on", "event", e.ID, "replaced", old != "" && old != hash, "by", visitor.Account(r).Username)
	link := a.boothURL(r, e, key)
	var svg bytes.Buffer
	// Plain black on white: the code holds a long link, and the tablet's
	// camera must read it at once.
	if err := a.cfg.QR.SVG(&svg, link, qr.MinSize, qr.DefaultStyle(), ""); err != nil {
		return fmt.Errorf("drawing the booth link's qr code: %w", err)
	}
	return web.JSON(w, r, http.StatusOK, boothBody{Event: dto.EventOf(e), BoothKey: key, URL: link,
		QR: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg.Bytes())})
}

// DisableBooth turns the event's booth off: its device is refused
// from now on.
func (a *API) DisableBooth(w http.ResponseWriter, r *http.Request) error {
	e, err := a.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	if _, err := a.store.Events().Update(r.Context(), e.ID, func(e *store.Event) error {
		e.BoothKeyHash = ""
		return nil
	}); err != nil {
		return err
	}
	a.cfg.DropBooth(e.ID)
	a.log.InfoContext(r.Context(), "booth turned off", "event", e.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}
