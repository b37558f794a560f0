package qr

import (
	"fmt"
	"image"
	"image/draw"
	"io/fs"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/text/unicode/norm"
)

// Renderer draws QR codes with captions in its fonts. It is immutable and
// safe for concurrent use.
type Renderer struct {
	fonts []*opentype.Font
}

// NewRenderer returns a Renderer that draws PNG captions with fonts, given
// as TrueType or OpenType file contents and tried in order for each
// character. With no fonts it can still draw codes, but PNG captions come out
// empty. The byte slices must not be modified afterwards.
func NewRenderer(fonts ...[]byte) (*Renderer, error) {
	r := &Renderer{}
	for i, b := range fonts {
		f, err := opentype.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("parsing caption font %d: %w", i, err)
		}
		r.fonts = append(r.fonts, f)
	}
	return r, nil
}

// NewRendererFS is [NewRenderer] with the fonts read from fsys by name, e.g.
// NewRendererFS(assets.Fonts(), assets.CaptionFonts()...).
func NewRendererFS(fsys fs.FS, names ...string) (*Renderer, error) {
	var fonts [][]byte
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("reading caption font: %w", err)
		}
		fonts = append(fonts, b)
	}
	return NewRenderer(fonts...)
}

// fontFor returns the index of the first font with a glyph for r, or -1.
func (rd *Renderer) fontFor(buf *sfnt.Buffer, r rune) int {
	for i, f := range rd.fonts {
		if g, err := f.GlyphIndex(buf, r); err == nil && g != 0 {
			return i
		}
	}
	return -1
}

// Covers reports whether every letter of s (ignoring spaces and controls)
// has a glyph in one of the renderer's fonts, after Arabic joining.
func (rd *Renderer) Covers(s string) bool {
	var buf sfnt.Buffer
	for _, r := range rd.visual(&buf, s) {
		if !unicode.IsSpace(r) && !unicode.IsControl(r) && rd.fontFor(&buf, r) < 0 {
			return false
		}
	}
	return true
}

// visual returns caption s ready to draw left to right: NFC-normalised,
// single-line, Arabic joined, and right-to-left runs reordered.
func (rd *Renderer) visual(buf *sfnt.Buffer, s string) []rune {
	s = norm.NFC.String(oneLine(s))
	if s == "" {
		return nil
	}
	has := func(r rune) bool { return rd.fontFor(buf, r) >= 0 }
	return reorder([]rune(s), func(rs []rune) []rune { return shapeArabic(rs, has) })
}

// oneLine replaces line breaks and other controls with spaces and trims.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s))
}

// mirrors pairs the brackets that swap in right-to-left text.
var mirrors = map[rune]rune{
	'(': ')', ')': '(', '[': ']', ']': '[', '{': '}', '}': '{', '<': '>', '>': '<',
	'«': '»', '»': '«', '‹': '›', '›': '‹',
}

// glyphRun is a caption laid out at one font size.
type glyphRun struct {
	runes []rune
	font  []int // font index per rune, -1 for none
	faces []font.Face
	width fixed.Int26_6
}

// layoutText lays out runes at size px with the fallback fonts.
func (rd *Renderer) layoutText(buf *sfnt.Buffer, runes []rune, px float64) (*glyphRun, error) {
	g := &glyphRun{runes: runes, font: make([]int, len(runes))}
	for _, f := range rd.fonts {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return nil, fmt.Errorf("sizing caption font: %w", err)
		}
		g.faces = append(g.faces, face)
	}
	for i, r := range runes {
		g.font[i] = rd.fontFor(buf, r)
		if g.font[i] < 0 {
			continue
		}
		adv, ok := g.faces[g.font[i]].GlyphAdvance(r)
		if ok {
			g.width += adv
		}
	}
	return g, nil
}

func (g *glyphRun) close() {
	for _, f := range g.faces {
		_ = f.Close()
	}
}

// captionSize is the caption's font size as a share of the band's height,
// before the text is shrunk to fit the band's width.
const captionSize = 0.5

// drawCaption draws s centred in band of dst (an alpha mask: 0xff is ink),
// at the largest size up to half the band's height that fits the band's
// width with a margin.
func (rd *Renderer) drawCaption(dst *image.Alpha, band image.Rectangle, s string) error {
	if len(rd.fonts) == 0 {
		return nil
	}
	var buf sfnt.Buffer
	runes := rd.visual(&buf, s)
	if len(runes) == 0 {
		return nil
	}
	maxW := float64(band.Dx()) * 0.9
	px := float64(band.Dy()) * captionSize
	g, err := rd.layoutText(&buf, runes, px)
	if err != nil {
		return err
	}
	if w := float64(g.width) / 64; w > maxW {
		g.close()
		px *= maxW / w
		if g, err = rd.layoutText(&buf, runes, px); err != nil {
			return err
		}
	}
	defer g.close()

	// Centre on the first font's metrics so that fallback glyphs share
	// one baseline.
	m := g.faces[0].Metrics()
	textH := (m.Ascent + m.Descent).Ceil()
	baseline := band.Min.Y + (band.Dy()-textH)/2 + m.Ascent.Ceil()
	dot := fixed.Point26_6{X: fixed.I(band.Min.X) + (fixed.I(band.Dx())-g.width)/2, Y: fixed.I(baseline)}
	for i, r := range g.runes {
		if g.font[i] < 0 {
			continue
		}
		dr, mask, maskp, adv, ok := g.faces[g.font[i]].Glyph(dot, r)
		if ok {
			draw.DrawMask(dst, dr, image.Opaque, image.Point{}, mask, maskp, draw.Over)
		}
		dot.X += adv
	}
	return nil
}

// captionFontSize returns the font size (in the square's units) that
// drawCaption would use for s in a band of the given width and height, for
// the SVG's text element.
func (rd *Renderer) captionFontSize(s string, w, h int) float64 {
	px := float64(h) * captionSize
	if len(rd.fonts) == 0 {
		return px
	}
	var buf sfnt.Buffer
	runes := rd.visual(&buf, s)
	g, err := rd.layoutText(&buf, runes, px)
	if err != nil {
		return px
	}
	defer g.close()
	if tw, maxW := float64(g.width)/64, float64(w)*0.9; tw > maxW {
		px *= maxW / tw
	}
	return px
}
