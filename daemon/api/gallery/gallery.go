// Package gallery is the gallery links: the hosts make, list and revoke
// them (/api/admin/events/:id/shares), and whoever has one sees the
// event's photos and logo, its guestbook when the hosts share it, and
// downloads the archive when the link allows (/api/g/:token/...), after
// its password when it has one.
package gallery

import (
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/archive"
	"eventbox/daemon/dto"
	"eventbox/daemon/passwords"
	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Config is what the gallery routes use. Every field is required.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	Now      func() time.Time
	// PasswordCost is the bcrypt cost of a link's password.
	PasswordCost int
	// PhotoPage and MessagePage are how many items a page of the photo
	// and message lists holds (docs/decisions.md).
	PhotoPage, MessagePage int
	// Origin is the scheme and host the links' urls start with
	// (BASE_URL, or the request's own).
	Origin func(r *http.Request) string
	// LinkPass is the failure budget of wrong link passwords, per link.
	LinkPass *web.GuessGuard
	// Archive streams a link's photos as a ZIP.
	Archive *archive.Streamer
	// Photos lists the store's photos (st.Photos()).
	Photos photos.Lister
	// ServeLogo answers the event's logo (404 when it has none).
	ServeLogo func(w http.ResponseWriter, r *http.Request, e store.Event) error
}

// API holds the gallery routes' handlers.
type API struct {
	cfg      Config
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	now      func() time.Time
}

// New returns the gallery routes over cfg.
func New(cfg Config) *API {
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now}
}

// liveShare resolves the :token parameter to a link that is neither
// revoked nor expired, with its event; anything else is 404.
func (g *API) liveShare(r *http.Request) (store.Share, store.Event, error) {
	token, err := web.Token(r)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	sh, err := g.store.Shares().ByToken(r.Context(), token)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	if !access.Live(access.ShareLink(sh), g.now().UnixMilli()) {
		return store.Share{}, store.Event{}, web.ErrNotFound
	}
	e, err := g.store.Events().Get(r.Context(), sh.EventID)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	return sh, e, nil
}

// unlockedShare is liveShare for the routes that show content: a link
// with a password answers 403 forbidden until this browser unlocked it; a
// link without one is remembered in gr_share on the way, so the media
// and archive requests of this browser are allowed.
func (g *API) unlockedShare(w http.ResponseWriter, r *http.Request) (store.Share, store.Event, error) {
	sh, e, err := g.liveShare(r)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	if _, ok := g.visitors.SharePass(r)[sh.ID]; ok {
		return sh, e, nil
	}
	if sh.PasswordHash != "" {
		return store.Share{}, store.Event{}, web.ErrForbidden
	}
	return sh, e, g.visitors.RememberShare(w, r, sh)
}

type galleryShareDTO struct {
	Label         *string `json:"label"`
	AllowDownload bool    `json:"allowDownload"`
	FavoritesOnly bool    `json:"favoritesOnly"`
	NeedsPassword bool    `json:"needsPassword"`
	Unlocked      bool    `json:"unlocked"`
	ExpiresAt     *int64  `json:"expiresAt"`
}

type galleryEventDTO struct {
	Name        string          `json:"name"`
	EventDate   *string         `json:"eventDate"`
	AccentColor *string         `json:"accentColor"`
	LogoVersion *int64          `json:"logoVersion"`
	Guestbook   bool            `json:"guestbook"`
	Challenges  []dto.Challenge `json:"challenges"`
	// Spots are the event's places, for the gallery's place filter.
	Spots []dto.Spot `json:"spots"`
}

type galleryBody struct {
	Share galleryShareDTO `json:"share"`
	Event galleryEventDTO `json:"event"`
}

// Gallery is what the gallery page loads first: the link's settings,
// whether this browser may see it yet, and the event as a gallery shows
// it. Visiting a link without a password remembers it in gr_share.
func (g *API) Gallery(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := g.liveShare(r)
	if err != nil {
		return err
	}
	_, unlocked := g.visitors.SharePass(r)[sh.ID]
	if !unlocked && sh.PasswordHash == "" {
		if err := g.visitors.RememberShare(w, r, sh); err != nil {
			return err
		}
		unlocked = true
	}
	spots, err := g.store.Spots().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	places := dto.SpotsOf(spots)
	return web.JSON(w, r, http.StatusOK, galleryBody{
		Share: galleryShareDTO{
			Label: dto.NullString(sh.Label), AllowDownload: sh.AllowDownload, FavoritesOnly: sh.FavoritesOnly,
			NeedsPassword: sh.PasswordHash != "", Unlocked: unlocked, ExpiresAt: dto.NullTime(sh.ExpiresAt),
		},
		Event: galleryEventDTO{
			Name: e.Name, EventDate: dto.NullString(e.EventDate), AccentColor: dto.NullString(e.AccentColor),
			LogoVersion: dto.NullTime(e.LogoVersion), Guestbook: e.GuestbookInGallery, Challenges: dto.ChallengesOf(e.Challenges),
			Spots: places,
		},
	})
}

