// Package mediafile sends the box's stored files as answers: Range,
// HEAD and conditional requests, content types, download names that are
// safe on every system, and originals without their position for anyone
// but their uploader and the hosts.
package mediafile

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"eventbox/daemon/access"
	"eventbox/daemon/visitor"
	"eventbox/imaging"
	"eventbox/store"
)

// Sender serves files of the media area. It is safe for concurrent use.
type Sender struct {
	media    *store.Media
	visitors *visitor.Resolver
}

// New returns a Sender over the media area, deciding who gets an
// original as sent with visitors.
func New(media *store.Media, visitors *visitor.Resolver) *Sender {
	return &Sender{media: media, visitors: visitors}
}

// Serve sends a media file with http.ServeContent (Range, HEAD,
// conditional requests). A fixed etag is set when given.
func (x *Sender) Serve(w http.ResponseWriter, r *http.Request, name, contentType, etag string, download bool, fileName string) error {
	return x.ServeContent(w, r, name, contentType, etag, download, fileName, nil)
}

// ServeContent is serveFile that, for a photo's original given as strip,
// sends it without its position (WithoutLocation).
func (x *Sender) ServeContent(w http.ResponseWriter, r *http.Request, name, contentType, etag string, download bool, fileName string, strip *store.Photo) error {
	f, err := x.media.Open(name)
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
		if content, err = WithoutLocation(f, st.Size(), *strip); err != nil {
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
		h.Set("Content-Disposition", ContentDisposition(fileName))
	}
	http.ServeContent(w, r, "", st.ModTime(), content)
	return nil
}

// ContentDisposition makes an attachment header with an ASCII fallback and
// the UTF-8 name (RFC 6266).
func ContentDisposition(name string) string {
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

// DownloadName is a readable, file-system-safe name for a download:
// date-time (when it was taken if known, else when it arrived; UTC),
// guest name, id.
func DownloadName(p store.Photo, v, ext string) string {
	at := p.CreatedAt
	if p.TakenAt != 0 {
		at = p.TakenAt
	}
	t := time.UnixMilli(at).UTC().Format("20060102-150405")
	parts := []string{t}
	if n := SafeName(p.GuestName); n != "" {
		parts = append(parts, n)
	}
	parts = append(parts, p.ID)
	if v == "thumb" || v == "display" {
		parts = append(parts, v)
	}
	return strings.Join(parts, "-") + ext
}

// SafeName keeps letters and digits of any script and turns the rest into
// single dashes, so the name is valid on Windows, macOS and Linux.
func SafeName(s string) string {
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

// FormatExt is the file extension of a photo format ("jpg" for jpeg).
func FormatExt(f string) string {
	if f == "jpeg" {
		return "jpg"
	}
	return f
}

// VideoExt is the file extension of a video's MIME type.
func VideoExt(mimeType string) string {
	switch mimeType {
	case "video/quicktime":
		return ".mov"
	case "video/webm":
		return ".webm"
	default:
		return ".mp4"
	}
}

// AsSent reports whether this request gets a photo's original as it was
// sent: its uploader (the guest of this browser who sent it) and the
// hosts (an account that reaches the event). Everyone else, other guests
// and gallery visitors, gets it without its position (docs/decisions.md,
// "No position in the originals others get").
func (x *Sender) AsSent(r *http.Request, p store.Photo) bool {
	v := x.visitors.Viewer(r, p.EventID)
	if v.Account != nil && access.Reaches(*v.Account, p.EventID) {
		return true
	}
	return p.GuestID != "" && v.Guests[p.EventID] == p.GuestID
}

// StripFor is the photo to serve without its position to this request,
// or nil when it gets the file as sent (asSent).
func (x *Sender) StripFor(r *http.Request, p store.Photo) *store.Photo {
	if x.AsSent(r, p) {
		return nil
	}
	return &p
}

// WithoutLocation lays over an original the patches that remove its
// position (imaging.ReadMetadata): the stored file is untouched, and the
// answer keeps its size, so Range requests work as on the file.
// For a video, f is its video file (imaging.VideoLocation).
func WithoutLocation(f *os.File, size int64, p store.Photo) (io.ReadSeeker, error) {
	var patches []imaging.Patch
	if p.Video != nil {
		var err error
		if patches, err = imaging.VideoLocation(f, size); err != nil {
			return nil, fmt.Errorf("reading the position of video %s: %w", p.ID, err)
		}
	} else {
		m, err := imaging.ReadMetadata(f, size, imaging.Format(p.Format), time.UTC)
		if err != nil {
			return nil, fmt.Errorf("reading the position of photo %s: %w", p.ID, err)
		}
		patches = m.Location
	}
	if len(patches) == 0 {
		return f, nil
	}
	return imaging.NewPatched(f, patches), nil
}

// VariantCaching is the ETag and Cache-Control of a photo's thumb or
// display (v). Sharp variants never change under their id: cached for a
// year. Rough ones (store.Photo.VariantsRough: a HEIC's thumbnail item
// until the whole photo is decoded) carry an ETag of their own and are
// checked again at each use, so that a screen that showed one gets the
// sharp one as soon as it exists.
func VariantCaching(p store.Photo, v string) (etag, cacheControl string) {
	if p.VariantsRough {
		return `"` + p.ID + "-" + v + `-rough"`, "private, no-cache"
	}
	return `"` + p.ID + "-" + v + `"`, "private, max-age=31536000, immutable"
}
