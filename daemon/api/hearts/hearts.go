// Package hearts is the hearts guests give photos: a joined guest hearts
// the shared album's photos (/api/e/:slug/photos/:id/heart), a gallery
// link's visitor the link's photos (/api/g/:token/photos/:id/heart), one
// heart per guest or browser and photo, taken back with DELETE; each list
// page asks which of its photos this guest or browser hearted
// (/api/e/:slug/hearts, /api/g/:token/hearts). A gallery visitor is one
// browser, named by the signed gr_heart cookie this package gives it
// (docs/decisions/gallery.md, "Hearts: who is one guest"). The counts,
// the most-loved order and the removal with a hidden or deleted photo are
// the store's (store/hearts.go); a heart is told to the consoles and walls
// as a change of the photo.
package hearts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"eventbox/daemon/cookie"
	"eventbox/daemon/live"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Config is what the heart routes use. Every field is required.
type Config struct {
	Store   *store.Store
	Cookies *cookie.Codec
	Logger  *slog.Logger
	// GuestOf resolves the :slug event and the guest this browser is in
	// it (403 forbidden for a browser that has not joined).
	GuestOf func(r *http.Request) (store.Event, store.Guest, error)
	// GuestSees answers whether this browser may see the photo, by the
	// rule of the guest media route (GET /api/media/:id, daemon/api/guests:
	// the album's sharing and reveal, the guest's own photos): nil, or
	// web.ErrNotFound (or web.ErrForbidden) when it may not, or the error
	// that kept it from knowing.
	GuestSees func(r *http.Request, p store.Photo) error
	// GalleryShare resolves the :token link this browser may see (404
	// for a dead link, 403 forbidden before its password).
	GalleryShare func(w http.ResponseWriter, r *http.Request) (store.Share, store.Event, error)
	// Live tells the consoles and walls of a photo's new hearts
	// (daemon/live.Publisher).
	Live live.Changes
}

// API holds the heart routes' handlers.
type API struct{ cfg Config }

// New returns the heart routes over cfg.
func New(cfg Config) *API { return &API{cfg: cfg} }

// BrowserCookie is the name of the cookie that names a gallery visitor's
// browser for its hearts.
const BrowserCookie = "gr_heart"

var browserKind = cookie.Kind{Name: BrowserCookie, Path: "/api/g/", Age: 365 * 24 * time.Hour}

type browserPass struct {
	ID string `json:"id"`
}

// MaxAsked is how many photo ids one GET …/hearts may ask about: a page
// of the lists, with room.
const MaxAsked = 200

// HeartBody is the answer of a heart and its undo: the photo's count
// after, and whether this guest or browser now hearts it.
type HeartBody struct {
	ID      string `json:"id"`
	Hearts  int    `json:"hearts"`
	Hearted bool   `json:"hearted"`
}

// GivenBody is the answer of …/hearts?ids=: the asked photos this guest
// or browser hearted.
type GivenBody struct {
	Hearted []string `json:"hearted"`
}

