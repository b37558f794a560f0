package guests

import (
	"bytes"
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/store"
)

// mediaVariants are the v= values of GET /api/media/:id ("preview"
// added: what the album shows while the thumb is being made).
var mediaVariants = []string{"thumb", "display", "original", "play", "preview"}

// photoViewer answers whether this request may have the variant of the
// photo (access.Media): nil, web.ErrNotFound as if the photo did not exist, or
// web.ErrForbidden.
func (a *API) photoViewer(r *http.Request, p store.Photo, v string) error {
	e, err := a.visitors.AccessEvent(r.Context(), p.EventID)
	if err != nil {
		return err
	}
	switch access.Media(a.visitors.Viewer(r, p.EventID), e, access.PhotoItem(p), access.Variant(v)) {
	case access.Allowed:
		return nil
	case access.Forbidden:
		return web.ErrForbidden
	default:
		return web.ErrNotFound
	}
}

// SeesPhoto answers whether this request may see the photo at all, by
// the rule of GET /api/media/:id for its thumb (access.Media): nil, or
// web.ErrNotFound as if the photo did not exist. The hearts routes ask
// it, so that a photo held back by the reveal cannot be hearted; it stays
// beside Media so that the two answer by one rule.
func (a *API) SeesPhoto(r *http.Request, p store.Photo) error {
	return a.photoViewer(r, p, string(access.Thumb))
}

// Media serves a photo's variant, original or video to a viewer who
// may see it. Variants are immutable per id: long-lived private caching
// with an ETag. A variant that cannot be served now (set aside, or
// waiting for a retry) answers the placeholder tile, briefly cached.
// Originals and videos honour Range.
func (a *API) Media(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	v := r.URL.Query().Get("v")
	if v == "" {
		v = "display"
	}
	if !containsString(mediaVariants, v) {
		return web.Field("v", "must be thumb, display, original, play or preview")
	}
	p, err := a.store.Photos().Get(r.Context(), id)
	if err != nil {
		return err
	}
	if err := a.photoViewer(r, p, v); err != nil {
		return err
	}
	download := r.URL.Query().Get("download") == "1"
	if v == "preview" {
		if !p.Variants {
			return a.preview(w, r, p)
		}
		v = "thumb"
	}
	switch v {
	case "thumb", "display":
		if p.VariantsFailed {
			// Set aside: never tried again on a request
			// (docs/decisions.md, "Variant jobs that keep failing").
			return a.cfg.Placeholder(w, r)
		}
		if !p.Variants {
			ok, err := a.cfg.Variants.Ensure(r.Context(), p.ID)
			if err != nil {
				return err
			}
			if !ok {
				return a.cfg.Placeholder(w, r)
			}
		}
		etag, caching := mediafile.VariantCaching(p, v)
		w.Header().Set("Cache-Control", caching)
		return a.cfg.Files.Serve(w, r, p.VariantName(v), "image/jpeg", etag, download, mediafile.DownloadName(p, v, ".jpg"))
	case "play":
		if p.Video == nil {
			return web.ErrNotFound
		}
		return a.cfg.Files.ServeContent(w, r, p.VideoName(), p.Video.MIME, "", download, mediafile.DownloadName(p, v, mediafile.VideoExt(p.Video.MIME)), a.cfg.Files.StripFor(r, p))
	default: // original
		if download {
			if err := a.store.Photos().IncrementDownloads(r.Context(), []string{p.ID}); err != nil {
				return err
			}
		}
		if p.Video != nil {
			return a.cfg.Files.ServeContent(w, r, p.VideoName(), p.Video.MIME, "", download, mediafile.DownloadName(p, v, mediafile.VideoExt(p.Video.MIME)), a.cfg.Files.StripFor(r, p))
		}
		ct := "image/" + p.Format
		return a.cfg.Files.ServeContent(w, r, p.OriginalName(), ct, "", download, mediafile.DownloadName(p, v, "."+mediafile.FormatExt(p.Format)), a.cfg.Files.StripFor(r, p))
	}
}

// preview answers, at once, what the album shows of a photo whose thumb
// is not made yet: the camera's own small preview from the original (a
// JPEG's EXIF thumbnail, a HEIC's thumbnail item) to a viewer who may have
// the original (the preview is part of it), never cached, else the
// placeholder. Any failure of making the
// preview is logged and answers the placeholder too, never an error: the
// page only waits for the thumb. It never starts image work: the page
// asks for the thumb beside it, and shows that once it comes.
func (a *API) preview(w http.ResponseWriter, r *http.Request, p store.Photo) error {
	if p.VariantsFailed || a.photoViewer(r, p, "original") != nil {
		return a.cfg.Placeholder(w, r)
	}
	b, err := a.cfg.Variants.Preview(r.Context(), p)
	if err != nil {
		level := slog.LevelWarn
		if r.Context().Err() != nil {
			level = slog.LevelDebug // the page went away while it waited its turn
		}
		a.log.Log(r.Context(), level, "making a photo's preview; answering the placeholder", "photo", p.ID, "error", err)
		return a.cfg.Placeholder(w, r)
	}
	if b == nil {
		return a.cfg.Placeholder(w, r)
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("ETag", `"`+p.ID+`-preview"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	return nil
}
