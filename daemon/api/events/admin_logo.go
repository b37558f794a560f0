package events

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strconv"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/photos"
	"eventbox/daemon/web"
	"eventbox/imaging"
	"eventbox/store"
)

// Logo limits (docs/decisions.md, "Logo, QR codes, duplicate, end, booth").
const (
	// maxLogoBytes caps the uploaded file.
	maxLogoBytes = 10 << 20
	// maxLogoPixels caps the uploaded image's width × height: decoding
	// holds the whole image, up to 4 bytes a pixel.
	maxLogoPixels = 40_000_000
	// logoSide is the longest side of the stored logo; smaller ones are
	// kept at their size.
	logoSide = 1024
)

// Cache lifetimes of the public logo: for good under its current version,
// briefly otherwise (an old or missing v still gets the current logo).
const (
	logoCacheVersioned = "public, max-age=31536000, immutable"
	logoCacheLoose     = "public, max-age=300"
)

func logoError(msg string) error {
	return web.ErrInvalidImage.With(map[string]string{"logo": msg})
}

// UploadLogo takes the event's logo (multipart field logo: PNG,
// JPEG or WebP), stores it as a PNG no larger than 1024 px under a new
// version, and removes the previous one.
func (a *API) UploadLogo(w http.ResponseWriter, r *http.Request, e store.Event) error {
	_, file, err := a.cfg.Forms.ReadForm(w, r, ingest.Form{Limit: maxLogoBytes, FileField: "logo", FileRequired: true})
	if err != nil {
		return err
	}
	defer file.Tmp.Abort()

	a.logoMu.Lock()
	defer a.logoMu.Unlock()
	img, err := decodeLogo(file.Tmp.File, file.Size)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	// The fastest level: a logo is at most 1024 px and mostly flat
	// colours, and a Pi has better things to do.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return fmt.Errorf("encoding logo: %w", err)
	}
	// Re-read under the lock: the version must grow past the current one
	// even when two uploads land in the same millisecond.
	if e, err = a.store.Events().Get(r.Context(), e.ID); err != nil {
		return err
	}
	v := max(a.now().UnixMilli(), e.LogoVersion+1)
	name := store.LogoName(e.ID, v)
	size := buf.Len() // Write drains buf
	if _, err := a.store.Media().Write(name, &buf); err != nil {
		return err
	}
	if e, err = a.store.Events().SetLogo(r.Context(), e.ID, v); err != nil {
		if rmErr := a.store.Media().Remove(name); rmErr != nil {
			a.log.WarnContext(r.Context(), "removing an unused logo", "error", rmErr)
		}
		return err
	}
	a.log.InfoContext(r.Context(), "logo set", "event", e.ID, "version", v, "bytes", size)
	return web.JSON(w, r, http.StatusOK, eventBody{Event: dto.EventOf(e)})
}

// DeleteLogo removes the event's logo; without one it answers the
// event as it is.
func (a *API) DeleteLogo(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	a.logoMu.Lock()
	defer a.logoMu.Unlock()
	if e, err = a.store.Events().RemoveLogo(r.Context(), e.ID); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, eventBody{Event: dto.EventOf(e)})
}

// Logo serves the event's logo to anyone with the slug: cached for
// good when v names the current version, briefly otherwise; 404 without a
// logo.
func (a *API) Logo(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	return a.ServeLogo(w, r, e)
}

// ServeLogo answers the event's logo PNG, 404 when it has none; ?v= equal
// to its version makes it cacheable for good.
func (a *API) ServeLogo(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if e.LogoVersion == 0 {
		return web.ErrNotFound
	}
	cache := logoCacheLoose
	if r.URL.Query().Get("v") == strconv.FormatInt(e.LogoVersion, 10) {
		cache = logoCacheVersioned
	}
	w.Header().Set("Cache-Control", cache)
	etag := `"logo-` + strconv.FormatInt(e.LogoVersion, 10) + `"`
	return a.cfg.Files.Serve(w, r, e.LogoName(), "image/png", etag, false, "")
}

// decodeLogo checks the file like a photo (imaging.Check: sniffed type,
// structure, pixel count), decodes it, applies a JPEG's EXIF orientation
// and scales it to at most logoSide on its longest side.
func decodeLogo(f io.ReaderAt, size int64) (image.Image, error) {
	info, err := imaging.Check(f, size)
	switch {
	case errors.Is(err, imaging.ErrTooLarge):
		return nil, logoError("the image has too many pixels")
	case errors.Is(err, imaging.ErrUnsupported), errors.Is(err, imaging.ErrCorrupt):
		return nil, logoError("must be a whole PNG, JPEG or WebP image")
	case err != nil:
		return nil, fmt.Errorf("checking logo: %w", err)
	}
	if info.Pixels() > maxLogoPixels {
		return nil, logoError(fmt.Sprintf("must be at most %d megapixels", maxLogoPixels/1_000_000))
	}
	rd := io.NewSectionReader(f, 0, size)
	var m image.Image
	switch info.Format {
	case imaging.PNG:
		m, err = png.Decode(rd)
	case imaging.JPEG:
		m, err = jpeg.Decode(rd)
	case imaging.WebP:
		m, err = webp.Decode(rd)
	default:
		return nil, logoError("must be a PNG, JPEG or WebP image")
	}
	if err != nil {
		return nil, logoError("must be a whole PNG, JPEG or WebP image")
	}
	m = scaleToFit(m, logoSide)
	if info.Format == imaging.JPEG {
		m = orient(m, info.Orientation)
	}
	return m, nil
}

// scaleToFit returns m scaled down so that its longest side is at most
// side, alpha kept; a smaller image comes back as an RGBA copy of itself.
// A source much larger than the target is first brought to twice the
// target with a cheap filter, so that Catmull-Rom works on few pixels.
func scaleToFit(m image.Image, side int) *image.RGBA {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	if l := max(w, h); l > side {
		w, h = max(1, w*side/l), max(1, h*side/l)
	}
	if w == b.Dx() && h == b.Dy() {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		xdraw.Draw(dst, dst.Bounds(), m, b.Min, xdraw.Src)
		return dst
	}
	if b.Dx() > 4*w && b.Dy() > 4*h {
		mid := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
		xdraw.ApproxBiLinear.Scale(mid, mid.Bounds(), m, b, xdraw.Src, nil)
		m, b = mid, mid.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), m, b, xdraw.Src, nil)
	return dst
}

// orient applies an EXIF orientation (1–8) to m, so the logo stands as the
// camera or editor meant it.
func orient(m image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return m
	}
	src, ok := m.(*image.RGBA)
	if !ok {
		src = scaleToFit(m, max(m.Bounds().Dx(), m.Bounds().Dy()))
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		for x := range w {
			var dx, dy int
			switch o {
			case 2: // mirrored
				dx, dy = w-1-x, y
			case 3: // upside down
				dx, dy = w-1-x, h-1-y
			case 4: // upside down, mirrored
				dx, dy = x, h-1-y
			case 5: // transposed
				dx, dy = y, x
			case 6: // turned a quarter clockwise
				dx, dy = h-1-y, x
			case 7: // transverse
				dx, dy = h-1-y, w-1-x
			case 8: // turned a quarter anticlockwise
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dst.PixOffset(dx, dy):][:4], src.Pix[src.PixOffset(x, y):][:4])
		}
	}
	return dst
}
