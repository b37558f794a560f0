package qr

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"

	xdraw "golang.org/x/image/draw"
)

// The PNG is paletted, which keeps a 4096-pixel code at 16 MiB of memory and
// makes encoding fast: rampSteps shades from background to foreground for
// anti-aliased edges, then up to logoColors colours for the logo.
const (
	rampSteps  = 64
	logoColors = 256 - rampSteps
)

// PNG writes the code for content as a size×size PNG in style st. A caption
// that is not blank is drawn, in the foreground colour, centred in a band
// across the bottom 14% of the square, and the code shrinks to fit above
// it; line breaks become spaces. It fails when size is
// outside [MinSize, MaxSize], the colours fail [ValidateColors], the content
// does not fit a QR code, or writing fails.
func (rd *Renderer) PNG(w io.Writer, content string, size int, st Style, caption string) error {
	l, err := plan(content, size, st, caption)
	if err != nil {
		return err
	}
	pal := make(color.Palette, rampSteps, 256)
	for i := range rampSteps {
		pal[i] = blend(st.Background, st.Foreground, float64(i)/(rampSteps-1))
	}
	var logo *image.RGBA
	if l.hasLogo && !l.logoIn.Empty() {
		logo = scaleLogo(st.Logo, l.logoIn.Size(), st.Background)
		pal = append(pal, logoPalette(logo, logoColors)...)
	}
	img := image.NewPaletted(image.Rect(0, 0, size, size), pal)
	// Index 0 is the background: the new image is already filled with it.

	drawModules(img, l, st.Round)
	if l.caption.Dy() > 0 {
		mask := image.NewAlpha(l.caption)
		if err := rd.drawCaption(mask, l.caption, caption); err != nil {
			return err
		}
		for y := l.caption.Min.Y; y < l.caption.Max.Y; y++ {
			for x := l.caption.Min.X; x < l.caption.Max.X; x++ {
				if a := mask.AlphaAt(x, y).A; a != 0 {
					img.SetColorIndex(x, y, rampIndex(float64(a)/255))
				}
			}
		}
	}
	if logo != nil {
		xdraw.FloydSteinberg.Draw(img, l.logoIn, logo, image.Point{})
	}
	// Flat colours compress well even at the fastest level, which matters
	// on a Pi.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(w, img); err != nil {
		return fmt.Errorf("writing qr png: %w", err)
	}
	return nil
}

// blend mixes a towards b by t in [0, 1].
func blend(a, b color.RGBA, t float64) color.RGBA {
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*t)) }
	return color.RGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

// rampIndex is the palette index of coverage c (0 background, 1 ink).
func rampIndex(c float64) uint8 {
	return uint8(math.Round(math.Max(0, math.Min(1, c)) * (rampSteps - 1)))
}

// drawModules draws the dark modules: square cells, or in round style dots
// (with anti-aliased edges) except for the finder patterns.
func drawModules(img *image.Paletted, l *layout, round bool) {
	u := l.unit
	ink := uint8(rampSteps - 1)
	var stamp []uint8
	if round {
		stamp = dotStamp(u, dotRadius*float64(u))
	}
	for y := range l.n {
		for x := range l.n {
			if !l.dark(x, y) {
				continue
			}
			cell := image.Rect(l.ox+x*u, l.oy+y*u, l.ox+(x+1)*u, l.oy+(y+1)*u)
			if !round || l.finder(x, y) {
				fill(img, cell, ink)
				continue
			}
			for dy := range u {
				row := img.Pix[img.PixOffset(cell.Min.X, cell.Min.Y+dy):]
				for dx, i := range stamp[dy*u : (dy+1)*u] {
					if i != 0 {
						row[dx] = i
					}
				}
			}
		}
	}
}

// fill sets every pixel of r to palette index i.
func fill(img *image.Paletted, r image.Rectangle, i uint8) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for k := range row {
			row[k] = i
		}
	}
}

// dotStamp returns the palette indices (row by row) of an anti-aliased disc
// of radius rad centred in a u×u cell; coverage is estimated from each pixel
// centre's distance to the edge. Index 0 is background.
func dotStamp(u int, rad float64) []uint8 {
	stamp := make([]uint8, u*u)
	c := float64(u) / 2
	for y := range u {
		for x := range u {
			d := math.Hypot(float64(x)+0.5-c, float64(y)+0.5-c)
			if cov := rad - d + 0.5; cov > 0 {
				stamp[y*u+x] = rampIndex(cov)
			}
		}
	}
	return stamp
}

// scaleLogo returns logo scaled to size, composited over bg.
func scaleLogo(logo image.Image, size image.Point, bg color.RGBA) *image.RGBA {
	dst := image.NewRGBA(image.Rectangle{Max: size})
	xdraw.Draw(dst, dst.Bounds(), image.NewUniform(bg), image.Point{}, xdraw.Src)
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), logo, logo.Bounds(), xdraw.Over, nil)
	return dst
}

// logoPalette picks up to n colours for img: the most frequent colours at
// 4 bits per channel, each the average of the pixels it stands for. Logos
// are mostly flat colours, which this keeps exact.
func logoPalette(img *image.RGBA, n int) color.Palette {
	type bin struct {
		count   int
		r, g, b int
		key     int
	}
	bins := make(map[int]*bin)
	for i := 0; i+3 < len(img.Pix); i += 4 {
		p := img.Pix[i : i+4 : i+4]
		k := int(p[0]>>4)<<8 | int(p[1]>>4)<<4 | int(p[2]>>4)
		b := bins[k]
		if b == nil {
			b = &bin{key: k}
			bins[k] = b
		}
		b.count++
		b.r += int(p[0])
		b.g += int(p[1])
		b.b += int(p[2])
	}
	list := make([]*bin, 0, len(bins))
	for _, b := range bins {
		list = append(list, b)
	}
	slices.SortFunc(list, func(a, b *bin) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return a.key - b.key
	})
	if len(list) > n {
		list = list[:n]
	}
	pal := make(color.Palette, 0, len(list))
	for _, b := range list {
		pal = append(pal, color.RGBA{
			R: uint8(b.r / b.count), G: uint8(b.g / b.count), B: uint8(b.b / b.count), A: 0xff,
		})
	}
	return pal
}

// scaleLogoAlpha returns logo scaled to size, keeping its transparency.
func scaleLogoAlpha(logo image.Image, size image.Point) *image.NRGBA {
	dst := image.NewNRGBA(image.Rectangle{Max: size})
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), logo, logo.Bounds(), xdraw.Src, nil)
	return dst
}
