package guests

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/photos"
	"eventbox/daemon/web"
	"eventbox/i18n"
	"eventbox/store"
)

// GuestOf resolves the event of the :slug parameter and the guest this
// browser is in it; a browser that has not joined gets 403 forbidden.
// The hearts routes use it too, lent by the wiring: who is a guest of the
// event is this area's, read from the guest pass its join and unlock
// give.
func (a *API) GuestOf(r *http.Request) (store.Event, store.Guest, error) {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return store.Event{}, store.Guest{}, err
	}
	g, err := a.visitors.JoinedGuest(r, e)
	if err != nil {
		return store.Event{}, store.Guest{}, err
	}
	return e, g, nil
}

// joinOnce makes this browser a guest of the event unless it is one
// already, and answers { ok }. The new guest lives in the cookie only
// until it does something (visitor.Resolver.KeepGuest).
func (a *API) joinOnce(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if _, err := a.visitors.JoinedGuest(r, e); err == nil {
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if err := a.visitors.PassGuest(w, r, e); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

type publicEventDTO struct {
	Slug               string  `json:"slug"`
	Name               string  `json:"name"`
	Description        string  `json:"description"`
	EventDate          *string `json:"eventDate"`
	AccentColor        *string `json:"accentColor"`
	NeedsCode          bool    `json:"needsCode"`
	UploadsOpen        bool    `json:"uploadsOpen"`
	UploadsCloseAt     *int64  `json:"uploadsCloseAt"`
	CaptureMode        string  `json:"captureMode"`
	AskGuestName       bool    `json:"askGuestName"`
	MaxPhotosPerGuest  int     `json:"maxPhotosPerGuest"`
	DefaultLocale      *string `json:"defaultLocale"`
	CollectGuestEmails bool    `json:"collectGuestEmails"`
	GuestbookEnabled   bool    `json:"guestbookEnabled"`
	GuestbookVoice     bool    `json:"guestbookVoice"`
	AllowVideos        bool    `json:"allowVideos"`
	AlbumShared        bool    `json:"albumShared"`
	// RevealAt (added): until then, epoch ms, guests see only their own
	// photos; null when the album is not held back.
	RevealAt   *int64          `json:"revealAt"`
	Challenges []dto.Challenge `json:"challenges"`
	// Spots (added) are the event's places, for the shared album's place
	// filter, as in the gallery.
	Spots          []dto.Spot         `json:"spots"`
	Frame          string             `json:"frame"`
	CaptureFilters dto.CaptureFilters `json:"captureFilters"`
	LogoVersion    *int64             `json:"logoVersion"`
	Ended          bool               `json:"ended"`
	// Limits are the box's limits for this browser, so the page can
	// check a file before sending it (docs/decisions.md, "The box's
	// limits in the public event").
	Limits guestLimitsDTO `json:"limits"`
	// HTTPS (added) is where the box also serves HTTPS, or null.
	HTTPS *dto.HTTPS `json:"https"`
}

// guestLimitsDTO is the public event's limits: MAX_UPLOAD_MB,
// MAX_VIDEO_MB and MAX_VIDEO_SECONDS in bytes and seconds, and how many
// more photos this browser may upload (null: no quota applies).
type guestLimitsDTO struct {
	// ImageBytes is the most bytes of a photo file.
	ImageBytes int64 `json:"imageBytes"`
	// VideoBytes is the most bytes of a video file, its poster not
	// counted; 0 when the event takes photos only.
	VideoBytes int64 `json:"videoBytes"`
	// VideoSeconds is the longest video taken; 0 when the event takes
	// photos only.
	VideoSeconds int `json:"videoSeconds"`
	// PhotosLeft is how many more photos and videos this guest may
	// upload, or null without a quota.
	PhotosLeft *int `json:"photosLeft"`
}

type publicGuestDTO struct {
	Joined bool    `json:"joined"`
	Name   *string `json:"name"`
	Photos int     `json:"photos"`
	Booth  bool    `json:"booth"`
	// Gallery is, once the event has ended, the gallery link made then
	// and where this guest's mail of it is (an added field); else null.
	Gallery *guestGalleryDTO `json:"gallery"`
}

type publicEventBody struct {
	Event publicEventDTO `json:"event"`
	Guest publicGuestDTO `json:"guest"`
}

// PublicEvent is what the guest page loads first: the event as a
// guest may see it (never the access code) and this browser's standing.
func (a *API) PublicEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	full := dto.EventOf(e)
	spots, err := a.store.Spots().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	places := dto.SpotsOf(spots)
	limits := a.cfg.Photos.Limits()
	body := publicEventBody{Event: publicEventDTO{
		Slug: e.Slug, Name: e.Name, Description: e.Description, EventDate: full.EventDate,
		AccentColor: full.AccentColor, NeedsCode: e.AccessCode != "",
		UploadsOpen: access.UploadsOpen(access.EventRules(e), a.now().UnixMilli()), UploadsCloseAt: full.UploadsCloseAt,
		CaptureMode: e.CaptureMode, AskGuestName: e.AskGuestName, MaxPhotosPerGuest: e.MaxPhotosPerGuest,
		DefaultLocale: full.DefaultLocale, CollectGuestEmails: e.CollectGuestEmails,
		GuestbookEnabled: e.GuestbookEnabled, GuestbookVoice: e.GuestbookVoice,
		AllowVideos: e.AllowVideos, AlbumShared: e.AlbumShared, RevealAt: dto.NullTime(e.RevealAt), Challenges: full.Challenges,
		Spots: places, Frame: e.Frame, CaptureFilters: full.CaptureFilters, LogoVersion: full.LogoVersion,
		Ended:  e.EndedAt != 0,
		Limits: guestLimitsDTO{ImageBytes: limits.PhotoBytes},
		HTTPS:  a.cfg.HTTPS,
	}}
	if e.AllowVideos {
		body.Event.Limits.VideoBytes = limits.VideoBytes
		body.Event.Limits.VideoSeconds = limits.VideoSeconds
	}
	quota, used := e.MaxPhotosPerGuest, 0
	if g, err := a.visitors.JoinedGuest(r, e); err == nil {
		n, err := a.store.Photos().CountByGuest(r.Context(), e.ID, g.ID, 0)
		if err != nil {
			return err
		}
		gal, err := a.guestGallery(r.Context(), a.cfg.Origin(r), e, g)
		if err != nil {
			return err
		}
		body.Guest = publicGuestDTO{Joined: true, Name: dto.NullString(g.Name), Photos: n, Booth: g.Booth, Gallery: gal}
		used = n
		if g.Booth {
			quota = 0 // the booth has no quota (uploader)
		}
	}
	if quota > 0 {
		left := max(quota-used, 0)
		body.Event.Limits.PhotosLeft = &left
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// Join joins an event without an access code. Joining again keeps
// the guest this browser already is.
func (a *API) Join(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	if e.AccessCode != "" {
		return web.ErrForbidden
	}
	return a.joinOnce(w, r, e)
}

type unlockRequest struct {
	Code string `json:"code"`
}

// Unlock enters an event with its access code (case and surrounding
// spaces do not matter: the code is read off a card). Besides the
// per-address limit of the route, the event's failure budget holds the
// addresses that guessed wrong once it is spent (web.GuessGuard).
func (a *API) Unlock(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	var req unlockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if _, err := a.visitors.JoinedGuest(r, e); err == nil {
		// Already in: a guest with a valid cookie never guesses again.
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	addr := web.ClientIP(r)
	if ok, retry := a.cfg.EventCode.Allow(e.ID, addr); !ok {
		return web.RateLimited(retry)
	}
	given := strings.ToLower(strings.TrimSpace(req.Code))
	want := strings.ToLower(e.AccessCode)
	if e.AccessCode != "" && subtle.ConstantTimeCompare([]byte(given), []byte(want)) != 1 {
		a.cfg.EventCode.Fail(e.ID, addr)
		return web.ErrInvalidCode
	}
	return a.joinOnce(w, r, e)
}

type guestNameRequest struct {
	Name string `json:"name"`
}

type guestNameBody struct {
	Name string `json:"name"`
}

// SetName sets the guest's name, kept in the record (for captions)
// and in the cookie.
func (a *API) SetName(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return err
	}
	var req guestNameRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	name := strings.Join(strings.Fields(req.Name), " ")
	if n := utf8.RuneCountInString(name); n < 1 || n > photos.MaxGuestName {
		return web.Field("name", "must be 1 to 60 characters")
	}
	if msg := web.LineProblem(name); msg != "" {
		return web.Field("name", msg)
	}
	if g.Booth {
		return web.ErrForbidden
	}
	if g, err = a.visitors.KeepGuest(r.Context(), g); err != nil {
		return err
	}
	if _, err := a.store.Guests().Update(r.Context(), e.ID, g.ID, func(g *store.Guest) { g.Name = name }); err != nil {
		return err
	}
	pass := a.visitors.GuestPass(r)
	entry := pass[e.ID]
	entry.Name = name
	pass[e.ID] = entry
	if err := a.visitors.WriteGuestPass(w, r, pass); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, guestNameBody{Name: name})
}

type contactRequest struct {
	Email string `json:"email"`
	// Locale is the guest page's language (optional): the gallery
	// mail's. Without it, the browser's Accept-Language decides.
	Locale string `json:"locale"`
}

type contactBody struct {
	Email string `json:"email"`
}

// SetContact keeps the address the gallery mail goes to, on events
// that collect them.
func (a *API) SetContact(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return err
	}
	if !e.CollectGuestEmails {
		return web.ErrForbidden
	}
	var req contactRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	email := strings.TrimSpace(req.Email)
	if !web.ValidEmail(email) {
		return web.Field("email", "must be an email address")
	}
	if g, err = a.visitors.KeepGuest(r.Context(), g); err != nil {
		return err
	}
	locale := guestLocale(req.Locale, r.Header.Get("Accept-Language"))
	if _, err := a.store.Guests().Update(r.Context(), e.ID, g.ID, func(g *store.Guest) { g.Email, g.Locale = email, locale }); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, contactBody{Email: email})
}

// DeleteContact forgets the guest's address.
func (a *API) DeleteContact(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return err
	}
	if g.CreatedAt == 0 {
		// Not stored yet, so no address to forget.
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	if _, err := a.store.Guests().Update(r.Context(), e.ID, g.ID, func(g *store.Guest) { g.Email = "" }); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// guestLocale is the language a guest's gallery mail is written in: the
// page's (given), else the first of the browser's languages the catalogue
// has, else "" (the event's language).
func guestLocale(given, acceptLanguage string) string {
	c := i18n.Embedded()
	if given = strings.ToLower(strings.TrimSpace(given)); c.Has(given) {
		return given
	}
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if c.Has(base) {
			return base
		}
	}
	return ""
}
