package daemon

import (
	"net/http"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/guests"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// maxTokenLen refuses absurd path tokens before they are hashed.
const maxTokenLen = 128

// liveShare resolves the :token parameter to a link that is neither
// revoked nor expired, with its event; anything else is 404.
func (s *Server) liveShare(r *http.Request) (store.Share, store.Event, error) {
	token := web.Param(r, "token")
	if token == "" || len(token) > maxTokenLen {
		return store.Share{}, store.Event{}, web.ErrNotFound
	}
	sh, err := s.store.Shares().ByToken(r.Context(), token)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	if !access.Live(visitor.ShareLink(sh), s.now().UnixMilli()) {
		return store.Share{}, store.Event{}, web.ErrNotFound
	}
	e, err := s.store.Events().Get(r.Context(), sh.EventID)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	return sh, e, nil
}

// unlockedShare is liveShare for the routes that show content: a link
// with a password answers 403 forbidden until this browser unlocked it; a
// link without one is remembered in gr_share on the way, so the media
// and archive requests of this browser are allowed.
func (s *Server) unlockedShare(w http.ResponseWriter, r *http.Request) (store.Share, store.Event, error) {
	sh, e, err := s.liveShare(r)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	if _, ok := s.visitors.SharePass(r)[sh.ID]; ok {
		return sh, e, nil
	}
	if sh.PasswordHash != "" {
		return store.Share{}, store.Event{}, web.ErrForbidden
	}
	return sh, e, s.visitors.RememberShare(w, r, sh)
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
	Spots []gallerySpotDTO `json:"spots"`
}

type gallerySpotDTO struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

type galleryBody struct {
	Share galleryShareDTO `json:"share"`
	Event galleryEventDTO `json:"event"`
}

// handleGallery is what the gallery page loads first: the link's settings,
// whether this browser may see it yet, and the event as a gallery shows
// it. Visiting a link without a password remembers it in gr_share.
func (s *Server) handleGallery(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := s.liveShare(r)
	if err != nil {
		return err
	}
	_, unlocked := s.visitors.SharePass(r)[sh.ID]
	if !unlocked && sh.PasswordHash == "" {
		if err := s.visitors.RememberShare(w, r, sh); err != nil {
			return err
		}
		unlocked = true
	}
	spots, err := s.store.Spots().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	places := make([]gallerySpotDTO, 0, len(spots))
	for _, sp := range spots {
		places = append(places, gallerySpotDTO{ID: sp.ID, Label: sp.Label})
	}
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

// handleGalleryUnlock opens a link with its password (401 invalid_code
// when wrong) and remembers it in gr_share. A link without a password
// opens with any body. Besides the per-address limit of the route, the
// link's failure budget holds the addresses that guessed wrong once it
// is spent (web.GuessGuard).
func (s *Server) handleGalleryUnlock(w http.ResponseWriter, r *http.Request) error {
	sh, _, err := s.liveShare(r)
	if err != nil {
		return err
	}
	var req galleryUnlockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if _, ok := s.visitors.SharePass(r)[sh.ID]; ok {
		// Already unlocked: this browser never guesses again.
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if sh.PasswordHash != "" {
		addr := web.ClientIP(r)
		if ok, retry := s.guards.linkPass.Allow(sh.ID, addr); !ok {
			return web.RateLimited(retry)
		}
		if !passwords.Check(sh.PasswordHash, req.Password) {
			s.guards.linkPass.Fail(sh.ID, addr)
			return web.ErrInvalidCode
		}
	}
	if err := s.visitors.RememberShare(w, r, sh); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// handleGalleryPhotos lists the link's photos, newest first: visible
// ones, favorites only when the link says so, challenge= and (added) spot=
// (a place) narrow, (added) favorites=1 keeps the hosts' favorites only,
// before= pages.
func (s *Server) handleGalleryPhotos(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := s.unlockedShare(w, r)
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
	taken, err := guests.ParseOrder(r)
	if err != nil {
		return err
	}
	q := visitor.PhotoQuery(e.ID, access.GalleryPhotos(visitor.ShareLink(sh), r.URL.Query().Get("favorites") == "1"))
	q.ChallengeID, q.SpotID, q.Before, q.Limit = challenge, spot, before, guests.PhotoPageSize
	page, err := guests.ListPhotos(r.Context(), s.store.Photos(), q, taken)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.PhotoPage(page, "", false))
}

// handleGalleryMessages lists the guestbook's visible messages through a
// link, newest first, when the hosts share it (403 forbidden otherwise).
func (s *Server) handleGalleryMessages(w http.ResponseWriter, r *http.Request) error {
	_, e, err := s.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryMessages(visitor.EventRules(e))
	if !ok {
		return web.ErrForbidden
	}
	before, err := web.ParseBefore(r)
	if err != nil {
		return err
	}
	q := visitor.MessageQuery(e.ID, f)
	q.Before, q.Limit = before, guests.MessagePageSize
	page, err := s.store.Messages().List(r.Context(), q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.MessagePage(page, ""))
}

// handleGalleryArchive streams the link's photos as a ZIP when the link
// allows downloads (403 forbidden otherwise).
func (s *Server) handleGalleryArchive(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := s.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryArchive(visitor.ShareLink(sh))
	if !ok {
		return web.ErrForbidden
	}
	what := "all photos"
	if f.FavoritesOnly {
		what = "favourites"
	}
	return s.streamArchive(w, r, e, visitor.PhotoQuery(e.ID, f), archiveOptions{name: archiveName(e, what), forGuests: true})
}
