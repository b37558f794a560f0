package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	_ "image/png" // event logos are PNG
	"io"
	"net/http"
	"slices"
	"time"

	"eventbox/assets"
	"eventbox/daemon/access"
	"eventbox/daemon/album"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/text"
	"eventbox/daemon/variants"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Album limits (docs/decisions.md, "Printable album").
const (
	// albumRetryAfter is the Retry-After, in seconds, of an album refused
	// while another is being made.
	albumRetryAfter = 30
	// albumListPage is how many photo records are read per transaction
	// while listing the album's photos.
	albumListPage = 200
	// maxLogoSide bounds the logo decoded for the cover.
	maxLogoSide = 4096
)

// handleAlbum streams the printable album of an event as a PDF: a cover,
// then the visible photos (or the visible favorites), oldest first, at
// their display size. One album is made at a time; the next request gets
// 429 until it is done. After the first byte a failure can only cut the
// connection (abortStream), so the client never keeps a truncated file
// that looks whole.
func (s *Server) handleAlbum(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	perPage, favorites, err := albumParams(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ids, err := s.albumPhotoIDs(ctx, e.ID, favorites)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return web.ErrNotFound
	}
	select {
	case s.albumSlot <- struct{}{}:
		defer func() { <-s.albumSlot }()
	default:
		return web.RateLimited(albumRetryAfter)
	}

	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", mediafile.ContentDisposition(albumFileName(e)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	start := time.Now()
	photos, pages, err := s.writeAlbum(ctx, w, e, ids, perPage, favorites)
	if err != nil {
		s.log.InfoContext(ctx, "album stopped", "event", e.ID, "photos", photos, "pages", pages,
			"clientGone", ctx.Err() != nil)
		return s.abortStream(r, err)
	}
	s.log.InfoContext(ctx, "album made", "event", e.ID, "photos", photos, "pages", pages,
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

// albumPhotoIDs lists the ids of the photos that go in the album, oldest
// first: visible ones (favorites only, if asked), videos left out, and
// photos whose image could not be decoded left out. Only the ids are
// kept, so the list stays small however large the event.
func (s *Server) albumPhotoIDs(ctx context.Context, eventID string, favorites bool) ([]string, error) {
	var ids []string
	q := visitor.PhotoQuery(eventID, access.AlbumBook(favorites))
	q.Limit = albumListPage
	for {
		page, err := s.store.Photos().List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			if p.Video == nil && !p.VariantsFailed {
				ids = append(ids, p.ID)
			}
		}
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	slices.Reverse(ids)
	return ids, nil
}

// writeAlbum writes the PDF of the album to w: the cover, then each photo
// still in the album's scope when its turn comes (deleted, hidden or
// unfavoured meanwhile: left out). It checks ctx between photos, so a
// client that goes away stops the work. It returns the photos and pages
// written.
func (s *Server) writeAlbum(ctx context.Context, w io.Writer, e store.Event, ids []string, perPage int, favorites bool) (int, int, error) {
	aw, err := album.New(w, album.Options{
		PerPage: perPage, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts(), Text: s.qr.Fonts(), Created: s.now(),
	})
	if err != nil {
		return 0, 0, err
	}
	cover := album.Cover{Title: e.Name, Date: albumDate(e.EventDate, e.DefaultLocale)}
	if logo := s.albumLogo(ctx, e); logo != nil {
		cover.Logo = &album.Image{R: bytes.NewReader(logo), Size: int64(len(logo))}
	}
	if err := aw.Cover(ctx, cover); err != nil {
		return 0, 0, fmt.Errorf("writing album cover: %w", err)
	}
	photos := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return photos, aw.Pages(), err
		}
		added, err := s.addAlbumPhoto(ctx, aw, id, favorites)
		if err != nil {
			return photos, aw.Pages(), err
		}
		if added {
			photos++
		}
	}
	if err := aw.Close(); err != nil {
		return photos, aw.Pages(), err
	}
	return photos, aw.Pages(), nil
}

// addAlbumPhoto adds one photo by its display variant, made now if it is
// missing. It reports false for a photo that left the album's scope or
// has no usable image.
func (s *Server) addAlbumPhoto(ctx context.Context, aw *album.Writer, id string, favorites bool) (bool, error) {
	p, err := s.store.Photos().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !access.AlbumBook(favorites).Holds(visitor.PhotoItem(p)) {
		return false, nil
	}
	if !p.Variants {
		if err := s.variants.Ensure(ctx, id); errors.Is(err, variants.ErrNoVariants) {
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	f, err := s.store.Media().Open(p.VariantName("display"))
	if errors.Is(err, store.ErrNotFound) {
		// Deleted since it was read.
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("reading display of %s: %w", id, err)
	}
	err = aw.AddPhoto(ctx, album.Image{R: f, Size: st.Size()}, p.GuestName)
	if errors.Is(err, album.ErrImage) {
		s.log.WarnContext(ctx, "photo left out of the album", "photo", id, "error", err)
		return false, nil
	}
	return err == nil, err
}

// albumLogo returns the event's logo as a JPEG on a white ground, ready
// for the cover, or nil when the event has none or it cannot be read (the
// album is still made, without it).
func (s *Server) albumLogo(ctx context.Context, e store.Event) []byte {
	if e.LogoVersion == 0 {
		return nil
	}
	f, err := s.store.Media().Open(e.LogoName())
	if err != nil {
		s.log.WarnContext(ctx, "album without logo", "event", e.ID, "error", err)
		return nil
	}
	defer f.Close()
	logo, err := flattenLogo(f)
	if err != nil {
		s.log.WarnContext(ctx, "album without logo", "event", e.ID, "error", err)
		return nil
	}
	return logo
}

// flattenLogo decodes a logo (PNG, or any registered format) and
// re-encodes it as a JPEG on white, since a PDF takes a JPEG as it is but
// a PNG only re-compressed, and the album is printed on white.
func flattenLogo(rs io.ReadSeeker) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(rs)
	if err != nil {
		return nil, fmt.Errorf("reading logo: %w", err)
	}
	if cfg.Width > maxLogoSide || cfg.Height > maxLogoSide {
		return nil, fmt.Errorf("logo of %d×%d is too large", cfg.Width, cfg.Height)
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading logo: %w", err)
	}
	src, _, err := image.Decode(rs)
	if err != nil {
		return nil, fmt.Errorf("decoding logo: %w", err)
	}
	dst := image.NewRGBA(src.Bounds())
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Over)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 92}); err != nil {
		return nil, fmt.Errorf("encoding logo: %w", err)
	}
	return buf.Bytes(), nil
}

// albumFileName is the download name: album-<event name>.pdf.
func albumFileName(e store.Event) string {
	if n := mediafile.SafeName(e.Name); n != "" {
		return "album-" + n + ".pdf"
	}
	return "album.pdf"
}

// albumDate writes an event date (YYYY-MM-DD) for the cover in the
// event's language (English when it has none), as [text.Date] does: "20
// June 2026", "1er juin 2026", "20 de junio de 2026". An empty or
// unreadable date gives "".
func albumDate(date, locale string) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	return text.Date(d, locale)
}
