package signage

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"

	fpdf "github.com/phpdave11/gofpdf"
)

// minCode is the least side, in mm, of a code's symbol (its quiet zone
// left out) on any sign: a phone reads a code of 3 cm from across a table
// (docs/decisions/events.md, "Printed codes: their sizes").
const minCode = 30.0

// code is a QR code's image on a sign: the name it is registered under
// and where its symbol is in it.
type code struct {
	name string
	// frac is the symbol's side over the image's; the rest is the quiet
	// zone, as wide on each side.
	frac float64
}

// quietShare is the width of the code's quiet zone over its symbol's side.
func (c code) quietShare() float64 { return (1 - c.frac) / 2 / c.frac }

// code registers a QR code's PNG under name, once, and finds its symbol.
func (d *doc) code(name string, b []byte) code {
	if c, ok := d.codes[name]; ok {
		return c
	}
	d.image(name, b)
	c := code{name: name, frac: 1}
	if frac, ok := symbolOf(b); ok {
		c.frac = frac
	}
	d.codes[name] = c
	return c
}

// symbolOf finds the symbol of a square QR code drawn as PNG and returns
// its side over the image's: its top row is the first that differs from
// the colour of the image's corner, and runs from the top-left finder
// pattern to the top-right one.
func symbolOf(b []byte) (float64, bool) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, false
	}
	r := img.Bounds()
	lum := func(x, y int) float64 { return float64(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y) / 255 }
	bg := lum(r.Min.X, r.Min.Y)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		x0, x1 := -1, -1
		for x := r.Min.X; x < r.Max.X; x++ {
			if math.Abs(lum(x, y)-bg) > 0.25 {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
			}
		}
		if x0 >= 0 {
			return float64(x1-x0+1) / float64(r.Dx()), x1 > x0
		}
	}
	return 0, false
}

