package text

import (
	"image"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"golang.org/x/image/vector"
)

// Metrics returns font i's ascent and descent (both positive, descent
// below the baseline) at size.
func (f *Fonts) Metrics(i int, size float64) (ascent, descent float64) {
	ft := f.font(i)
	if ft == nil {
		return size * 0.8, size * 0.2
	}
	ext, ok := font.NewFace(ft).FontHExtents()
	if !ok {
		return size * 0.8, size * 0.2
	}
	s := size / f.Upem(i)
	return float64(ext.Ascender) * s, -float64(ext.Descender) * s
}

// Draw draws line l, laid out at size, into the alpha mask dst (0xff is
// ink) with its baseline starting at x, y (pixels, y growing downwards),
// anti-aliased. Glyphs without outlines are skipped.
func (s *Shaper) Draw(dst *image.Alpha, l Line, size, x, y float64) {
	b := dst.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	ox, oy := float32(x)-float32(b.Min.X), float32(y)-float32(b.Min.Y)
	pen := float32(0)
	drawn := false
	for _, r := range l.Runs {
		if r.Font < 0 {
			continue
		}
		face := s.face(r.Font)
		if face == nil {
			continue
		}
		scale := float32(size / s.fonts.Upem(r.Font))
		for _, g := range r.Glyphs {
			gx, gy := ox+pen+float32(g.XOffset), oy-float32(g.YOffset)
			pen += float32(g.Advance)
			outline, ok := face.GlyphDataOutline(font.GID(g.ID))
			if !ok {
				continue
			}
			pt := func(p ot.SegmentPoint) (float32, float32) { return gx + p.X*scale, gy - p.Y*scale }
			for _, seg := range outline.Segments {
				switch seg.Op {
				case ot.SegmentOpMoveTo:
					z.MoveTo(pt(seg.Args[0]))
				case ot.SegmentOpLineTo:
					z.LineTo(pt(seg.Args[0]))
				case ot.SegmentOpQuadTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					z.QuadTo(ax, ay, bx, by)
				case ot.SegmentOpCubeTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					cx, cy := pt(seg.Args[2])
					z.CubeTo(ax, ay, bx, by, cx, cy)
				}
				drawn = true
			}
			z.ClosePath()
		}
	}
	if drawn {
		z.Draw(dst, b, image.Opaque, image.Point{})
	}
}
