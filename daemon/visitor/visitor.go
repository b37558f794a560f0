// Package visitor works out who is asking, for every handler: the
// signed-in console account (the gr_admin session, and the admin and
// owner gates that put it in the request), the events a browser joined as
// a guest (gr_guest), the gallery links it unlocked (gr_share), and from
// those the access.Viewer the rules of daemon/access read (the store
// queries of their filters are access.PhotoQuery and access.MessageQuery).
package visitor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/cookie"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Resolver reads a request's cookies against the store. It is safe for
// concurrent use.
type Resolver struct {
	store   *store.Store
	now     func() time.Time
	cookies *cookie.Codec
}

// New returns a Resolver over the store, reading time from now and the
// signed cookies with cookies.
func New(st *store.Store, now func() time.Time, cookies *cookie.Codec) *Resolver {
	return &Resolver{store: st, now: now, cookies: cookies}
}

const (
	AdminCookie     = "gr_admin"
	SessionLifetime = 7 * 24 * time.Hour
	// sessionTouchEvery limits how often a session's last use is written:
	// a commit per console request would wear an SD card for nothing.
	sessionTouchEvery = time.Minute
)

// SetSessionCookie gives the browser the console session token.
func (x *Resolver) SetSessionCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{
		Name: AdminCookie, Value: token, Path: "/",
		MaxAge: int(SessionLifetime / time.Second), HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	})
}

// Session resolves the admin cookie to a live session. allowPending admits
// a session that still owes its second factor.
func (x *Resolver) Session(r *http.Request, allowPending bool) (string, store.Session, error) {
	c, err := r.Cookie(AdminCookie)
	if err != nil || c.Value == "" {
		return "", store.Session{}, web.ErrUnauthorized
	}
	sess, err := x.store.Sessions().Get(r.Context(), c.Value)
	if errors.Is(err, store.ErrNotFound) {
		return "", store.Session{}, web.ErrUnauthorized
	}
	if err != nil {
		return "", store.Session{}, err
	}
	now := x.now()
	if now.Sub(time.UnixMilli(sess.LastUsedAt)) > SessionLifetime {
		_ = x.store.Sessions().Delete(r.Context(), c.Value)
		return "", store.Session{}, web.ErrUnauthorized
	}
	if sess.NeedsCode && !allowPending {
		return "", store.Session{}, web.ErrUnauthorized
	}
	return c.Value, sess, nil
}

// Admin admits signed-in console users and puts their account in the
// request context; anyone else gets 401 unauthorized.
func (x *Resolver) Admin(h web.HandlerFunc) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, sess, err := x.Session(r, false)
		if err != nil {
			return err
		}
		acct, err := x.store.Accounts().Get(r.Context(), sess.AccountID)
		if errors.Is(err, store.ErrNotFound) {
			return web.ErrUnauthorized
		}
		if err != nil {
			return err
		}
		if now := x.now(); now.Sub(time.UnixMilli(sess.LastUsedAt)) > sessionTouchEvery {
			err := x.store.Sessions().Update(r.Context(), token, func(ss *store.Session) { ss.LastUsedAt = now.UnixMilli() })
			if err != nil {
				return err
			}
			x.SetSessionCookie(w, r, token)
		}
		r = withValue(r, ctxAccount, acct)
		r = withValue(r, ctxSessionToken, token)
		return h(w, r)
	}
}

// Owner admits owners only: organizers get 403 forbidden.
func (x *Resolver) Owner(h web.HandlerFunc) web.HandlerFunc {
	return x.Admin(func(w http.ResponseWriter, r *http.Request) error {
		if !access.OwnerActions(Scope(r)) {
			return web.ErrForbidden
		}
		return h(w, r)
	})
}

// Account is the signed-in account of a request that passed admin.
func Account(r *http.Request) store.Account {
	a, _ := r.Context().Value(ctxAccount).(store.Account)
	return a
}

// SessionToken is the session token of a request that passed Admin.
func SessionToken(r *http.Request) string {
	t, _ := r.Context().Value(ctxSessionToken).(string)
	return t
}

// AdminEvent loads the event named by the :id parameter if the signed-in
// Account may reach it. Events outside an organizer's scope answer 404,
// exactly like events that do not exist.
func (x *Resolver) AdminEvent(r *http.Request) (store.Event, error) {
	id := web.Param(r, "id")
	if !store.ValidID(id) || !access.Reaches(Scope(r), id) {
		return store.Event{}, web.ErrNotFound
	}
	return x.store.Events().Get(r.Context(), id)
}

