package qr

import (
	"errors"
	"fmt"
	"image"
	"image/color"

	qrcode "github.com/skip2/go-qrcode"

	"eventbox/text"
)

// Size limits of a rendered code, in pixels (PNG) or viewBox units (SVG).
const (
	MinSize = 512
	MaxSize = 4096
)

// Layout constants.
const (
	quietModules = 4
	// captionShare is the part of the square's height given to the caption
	// band when there is a caption.
	captionShare = 0.14
	// logoShare is the logo box's side as a share of the symbol's side: at
	// 0.4 it covers 16% of the symbol, which High error correction (30%)
	// absorbs with room to spare.
	logoShare = 0.4
	// minLogoVersion keeps small symbols from having their timing patterns
	// under the logo.
	minLogoVersion = 6
	// dotRadius is a round dot's radius in modules.
	dotRadius = 0.45
)

// ErrSize: the requested size is outside [MinSize, MaxSize].
var ErrSize = fmt.Errorf("size must be %d to %d", MinSize, MaxSize)

// Style is how a code looks.
type Style struct {
	// Foreground and Background are the module and background colours;
	// see [ValidateColors].
	Foreground, Background color.RGBA
	// Round draws data modules as dots; the three finder patterns stay
	// square.
	Round bool
	// Logo, when not nil, is drawn in the centre of the code, scaled to fit
	// and centred in a box cleared to the background colour.
	Logo image.Image
}

// DefaultStyle is black square modules on white, without logo.
func DefaultStyle() Style {
	return Style{
		Foreground: color.RGBA{A: 0xff},
		Background: color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff},
	}
}

// layout is where everything goes in the size×size square.
type layout struct {
	size    int
	modules [][]bool // symbol without quiet zone, [y][x]
	n       int      // modules per side of the symbol
	unit    int      // pixels per module
	ox, oy  int      // top-left of the symbol (not the quiet zone)
	logo    image.Rectangle
	hasLogo bool
	logoIn  image.Rectangle // where the logo image goes, inside logo
	caption image.Rectangle // caption band, empty without caption
}

// plan encodes content and lays out a code of the given size.
func plan(content string, size int, st Style, caption string) (*layout, error) {
	if size < MinSize || size > MaxSize {
		return nil, ErrSize
	}
	if content == "" {
		return nil, errors.New("encoding qr code: empty content")
	}
	if err := ValidateColors(st.Foreground, st.Background); err != nil {
		return nil, fmt.Errorf("qr code colours: %w", err)
	}
	q, err := encode(content, st.Logo != nil)
	if err != nil {
		return nil, err
	}
	l := &layout{size: size, modules: q, n: len(q)}

	codeSide := size
	if text.OneLine(caption) != "" {
		band := int(float64(size) * captionShare)
		codeSide = size - band
		l.caption = image.Rect(0, codeSide, size, size)
	}
	total := l.n + 2*quietModules
	l.unit = codeSide / total
	if l.unit < 1 {
		return nil, fmt.Errorf("encoding qr code: content too long for %d pixels", size)
	}
	drawn := l.unit * total
	l.ox = (size-drawn)/2 + quietModules*l.unit
	l.oy = (codeSide-drawn)/2 + quietModules*l.unit

	if st.Logo != nil {
		// A box of whole modules, centred on the symbol: its side has
		// the parity of n.
		side := int(float64(l.n) * logoShare)
		if side%2 != l.n%2 {
			side--
		}
		start := (l.n - side) / 2
		l.hasLogo = true
		l.logo = image.Rect(l.ox+start*l.unit, l.oy+start*l.unit, l.ox+(start+side)*l.unit, l.oy+(start+side)*l.unit)
		l.logoIn = fit(st.Logo.Bounds().Size(), l.logo.Inset(l.unit))
	}
	return l, nil
}

// encode returns the symbol's modules, with High error correction and at
// least version minLogoVersion when a logo covers the centre.
func encode(content string, logo bool) ([][]bool, error) {
	level := qrcode.Medium
	if logo {
		level = qrcode.Highest
	}
	q, err := qrcode.New(content, level)
	if err != nil {
		return nil, fmt.Errorf("encoding qr code: %w", err)
	}
	if logo && q.VersionNumber < minLogoVersion {
		q, err = qrcode.NewWithForcedVersion(content, minLogoVersion, level)
		if err != nil {
			return nil, fmt.Errorf("encoding qr code: %w", err)
		}
	}
	q.DisableBorder = true
	return q.Bitmap(), nil
}

// fit returns the largest rectangle of src's aspect ratio centred in box.
func fit(src image.Point, box image.Rectangle) image.Rectangle {
	bw, bh := box.Dx(), box.Dy()
	if src.X <= 0 || src.Y <= 0 || bw <= 0 || bh <= 0 {
		return image.Rectangle{}
	}
	w, h := bw, bw*src.Y/src.X
	if h > bh {
		w, h = bh*src.X/src.Y, bh
	}
	x, y := box.Min.X+(bw-w)/2, box.Min.Y+(bh-h)/2
	return image.Rect(x, y, x+w, y+h)
}

// dark reports whether module (x, y) is drawn: set in the symbol and not
// under the logo box.
func (l *layout) dark(x, y int) bool {
	if !l.modules[y][x] {
		return false
	}
	if l.hasLogo {
		px, py := l.ox+x*l.unit, l.oy+y*l.unit
		if image.Pt(px, py).In(l.logo) {
			return false
		}
	}
	return true
}

// finder reports whether module (x, y) belongs to one of the three 7×7
// finder patterns, which stay square in round style.
func (l *layout) finder(x, y int) bool {
	in := func(v int) (lo, hi bool) { return v < 7, v >= l.n-7 }
	xl, xh := in(x)
	yl, yh := in(y)
	return (xl && yl) || (xh && yl) || (xl && yh)
}
