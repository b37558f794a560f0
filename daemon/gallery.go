package daemon

import (
	"net/http"
	"sort"
	"time"

	"eventbox/daemon/access"
	"eventbox/store"
)

const (
	shareCookie = "gr_share"
	// shareCookieLinks bounds how many links one browser remembers, so the
	// cookie stays far below the 4 KB browsers keep.
	shareCookieLinks = 24
	shareCookieAge   = 365 * 24 * time.Hour
	// maxTokenLen refuses absurd path tokens before they are hashed.
	maxTokenLen = 128
)

// shareEntry is what gr_share holds for one link: its event, and when
// this browser unlocked (or first visited) it.
type shareEntry struct {
	EventID string `json:"e"`
	At      int64  `json:"t"`
}

// sharePass is the decoded gr_share cookie: the gallery links this browser
// unlocked, or visited when they have no password, by link id.
type sharePass map[string]shareEntry

// readSharePass returns the cookie's links; a missing or forged cookie is
// an empty pass.
func (s *Server) readSharePass(r *http.Request) sharePass {
	pass := sharePass{}
	if c, err := r.Cookie(shareCookie); err == nil {
		if !s.unsign(c.Value, &pass) {
			return sharePass{}
		}
	}
	return pass
}

// rememberShare adds a link to the browser's gr_share, dropping the
// oldest entries past shareCookieLinks.
func (s *Server) rememberShare(w http.ResponseWriter, r *http.Request, sh store.Share) error {
	pass := s.readSharePass(r)
	pass[sh.ID] = shareEntry{EventID: sh.EventID, At: s.now().UnixMilli()}
	if len(pass) > shareCookieLinks {
		ids := make([]string, 0, len(pass))
		for id := range pass {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return pass[ids[i]].At < pass[ids[j]].At })
		for _, id := range ids[:len(ids)-shareCookieLinks] {
			delete(pass, id)
		}
	}
	v, err := s.signed(pass)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: shareCookie, Value: v, Path: "/", MaxAge: int(shareCookieAge / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
	return nil
}

// liveShare resolves the :token parameter to a link that is neither
// revoked nor expired, with its event; anything else is 404.
func (s *Server) liveShare(r *http.Request) (store.Share, store.Event, error) {
	token := param(r, "token")
	if token == "" || len(token) > maxTokenLen {
		return store.Share{}, store.Event{}, errNotFound
	}
	sh, err := s.store.ShareByToken(r.Context(), token)
	if err != nil {
		return store.Share{}, store.Event{}, err
	}
	if !access.Live(shareLink(sh), s.now().UnixMilli()) {
		return store.Share{}, store.Event{}, errNotFound
	}
	e, err := s.store.Event(r.Context(), sh.EventID)
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
	if _, ok := s.readSharePass(r)[sh.ID]; ok {
		return sh, e, nil
	}
	if sh.PasswordHash != "" {
		return store.Share{}, store.Event{}, errForbidden
	}
	return sh, e, s.rememberShare(w, r, sh)
}

