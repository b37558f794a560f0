package daemon

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"eventbox/daemon/access"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// mediaVariants are the v= values of GET /api/media/:id.
var mediaVariants = []string{"thumb", "display", "original", "play"}

// photoViewer answers whether this request may have the variant of the
// photo (access.Media): nil, web.ErrNotFound as if the photo did not exist, or
// web.ErrForbidden.
func (s *Server) photoViewer(r *http.Request, p store.Photo, v string) error {
	e, err := s.visitors.AccessEvent(r.Context(), p.EventID)
	if err != nil {
		return err
	}
	switch access.Media(s.visitors.Viewer(r, p.EventID), e, visitor.PhotoItem(p), access.Variant(v)) {
	case access.Allowed:
		return nil
	case access.Forbidden:
		return web.ErrForbidden
	default:
		return web.ErrNotFound
	}
}

// handleMedia serves a photo's variant, original or video to a viewer who
// may see it. Variants are immutable per id: long-lived private caching
// with an ETag. A variant that cannot be served now (set aside, or
// waiting for a retry) answers the placeholder tile, briefly cached.
// Originals and videos honour Range.
func (s *Server) handleMedia(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	v := r.URL.Query().Get("v")
	if v == "" {
		v = "display"
	}
	if !containsString(mediaVariants, v) {
		return web.Field("v", "must be thumb, display, original or play")
	}
	p, err := s.store.Photo(r.Context(), id)
	if err != nil {
		return err
	}
	if err := s.photoViewer(r, p, v); err != nil {
		return err
	}
	download := r.URL.Query().Get("download") == "1"
	switch v {
	case "thumb", "display":
		if p.VariantsFailed {
			// Set aside: never tried again on a request
			// (docs/decisions.md, "Variant jobs that keep failing").
			return s.servePlaceholder(w, r)
		}
		if !p.Variants {
			if err := s.variants.ensure(r.Context(), p.ID); errors.Is(err, errNoVariants) {
				return s.servePlaceholder(w, r)
			} else if err != nil {
				return err
			}
		}
		etag := `"` + p.ID + "-" + v + `"`
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
		return s.serveFile(w, r, p.VariantName(v), "image/jpeg", etag, download, downloadName(p, v, ".jpg"))
	case "play":
		if p.Video == nil {
			return web.ErrNotFound
		}
		return s.serveContent(w, r, p.VideoName(), p.Video.MIME, "", download, downloadName(p, v, videoExt(p.Video.MIME)), s.stripFor(r, p))
	default: // original
		if download {
			if err := s.store.IncrementDownloads(r.Context(), []string{p.ID}); err != nil {
				return err
			}
		}
		if p.Video != nil {
			return s.serveContent(w, r, p.VideoName(), p.Video.MIME, "", download, downloadName(p, v, videoExt(p.Video.MIME)), s.stripFor(r, p))
		}
		ct := "image/" + p.Format
		return s.serveContent(w, r, p.OriginalName(), ct, "", download, downloadName(p, v, "."+formatExt(p.Format)), s.stripFor(r, p))
	}
}

// serveFile sends a media file with http.ServeContent (Range, HEAD,
// conditional requests). A fixed etag is set when given.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name, contentType, etag string, download bool, fileName string) error {
	return s.serveContent(w, r, name, contentType, etag, download, fileName, nil)
}

// serveContent is serveFile that, for a photo's original given as strip,
// sends it without its position (withoutLocation).
func (s *Server) serveContent(w http.ResponseWriter, r *http.Request, name, contentType, etag string, download bool, fileName string, strip *store.Photo) error {
	f, err := s.store.Media().Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	var content io.ReadSeeker = f
	if strip != nil {
		if content, err = withoutLocation(f, st.Size(), *strip); err != nil {
			return err
		}
		// The same URL answers the uploader the bytes as sent.
		w.Header().Set("Vary", "Cookie")
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if etag != "" {
		h.Set("ETag", etag)
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "private, max-age=3600")
	}
	if download {
		h.Set("Content-Disposition", contentDisposition(fileName))
	}
	http.ServeContent(w, r, "", st.ModTime(), content)
	return nil
}

// contentDisposition makes an attachment header with an ASCII fallback and
// the UTF-8 name (RFC 6266).
func contentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII || r == '"' || r == '\\' || r < 0x20 {
			return '_'
		}
		return r
	}, name)
	// Always quoted: the fallback holds no quote, backslash or control
	// character, and some clients only read the quoted form.
	return `attachment; filename="` + ascii + `"; filename*=UTF-8''` + url.PathEscape(name)
}

// downloadName is a readable, file-system-safe name for a download:
// date-time (when it was taken if known, else when it arrived; UTC),
// guest name, id.
func downloadName(p store.Photo, v, ext string) string {
	at := p.CreatedAt
	if p.TakenAt != 0 {
		at = p.TakenAt
	}
	t := time.UnixMilli(at).UTC().Format("20060102-150405")
	parts := []string{t}
	if n := safeName(p.GuestName); n != "" {
		parts = append(parts, n)
	}
	parts = append(parts, p.ID)
	if v == "thumb" || v == "display" {
		parts = append(parts, v)
	}
	return strings.Join(parts, "-") + ext
}

// safeName keeps letters and digits of any script and turns the rest into
// single dashes, so the name is valid on Windows, macOS and Linux.
func safeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() > 60 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

func formatExt(f string) string {
	if f == "jpeg" {
		return "jpg"
	}
	return f
}

func videoExt(mimeType string) string {
	switch mimeType {
	case "video/quicktime":
		return ".mov"
	case "video/webm":
		return ".webm"
	default:
		return ".mp4"
	}
}
