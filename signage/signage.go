package signage

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"strings"
	"time"

	fpdf "github.com/phpdave11/gofpdf"

	"eventbox/i18n"
	"eventbox/text"
)

// Kinds of sign.
const (
	// Table is a table card: A6 (four to an A4 sheet) or A5 (two).
	Table = "table"
	// Poster is one sign on a whole A4 or A3 page.
	Poster = "poster"
	// Place is one card per place, A6, four to an A4 sheet.
	Place = "place"
)

// Paper sizes.
const (
	A3 = "a3"
	A4 = "a4"
	A5 = "a5"
	A6 = "a6"
)

// WiFi is the network guests join first.
type WiFi struct {
	// SSID is the network's name; required.
	SSID string
	// Password is its WPA passphrase; "" for an open network.
	Password string
	// QR is the PNG of the network's Wi-Fi QR code (QRText).
	QR []byte
}

// QRText is the text of a Wi-Fi QR code for the network, the format
// phones' cameras join from: WIFI:T:WPA;S:<ssid>;P:<password>;; with \,
// ;, ",", : and " escaped; an open network is T:nopass.
func QRText(ssid, password string) string {
	esc := strings.NewReplacer(`\`, `\\`, `;`, `\;`, `,`, `\,`, `:`, `\:`, `"`, `\"`)
	if password == "" {
		return "WIFI:T:nopass;S:" + esc.Replace(ssid) + ";;"
	}
	return "WIFI:T:WPA;S:" + esc.Replace(ssid) + ";P:" + esc.Replace(password) + ";;"
}

// Spot is one place's card.
type Spot struct {
	// Label is the place's name, printed large.
	Label string
	// URL is the place's join link, which its code encodes; the card
	// prints the event's short address (Sheet.URL) instead.
	URL string
	// QR is the PNG of the place's join code.
	QR []byte
}

// Sheet is what to print.
type Sheet struct {
	// Kind is Table, Poster or Place.
	Kind string
	// Size is A6 or A5 for a table card, A4 or A3 for a poster; Place
	// cards are A6.
	Size string
	// Lang is the language of the fixed texts: en, fr, it or es (others
	// print in English).
	Lang string
	// Also, when not empty and not Lang, is a second language for a
	// mixed party: each fixed text is printed in it too, under or after
	// Lang's, on every card where both fit; a card where they do not
	// has Lang's alone.
	Also string
	// Event is the event's name; Line, when not empty, replaces the
	// language's default line under it.
	Event, Line string
	// Accent is the event's colour (bands and headings).
	Accent color.RGBA
	// Logo is the event's logo as PNG, or nil.
	Logo []byte
	// URL is the event's join link, printed under its code, and QR the
	// PNG of its code (the event's qrStyle).
	URL string
	QR  []byte
	// AccessCode is printed when not empty.
	AccessCode string
	// WiFi, when not nil, is step 1.
	WiFi *WiFi
	// Spots are the places, for Place.
	Spots []Spot
	// Date is the document's creation date (fixed in tests).
	Date time.Time
}

// Renderer draws sheets with a set of fonts. It is safe for concurrent
// use: each Write builds its own document.
type Renderer struct {
	fsys  fs.FS
	names []string
	fonts *text.Fonts
}

// NewRenderer opens the fonts named in fsys (tried in order for each
// character).
func NewRenderer(fsys fs.FS, names ...string) (*Renderer, error) {
	f, err := text.Open(fsys, names...)
	if err != nil {
		return nil, err
	}
	return &Renderer{fsys: fsys, names: names, fonts: f}, nil
}

// ErrNoPlaces is returned for place cards of an event without places.
var ErrNoPlaces = fmt.Errorf("the event has no places")

// Write draws s as a PDF to w.
func (r *Renderer) Write(w io.Writer, s Sheet) error {
	if s.Kind == Place && len(s.Spots) == 0 {
		return ErrNoPlaces
	}
	var err error
	r.fonts.WithShaper(func(sh *text.Shaper) { err = r.write(w, s, sh) })
	return err
}

// write draws s as a PDF to w, shaping its texts with sh.
func (r *Renderer) write(w io.Writer, s Sheet, sh *text.Shaper) error {
	d := &doc{r: r, s: s, shaper: sh, words: i18n.Embedded().Lang(s.Lang), loaded: map[int]bool{}, images: map[string]bool{}, codes: map[string]code{}}
	if s.Also != "" && s.Also != s.Lang && i18n.Embedded().Has(s.Also) {
		d.second = i18n.Embedded().Lang(s.Also)
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: 210, Ht: 297}})
	d.pdf = pdf
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	pdf.SetCreationDate(s.Date)
	pdf.SetModificationDate(s.Date)
	pdf.SetTitle(s.Event, true)
	pdf.SetCreator("eventbox", false)
	switch s.Kind {
	case Poster:
		size := fpdf.SizeType{Wd: 210, Ht: 297}
		if s.Size == A3 {
			size = fpdf.SizeType{Wd: 297, Ht: 420}
		}
		pdf.AddPageFormat("P", size)
		d.card(0, 0, size.Wd, size.Ht, nil)
	case Place:
		d.sheets(105, 148.5, len(s.Spots), func(i int, x, y, w, h float64) { d.card(x, y, w, h, &s.Spots[i]) })
	default:
		if s.Size == A5 {
			d.sheets(148.5, 210, 2, func(_ int, x, y, w, h float64) { d.card(x, y, w, h, nil) })
		} else {
			d.sheets(105, 148.5, 4, func(_ int, x, y, w, h float64) { d.card(x, y, w, h, nil) })
		}
	}
	if err := d.err(); err != nil {
		return err
	}
	if err := pdf.Output(w); err != nil {
		return fmt.Errorf("writing signage pdf: %w", err)
	}
	return nil
}

