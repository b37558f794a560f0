package moderation

import (
	"errors"
	"maps"
	"net/http"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// photoStatuses are the status= values of the admin photo list.
var photoStatuses = []string{store.StatusVisible, store.StatusPending, store.StatusHidden}

// Photos lists an event's photos for moderation, newest first:
// any status unless status= says, favorites=1, challenge= and spot=
// narrow it; before= pages.
func (m *API) Photos(w http.ResponseWriter, r *http.Request, e store.Event) error {
	q := access.PhotoQuery(e.ID, access.HostList())
	q.Limit = m.cfg.PhotoPage
	details := map[string]string{}
	if q.Status = r.URL.Query().Get("status"); q.Status != "" && !web.OneOf(q.Status, photoStatuses...) {
		details["status"] = "must be visible, pending or hidden"
	}
	var errs [5]error
	q.Favorites, errs[0] = web.ParseFlag(r, "favorites")
	q.ChallengeID, errs[1] = web.QueryID(r, "challenge")
	q.SpotID, errs[2] = web.QueryID(r, "spot")
	q.Before, errs[3] = web.ParseBefore(r)
	// (added) loved=1: the most loved, the photos with hearts, most first.
	q.Loved, errs[4] = web.ParseFlag(r, "loved")
	for _, err := range errs {
		var ae *web.Error
		if errors.As(err, &ae) {
			maps.Copy(details, ae.Details)
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	page, err := m.store.Photos().List(r.Context(), q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.PhotoPage(page, "", true))
}

// PhotoAction applies approve, hide, favorite, unfavorite,
// delete or retry (the variants of set-aside photos) to the listed photos of the event and answers how many changed.
// Ids of other events, unknown ids and photos already in the asked state
// are not counted and not touched.
func (m *API) PhotoAction(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	var req moderateRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.validate("approve", "hide", "favorite", "unfavorite", "delete", "retry"); err != nil {
		return err
	}
	ids := dedupe(req.IDs)
	before := m.cfg.Live.PhotosOnWall(r.Context(), ids)
	var changed []string
	switch req.Action {
	case "delete":
		changed, err = m.store.Photos().Delete(r.Context(), e.ID, "", ids)
	case "retry":
		// Set-aside photos get their variant job back in the queue
		// (docs/decisions.md, "Variant jobs that keep failing").
		changed, err = m.store.Photos().RetryVariants(r.Context(), e.ID, ids)
		m.cfg.RetryVariants()
	default:
		changed, err = m.store.Photos().Update(r.Context(), e.ID, ids, photoAction(req.Action))
	}
	if err != nil {
		return err
	}
	if req.Action == "delete" {
		m.cfg.Live.PhotosRemoved(e.ID, changed, before)
	} else {
		m.cfg.Live.PhotosChanged(r.Context(), e.ID, changed, false, before)
	}
	if len(changed) > 0 {
		m.log.InfoContext(r.Context(), "photos moderated", "event", e.ID, "action", req.Action,
			"count", len(changed), "by", visitor.Account(r).Username)
	}
	return web.JSON(w, r, http.StatusOK, dto.ChangedBody{Changed: len(changed)})
}

// photoAction is the change an action makes; it reports whether the photo
// changed.
func photoAction(action string) func(*store.Photo) bool {
	return func(p *store.Photo) bool {
		switch action {
		case "approve":
			if p.Status == store.StatusVisible {
				return false
			}
			p.Status = store.StatusVisible
		case "hide":
			if p.Status == store.StatusHidden {
				return false
			}
			p.Status = store.StatusHidden
		case "favorite", "unfavorite":
			want := action == "favorite"
			if p.Favorite == want {
				return false
			}
			p.Favorite = want
		default:
			return false
		}
		return true
	}
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// importCredit is the import form's text field that names the photo's
// author.
const importCredit = "credit"

// Import adds a photo from the hosts (a photographer's shot,
// a scan): the same checks, limits and variants as a guest upload, no
// guest, visible at once, with the optional credit shown as its guest
// name. Imports are neither closed with uploads nor counted in a quota.
func (m *API) Import(w http.ResponseWriter, r *http.Request, e store.Event) error {
	p := store.Photo{EventID: e.ID, Status: store.StatusVisible}
	return m.cfg.Photos.ReceivePhoto(w, r, e, p, 0, importCredit)
}
