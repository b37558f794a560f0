package guests

import (
	"mime"
	"net/http"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// videoContentType marks a video upload: the body is the poster JPEG
// (X-Poster-Bytes long) followed by the video, not multipart, so the
// video streams straight to disk.
const videoContentType = "application/vnd.service.video"

// statusForNew is the status of a guest upload under the event's
// moderation.
func statusForNew(e store.Event) string {
	if e.Moderation == "pre" {
		return store.StatusPending
	}
	return store.StatusVisible
}

// uploader resolves the guest behind an upload and applies the gates in
// the order a guest finds fair: joined, then the rules of access
// (MayUpload: the booth's key, uploads open; WithinQuota), then the rate.
// It returns the quota to enforce (0: none).
func (a *API) uploader(r *http.Request, e store.Event) (store.Guest, int, error) {
	g, err := a.visitors.JoinedGuest(r, e)
	if err != nil {
		return store.Guest{}, 0, err
	}
	ev, u := access.EventRules(e), access.UploaderRules(e, g)
	if err := visitor.Refusal(access.MayUpload(u, ev, a.now().UnixMilli())); err != nil {
		return store.Guest{}, 0, err
	}
	quota := access.UploadQuota(u, ev)
	if quota > 0 {
		n, err := a.store.Photos().CountByGuest(r.Context(), e.ID, g.ID, quota)
		if err != nil {
			return store.Guest{}, 0, err
		}
		if err := visitor.Refusal(access.WithinQuota(u, ev, n)); err != nil {
			return store.Guest{}, 0, err
		}
	}
	if err := a.cfg.AllowUpload(r, g); err != nil {
		return store.Guest{}, 0, err
	}
	if g, err = a.visitors.KeepGuest(r.Context(), g); err != nil {
		return store.Guest{}, 0, err
	}
	return g, quota, nil
}

// Upload takes a photo (multipart) or a video (the video
// content type) from a guest or the booth.
func (a *API) Upload(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	g, quota, err := a.uploader(r, e)
	if err != nil {
		return err
	}
	name := g.Name
	if g.Booth {
		name = photos.BoothName
		// The booth's photo is in: the LED leaves busy.
		defer a.cfg.BoothCaptured()
	}
	p := store.Photo{EventID: e.ID, GuestID: g.ID, GuestName: name, Status: statusForNew(e)}
	p.SpotID = a.spotOf(r, e, r.URL.Query().Get("at"))
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == videoContentType {
		if err := visitor.Refusal(access.MayUploadVideo(access.EventRules(e))); err != nil {
			return err
		}
		p.ChallengeID = photos.ChallengeOf(e, r.URL.Query().Get("challenge"))
		return a.cfg.Photos.ReceiveVideo(w, r, p, quota)
	}
	return a.cfg.Photos.ReceivePhoto(w, r, e, p, quota, "")
}

// spotOf returns the spot id when it names a place of this event, else
// "" (a spot of another event, or a made-up one, is ignored).
func (a *API) spotOf(r *http.Request, e store.Event, at string) string {
	if !store.ValidID(at) {
		return ""
	}
	if _, err := a.store.Spots().Get(r.Context(), e.ID, at); err != nil {
		return ""
	}
	return at
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Photos lists the guest's own photos, newest first; with
// scope=all on a shared album, others' visible photos too; with
// favorites=1 as well, the album's favourites only.
func (a *API) Photos(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return err
	}
	before, err := web.ParseBefore(r)
	if err != nil {
		return err
	}
	scope := r.URL.Query().Get("scope")
	if scope != "" && scope != "all" && scope != "mine" {
		return web.Field("scope", "must be all or mine")
	}
	taken, err := photos.ParseOrder(r)
	if err != nil {
		return err
	}
	// favorites=1 (added, as on the gallery's list) keeps the hosts'
	// favourites among the shared album's photos, for the album's
	// favourites section; the favorite flag itself stays admin-only.
	favorites, err := web.ParseFlag(r, "favorites")
	if err != nil {
		return err
	}
	f := access.GuestPhotos(g.ID, access.EventRules(e), a.now().UnixMilli(), scope == "all", favorites)
	if f.None {
		return web.JSON(w, r, http.StatusOK, dto.PhotoPageBody{Photos: []dto.Photo{}})
	}
	q := access.PhotoQuery(e.ID, f)
	q.Before, q.Limit = before, photos.PhotoPageSize
	page, err := photos.ListPhotos(r.Context(), a.store.Photos(), q, taken)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.PhotoPage(page, g.ID, false))
}

// DeletePhoto removes one of the guest's own photos with its
// files; anyone else's answers 404.
func (a *API) DeletePhoto(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	before := a.cfg.Live.PhotosOnWall(r.Context(), []string{id})
	removed, err := a.store.Photos().Delete(r.Context(), e.ID, g.ID, []string{id})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return web.ErrNotFound
	}
	a.cfg.Live.PhotosRemoved(e.ID, removed, before)
	return web.JSON(w, r, http.StatusOK, web.OK)
}