// drawCode draws the code's image so that its symbol is side mm with its
// top-left corner at x, y; its quiet zone goes around it.
func (d *doc) drawCode(c code, x, y, side float64) {
	if d.dry {
		return
	}
	q := side * c.quietShare()
	d.pdf.ImageOptions(c.name, x-q, y-q, side+2*q, side+2*q, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
}

// card draws one sign in the w×h mm box at x, y, laid out for an A6 card
// (105 mm wide) and scaled to the box; spot, when not nil, makes it that
// place's card.
func (d *doc) card(x, y, w, h float64, spot *Spot) {
	p := d.pdf
	u := w / 105 // scale: 1 on A6
	s := d.s
	ac := s.Accent
	if ac.A == 0 {
		ac = color.RGBA{0x8a, 0x4f, 0xff, 0xff}
	}
	// Keep clear of the cut and of the printer's margin.
	m := 9 * u
	cx := x + w/2
	// The band on top, in the event's colour.
	p.SetFillColor(int(ac.R), int(ac.G), int(ac.B))
	p.Rect(x+m, y+m, w-2*m, 3*u, "F")
	top := y + m + 7*u
	if len(s.Logo) > 0 {
		lh := 14 * u
		if iw, ih := d.image("logo", s.Logo); iw > 0 {
			lw := lh * iw / ih
			if lw > w-2*m {
				lw, lh = w-2*m, (w-2*m)*ih/iw
			}
			p.ImageOptions("logo", cx-lw/2, top, lw, lh, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
			top += lh + 3*u
		}
	}
	// Both languages when they fit on the card, else the first alone.
	d.also = d.second
	if d.also != nil {
		d.dry = true
		fits := d.below(x, top, w, y+h-m, m, u, ac, spot) <= y+h-m
		d.dry = false
		if !fits {
			d.also = nil
		}
	}
	d.below(x, top, w, y+h-m, m, u, ac, spot)
}

// below draws the card's texts and codes from top down (see card) and
// returns the y under its steps when they are as small as they may be.
func (d *doc) below(x, top, w, bottom, m, u float64, ac color.RGBA, spot *Spot) float64 {
	s := d.s
	cx := x + w/2
	// The event's name, large, on at most two lines.
	top = d.lines(s.Event, cx, top, w-2*m, 17*u, 2, [3]int{20, 20, 20})
	if s.Line != "" {
		top = d.lines(s.Line, cx, top+1*u, w-2*m, 8.5*u, 2, [3]int{90, 90, 90})
	} else {
		top = d.lines(d.words.Text("signs.line"), cx, top+1*u, w-2*m, 8.5*u, 2, [3]int{90, 90, 90})
		top = d.under("signs.line", cx, top, w-2*m, 7*u, [3]int{120, 120, 120})
	}
	if spot != nil {
		top = d.lines(spot.Label, cx, top+2*u, w-2*m, 15*u, 2, [3]int{int(ac.R), int(ac.G), int(ac.B)})
	}
	top += 3 * u
	// The place's code takes the event's: what it encodes carries the
	// place, what is printed under it is the event's short address.
	join := d.code("qr-"+s.URL, s.QR)
	if spot != nil {
		join = d.code("qr-"+spot.URL, spot.QR)
	}
	steps := func(top float64) float64 {
		if s.WiFi != nil {
			return d.twoSteps(x+m, top, w-2*m, bottom, u, ac, d.code("wifi", s.WiFi.QR), join)
		}
		return d.oneStep(x+m, top, w-2*m, bottom, u, ac, join)
	}
	// Measure the steps, then share what room is left above and below
	// them, so that a sign uses its whole page.
	dry := d.dry
	d.dry = true
	end := steps(top)
	d.dry = dry
	if dry {
		return end
	}
	if spare := bottom - end; spare > 0 {
		top += spare / 2
	}
	return steps(top)
}

// say is a short fixed text (a caption) in the card's languages: "Réseau
// / Network"; once when both spell it alike (Italian and English
// "Password").
func (d *doc) say(key string) string {
	first := d.words.Text(key)
	if d.also == nil || d.also.Text(key) == first {
		return first
	}
	return first + " / " + d.also.Text(key)
}

// under draws a fixed text in the card's second language, if it has one
// and it differs from the first's, centred at cx under y in at most two
// lines of size pt, and returns the y under it.
func (d *doc) under(key string, cx, y, w, size float64, rgb [3]int) float64 {
	if d.also == nil || d.also.Text(key) == d.words.Text(key) {
		return y
	}
	return d.lines(d.also.Text(key), cx, y-0.5*size*0.3528, w, size, 2, rgb)
}

// twoSteps draws step 1 (the Wi-Fi's code, its name and password) and
// step 2 (the event's code, its address and access code) side by side in
// the w mm from x, from top down to at most bottom, and returns the y
// under them. The two symbols share the width but for a gap of 1 cm on an
// A6 card (at least a quiet zone, so that each scans alone); their outer quiet zones lie in the card's margin.
func (d *doc) twoSteps(x, top, w, bottom, u float64, ac color.RGBA, wifi, join code) float64 {
	qs := max(wifi.quietShare(), join.quietShare())
	col := (w - 10*u) / 2
	if col*qs > 10*u {
		col = w / (2 + qs)
	}
	cl, cr := x+col/2, x+w-col/2 // the columns' centres
	tw := w/2 - 0.5*u            // the width of their texts
	head := max(d.step(1, "signs.step1", cl-tw/2, top, tw, u, ac),
		d.step(2, "signs.step2", cr-tw/2, top, tw, u, ac))
	below := func(y float64) float64 {
		return max(d.wifiText(cl, y, tw, u), d.joinText(cr, y, tw, u, ac))
	}
	dry := d.dry
	d.dry = true
	under := below(0)
	d.dry = dry
	side := max(min(col, (bottom-head-under)/(1+2*qs)), minCode)
	q := side * qs
	d.drawCode(wifi, cl-side/2, head+q, side)
	d.drawCode(join, cr-side/2, head+q, side)
	return below(head + side + 2*q)
}

// oneStep draws the event's code, as large as the room from top to bottom
// allows, with its address and access code under it, centred in the w mm
// from x, and returns the y under them.
func (d *doc) oneStep(x, top, w, bottom, u float64, ac color.RGBA, join code) float64 {
	cx := x + w/2
	head := d.step(0, "signs.step2", x, top, w, u, ac)
	dry := d.dry
	d.dry = true
	under := d.joinText(cx, 0, w, u, ac)
	d.dry = dry
	qs := join.quietShare()
	side := max(min(w, (bottom-head-under)/(1+2*qs)), minCode)
	q := side * qs
	d.drawCode(join, cx-side/2, head+q, side)
	return d.joinText(cx, head+side+2*q, w, u, ac)
}

// step draws a step's heading centred in the w mm from x: its number in a
// disc (when n > 0) and its title (the text of key) under it on at most
// two lines, as large as that allows, then the title in the card's second
// language, smaller. It returns the y under it.
func (d *doc) step(n int, key string, x, y, w, u float64, ac color.RGBA) float64 {
	title := d.words.Text(key)
	p := d.pdf
	cx := x + w/2
	if n > 0 {
		r := 3.2 * u
		if !d.dry {
			p.SetFillColor(int(ac.R), int(ac.G), int(ac.B))
			p.Circle(cx, y+r, r, "F")
		}
		p.SetTextColor(255, 255, 255)
		d.write(fmt.Sprint(n), cx, y+r+1.3*u, 9.5*u)
		y += 2*r + 0.5*u
	}
	size := 10 * u
	for size > 8*u && len(d.wrap(title, size, w, 3)) > 2 {
		size -= 0.5 * u
	}
	y = d.lines(title, cx, y, w, size, 2, [3]int{30, 30, 30})
	return d.under(key, cx, y, w, size*0.8, [3]int{100, 100, 100}) + 2*u
}

// wifiText draws the network's name and password centred on cx, in w mm,
// from y down, and returns the y under them.
func (d *doc) wifiText(cx, y, w, u float64) float64 {
	wf := d.s.WiFi
	y = d.label(d.say("signs.network"), cx, y, w, u)
	y = d.value(wf.SSID, cx, y, w, u)
	if wf.Password == "" {
		return d.label(d.say("signs.openNetwork"), cx, y+1.5*u, w, u)
	}
	y = d.label(d.say("signs.password"), cx, y+1.5*u, w, u)
	return d.value(wf.Password, cx, y, w, u)
}

// joinText draws the event's short address (never a place's: a place's
// code carries it) and its access code centred on cx, in w mm, from y
// down, and returns the y under them.
func (d *doc) joinText(cx, y, w, u float64, ac color.RGBA) float64 {
	short := strings.TrimPrefix(strings.TrimPrefix(d.s.URL, "https://"), "http://")
	y = d.lines(d.say("signs.scan")+" "+short, cx, y, w, 7.5*u, 3, [3]int{70, 70, 70})
	if d.s.AccessCode == "" {
		return y
	}
	y = d.label(d.say("signs.code"), cx, y+1.5*u, w, u)
	return d.lines(d.s.AccessCode, cx, y-1*u, w, 14*u, 1, [3]int{int(ac.R), int(ac.G), int(ac.B)})
}

// label draws a small grey caption centred on cx and returns the y under
// it.
func (d *doc) label(s string, cx, y, w, u float64) float64 {
	return d.lines(s, cx, y, w, 7*u, 1, [3]int{100, 100, 100})
}

// value draws what a guest types (a network's name, a password) centred on
// cx: as large as fits w mm, down to a size still easy to read, then on
// more lines, cut anywhere, never with a character left out.
func (d *doc) value(s string, cx, y, w, u float64) float64 {
	s = strings.TrimSpace(s)
	size := 11 * u
	for size > 7.5*u && d.width(s, size) > w {
		size -= 0.5 * u
	}
	d.pdf.SetTextColor(20, 20, 20)
	lineH := size * 0.3528 * 1.25
	for _, l := range d.chop(s, size, w) {
		y += lineH
		d.write(l, cx, y-lineH*0.22, size)
	}
	return y + lineH*0.2
}

// chop cuts s into pieces at most w mm wide at size pt, anywhere between
// characters.
func (d *doc) chop(s string, size, w float64) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := len(r)
		for n > 1 && d.width(string(r[:n]), size) > w {
			n--
		}
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}
