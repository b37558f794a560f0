package daemon

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"eventbox/store"
)

const (
	guestCookie = "gr_guest"
	// guestCookieEvents bounds how many events one browser carries, so the
	// cookie stays far below the 4 KB browsers keep.
	guestCookieEvents = 16
	guestCookieAge    = 365 * 24 * time.Hour
)

// guestEntry is what the gr_guest cookie holds for one joined event.
type guestEntry struct {
	GuestID  string `json:"g"`
	Name     string `json:"n,omitempty"`
	JoinedAt int64  `json:"t"`
}

// guestPass is the decoded gr_guest cookie: the events this browser joined,
// by event id. Event ids (not slugs) are the keys, so rotating a slug
// keeps guests in.
type guestPass map[string]guestEntry

// signed encodes a value as base64url(json) "." base64url(hmac), the form of
// the gr_guest and gr_share cookies.
func (s *Server) signed(v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.guestKey)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// unsign decodes a value made by signed; a forged or garbled value gives
// false.
func (s *Server) unsign(value string, v any) bool {
	p, sig, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return false
	}
	mac := hmac.New(sha256.New, s.guestKey)
	mac.Write(payload)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return false
	}
	return json.Unmarshal(payload, v) == nil
}

// readGuestPass returns the cookie's events; a missing or forged cookie
// is an empty pass.
func (s *Server) readGuestPass(r *http.Request) guestPass {
	pass := guestPass{}
	if c, err := r.Cookie(guestCookie); err == nil {
		if !s.unsign(c.Value, &pass) {
			return guestPass{}
		}
	}
	return pass
}

func (s *Server) writeGuestPass(w http.ResponseWriter, r *http.Request, pass guestPass) error {
	if len(pass) > guestCookieEvents {
		ids := make([]string, 0, len(pass))
		for id := range pass {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return pass[ids[i]].JoinedAt < pass[ids[j]].JoinedAt })
		for _, id := range ids[:len(ids)-guestCookieEvents] {
			delete(pass, id)
		}
	}
	v, err := s.signed(pass)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: guestCookie, Value: v, Path: "/", MaxAge: int(guestCookieAge / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
	return nil
}

// joinedGuest returns the guest this browser is in the event as: its
// stored record, or, for a guest that has not done anything yet, one made
// from the cookie alone (CreatedAt 0; keepGuest stores it). A browser that
// has not joined gets 403 forbidden.
func (s *Server) joinedGuest(r *http.Request, e store.Event) (store.Guest, error) {
	entry, ok := s.readGuestPass(r)[e.ID]
	if !ok || !store.ValidID(entry.GuestID) {
		return store.Guest{}, errForbidden
	}
	g, err := s.store.Guest(r.Context(), e.ID, entry.GuestID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Guest{ID: entry.GuestID, EventID: e.ID, Name: entry.Name}, nil
	}
	if err != nil {
		return store.Guest{}, err
	}
	return g, nil
}

// keepGuest stores a guest that so far lived only in its cookie, when it
// first does something (an upload, a message, a name, a contact): a join
// alone stores nothing, so minting guests costs the box no records
// (docs/decisions.md, "Guessing and lock-out").
func (s *Server) keepGuest(ctx context.Context, g store.Guest) (store.Guest, error) {
	if g.CreatedAt != 0 {
		return g, nil
	}
	return s.store.KeepGuest(ctx, g)
}

// passGuest makes this browser a guest of the event with a fresh id in
// its cookie only, counted in the event's guests; the record waits for
// keepGuest.
func (s *Server) passGuest(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if err := s.store.CountJoin(r.Context(), e.ID); err != nil {
		return err
	}
	pass := s.readGuestPass(r)
	pass[e.ID] = guestEntry{GuestID: store.NewID(), JoinedAt: s.now().UnixMilli()}
	return s.writeGuestPass(w, r, pass)
}

// addGuest creates a guest record for the event at once (the booth
// device, set up by the hosts) and adds it to the browser's pass.
func (s *Server) addGuest(w http.ResponseWriter, r *http.Request, e store.Event, g store.Guest) (store.Guest, error) {
	g.EventID = e.ID
	if err := s.store.CreateGuest(r.Context(), &g); err != nil {
		return store.Guest{}, err
	}
	pass := s.readGuestPass(r)
	pass[e.ID] = guestEntry{GuestID: g.ID, Name: g.Name, JoinedAt: s.now().UnixMilli()}
	return g, s.writeGuestPass(w, r, pass)
}