// doc is one document being drawn.
type doc struct {
	r     *Renderer
	s     Sheet
	words *i18n.Language
	// second is the second language's words, nil for none; also is
	// them on the card being drawn (nil where both do not fit).
	second, also *i18n.Language
	shaper       *text.Shaper
	pdf          *fpdf.Fpdf
	loaded       map[int]bool // fonts added, by index
	images       map[string]bool
	codes        map[string]code // the QR codes' symbols, by image name
	dry          bool            // measuring: nothing is drawn
	fail         error
}

func (d *doc) err() error {
	if d.fail != nil {
		return d.fail
	}
	if err := d.pdf.Error(); err != nil {
		return fmt.Errorf("drawing signage: %w", err)
	}
	return nil
}

// sheets places n cards of w×h mm on A4 sheets (portrait when cards are
// A6, landscape for A5), with cut marks at the sheet's edges and centre
// where cards meet.
func (d *doc) sheets(w, h float64, n int, draw func(i int, x, y, w, h float64)) {
	pw, ph, orient := 210.0, 297.0, "P"
	if w > 105 {
		pw, ph, orient = 297, 210, "L"
	}
	cols, rows := int(pw/w+0.01), int(ph/h+0.01)
	per := cols * rows
	for i := 0; i < n; i++ {
		if i%per == 0 {
			d.pdf.AddPageFormat(orient, fpdf.SizeType{Wd: 210, Ht: 297})
			d.cutMarks(pw, ph, w, h, cols, rows)
		}
		k := i % per
		draw(i, float64(k%cols)*w, float64(k/cols)*h, w, h)
	}
}

// cutMarks draws short hairlines where the cuts go: at each edge of the
// sheet, in the printers' unprintable band and a little beyond it, and a
// small cross where four cards meet.
func (d *doc) cutMarks(pw, ph, w, h float64, cols, rows int) {
	p := d.pdf
	p.SetDrawColor(120, 120, 120)
	p.SetLineWidth(0.2)
	for c := 1; c < cols; c++ {
		x := float64(c) * w
		p.Line(x, 2, x, 8)
		p.Line(x, ph-8, x, ph-2)
	}
	for r := 1; r < rows; r++ {
		y := float64(r) * h
		p.Line(2, y, 8, y)
		p.Line(pw-8, y, pw-2, y)
	}
	for c := 1; c < cols; c++ {
		for r := 1; r < rows; r++ {
			x, y := float64(c)*w, float64(r)*h
			p.Line(x-3, y, x+3, y)
			p.Line(x, y-3, x, y+3)
		}
	}
}

// lines draws s centred at cx from y down, wrapped to width w in at most
// max lines of size pt (the last cut with an ellipsis), and returns the y
// under it.
func (d *doc) lines(s string, cx, y, w, size float64, max int, rgb [3]int) float64 {
	out := d.wrap(s, size, w, max)
	if len(out) == 0 {
		return y
	}
	d.pdf.SetTextColor(rgb[0], rgb[1], rgb[2])
	lineH := size * 0.3528 * 1.25 // pt to mm, with leading
	for _, l := range out {
		y += lineH
		d.write(l, cx, y-lineH*0.22, size)
	}
	return y + lineH*0.2
}

