package album

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"eventbox/text"
)

// A4 portrait, in points.
const (
	pageWidth  = 595.28
	pageHeight = 841.89
	margin     = 40.0
	gutter     = 20.0
)

// Options configure a Writer.
type Options struct {
	// PerPage is the number of photos on each page after the cover: 1
	// (one page each), 2 (stacked) or 4 (a 2×2 grid).
	PerPage int
	// Fonts holds the TrueType fonts (glyf outlines) named by FontNames,
	// tried in that order for each character of the text. A character no
	// font has is left out; with no fonts, no text is drawn. Each font
	// used is embedded whole, once. Fonts must not be nil when FontNames
	// is set, and must stay readable until Close.
	Fonts     fs.FS
	FontNames []string
	// Text, when not nil, is FontNames' fonts already parsed, in the same
	// order (as a QR renderer holds them), which saves parsing them again
	// for each album; nil parses them from Fonts.
	Text *text.Fonts
	// Created is the creation time written in the document information;
	// the zero time leaves it out (for reproducible output).
	Created time.Time
}

// Image is a JPEG to embed, read through R (not nil) from offset 0 to
// Size. Its bytes go into the PDF as they are: it should already be at
// the size it is printed at.
type Image struct {
	R    io.ReaderAt
	Size int64
}

// Cover is the album's first page.
type Cover struct {
	Title string // the event's name; also the document's title
	Date  string // already formatted for reading; "" leaves it out
	Logo  *Image // nil: no logo
}

// Writer streams an album as a PDF to an io.Writer: New, then Cover (at
// most once, first), AddPhoto for each photo in album order, then Close.
// Pages are written as soon as they are full; the Writer keeps only the
// object offsets, the page numbers and the glyphs used, never an image.
// It is not safe for concurrent use.
type Writer struct {
	o       *objWriter
	fonts   *fontSet
	perPage int
	created time.Time

	catalog, pages, info int
	kids                 []int // page objects, in order
	title                string

	// The page being filled.
	content   strings.Builder
	images    []int
	faces     map[int]bool
	slot      int
	photos    int
	coverDone bool
	closed    bool
}

// ErrClosed is returned by a call after Close.
var ErrClosed = errors.New("album already closed")

// New writes the PDF header to w and returns a Writer for the rest. The
// output is buffered; Close flushes it. w is not closed.
func New(w io.Writer, opt Options) (*Writer, error) {
	if opt.PerPage != 1 && opt.PerPage != 2 && opt.PerPage != 4 {
		return nil, fmt.Errorf("album: %d photos per page; want 1, 2 or 4", opt.PerPage)
	}
	if len(opt.FontNames) > 0 && opt.Fonts == nil {
		return nil, errors.New("album: font names given without a file system")
	}
	fonts := &fontSet{}
	if len(opt.FontNames) > 0 {
		var err error
		if fonts, err = openFonts(opt.Fonts, opt.FontNames, opt.Text); err != nil {
			return nil, err
		}
	}
	aw := &Writer{o: newObjWriter(w), fonts: fonts, perPage: opt.PerPage, created: opt.Created, faces: map[int]bool{}}
	// The binary comment tells transfer tools the file is not text.
	aw.o.printf("%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n")
	aw.catalog, aw.pages, aw.info = aw.o.alloc(), aw.o.alloc(), aw.o.alloc()
	if aw.o.err != nil {
		fonts.close()
		return nil, aw.o.err
	}
	return aw, nil
}

// Pages returns the number of pages written so far, the cover included.
func (aw *Writer) Pages() int { return len(aw.kids) }

