package printing

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"math"

	"github.com/phpdave11/gofpdf"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/text/unicode/norm"

	"eventbox/store"
	"eventbox/text"
)

// DPI is the resolution the box lays prints out at.
const DPI = 300

// paper is one paper the box prints on: its size in mm (portrait), the
// PWG media name CUPS is asked for, and whether the sheet holds two strips.
type paper struct {
	name   string
	wMM    float64
	hMM    float64
	media  string
	strips bool
}

// papers are the papers of store.Papers.
var papers = map[string]paper{
	store.PaperPostcard: {store.PaperPostcard, 100, 150, "om_small-photo_100x150mm", false},
	store.PaperStrips:   {store.PaperStrips, 101.6, 152.4, "na_index-4x6_4x6in", true},
	store.PaperA6:       {store.PaperA6, 105, 148, "iso_a6_105x148mm", false},
	store.PaperA4:       {store.PaperA4, 210, 297, "iso_a4_210x297mm", false},
}

// dots turns mm into pixels at DPI.
func dots(mm float64) int { return int(math.Round(mm / 25.4 * DPI)) }

// page is what one print shows.
type page struct {
	paper  paper
	layout store.PrintLayout
	// photo is the picture, already about the size it is drawn at (nil:
	// a test print's pattern).
	photo image.Image
	// title and date go in the frame, with logo (nil: none).
	title, date string
	logo        image.Image
	// qr is the gallery link's code (nil: none).
	qr image.Image
}

// landscape reports whether the page is laid out wider than high: a
// landscape photo on a single-picture paper.
func (p page) landscape() bool {
	if p.paper.strips || p.photo == nil {
		return false
	}
	b := p.photo.Bounds()
	return b.Dx() > b.Dy()
}

// size is the page's size in pixels, as laid out.
func (p page) size() (int, int) {
	w, h := dots(p.paper.wMM), dots(p.paper.hMM)
	if p.landscape() {
		return h, w
	}
	return w, h
}

// slot is where the photo goes in a card of w×h with the layout's frame:
// above a band of 14% of the card's long side.
func slotAndBand(card image.Rectangle, frame bool) (image.Rectangle, image.Rectangle) {
	if !frame {
		return card, image.Rectangle{}
	}
	long := max(card.Dx(), card.Dy())
	bandH := long * 14 / 100
	margin := long * 2 / 100
	slot := image.Rect(card.Min.X+margin, card.Min.Y+margin, card.Max.X-margin, card.Max.Y-bandH)
	band := image.Rect(card.Min.X+margin, card.Max.Y-bandH, card.Max.X-margin, card.Max.Y-margin/2)
	return slot, band
}

// photoLong is the longest side to decode the photo of w×h at for it to
// cover (or fit) the slots of pg: the decode keeps that many pixels, not
// the original's.
func photoLong(pg page, w, h int) int {
	cw, ch := pg.size()
	card := image.Rect(0, 0, cw, ch)
	if pg.paper.strips {
		card = image.Rect(0, 0, cw/2, ch)
	}
	slot, _ := slotAndBand(card, pg.layout.Frame)
	if pg.paper.strips {
		slot = stripFrames(slot, image.Rect(0, 0, w, h))[0]
	}
	if w > h != (slot.Dx() > slot.Dy()) && !pg.paper.strips {
		slot = image.Rect(0, 0, slot.Dy(), slot.Dx())
	}
	sx, sy := float64(slot.Dx())/float64(w), float64(slot.Dy())/float64(h)
	s := math.Max(sx, sy)
	if pg.layout.Fit {
		s = math.Min(sx, sy)
	}
	return int(math.Ceil(s * float64(max(w, h))))
}

// render lays pg out on a white canvas of its size.
func (a *API) render(pg page) *image.RGBA {
	w, h := pg.size()
	canvas := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(canvas, canvas.Bounds(), image.White, image.Point{}, draw.Src)
	if pg.paper.strips {
		// Two identical strips side by side, cut down the middle.
		left := image.Rect(0, 0, w/2, h)
		a.card(canvas, left, pg)
		a.card(canvas, image.Rect(w/2, 0, w, h), pg)
		for y := 0; y < h; y += 24 {
			for x := w/2 - 1; x <= w/2; x++ {
				for dy := 0; dy < 10 && y+dy < h; dy++ {
					canvas.Set(x, y+dy, color.Gray{Y: 160})
				}
			}
		}
		return canvas
	}
	a.card(canvas, canvas.Bounds(), pg)
	return canvas
}

