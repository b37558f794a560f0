package daemon

import (
	"crypto/subtle"
	"net/http"

	"eventbox/daemon/web"
	"eventbox/store"
)

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

// handleBoothJoin makes this device the event's booth: a guest that
// uploads as "Photo booth" without the per-guest quota. A wrong or replaced
// key, or a booth that is off, gets 403. A device that is already the
// booth with the current key stays the same guest.
func (s *Server) handleBoothJoin(w http.ResponseWriter, r *http.Request) error {
	e, err := s.eventBySlug(r)
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
	if g, err := s.visitors.JoinedGuest(r, e); err == nil && isBooth(g, e) {
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if _, err := s.visitors.AddGuest(w, r, e, store.Guest{Booth: true, BoothKeyHash: e.BoothKeyHash}); err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "booth device set up", "event", e.ID)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// isBooth reports whether g is the event's booth device with the current
// key.
func isBooth(g store.Guest, e store.Event) bool {
	return g.Booth && e.BoothKeyHash != "" &&
		subtle.ConstantTimeCompare([]byte(g.BoothKeyHash), []byte(e.BoothKeyHash)) == 1
}

// handleBoothEvents streams the button's triggers and the LED's status to
// the event's booth device as Server-Sent Events (docs/design.md, "Booth
// push"). Anyone else, or a device whose key was replaced, gets 403.
func (s *Server) handleBoothEvents(w http.ResponseWriter, r *http.Request) error {
	e, g, err := s.guestOf(r)
	if err != nil {
		return err
	}
	if !isBooth(g, e) {
		return web.ErrForbidden
	}
	return s.booth.serve(w, r, e.ID)
}
