package daemon

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
	// photoPageSize and messagePageSize are the list page sizes
	// (docs/decisions.md).
	photoPageSize = 60
	boothName     = "Photo booth"
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
func (s *Server) uploader(r *http.Request, e store.Event) (store.Guest, int, error) {
	g, err := s.visitors.JoinedGuest(r, e)
	if err != nil {
		return store.Guest{}, 0, err
	}
	ev, u := visitor.EventRules(e), visitor.UploaderRules(e, g)
	if err := visitor.Refusal(access.MayUpload(u, ev, s.now().UnixMilli())); err != nil {
		return store.Guest{}, 0, err
	}
	quota := access.UploadQuota(u, ev)
	if quota > 0 {
		n, err := s.store.Photos().CountByGuest(r.Context(), e.ID, g.ID, quota)
		if err != nil {
			return store.Guest{}, 0, err
		}
		if err := visitor.Refusal(access.WithinQuota(u, ev, n)); err != nil {
			return store.Guest{}, 0, err
		}
	}
	if err := s.allowUpload(r, g); err != nil {
		return store.Guest{}, 0, err
	}
	if g, err = s.visitors.KeepGuest(r.Context(), g); err != nil {
		return store.Guest{}, 0, err
	}
	return g, quota, nil
}

// handleGuestUpload takes a photo (multipart) or a video (the video
// content type) from a guest or the booth.
func (s *Server) handleGuestUpload(w http.ResponseWriter, r *http.Request) error {
	e, err := s.eventBySlug(r)
	if err != nil {
		return err
	}
	g, quota, err := s.uploader(r, e)
	if err != nil {
		return err
	}
	name := g.Name
	if g.Booth {
		name = boothName
		// The booth's photo is in: the LED leaves busy.
		defer s.booth.captured()
	}
	p := store.Photo{EventID: e.ID, GuestID: g.ID, GuestName: name, Status: statusForNew(e)}
	p.SpotID = s.spotOf(r, e, r.URL.Query().Get("at"))
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == videoContentType {
		if err := visitor.Refusal(access.MayUploadVideo(visitor.EventRules(e))); err != nil {
			return err
		}
		p.ChallengeID = challengeOf(e, r.URL.Query().Get("challenge"))
		return s.receiveVideo(w, r, p, quota)
	}
	return s.receivePhoto(w, r, e, p, quota, "")
}

// spotOf returns the spot id when it names a place of this event, else
// "" (a spot of another event, or a made-up one, is ignored).
func (s *Server) spotOf(r *http.Request, e store.Event, at string) string {
	if !store.ValidID(at) {
		return ""
	}
	if _, err := s.store.Spots().Get(r.Context(), e.ID, at); err != nil {
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

// receivePhoto reads the multipart form of a photo upload into a temp
// file, then has ingest check the image and store the original, the
// record and its variant job. creditField names the text field that sets
// the guest name (the admin import's "credit"); guests have none.
func (s *Server) receivePhoto(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int, creditField string) error {
	defer s.variants.Receive()()
	limit := int64(s.cfg.MaxUploadMB) << 20
	fields, file, err := s.ingest.ReadForm(w, r, ingest.Form{Limit: limit, FileField: "photo",
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
	res, err := s.ingest.Photo(r.Context(), file, p, quota)
	if err != nil {
		return err
	}
	return s.writeStored(w, r, p, res)
}

// writeStored answers a stored upload: 201 with the new photo (with the
// admin fields for an import, which has no guest), or 200 with the photo
// a retry found.
func (s *Server) writeStored(w http.ResponseWriter, r *http.Request, p store.Photo, res ingest.Result) error {
	if res.Existing {
		return web.JSON(w, r, http.StatusOK, dto.PhotoBody{Photo: dto.PhotoOf(res.Photo, p.GuestID, false)})
	}
	s.metrics.Upload(uploadKind(res.Photo))
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

// handleGuestPhotos lists the guest's own photos, newest first; with
// scope=all on a shared album, others' visible photos too; with
// favorites=1 as well, the album's favourites only.
func (s *Server) handleGuestPhotos(w http.ResponseWriter, r *http.Request) error {
	e, g, err := s.guestOf(r)
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
	taken, err := parseOrder(r)
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
	f := access.GuestPhotos(g.ID, visitor.EventRules(e), s.now().UnixMilli(), scope == "all", favorites)
	if f.None {
		return web.JSON(w, r, http.StatusOK, dto.PhotoPageBody{Photos: []dto.Photo{}})
	}
	q := visitor.PhotoQuery(e.ID, f)
	q.Before, q.Limit = before, photoPageSize
	page, err := s.listPhotos(r.Context(), q, taken)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.PhotoPage(page, g.ID, false))
}

// handleGuestDeletePhoto removes one of the guest's own photos with its
// files; anyone else's answers 404.
func (s *Server) handleGuestDeletePhoto(w http.ResponseWriter, r *http.Request) error {
	e, g, err := s.guestOf(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	before := s.photosOnWall(r.Context(), []string{id})
	removed, err := s.store.Photos().Delete(r.Context(), e.ID, g.ID, []string{id})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return web.ErrNotFound
	}
	s.photosRemoved(e.ID, removed, before)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// maxTakenList caps a photo list in the order taken, which is answered
// whole (docs/decisions.md, "Photos in the order taken").
const maxTakenList = 10000

// parseOrder reads order=: "" or new (newest upload first, paged) or
// taken (oldest capture first, whole).
func parseOrder(r *http.Request) (taken bool, err error) {
	switch r.URL.Query().Get("order") {
	case "", "new":
		return false, nil
	case "taken":
		return true, nil
	}
	return false, web.Field("order", "must be new or taken")
}

// listPhotos answers a page of q, or with taken the whole list (up to
// maxTakenList, newest uploads kept) in the order the photos were taken:
// by takenAt, a photo without one at its upload time, ties by upload.
// before is ignored then and nextCursor is null.
func (s *Server) listPhotos(ctx context.Context, q store.PhotoQuery, taken bool) (store.Page[store.Photo], error) {
	if !taken {
		return s.store.Photos().List(ctx, q)
	}
	q.Before, q.Limit = 0, 500
	var all []store.Photo
	for len(all) < maxTakenList {
		page, err := s.store.Photos().List(ctx, q)
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