// Cover writes the cover page. It must come before the first photo and
// at most once. An unusable logo is an ErrImage error with nothing
// written; the caller may retry without it.
func (aw *Writer) Cover(ctx context.Context, c Cover) error {
	switch {
	case aw.closed:
		return ErrClosed
	case aw.coverDone || aw.photos > 0:
		return errors.New("album: the cover comes first, once")
	case ctx.Err() != nil:
		return ctx.Err()
	}
	aw.title = c.Title
	fonts := aw.fonts
	const titleSize, titleLeading, dateSize = 30.0, 38.0, 16.0
	const logoMaxW, logoMaxH, logoGap = 220.0, 160.0, 40.0
	textW := pageWidth - 2*margin - 40
	lines := fonts.wrap(text.Clean(c.Title), titleSize, textW, 3)
	date := fonts.truncate(text.Clean(c.Date), dateSize, textW)

	var logo jpegInfo
	var logoW, logoH float64
	if c.Logo != nil {
		var err error
		if logo, err = readJPEGInfo(io.NewSectionReader(c.Logo.R, 0, c.Logo.Size)); err != nil {
			return fmt.Errorf("reading logo: %w", err)
		}
		logoW, logoH = fit(float64(logo.width), float64(logo.height), logoMaxW, logoMaxH)
	}

	// Stack logo, title, rule and date, centred a little above the middle.
	height := float64(len(lines)) * titleLeading
	if logoH > 0 {
		height += logoH + logoGap
	}
	if len(date.Runs) > 0 {
		height += 24 + dateSize
	}
	y := pageHeight/2 + height/2 + 40
	if logoH > 0 {
		obj, err := aw.image(*c.Logo, logo)
		if err != nil {
			return err
		}
		aw.draw(obj, (pageWidth-logoW)/2, y-logoH, logoW, logoH)
		y -= logoH + logoGap
	}
	aw.content.WriteString("0.1 g\n")
	for _, l := range lines {
		y -= titleLeading
		aw.centred(l, pageWidth/2, y+(titleLeading-titleSize)/2, titleSize)
	}
	if len(date.Runs) > 0 {
		aw.content.WriteString("0.6 G 0.5 w\n")
		fmt.Fprintf(&aw.content, "%s %s m %s %s l S\n", num(pageWidth/2-40), num(y-10), num(pageWidth/2+40), num(y-10))
		y -= 24 + dateSize
		aw.content.WriteString("0.35 g\n")
		aw.centred(date, pageWidth/2, y, dateSize)
	}
	aw.coverDone = true
	return aw.endPage(false)
}

// AddPhoto places a photo in the next free place, with its caption (the
// guest's name; "" for none) underneath, and writes the page when it is
// full. An image the album cannot embed is an ErrImage error with nothing
// written, and the Writer stays usable; after any other error the output
// is broken and the caller should stop.
func (aw *Writer) AddPhoto(ctx context.Context, img Image, caption string) error {
	if aw.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := readJPEGInfo(io.NewSectionReader(img.R, 0, img.Size))
	if err != nil {
		return err
	}
	obj, err := aw.image(img, info)
	if err != nil {
		return err
	}
	size := captionSize[aw.perPage]
	band := size * 2.2
	c := cells(aw.perPage)[aw.slot]
	w, h := fit(float64(info.width), float64(info.height), c.w, c.h-band)
	x := c.x + (c.w-w)/2
	y := c.y + band + (c.h-band-h)/2
	aw.draw(obj, x, y, w, h)
	if line := aw.fonts.truncate(text.Clean(caption), size, c.w); len(line.Runs) > 0 {
		aw.content.WriteString("0.25 g\n")
		aw.centred(line, c.x+c.w/2, y-size*1.5, size)
	}
	aw.photos++
	aw.slot++
	if aw.slot == aw.perPage {
		return aw.endPage(true)
	}
	return nil
}

// captionSize is the caption's font size by photos per page.
var captionSize = map[int]float64{1: 12, 2: 11, 4: 9}

// cell is a photo's place on a page: lower-left corner and size.
type cell struct{ x, y, w, h float64 }

// cells returns the places of a page, in reading order.
func cells(perPage int) []cell {
	w, h := pageWidth-2*margin, pageHeight-2*margin
	switch perPage {
	case 2:
		ch := (h - gutter) / 2
		return []cell{{margin, margin + ch + gutter, w, ch}, {margin, margin, w, ch}}
	case 4:
		cw, ch := (w-gutter)/2, (h-gutter)/2
		top, right := margin+ch+gutter, margin+cw+gutter
		return []cell{{margin, top, cw, ch}, {right, top, cw, ch}, {margin, margin, cw, ch}, {right, margin, cw, ch}}
	default:
		return []cell{{margin, margin, w, h}}
	}
}

// fit scales w×h to fit in maxW×maxH, keeping its aspect ratio.
func fit(w, h, maxW, maxH float64) (float64, float64) {
	s := min(maxW/w, maxH/h)
	return w * s, h * s
}

