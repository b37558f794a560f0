package guests

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

const (
	// maxTextPart caps a text field of an upload form.
	maxTextPart = 1 << 10
	// PhotoPageSize is the page size of photo lists (docs/decisions.md);
	// MessagePageSize is the guestbook's.
	PhotoPageSize = 60
	// BoothName is the name the booth's photos, messages and place in
	// the statistics go by.
	BoothName = "Photo booth"
)

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
	e, err := a.EventBySlug(r)
	if err != nil {
		return err
	}
	g, quota, err := a.uploader(r, e)
	if err != nil {
		return err
	}
	name := g.Name
	if g.Booth {
		name = BoothName
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
		p.ChallengeID = challengeOf(e, r.URL.Query().Get("challenge"))
		return a.receiveVideo(w, r, p, quota)
	}
	return a.ReceivePhoto(w, r, e, p, quota, "")
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

// challengeOf returns the id when it names a challenge of the event.
func challengeOf(e store.Event, id string) string {
	for _, c := range e.Challenges {
		if c.ID == id {
			return c.ID
		}
	}
	return ""
}

// ReceivePhoto reads the multipart form of a photo upload into a temp
// file, then has ingest check the image and store the original, the
// record and its variant job. creditField names the text field that sets
// the guest name (the admin import's "credit", which takes its photos
// through here too); guests have none.
func (a *API) ReceivePhoto(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int, creditField string) error {
	defer a.cfg.Variants.Receive()()
	limit := int64(a.cfg.MaxUploadMB) << 20
	fields, file, err := a.cfg.Ingest.ReadForm(w, r, ingest.Form{Limit: limit, FileField: "photo",
		TextFields: []string{"challenge", creditField}, MaxText: maxTextPart, FileRequired: true})
	if err != nil {
		return err
	}
	defer file.Tmp.Abort()
	if c := fields["challenge"]; c != "" {
		p.ChallengeID = challengeOf(e, c)
	}
	if creditField != "" {
		credit := strings.Join(strings.Fields(fields[creditField]), " ")
		if utf8.RuneCountInString(credit) > maxGuestName {
			return web.Field(creditField, fmt.Sprintf("must be at most %d characters", maxGuestName))
		}
		if msg := web.LineProblem(credit); msg != "" {
			return web.Field(creditField, msg)
		}
		if credit != "" {
			p.GuestName = credit
		}
	}
	res, err := a.cfg.Ingest.Photo(r.Context(), file, p, quota)
	if err != nil {
		return err
	}
	return a.writeStored(w, r, p, res)
}

// writeStored answers a stored upload: 201 with the new photo (with the
// admin fields for an import, which has no guest), or 200 with the photo
// a retry found.
func (a *API) writeStored(w http.ResponseWriter, r *http.Request, p store.Photo, res ingest.Result) error {
	if res.Existing {
		return web.JSON(w, r, http.StatusOK, dto.PhotoBody{Photo: dto.PhotoOf(res.Photo, p.GuestID, false)})
	}
	a.cfg.Uploaded(uploadKind(res.Photo))
	return web.JSON(w, r, http.StatusCreated, dto.PhotoBody{Photo: dto.PhotoOf(res.Photo, p.GuestID, p.GuestID == "")})
}

// uploadKind is the kind label of a stored upload in the metrics.
func uploadKind(p store.Photo) string {
	switch {
	case p.GuestID == "":
		return "import"
	case p.Video != nil:
		return "video"
	}
	return "photo"
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
	taken, err := ParseOrder(r)
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
	q.Before, q.Limit = before, PhotoPageSize
	page, err := ListPhotos(r.Context(), a.store.Photos(), q, taken)
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

// maxTakenList caps a photo list in the order taken, which is answered
// whole (docs/decisions.md, "Photos in the order taken").
const maxTakenList = 10000

// ParseOrder reads order=: "" or new (newest upload first, paged) or
// taken (oldest capture first, whole).
func ParseOrder(r *http.Request) (taken bool, err error) {
	switch r.URL.Query().Get("order") {
	case "", "new":
		return false, nil
	case "taken":
		return true, nil
	}
	return false, web.Field("order", "must be new or taken")
}

// ListPhotos answers a page of q, or with taken the whole list (up to
// maxTakenList, newest uploads kept) in the order the photos were taken:
// by takenAt, a photo without one at its upload time, ties by upload.
// before is ignored then and nextCursor is null.
func ListPhotos(ctx context.Context, photos store.Photos, q store.PhotoQuery, taken bool) (store.Page[store.Photo], error) {
	if !taken {
		return photos.List(ctx, q)
	}
	q.Before, q.Limit = 0, 500
	var all []store.Photo
	for len(all) < maxTakenList {
		page, err := photos.List(ctx, q)
		if err != nil {
			return store.Page[store.Photo]{}, err
		}
		all = append(all, page.Items...)
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	all = all[:min(len(all), maxTakenList)]
	at := func(p store.Photo) int64 {
		if p.TakenAt != 0 {
			return p.TakenAt
		}
		return p.CreatedAt
	}
	sort.SliceStable(all, func(i, j int) bool {
		if a, b := at(all[i]), at(all[j]); a != b {
			return a < b
		}
		return all[i].CreatedAt < all[j].CreatedAt
	})
	return store.Page[store.Photo]{Items: all}, nil
}
