package moderation

import (
	"net/http"
	"time"

	"eventbox/daemon/albums"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/store"
)

// albumRetryAfter is the Retry-After, in seconds, of an album refused
// while another is being made (docs/decisions.md, "Printable album").
const albumRetryAfter = 30

// Album streams the printable album of an event as a PDF: a cover,
// then the visible photos (or the visible favorites), oldest first, at
// their display size. One album is made at a time; the next request gets
// 429 until it is done. After the first byte a failure can only cut the
// connection (web.AbortStream), so the client never keeps a truncated file
// that looks whole.
func (m *API) Album(w http.ResponseWriter, r *http.Request, e store.Event) error {
	perPage, favorites, err := albumParams(r)
	if err != nil {
		return err
	}
	loved, err := lovedOrder(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ids, err := m.album.PhotoIDs(ctx, e.ID, favorites)
	if err == nil && loved {
		ids, err = m.album.LovedFirst(ctx, e.ID, ids)
	}
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return web.ErrNotFound
	}
	done, ok := m.album.TryStart()
	if !ok {
		return web.RateLimited(albumRetryAfter)
	}
	defer done()

	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", mediafile.ContentDisposition(albums.FileName(e)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	start := time.Now()
	photos, pages, err := m.album.Write(ctx, w, e, ids, perPage, favorites)
	if err != nil {
		m.log.InfoContext(ctx, "album stopped", "event", e.ID, "photos", photos, "pages", pages,
			"clientGone", ctx.Err() != nil)
		return web.AbortStream(m.log, r, err)
	}
	m.log.InfoContext(ctx, "album made", "event", e.ID, "photos", photos, "pages", pages,
		"ms", time.Since(start).Milliseconds())
	return nil
}

// albumParams reads layout (photos per page: 1, 2 or 4; default 2) and
// scope (visible or favorites; default visible).
func albumParams(r *http.Request) (perPage int, favorites bool, err error) {
	q := r.URL.Query()
	perPage = 2
	if q.Has("layout") {
		switch q.Get("layout") {
		case "1":
			perPage = 1
		case "2":
			perPage = 2
		case "4":
			perPage = 4
		default:
			return 0, false, web.Field("layout", "must be 1, 2 or 4")
		}
	}
	switch q.Get("scope") {
	case "visible":
	case "favorites":
		favorites = true
	default:
		if q.Has("scope") {
			return 0, false, web.Field("scope", "must be visible or favorites")
		}
	}
	return perPage, favorites, nil
}

// lovedOrder reads (added) order=: taken (the default: oldest first) or
// loved (the photos with hearts first, most loved first, then the others
// oldest first).
func lovedOrder(r *http.Request) (bool, error) {
	switch r.URL.Query().Get("order") {
	case "", "taken":
		return false, nil
	case "loved":
		return true, nil
	}
	return false, web.Field("order", "must be taken or loved")
}