// card draws one card (a page, or one strip) into r of dst.
func (a *API) card(dst *image.RGBA, r image.Rectangle, pg page) {
	slot, band := slotAndBand(r, pg.layout.Frame)
	switch {
	case pg.photo != nil && pg.paper.strips:
		for _, f := range stripFrames(slot, pg.photo.Bounds()) {
			drawPhoto(dst, f, pg.photo, pg.layout.Fit)
		}
	case pg.photo != nil:
		drawPhoto(dst, slot, pg.photo, pg.layout.Fit)
	default:
		testPattern(dst, slot)
	}
	if !band.Empty() {
		a.frame(dst, band, pg)
	} else if pg.qr != nil {
		// No frame: a small code on white in the bottom right corner.
		side := min(r.Dx(), r.Dy()) * 22 / 100
		m := side / 10
		box := image.Rect(r.Max.X-side-m, r.Max.Y-side-m, r.Max.X-m, r.Max.Y-m)
		draw.Draw(dst, box, image.White, image.Point{}, draw.Src)
		xdraw.CatmullRom.Scale(dst, box.Inset(side/16), pg.qr, pg.qr.Bounds(), xdraw.Over, nil)
	}
}

// stripFrames are the frames of a strip: as many as fit down the slot,
// each across its width in the photo's own shape, like a booth's strip
// (the one photo in each).
func stripFrames(slot image.Rectangle, photo image.Rectangle) []image.Rectangle {
	w := slot.Dx()
	h := int(math.Round(float64(w) * float64(photo.Dy()) / float64(photo.Dx())))
	gap := w / 30
	n := max(1, (slot.Dy()+gap)/(h+gap))
	if n == 1 {
		return []image.Rectangle{slot}
	}
	top := slot.Min.Y + (slot.Dy()-(n*h+(n-1)*gap))/2
	out := make([]image.Rectangle, n)
	for i := range out {
		out[i] = image.Rect(slot.Min.X, top+i*(h+gap), slot.Max.X, top+i*(h+gap)+h)
	}
	return out
}

// drawPhoto draws photo into slot, cropped to fill it or fitted inside it.
func drawPhoto(dst *image.RGBA, slot image.Rectangle, photo image.Image, fit bool) {
	b := photo.Bounds()
	sw, sh := float64(slot.Dx()), float64(slot.Dy())
	pw, ph := float64(b.Dx()), float64(b.Dy())
	if fit {
		s := math.Min(sw/pw, sh/ph)
		w, h := int(math.Round(pw*s)), int(math.Round(ph*s))
		at := image.Rect(slot.Min.X+(slot.Dx()-w)/2, slot.Min.Y+(slot.Dy()-h)/2, 0, 0)
		at.Max = at.Min.Add(image.Pt(w, h))
		xdraw.CatmullRom.Scale(dst, at, photo, b, xdraw.Src, nil)
		return
	}
	s := math.Max(sw/pw, sh/ph)
	cw, ch := int(math.Round(sw/s)), int(math.Round(sh/s))
	src := image.Rect(b.Min.X+(b.Dx()-cw)/2, b.Min.Y+(b.Dy()-ch)/2, 0, 0)
	src.Max = src.Min.Add(image.Pt(cw, ch))
	xdraw.CatmullRom.Scale(dst, slot, photo, src, xdraw.Src, nil)
}

// testPattern fills r with the test print's grey steps and colour bars.
func testPattern(dst *image.RGBA, r image.Rectangle) {
	cols := []color.RGBA{{0, 0, 0, 255}, {255, 0, 0, 255}, {0, 170, 0, 255}, {0, 0, 255, 255},
		{0, 200, 200, 255}, {200, 0, 200, 255}, {230, 200, 0, 255}, {128, 128, 128, 255}}
	bw := r.Dx() / len(cols)
	for i, c := range cols {
		bar := image.Rect(r.Min.X+i*bw, r.Min.Y, r.Min.X+(i+1)*bw, r.Min.Y+r.Dy()/2)
		draw.Draw(dst, bar, image.NewUniform(c), image.Point{}, draw.Src)
	}
	steps := 10
	sw := r.Dx() / steps
	for i := range steps {
		g := uint8(255 * i / (steps - 1))
		step := image.Rect(r.Min.X+i*sw, r.Min.Y+r.Dy()/2, r.Min.X+(i+1)*sw, r.Max.Y)
		draw.Draw(dst, step, image.NewUniform(color.Gray{Y: g}), image.Point{}, draw.Src)
	}
}

