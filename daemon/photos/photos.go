// Package photos is the photo and event logic the areas share, which
// none of them owns: the event a public route's :slug names
// (EventBySlug, for the guest page, the booth's routes, the logo and the
// upload gate), the photo lists' order and their pages (ParseOrder,
// ListPhotos, PhotoPageSize, MessagePageSize, for the guest page, the
// gallery links and the hosts' lists), the name the booth's photos go by
// (BoothName), and the Receiver, the one path from an upload's request to
// a stored photo or video and its answer, which the guests' uploads, the
// booth and the hosts' import take.
//
// It is a service, not an area: it holds no route, and who may upload
// (a joined guest, uploads open, the quota, the limits per guest and
// address) is decided before it is called, by the area in front of it.
// The body itself goes through daemon/ingest.
package photos

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"eventbox/daemon/web"
	"eventbox/store"
)

const (
	// PhotoPageSize is the page size of photo lists (docs/decisions.md);
	// MessagePageSize is the guestbook's.
	PhotoPageSize   = 60
	MessagePageSize = 50
	// BoothName is the name the booth's photos, messages and place in
	// the statistics go by.
	BoothName = "Photo booth"
	// MaxGuestName is the most characters of a guest's name, and of an
	// import's credit, which stands for one.
	MaxGuestName = 60
)

// maxSlug is the longest :slug looked up; a longer one names no event.
const maxSlug = 32

// EventBySlug loads the event of the request's :slug parameter, case
// aside (an error that answers 404 when there is none). It is the event
// of the guest page's routes, the booth's, the event's public logo and
// the upload gate's.
func EventBySlug(r *http.Request, events store.Events) (store.Event, error) {
	slug := web.Param(r, "slug")
	if slug == "" || len(slug) > maxSlug {
		return store.Event{}, web.ErrNotFound
	}
	return events.BySlug(r.Context(), strings.ToLower(slug))
}

// ChallengeOf returns id when it names a challenge of the event, else ""
// (a challenge of another event, or a made-up one, is ignored).
func ChallengeOf(e store.Event, id string) string {
	for _, c := range e.Challenges {
		if c.ID == id {
			return c.ID
		}
	}
	return ""
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

// Lister lists a page of photos (store.Photos; tests record the
// queries).
type Lister interface {
	List(ctx context.Context, q store.PhotoQuery) (store.Page[store.Photo], error)
}

// ListPhotos answers a page of q, or with taken the whole list (up to
// maxTakenList, newest uploads kept) in the order the photos were taken:
// by takenAt, a photo without one at its upload time, ties by upload.
// before is ignored then and nextCursor is null.
func ListPhotos(ctx context.Context, photos Lister, q store.PhotoQuery, taken bool) (store.Page[store.Photo], error) {
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
