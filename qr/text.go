package qr

import (
	"fmt"
	"image"
	"io/fs"
	"math"

	"golang.org/x/text/unicode/norm"

	"eventbox/text"
)

// Renderer draws QR codes with captions in its fonts. It is immutable and
// safe for concurrent use.
type Renderer struct {
	fonts *text.Fonts
}

// NewRenderer returns a Renderer that draws PNG captions with fonts, given
// as TrueType or OpenType file contents and tried in order for each
// character. With no fonts it can still draw codes, but PNG captions come out
// empty. The byte slices must not be modified afterwards.
func NewRenderer(fonts ...[]byte) (*Renderer, error) {
	f, err := text.Parse(fonts...)
	if err != nil {
		return nil, fmt.Errorf("parsing caption fonts: %w", err)
	}
	return &Renderer{fonts: f}, nil
}

// NewRendererFS is [NewRenderer] with the fonts read from fsys by name, e.g.
// NewRendererFS(assets.Fonts(), assets.CaptionFonts()...).
func NewRendererFS(fsys fs.FS, names ...string) (*Renderer, error) {
	f, err := text.Open(fsys, names...)
	if err != nil {
		return nil, fmt.Errorf("reading caption fonts: %w", err)
	}
	return &Renderer{fonts: f}, nil
}

// Fonts returns the renderer's fonts, parsed, for other text the box draws
// with the same fonts (the album).
func (rd *Renderer) Fonts() *text.Fonts { return rd.fonts }

// Covers reports whether every letter of s (ignoring spaces and controls)
// has a glyph in one of the renderer's fonts.
func (rd *Renderer) Covers(s string) bool {
	return rd.fonts.Covers(s)
}

// captionSize is the caption's font size as a share of the band's height,
// before the text is shrunk to fit the band's width.
const captionSize = 0.5

// fitCaption returns the caption's size in a band of the given width and
// height: the largest up to half the band's height that fits the band's
// width with a margin.
func fitCaption(sh *text.Shaper, s string, w, h int) float64 {
	px := float64(h) * captionSize
	if tw := sh.Line(s, px).Width; tw > 0 {
		px = math.Min(px, px*float64(w)*0.9/tw)
	}
	return px
}

// drawCaption draws s centred in band of dst (an alpha mask: 0xff is ink),
// shaped and in visual order, at the size fitCaption gives.
func (rd *Renderer) drawCaption(dst *image.Alpha, band image.Rectangle, s string) error {
	if rd.fonts.Len() == 0 {
		return nil
	}
	s = norm.NFC.String(text.OneLine(s))
	if s == "" {
		return nil
	}
	rd.fonts.WithShaper(func(sh *text.Shaper) {
		px := fitCaption(sh, s, band.Dx(), band.Dy())
		line := sh.Line(s, px)
		// Centre on the first font's metrics so that fallback glyphs
		// share one baseline.
		ascent, descent := rd.fonts.Metrics(0, px)
		textH := math.Ceil(ascent + descent)
		baseline := float64(band.Min.Y) + math.Floor((float64(band.Dy())-textH)/2) + math.Ceil(ascent)
		x := float64(band.Min.X) + (float64(band.Dx())-line.Width)/2
		sh.Draw(dst, line, px, x, baseline)
	})
	return nil
}

// captionFontSize returns the font size (in the square's units) that
// drawCaption would use for s in a band of the given width and height, for
// the SVG's text element.
func (rd *Renderer) captionFontSize(s string, w, h int) float64 {
	if rd.fonts.Len() == 0 {
		return float64(h) * captionSize
	}
	var px float64
	rd.fonts.WithShaper(func(sh *text.Shaper) { px = fitCaption(sh, norm.NFC.String(s), w, h) })
	return px
}
