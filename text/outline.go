package text

import (
	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// Path receives the outlines of a shaped line's glyphs, for a writer that
// draws vectors (a PDF): coordinates are in the units of the size the line
// was laid out at, with y growing downwards.
type Path interface {
	MoveTo(x, y float64)
	LineTo(x, y float64)
	QuadTo(cx, cy, x, y float64)
	CubeTo(c0x, c0y, c1x, c1y, x, y float64)
	Close()
}

// Outline sends the outlines of line l, laid out at size, to p, with its
// baseline starting at x, y (y growing downwards). It draws the glyphs the
// shaping chose (ligatures, joining forms, conjuncts, marks placed on
// their letters), in visual order. Glyphs without outlines are skipped.
func (s *Shaper) Outline(l Line, size, x, y float64, p Path) {
	pen := 0.0
	for _, r := range l.Runs {
		face := (*font.Face)(nil)
		if r.Font >= 0 {
			face = s.face(r.Font)
		}
		scale := 0.0
		if face != nil {
			scale = size / s.fonts.Upem(r.Font)
		}
		for _, g := range r.Glyphs {
			gx, gy := x+pen+g.XOffset, y-g.YOffset
			pen += g.Advance
			if face == nil {
				continue
			}
			outline, ok := face.GlyphDataOutline(font.GID(g.ID))
			if !ok || len(outline.Segments) == 0 {
				continue
			}
			pt := func(q ot.SegmentPoint) (float64, float64) {
				return gx + float64(q.X)*scale, gy - float64(q.Y)*scale
			}
			open := false
			for _, seg := range outline.Segments {
				switch seg.Op {
				case ot.SegmentOpMoveTo:
					if open {
						p.Close()
					}
					p.MoveTo(pt(seg.Args[0]))
					open = true
				case ot.SegmentOpLineTo:
					p.LineTo(pt(seg.Args[0]))
				case ot.SegmentOpQuadTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					p.QuadTo(ax, ay, bx, by)
				case ot.SegmentOpCubeTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					cx, cy := pt(seg.Args[2])
					p.CubeTo(ax, ay, bx, by, cx, cy)
				}
			}
			if open {
				p.Close()
			}
		}
	}
}