// ink is the frame's text colour.
var ink = color.RGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}

// frame draws the band: the logo on the left, the code on the right, the
// event's name and date between them.
func (a *API) frame(dst *image.RGBA, band image.Rectangle, pg page) {
	side := band.Dy() * 86 / 100
	pad := band.Dy() - side
	textR := band
	if pg.logo != nil {
		box := image.Rect(band.Min.X, band.Min.Y+pad/2, band.Min.X+side, band.Min.Y+pad/2+side)
		lb := pg.logo.Bounds()
		s := math.Min(float64(side)/float64(lb.Dx()), float64(side)/float64(lb.Dy()))
		w, h := int(float64(lb.Dx())*s), int(float64(lb.Dy())*s)
		at := image.Rect(box.Min.X+(side-w)/2, box.Min.Y+(side-h)/2, 0, 0)
		at.Max = at.Min.Add(image.Pt(w, h))
		xdraw.CatmullRom.Scale(dst, at, pg.logo, lb, xdraw.Over, nil)
		textR.Min.X += side + pad
	}
	if pg.qr != nil {
		box := image.Rect(band.Max.X-side, band.Min.Y+pad/2, band.Max.X, band.Min.Y+pad/2+side)
		xdraw.CatmullRom.Scale(dst, box, pg.qr, pg.qr.Bounds(), xdraw.Over, nil)
		textR.Max.X -= side + pad
	}
	if a.fonts == nil || a.fonts.Len() == 0 || textR.Dx() <= 0 {
		return
	}
	mask := image.NewAlpha(textR)
	title := norm.NFC.String(text.OneLine(pg.title))
	date := norm.NFC.String(text.OneLine(pg.date))
	a.fonts.WithShaper(func(sh *text.Shaper) {
		titlePx := float64(textR.Dy()) * 0.34
		datePx := float64(textR.Dy()) * 0.2
		width := float64(textR.Dx())
		// A long name shrinks to 60% before it is cut with an ellipsis.
		if tw := sh.Line(title, titlePx).Width; tw > width {
			titlePx = max(titlePx*0.6, titlePx*width/tw)
		}
		tl := sh.Truncate(title, titlePx, width)
		dl := sh.Truncate(date, datePx, width)
		asc, desc := a.fonts.Metrics(0, titlePx)
		dasc, ddesc := a.fonts.Metrics(0, datePx)
		total := asc + desc + dasc + ddesc
		if date == "" {
			total = asc + desc
		}
		y := float64(textR.Min.Y) + (float64(textR.Dy())-total)/2 + asc
		sh.Draw(mask, tl, titlePx, float64(textR.Min.X)+(width-tl.Width)/2, y)
		if date != "" {
			sh.Draw(mask, dl, datePx, float64(textR.Min.X)+(width-dl.Width)/2, y+desc+dasc)
		}
	})
	draw.DrawMask(dst, textR, image.NewUniform(ink), image.Point{}, mask, textR.Min, draw.Over)
}

// writePDF writes the canvas as a one-page PDF of the paper's size (turned
// when the page is landscape), the picture a JPEG filling the page.
func writePDF(w io.Writer, canvas image.Image, p paper, landscape bool) error {
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, canvas, &jpeg.Options{Quality: 92}); err != nil {
		return fmt.Errorf("encoding the print: %w", err)
	}
	size := gofpdf.SizeType{Wd: p.wMM, Ht: p.hMM}
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "mm", Size: size})
	pdf.SetMargins(0, 0, 0)
	pdf.SetAutoPageBreak(false, 0)
	orient, pw, ph := "P", p.wMM, p.hMM
	if landscape {
		orient, pw, ph = "L", p.hMM, p.wMM
	}
	pdf.AddPageFormat(orient, size)
	pdf.RegisterImageOptionsReader("print", gofpdf.ImageOptions{ImageType: "JPG"}, &jb)
	pdf.ImageOptions("print", 0, 0, pw, ph, false, gofpdf.ImageOptions{ImageType: "JPG"}, 0, "")
	if err := pdf.Output(w); err != nil {
		return fmt.Errorf("writing the print's PDF: %w", err)
	}
	return nil
}