// wrap breaks s into lines at most w mm wide at size pt, between words, in
// at most max lines, the last cut with an ellipsis when the rest does not
// fit.
func (d *doc) wrap(s string, size, w float64, max int) []string {
	s = text.OneLine(s)
	var out []string
	cur := ""
	for _, wd := range strings.Fields(s) {
		try := strings.TrimSpace(cur + " " + wd)
		if cur != "" && d.width(try, size) > w {
			out = append(out, cur)
			cur = wd
			continue
		}
		cur = try
	}
	if cur != "" {
		out = append(out, cur)
	}
	if len(out) > max {
		out = append(out[:max-1], strings.Join(out[max-1:], " "))
	}
	for i, l := range out {
		out[i] = d.fit(l, size, w)
	}
	return out
}

// fit cuts s with an ellipsis until it is at most w mm wide at size.
func (d *doc) fit(s string, size, w float64) string {
	if d.width(s, size) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && d.width(string(r)+"…", size) > w {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// run is a stretch of text in one font.
type run struct {
	font int
	text string
}

// runs splits s by the font that draws each character: the first of the
// renderer's fonts that has it (font 0 for a character none has).
func (d *doc) runs(s string) []run {
	var out []run
	for _, r := range s {
		f := d.r.fonts.FontFor(r)
		if f < 0 || r == ' ' {
			f = 0
			if len(out) > 0 {
				f = out[len(out)-1].font
			}
		}
		if len(out) > 0 && out[len(out)-1].font == f {
			out[len(out)-1].text += string(r)
			continue
		}
		out = append(out, run{f, string(r)})
	}
	return out
}

// use selects font i at size pt, adding it to the document the first
// time.
func (d *doc) use(i int, size float64) {
	if !d.loaded[i] {
		b, err := fs.ReadFile(d.r.fsys, d.r.names[i])
		if err != nil && d.fail == nil {
			d.fail = fmt.Errorf("reading font %s: %w", d.r.names[i], err)
		}
		d.pdf.AddUTF8FontFromBytes(fmt.Sprintf("f%d", i), "", b)
		d.loaded[i] = true
	}
	d.pdf.SetFont(fmt.Sprintf("f%d", i), "", size)
}

// shaped lays s out on one line at size pt, in the document's unit (mm),
// with the text stack the album uses: font fallback, bidirectional order
// and OpenType shaping.
func (d *doc) shaped(s string, size float64) text.Line {
	return d.shaper.Line(s, size/d.pdf.GetConversionRatio())
}

func (d *doc) width(s string, size float64) float64 {
	return d.shaped(s, size).Width
}

// write draws s centred on cx (baseline y) at size pt.
func (d *doc) write(s string, cx, y, size float64) {
	d.writeLeft(s, cx-d.width(s, size)/2, y, size)
}

// writeLeft draws s from x (baseline y) at size pt: the shaped glyphs'
// outlines filled in the text colour, so that joined scripts, conjuncts
// and ligatures print as the album prints them, and under them the same
// characters as invisible text, so that the PDF can still be searched and
// copied from.
func (d *doc) writeLeft(s string, x, y, size float64) {
	if d.dry {
		return
	}
	line := d.shaped(s, size)
	fr, fg, fb := d.pdf.GetFillColor()
	d.pdf.SetFillColor(d.pdf.GetTextColor())
	p := &pdfPath{pdf: d.pdf}
	d.shaper.Outline(line, size/d.pdf.GetConversionRatio(), x, y, p)
	if p.drawn {
		d.pdf.DrawPath("F")
	}
	d.pdf.SetFillColor(fr, fg, fb)
	d.pdf.SetTextRenderingMode(3)
	for _, r := range d.runs(s) {
		d.use(r.font, size)
		d.pdf.Text(x, y, r.text)
		x += d.pdf.GetStringWidth(r.text)
	}
	d.pdf.SetTextRenderingMode(0)
}

// pdfPath draws a [text.Path] as the PDF's current path; drawn tells
// whether it has any.
type pdfPath struct {
	pdf   *fpdf.Fpdf
	drawn bool
}

func (p *pdfPath) MoveTo(x, y float64)         { p.pdf.MoveTo(x, y); p.drawn = true }
func (p *pdfPath) LineTo(x, y float64)         { p.pdf.LineTo(x, y) }
func (p *pdfPath) QuadTo(cx, cy, x, y float64) { p.pdf.CurveTo(cx, cy, x, y) }
func (p *pdfPath) CubeTo(c0x, c0y, c1x, c1y, x, y float64) {
	p.pdf.CurveBezierCubicTo(c0x, c0y, c1x, c1y, x, y)
}
func (p *pdfPath) Close() { p.pdf.ClosePath() }

// image registers a PNG once under name and returns its pixel size.
func (d *doc) image(name string, png []byte) (float64, float64) {
	if !d.images[name] {
		d.images[name] = true
		d.pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(png))
	}
	info := d.pdf.GetImageInfo(name)
	if info == nil {
		return 0, 0
	}
	return info.Width(), info.Height()
}
