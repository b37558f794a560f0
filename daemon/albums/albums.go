// Package albums makes an event's printable album: it lists the
// photos that go in it, writes the PDF (album) with the cover,
// the logo and each photo by its display variant, and lets one album be
// made at a time (docs/decisions.md, "Printable album"). It knows
// nothing of HTTP; the route is daemon/api/moderation's.
package albums

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
	"log/slog"
	"slices"
	"time"

	"eventbox/album"
	"eventbox/assets"
	"eventbox/daemon/access"
	"eventbox/daemon/mediafile"
	"eventbox/i18n"
	"eventbox/store"
	"eventbox/text"
)

// Album limits (docs/decisions.md, "Printable album").
const (
	// listPage is how many photo records are read per transaction while
	// listing the album's photos.
	listPage = 200
	// maxLogoSide bounds the logo decoded for the cover.
	maxLogoSide = 4096
)

// Config is what a Maker needs. Every field is required.
type Config struct {
	// Store holds the photos, their display variants and the logo.
	Store *store.Store
	// Fonts is the text stack the cover and captions are set in.
	Fonts *text.Fonts
	// Display makes a photo's sharp variants now when they are missing
	// or rough; ok is false, with no error, for a photo that has none to
	// give (set aside, or its attempt failed), which the album leaves out
	// unless it has rough ones.
	Display func(ctx context.Context, id string) (ok bool, err error)
	Logger  *slog.Logger
	Now     func() time.Time
}

// Maker makes printable albums, one at a time (TryStart). It is safe for
// concurrent use.
type Maker struct {
	cfg Config
	// slot holds a token while an album is being made.
	slot chan struct{}
}

// New returns a Maker over cfg.
func New(cfg Config) *Maker {
	return &Maker{cfg: cfg, slot: make(chan struct{}, 1)}
}

// TryStart takes the one album slot: ok is false while another album is
// being made; otherwise done gives the slot back and must be called once
// the album is written.
func (m *Maker) TryStart() (done func(), ok bool) {
	select {
	case m.slot <- struct{}{}:
		return func() { <-m.slot }, true
	default:
		return nil, false
	}
}

// PhotoIDs lists the ids of the photos that go in the album, oldest
// first: visible ones (favorites only, if asked), videos left out, and
// photos whose image could not be decoded left out. Only the ids are
// kept, so the list stays small however large the event.
func (m *Maker) PhotoIDs(ctx context.Context, eventID string, favorites bool) ([]string, error) {
	var ids []string
	q := access.PhotoQuery(eventID, access.AlbumBook(favorites))
	q.Limit = listPage
	for {
		page, err := m.cfg.Store.Photos().List(ctx, q)
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

// LovedFirst puts the photos of ids that have hearts first, most loved
// first (newest first among equals), through the most-loved index, and
// keeps the others in their order after them.
func (m *Maker) LovedFirst(ctx context.Context, eventID string, ids []string) ([]string, error) {
	in := make(map[string]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	out := make([]string, 0, len(ids))
	q := store.PhotoQuery{EventID: eventID, Loved: true, Limit: listPage}
	for {
		page, err := m.cfg.Store.Photos().List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			if in[p.ID] {
				out = append(out, p.ID)
				delete(in, p.ID)
			}
		}
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	for _, id := range ids {
		if in[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// Write writes the PDF of the album to w: the cover, then each photo
// still in the album's scope when its turn comes (deleted, hidden or
// unfavoured meanwhile: left out). It checks ctx between photos, so a
// client that goes away stops the work. It returns the photos and pages
// written.
func (m *Maker) Write(ctx context.Context, w io.Writer, e store.Event, ids []string, perPage int, favorites bool) (int, int, error) {
	aw, err := album.New(w, album.Options{
		PerPage: perPage, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts(), Text: m.cfg.Fonts, Created: m.cfg.Now(),
	})
	if err != nil {
		return 0, 0, err
	}
	cover := album.Cover{Title: e.Name, Date: CoverDate(e.EventDate, e.DefaultLocale)}
	if logo := m.logo(ctx, e); logo != nil {
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
		added, err := m.addPhoto(ctx, aw, id, e.DefaultLocale, favorites)
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

// addPhoto adds one photo by its display variant, made now if it is
// missing. It reports false for a photo that left the album's scope or
// has no usable image.
func (m *Maker) addPhoto(ctx context.Context, aw *album.Writer, id, locale string, favorites bool) (bool, error) {
	p, err := m.cfg.Store.Photos().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !access.AlbumBook(favorites).Holds(access.PhotoItem(p)) {
		return false, nil
	}
	if !p.Variants || p.VariantsRough {
		// A photo with rough variants is sharpened first; one that cannot
		// be is printed rough rather than left out.
		if ok, err := m.cfg.Display(ctx, id); err != nil || !ok && !p.Variants {
			return false, err
		}
	}
	f, err := m.cfg.Store.Media().Open(p.VariantName("display"))
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
	err = aw.AddPhoto(ctx, album.Image{R: f, Size: st.Size()}, Caption(p.GuestName, locale))
	if errors.Is(err, album.ErrImage) {
		m.cfg.Logger.WarnContext(ctx, "photo left out of the album", "photo", id, "error", err)
		return false, nil
	}
	return err == nil, err
}

// logo returns the event's logo as a JPEG on a white ground, ready
// for the cover, or nil when the event has none or it cannot be read (the
// album is still made, without it).
func (m *Maker) logo(ctx context.Context, e store.Event) []byte {
	if e.LogoVersion == 0 {
		return nil
	}
	f, err := m.cfg.Store.Media().Open(e.LogoName())
	if err != nil {
		m.cfg.Logger.WarnContext(ctx, "album without logo", "event", e.ID, "error", err)
		return nil
	}
	defer f.Close()
	logo, err := flattenLogo(f)
	if err != nil {
		m.cfg.Logger.WarnContext(ctx, "album without logo", "event", e.ID, "error", err)
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

// FileName is the download name: album-<event name>.pdf.
func FileName(e store.Event) string {
	if n := mediafile.SafeName(e.Name); n != "" {
		return "album-" + n + ".pdf"
	}
	return "album.pdf"
}

// CoverDate writes an event date (YYYY-MM-DD) for the cover in the
// event's language (English when it has none), as [text.Date] does: "20
// June 2026", "1er juin 2026", "20 de junio de 2026". An empty or
// unreadable date gives "".
func CoverDate(date, locale string) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	return text.Date(d, locale)
}

// boothName is the name the box gives the photo booth's photos
// (daemon/photos.BoothName); the album writes its own word for it.
const boothName = "Photo booth"

// Caption is a photo's caption in the album: its guest's name, the photo
// booth's in the event's language (English when it has none).
func Caption(guestName, locale string) string {
	if guestName == boothName {
		return i18n.Embedded().Lang(locale).Text("signs.boothName")
	}
	return guestName
}
