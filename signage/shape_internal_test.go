package signage

import (
	"slices"
	"testing"

	fpdf "github.com/phpdave11/gofpdf"

	"eventbox/assets"
	"eventbox/text"
)

// ids are the glyph ids of a laid-out line, left to right.
func ids(l text.Line) []uint16 {
	var out []uint16
	for _, r := range l.Runs {
		for _, g := range r.Glyphs {
			out = append(out, g.ID)
		}
	}
	return out
}

// countPath counts the glyph outlines a line sends.
type countPath struct{ contours int }

func (c *countPath) MoveTo(x, y float64)             { c.contours++ }
func (c *countPath) LineTo(x, y float64)             {}
func (c *countPath) QuadTo(cx, cy, x, y float64)     {}
func (c *countPath) CubeTo(_, _, _, _, _, _ float64) {}
func (c *countPath) Close()                          {}

// A sign's text goes through the album's text stack: an Arabic word gets
// its joining forms and a Devanagari word its conjunct, glyphs that
// looking each character up on its own never gives.
func TestSignTextIsShaped(t *testing.T) {
	r, err := NewRenderer(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, s string }{
		{"Arabic joins its letters", "سلام"},
		{"Devanagari makes a conjunct", "नमस्ते"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.fonts.WithShaper(func(sh *text.Shaper) {
				d := &doc{r: r, shaper: sh, pdf: fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: 210, Ht: 297}})}
				shaped := ids(d.shaped(tt.s, 24))
				var alone []uint16
				for _, c := range tt.s {
					alone = append(alone, ids(d.shaped(string(c), 24))...)
				}
				if len(shaped) == 0 || slices.Equal(shaped, alone) {
					t.Errorf("%q shaped as %v, the same as its characters one by one %v", tt.s, shaped, alone)
				}
				var p countPath
				sh.Outline(d.shaped(tt.s, 24), 24, 0, 0, &p)
				if p.contours == 0 {
					t.Errorf("%q draws no outline", tt.s)
				}
			})
		})
	}
}