// galleryShares returns the links of the event that this browser unlocked
// or visited, as stored now, for the viewer of the access rules (which
// decide whether each is still live). It is how media, and voice notes
// shared in the gallery, decide whether a gallery viewer may have a file.
func (s *Server) galleryShares(r *http.Request, eventID string) []access.Link {
	var out []access.Link
	for id, entry := range s.readSharePass(r) {
		if entry.EventID != eventID || !store.ValidID(id) {
			continue
		}
		sh, err := s.store.Share(r.Context(), eventID, id)
		if err != nil {
			continue
		}
		out = append(out, shareLink(sh))
	}
	return out
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
	Name        string         `json:"name"`
	EventDate   *string        `json:"eventDate"`
	AccentColor *string        `json:"accentColor"`
	LogoVersion *int64         `json:"logoVersion"`
	Guestbook   bool           `json:"guestbook"`
	Challenges  []challengeDTO `json:"challenges"`
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
	_, unlocked := s.readSharePass(r)[sh.ID]
	if !unlocked && sh.PasswordHash == "" {
		if err := s.rememberShare(w, r, sh); err != nil {
			return err
		}
		unlocked = true
	}
	spots, err := s.store.Spots(r.Context(), e.ID)
	if err != nil {
		return err
	}
	places := make([]gallerySpotDTO, 0, len(spots))
	for _, sp := range spots {
		places = append(places, gallerySpotDTO{ID: sp.ID, Label: sp.Label})
	}
	return writeJSON(w, r, http.StatusOK, galleryBody{
		Share: galleryShareDTO{
			Label: nullString(sh.Label), AllowDownload: sh.AllowDownload, FavoritesOnly: sh.FavoritesOnly,
			NeedsPassword: sh.PasswordHash != "", Unlocked: unlocked, ExpiresAt: nullTime(sh.ExpiresAt),
		},
		Event: galleryEventDTO{
			Name: e.Name, EventDate: nullString(e.EventDate), AccentColor: nullString(e.AccentColor),
			LogoVersion: nullTime(e.LogoVersion), Guestbook: e.GuestbookInGallery, Challenges: toChallengeDTOs(e.Challenges),
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
// is spent (guessGuard).
func (s *Server) handleGalleryUnlock(w http.ResponseWriter, r *http.Request) error {
	sh, _, err := s.liveShare(r)
	if err != nil {
		return err
	}
	var req galleryUnlockRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if _, ok := s.readSharePass(r)[sh.ID]; ok {
		// Already unlocked: this browser never guesses again.
		return writeJSON(w, r, http.StatusOK, okTrue)
	}
	if sh.PasswordHash != "" {
		addr := clientIP(r)
		if ok, retry := s.guards.linkPass.allow(sh.ID, addr); !ok {
			return errRateLimited(retry)
		}
		if !checkPassword(sh.PasswordHash, req.Password) {
			s.guards.linkPass.fail(sh.ID, addr)
			return errInvalidCode
		}
	}
	if err := s.rememberShare(w, r, sh); err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, okTrue)
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
	challenge, err := queryID(r, "challenge")
	if err != nil {
		return err
	}
	spot, err := queryID(r, "spot")
	if err != nil {
		return err
	}
	before, err := parseBefore(r)
	if err != nil {
		return err
	}
	taken, err := parseOrder(r)
	if err != nil {
		return err
	}
	q := photoQuery(e.ID, access.GalleryPhotos(shareLink(sh), r.URL.Query().Get("favorites") == "1"))
	q.ChallengeID, q.SpotID, q.Before, q.Limit = challenge, spot, before, photoPageSize
	page, err := s.listPhotos(r.Context(), q, taken)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, photoPage(page, "", false))
}

// handleGalleryMessages lists the guestbook's visible messages through a
// link, newest first, when the hosts share it (403 forbidden otherwise).
func (s *Server) handleGalleryMessages(w http.ResponseWriter, r *http.Request) error {
	_, e, err := s.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryMessages(eventRules(e))
	if !ok {
		return errForbidden
	}
	before, err := parseBefore(r)
	if err != nil {
		return err
	}
	q := messageQuery(e.ID, f)
	q.Before, q.Limit = before, messagePageSize
	page, err := s.store.Messages(r.Context(), q)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, messagePage(page, ""))
}

// handleGalleryArchive streams the link's photos as a ZIP when the link
// allows downloads (403 forbidden otherwise).
func (s *Server) handleGalleryArchive(w http.ResponseWriter, r *http.Request) error {
	sh, e, err := s.unlockedShare(w, r)
	if err != nil {
		return err
	}
	f, ok := access.GalleryArchive(shareLink(sh))
	if !ok {
		return errForbidden
	}
	what := "all photos"
	if f.FavoritesOnly {
		what = "favourites"
	}
	return s.streamArchive(w, r, e, photoQuery(e.ID, f), archiveOptions{name: archiveName(e, what), forGuests: true})
}