// GuestHeart gives the joined guest's heart to a photo of the album (PUT)
// or takes it back (DELETE). A photo the guest may not see (GuestSees:
// another guest's while the album is not shared or before its reveal, not
// visible, another event's, unknown) answers 404, and nothing changes.
func (a *API) GuestHeart(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.cfg.GuestOf(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	return a.set(w, r, e.ID, id, store.GuestHearter(g.ID), a.guestSees(r))
}

// GuestGiven answers which of ids= (comma-separated) the joined guest
// hearted, among the photos the guest may see now (GuestSees): a photo
// held back by the reveal is not named.
func (a *API) GuestGiven(w http.ResponseWriter, r *http.Request) error {
	_, g, err := a.cfg.GuestOf(r)
	if err != nil {
		return err
	}
	return a.given(w, r, store.GuestHearter(g.ID), a.guestSees(r))
}

// guestSees is the guest's rule for r's photos (Config.GuestSees), as
// set and given take it.
func (a *API) guestSees(r *http.Request) func(store.Photo) error {
	return func(p store.Photo) error { return a.cfg.GuestSees(r, p) }
}

// GalleryHeart gives the browser's heart to a photo of the link (PUT) or
// takes it back (DELETE); the link's password comes first, as for its
// photos. A photo the link does not show answers 404.
func (a *API) GalleryHeart(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := a.cfg.GalleryShare(w, r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	h, err := a.browser(w, r, true)
	if err != nil {
		return err
	}
	return a.set(w, r, e.ID, id, h, func(p store.Photo) error {
		if sh.FavoritesOnly && !p.Favorite {
			return web.ErrNotFound
		}
		return nil
	})
}

// GalleryGiven answers which of ids= the browser hearted through any
// link.
func (a *API) GalleryGiven(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := a.cfg.GalleryShare(w, r); err != nil {
		return err
	}
	h, err := a.browser(w, r, false)
	if err != nil {
		return err
	}
	return a.given(w, r, h, nil)
}

// browser is the hearter of this browser's gr_heart, made and given to
// the browser when create is set and it has none; "" without.
func (a *API) browser(w http.ResponseWriter, r *http.Request, create bool) (store.Hearter, error) {
	var pass browserPass
	if a.cfg.Cookies.Read(r, browserKind, &pass) && store.ValidID(pass.ID) {
		return store.BrowserHearter(pass.ID), nil
	}
	if !create {
		return "", nil
	}
	pass.ID = store.NewID()
	if err := a.cfg.Cookies.Write(w, r, browserKind, pass); err != nil {
		return "", fmt.Errorf("naming this browser for its hearts: %w", err)
	}
	return store.BrowserHearter(pass.ID), nil
}

// set does the heart (PUT) or its undo (DELETE) and answers HeartBody;
// sees answers whether the viewer may see the photo at all (nil), else
// the error to answer, before anything changes.
func (a *API) set(w http.ResponseWriter, r *http.Request, eventID, id string, h store.Hearter, sees func(store.Photo) error) error {
	ctx := r.Context()
	on := r.Method == http.MethodPut
	p, err := a.cfg.Store.Photos().Get(ctx, id)
	if err != nil {
		return err
	}
	if p.EventID != eventID {
		return web.ErrNotFound
	}
	if err := sees(p); err != nil {
		return err
	}
	before := a.cfg.Live.PhotosOnWall(ctx, []string{id})
	p, changed, err := a.cfg.Store.Hearts().Set(ctx, eventID, id, h, on)
	if errors.Is(err, store.ErrNotVisible) {
		return web.ErrNotFound
	}
	if err != nil {
		return err
	}
	if changed {
		a.cfg.Live.PhotosChanged(ctx, eventID, []string{id}, false, before)
	}
	return web.JSON(w, r, http.StatusOK, HeartBody{ID: p.ID, Hearts: p.Hearts, Hearted: on})
}

// given answers which of ids= h hearted; with sees (nil: all of them),
// only those of the photos the viewer may see.
func (a *API) given(w http.ResponseWriter, r *http.Request, h store.Hearter, sees func(store.Photo) error) error {
	var ids []string
	if v := r.URL.Query().Get("ids"); v != "" {
		ids = strings.Split(v, ",")
	}
	if len(ids) > MaxAsked {
		return web.Field("ids", fmt.Sprintf("at most %d ids", MaxAsked))
	}
	for _, id := range ids {
		if !store.ValidID(id) {
			return web.Field("ids", "must be ids separated by commas")
		}
	}
	out := GivenBody{Hearted: []string{}}
	if h == "" || len(ids) == 0 {
		return web.JSON(w, r, http.StatusOK, out)
	}
	given, err := a.cfg.Store.Hearts().Given(r.Context(), h, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !given[id] {
			continue
		}
		delete(given, id)
		ok, err := a.shown(r.Context(), id, sees)
		if err != nil {
			return err
		}
		if ok {
			out.Hearted = append(out.Hearted, id)
		}
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// shown reports whether sees lets the viewer see photo id (nil sees:
// yes); a photo gone, or one sees refuses as not found or forbidden, is
// not shown.
func (a *API) shown(ctx context.Context, id string, sees func(store.Photo) error) (bool, error) {
	if sees == nil {
		return true, nil
	}
	p, err := a.cfg.Store.Photos().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading hearted photo %s: %w", id, err)
	}
	switch err := sees(p); {
	case err == nil:
		return true, nil
	case errors.Is(err, web.ErrNotFound), errors.Is(err, web.ErrForbidden):
		return false, nil
	default:
		return false, fmt.Errorf("checking who sees hearted photo %s: %w", id, err)
	}
}