// ctxKey is the private type of this package's context keys.
type ctxKey int

const (
	ctxAccount ctxKey = iota
	ctxSessionToken
)

func withValue(r *http.Request, k ctxKey, v any) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), k, v))
}

// OptionalAccount returns the signed-in account, if any, without failing
// the request when there is none.
func (x *Resolver) OptionalAccount(r *http.Request) (store.Account, bool) {
	_, sess, err := x.Session(r, false)
	if err != nil {
		return store.Account{}, false
	}
	a, err := x.store.Accounts().Get(r.Context(), sess.AccountID)
	if err != nil {
		return store.Account{}, false
	}
	return a, true
}

const (
	// GuestCookie is the cookie of the events a browser joined.
	GuestCookie = "gr_guest"
	// guestCookieEvents bounds how many events one browser carries, so the
	// cookie stays far below the 4 KB browsers keep.
	guestCookieEvents = 16
	// ShareCookie is the cookie of the gallery links a browser unlocked.
	ShareCookie = "gr_share"
	// shareCookieLinks bounds how many links one browser remembers.
	shareCookieLinks = 24
)

var (
	guestKind = cookie.Kind{Name: GuestCookie, Age: 365 * 24 * time.Hour}
	shareKind = cookie.Kind{Name: ShareCookie, Age: 365 * 24 * time.Hour}
)

// GuestEntry is what the gr_guest cookie holds for one joined event.
type GuestEntry struct {
	GuestID  string `json:"g"`
	Name     string `json:"n,omitempty"`
	JoinedAt int64  `json:"t"`
}

// GuestPassCookie is the decoded gr_guest cookie: the events this browser joined,
// by event id. Event ids (not slugs) are the keys, so rotating a slug
// keeps guests in.
type GuestPassCookie map[string]GuestEntry

// GuestPass returns the cookie's events; a missing or forged cookie
// is an empty pass.
func (x *Resolver) GuestPass(r *http.Request) GuestPassCookie {
	pass := GuestPassCookie{}
	if !x.cookies.Read(r, guestKind, &pass) {
		return GuestPassCookie{}
	}
	return pass
}

// WriteGuestPass sets the gr_guest cookie to pass, keeping its newest
// events only.
func (x *Resolver) WriteGuestPass(w http.ResponseWriter, r *http.Request, pass GuestPassCookie) error {
	cookie.Trim(pass, guestCookieEvents, func(e GuestEntry) int64 { return e.JoinedAt })
	return x.cookies.Write(w, r, guestKind, pass)
}

// JoinedGuest returns the guest this browser is in the event as: its
// stored record, or, for a guest that has not done anything yet, one made
// from the cookie alone (CreatedAt 0; keepGuest stores it). A browser that
// has not joined gets 403 forbidden.
func (x *Resolver) JoinedGuest(r *http.Request, e store.Event) (store.Guest, error) {
	entry, ok := x.GuestPass(r)[e.ID]
	if !ok || !store.ValidID(entry.GuestID) {
		return store.Guest{}, web.ErrForbidden
	}
	g, err := x.store.Guests().Get(r.Context(), e.ID, entry.GuestID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Guest{ID: entry.GuestID, EventID: e.ID, Name: entry.Name}, nil
	}
	if err != nil {
		return store.Guest{}, err
	}
	return g, nil
}

// KeepGuest stores a guest that so far lived only in its cookie, when it
// first does something (an upload, a message, a name, a contact): a join
// alone stores nothing, so minting guests costs the box no records
// (docs/decisions.md, "Guessing and lock-out").
func (x *Resolver) KeepGuest(ctx context.Context, g store.Guest) (store.Guest, error) {
	if g.CreatedAt != 0 {
		return g, nil
	}
	return x.store.Guests().Keep(ctx, g)
}

// PassGuest makes this browser a guest of the event with a fresh id in
// its cookie only, counted in the event's guests; the record waits for
// KeepGuest.
func (x *Resolver) PassGuest(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if err := x.store.Guests().CountJoin(r.Context(), e.ID); err != nil {
		return err
	}
	pass := x.GuestPass(r)
	pass[e.ID] = GuestEntry{GuestID: store.NewID(), JoinedAt: x.now().UnixMilli()}
	return x.WriteGuestPass(w, r, pass)
}

