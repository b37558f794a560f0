package guests

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/web"
	"eventbox/store"
)

// The box's front page, /, never dead-ends (docs/decisions.md, "A join
// that never dead-ends"): it lists the events open now and takes the code
// a guest was given, slug or access code.

type frontEventDTO struct {
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	AccentColor *string `json:"accentColor"`
	LogoVersion *int64  `json:"logoVersion"`
	NeedsCode   bool    `json:"needsCode"`
}

type frontEventsBody struct {
	Events []frontEventDTO `json:"events"`
}

// openEvents are the events whose uploads are open now, by name: the
// ones the daemon's captive portal forwards to when there is one.
func (a *API) openEvents(r *http.Request) ([]store.Event, error) {
	events, err := a.store.Events().List(r.Context())
	if err != nil {
		return nil, err
	}
	now := a.now().UnixMilli()
	var out []store.Event
	for _, e := range events {
		if access.UploadsOpen(access.EventRules(e), now) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out, nil
}

// ListOpenEvents (GET /api/events, added) lists the events open now
// by name and logo, for the front page; never an access code.
func (a *API) ListOpenEvents(w http.ResponseWriter, r *http.Request) error {
	events, err := a.openEvents(r)
	if err != nil {
		return err
	}
	body := frontEventsBody{Events: make([]frontEventDTO, 0, len(events))}
	for _, e := range events {
		body.Events = append(body.Events, frontEventDTO{Slug: e.Slug, Name: e.Name,
			AccentColor: dto.NullString(e.AccentColor), LogoVersion: dto.NullTime(e.LogoVersion), NeedsCode: e.AccessCode != ""})
	}
	return web.JSON(w, r, http.StatusOK, body)
}

type frontJoinRequest struct {
	Code string `json:"code"`
}

type frontJoinBody struct {
	Slug string `json:"slug"`
}

// JoinByCode (POST /api/join, added) opens the event of a code typed
// on the front page: an event's slug or a pasted link to it answers its
// slug; an event's access code (case and surrounding spaces aside, as on
// unlock) joins this browser to it too, as unlock does, so its page opens
// straight in. Anything else is 401 invalid_code, which the page shows
// beside the box. The route is limited per address like unlock.
func (a *API) JoinByCode(w http.ResponseWriter, r *http.Request) error {
	var req frontJoinRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	given := strings.ToLower(strings.TrimSpace(req.Code))
	if given == "" || len(given) > 200 {
		return web.Field("code", "must be an event code")
	}
	if slug := slugOf(given); slug != "" && len(slug) <= 32 {
		e, err := a.store.Events().BySlug(r.Context(), slug)
		if err == nil {
			return web.JSON(w, r, http.StatusOK, frontJoinBody{Slug: e.Slug})
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	events, err := a.openEvents(r)
	if err != nil {
		return err
	}
	// Open events first, then the others: a code stays good after the
	// party, for the album.
	all, err := a.store.Events().List(r.Context())
	if err != nil {
		return err
	}
	for _, e := range append(events, all...) {
		want := strings.ToLower(e.AccessCode)
		if e.AccessCode == "" || subtle.ConstantTimeCompare([]byte(given), []byte(want)) != 1 {
			continue
		}
		if _, err := a.visitors.JoinedGuest(r, e); err != nil {
			if err := a.visitors.PassGuest(w, r, e); err != nil {
				return err
			}
		}
		return web.JSON(w, r, http.StatusOK, frontJoinBody{Slug: e.Slug})
	}
	return web.ErrInvalidCode
}

// slugOf reads a slug from a typed code: the code itself, or the path
// after /e/ of a pasted link.
func slugOf(code string) string {
	if i := strings.Index(code, "/e/"); i >= 0 {
		rest := code[i+3:]
		if u, err := url.Parse(rest); err == nil {
			rest = u.Path
		}
		return strings.Trim(rest, "/")
	}
	return code
}