// image writes an image XObject, copying the JPEG from its reader.
func (aw *Writer) image(img Image, info jpegInfo) (int, error) {
	obj := aw.o.alloc()
	aw.o.begin(obj)
	aw.o.printf("<<%s /Length %d>>\nstream\n", info.imageDict(), img.Size)
	n, err := io.Copy(aw.o, io.NewSectionReader(img.R, 0, img.Size))
	if err == nil && n != img.Size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return 0, fmt.Errorf("copying image: %w", err)
	}
	aw.o.printf("\nendstream\n")
	aw.o.end()
	aw.images = append(aw.images, obj)
	return obj, aw.o.err
}

// draw places the image object obj (already on this page's list) at x, y
// with size w×h.
func (aw *Writer) draw(obj int, x, y, w, h float64) {
	i := slices.Index(aw.images, obj)
	fmt.Fprintf(&aw.content, "q %s 0 0 %s %s %s cm /I%d Do Q\n", num(w), num(h), num(x), num(y), i)
}

// centred draws line, laid out at size, centred on x at baseline y.
func (aw *Writer) centred(line text.Line, x, y, size float64) {
	aw.content.WriteString(aw.fonts.show(line, x-line.Width/2, y, size, aw.faces))
}

// endPage writes the page being filled: its content stream and the page
// object. Photo pages get their number at the foot.
func (aw *Writer) endPage(numbered bool) error {
	if numbered {
		aw.content.WriteString("0.5 g\n")
		aw.centred(aw.fonts.truncate(fmt.Sprint(len(aw.kids)+1), 8, pageWidth), pageWidth/2, margin/2, 8)
	}
	contents := aw.o.alloc()
	aw.o.stream(contents, "", []byte(aw.content.String()))

	var res strings.Builder
	res.WriteString("/ProcSet [/PDF /Text /ImageB /ImageC]")
	if len(aw.images) > 0 {
		res.WriteString(" /XObject <<")
		for i, n := range aw.images {
			fmt.Fprintf(&res, " /I%d %d 0 R", i, n)
		}
		res.WriteString(" >>")
	}
	if len(aw.faces) > 0 {
		res.WriteString(" /Font <<")
		for i, fc := range aw.fonts.faces {
			if !aw.faces[i] {
				continue
			}
			if fc.obj == 0 {
				fc.obj = aw.o.alloc()
			}
			fmt.Fprintf(&res, " /F%d %d 0 R", i, fc.obj)
		}
		res.WriteString(" >>")
	}
	page := aw.o.alloc()
	aw.o.object(page, fmt.Sprintf("<</Type /Page /Parent %d 0 R /Resources <<%s>> /Contents %d 0 R>>", aw.pages, res.String(), contents))
	aw.kids = append(aw.kids, page)

	aw.content.Reset()
	aw.images = aw.images[:0]
	clear(aw.faces)
	aw.slot = 0
	return aw.o.err
}

// Close writes the last page, the fonts, the page tree and the
// cross-reference table, and flushes the output. An album with no page
// gets one blank page, so the file is always a valid PDF. Close does not
// close the underlying writer; a second call returns ErrClosed.
func (aw *Writer) Close() error {
	if aw.closed {
		return ErrClosed
	}
	aw.closed = true
	defer aw.fonts.close()
	if aw.slot > 0 || len(aw.kids) == 0 {
		if err := aw.endPage(aw.slot > 0); err != nil {
			return err
		}
	}
	if err := aw.fonts.write(aw.o); err != nil {
		return err
	}
	var kids strings.Builder
	for i, k := range aw.kids {
		if i > 0 {
			kids.WriteByte(' ')
		}
		fmt.Fprintf(&kids, "%d 0 R", k)
	}
	aw.o.object(aw.pages, fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 %s %s]>>",
		kids.String(), len(aw.kids), num(pageWidth), num(pageHeight)))
	aw.o.object(aw.catalog, fmt.Sprintf("<</Type /Catalog /Pages %d 0 R>>", aw.pages))
	info := "/Producer (eventbox)"
	if aw.title != "" {
		info += " /Title " + textString(aw.title)
	}
	if !aw.created.IsZero() {
		info += " /CreationDate (D:" + aw.created.UTC().Format("20060102150405") + "Z)"
	}
	aw.o.object(aw.info, "<<"+info+">>")
	return aw.o.finish(aw.catalog, aw.info)
}