// AddGuest creates a guest record for the event at once (the booth
// device, set up by the hosts) and adds it to the browser's pass.
func (x *Resolver) AddGuest(w http.ResponseWriter, r *http.Request, e store.Event, g store.Guest) (store.Guest, error) {
	g.EventID = e.ID
	if err := x.store.Guests().Create(r.Context(), &g); err != nil {
		return store.Guest{}, err
	}
	pass := x.GuestPass(r)
	pass[e.ID] = GuestEntry{GuestID: g.ID, Name: g.Name, JoinedAt: x.now().UnixMilli()}
	return g, x.WriteGuestPass(w, r, pass)
}

// ShareEntry is what gr_share holds for one link: its event, and when
// this browser unlocked (or first visited) it.
type ShareEntry struct {
	EventID string `json:"e"`
	At      int64  `json:"t"`
}

// SharePassCookie is the decoded gr_share cookie: the gallery links this browser
// unlocked, or visited when they have no password, by link id.
type SharePassCookie map[string]ShareEntry

// SharePass returns the cookie's links; a missing or forged cookie is
// an empty pass.
func (x *Resolver) SharePass(r *http.Request) SharePassCookie {
	pass := SharePassCookie{}
	if !x.cookies.Read(r, shareKind, &pass) {
		return SharePassCookie{}
	}
	return pass
}

// RememberShare adds a link to the browser's gr_share, dropping the
// oldest entries past shareCookieLinks.
func (x *Resolver) RememberShare(w http.ResponseWriter, r *http.Request, sh store.Share) error {
	pass := x.SharePass(r)
	pass[sh.ID] = ShareEntry{EventID: sh.EventID, At: x.now().UnixMilli()}
	cookie.Trim(pass, shareCookieLinks, func(e ShareEntry) int64 { return e.At })
	return x.cookies.Write(w, r, shareKind, pass)
}

// GalleryShares returns the links of the event that this browser unlocked
// or visited, as stored now, for the viewer of the access rules (which
// decide whether each is still live). It is how media, and voice notes
// shared in the gallery, decide whether a gallery viewer may have a file.
func (x *Resolver) GalleryShares(r *http.Request, eventID string) []access.Link {
	var out []access.Link
	for id, entry := range x.SharePass(r) {
		if entry.EventID != eventID || !store.ValidID(id) {
			continue
		}
		sh, err := x.store.Shares().Get(r.Context(), eventID, id)
		if err != nil {
			continue
		}
		out = append(out, access.ShareLink(sh))
	}
	return out
}

// Viewer works out who asks, once per request, for the rules of
// daemon/access: the signed-in account (without failing when there is
// none), the events this browser joined (gr_guest), and the gallery links
// of the event it unlocked or visited (gr_share), as stored now. Only the
// links of eventID are loaded: a request is about one event.
func (x *Resolver) Viewer(r *http.Request, eventID string) access.Viewer {
	v := access.Viewer{Now: x.now().UnixMilli(), Guests: map[string]string{}}
	if a, ok := x.OptionalAccount(r); ok {
		acct := ScopeOf(a)
		v.Account = &acct
	}
	for id, entry := range x.GuestPass(r) {
		v.Guests[id] = entry.GuestID
	}
	v.Links = x.GalleryShares(r, eventID)
	return v
}

// ScopeOf is what the access rules read of an account.
func ScopeOf(a store.Account) access.Account {
	return access.Account{Owner: a.Role == store.RoleOwner, EventIDs: a.EventIDs}
}

// Scope is the signed-in account of a request that passed admin, as the
// access rules read it.
func Scope(r *http.Request) access.Account { return ScopeOf(Account(r)) }

// AccessEvent loads what the access rules read of an event. An event that
// is gone shares nothing.
func (x *Resolver) AccessEvent(ctx context.Context, id string) (access.Event, error) {
	e, err := x.store.Events().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return access.Event{ID: id}, nil
	}
	if err != nil {
		return access.Event{}, fmt.Errorf("loading event %s for access: %w", id, err)
	}
	return access.EventRules(e), nil
}

// Refusal is the error answer of an upload rule's refusal; nil lets the
// upload through.
func Refusal(r access.Refusal) error {
	switch r {
	case access.Accepted:
		return nil
	case access.RefuseClosed:
		return web.ErrUploadsClosed
	case access.RefuseQuota:
		return web.ErrQuotaReached
	case access.RefuseVideos:
		return web.ErrVideosOff
	default:
		return web.ErrForbidden
	}
}