type galleryUnlockRequest struct {
	Password string `json:"password"`
}

// Unlock opens a link with its password (401 invalid_code
// when wrong) and remembers it in gr_share. A link without a password
// opens with any body. Besides the per-address limit of the route, the
// link's failure budget holds the addresses that guessed wrong once it
// is spent (web.GuessGuard).
func (g *API) Unlock(w http.ResponseWriter, r *http.Request) error {
	sh, _, err := g.liveShare(r)
	if err != nil {
		return err
	}
	var req galleryUnlockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if _, ok := g.visitors.SharePass(r)[sh.ID]; ok {
		// Already unlocked: this browser never guesses again.
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if sh.PasswordHash != "" {
		addr := web.ClientIP(r)
		if ok, retry := g.cfg.LinkPass.Allow(sh.ID, addr); !ok {
			return web.RateLimited(retry)
		}
		if !passwords.Check(sh.PasswordHash, req.Password) {
			g.cfg.LinkPass.Fail(sh.ID, addr)
			return web.ErrInvalidCode
		}
	}
	if err := g.visitors.RememberShare(w, r, sh); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// Photos lists the link's photos, newest first: visible
// ones, favorites only when the link says so, challenge= and (added) spot=
// (a place) narrow, (added) favorites=1 keeps the hosts' favorites only,
// before= pages. order= is as the guests' list's (photos.ParseOrder:
// new, or taken, whole), or loved: the most loved first, the photos
// with hearts only (daemon/api/hearts).
func (g *API) Photos(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := g.unlockedShare(w, r)
	if err != nil {
		return err
	}
	challenge, err := web.QueryID(r, "challenge")
	if err != nil {
		return err
	}
	spot, err := web.QueryID(r, "spot")
	if err != nil {
		return err
	}
	before, err := web.ParseBefore(r)
	if err != nil {
		return err
	}
	q := access.PhotoQuery(e.ID, access.GalleryPhotos(access.ShareLink(sh), r.URL.Query().Get("favorites") == "1"))
	q.ChallengeID, q.SpotID, q.Before, q.Limit = challenge, spot, before, g.cfg.PhotoPage
	page, err := g.listPhotos(r, q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.PhotoPage(page, "", false))
}

// listPhotos answers a page of q in the order the request's order= asks:
// loved (paged), or as photos.ParseOrder reads it; a bad order= is a
// field error.
func (g *API) listPhotos(r *http.Request, q store.PhotoQuery) (store.Page[store.Photo], error) {
	if r.URL.Query().Get("order") == "loved" {
		q.Loved = true
		return g.cfg.Photos.List(r.Context(), q)
	}
	taken, err := photos.ParseOrder(r)
	if err != nil {
		return store.Page[store.Photo]{}, err
	}
	return photos.ListPhotos(r.Context(), g.cfg.Photos, q, taken)
}

// Messages lists the guestbook's visible messages through a
// link, newest first, when the hosts share it (403 forbidden otherwise).
func (g *API) Messages(w http.ResponseWriter, r *http.Request) error {
	_, e, err := g.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryMessages(access.EventRules(e))
	if !ok {
		return web.ErrForbidden
	}
	before, err := web.ParseBefore(r)
	if err != nil {
		return err
	}
	q := access.MessageQuery(e.ID, f)
	q.Before, q.Limit = before, g.cfg.MessagePage
	page, err := g.store.Messages().List(r.Context(), q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.MessagePage(page, ""))
}

// Archive streams the link's photos as a ZIP when the link
// allows downloads (403 forbidden otherwise).
func (g *API) Archive(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := g.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryArchive(access.ShareLink(sh))
	if !ok {
		return web.ErrForbidden
	}
	what := "all photos"
	if f.FavoritesOnly {
		what = "favourites"
	}
	return g.cfg.Archive.Photos(w, r, e, access.PhotoQuery(e.ID, f), archive.Options{Name: archive.Name(e, what), ForGuests: true})
}

// Logo is the event's logo through a live gallery link, for the gallery
// page's header (the link does not carry the slug).
func (g *API) Logo(w http.ResponseWriter, r *http.Request) error {
	_, e, err := g.liveShare(r)
	if err != nil {
		return err
	}
	return g.cfg.ServeLogo(w, r, e)
}

// UnlockedShare resolves the :token link this browser may see, as the
// photo list does: 404 for a dead link, 403 forbidden before its
// password. The hearts of a link's visitors (daemon/api/hearts) go through it.
func (g *API) UnlockedShare(w http.ResponseWriter, r *http.Request) (store.Share, store.Event, error) {
	return g.unlockedShare(w, r)
}
