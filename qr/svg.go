package qr

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"strconv"

	"eventbox/text"
)

// maxLogoPixels caps the side of the logo PNG embedded in an SVG: the SVG
// scales, so a bigger bitmap only makes the file heavier.
const maxLogoPixels = 512

// captionFamily is the SVG caption's font list: the embedded fonts' families
// first (present when the viewer has them installed), then generic ones.
const captionFamily = "DejaVu Sans, Noto Sans, Noto Sans CJK SC, Droid Sans Fallback, Arial, sans-serif"

// SVG writes the code for content as an SVG whose viewBox is size×size, in
// style st, with caption (if not empty) as a text element in a band below
// the code. The logo is embedded as a data: URI PNG. It fails like
// [Renderer.PNG].
func (rd *Renderer) SVG(w io.Writer, content string, size int, st Style, caption string) error {
	l, err := plan(content, size, st, caption)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", size, size, size, size)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="%s"/>`+"\n", size, size, hex(st.Background))
	fmt.Fprintf(bw, `<path fill="%s" d="`, hex(st.Foreground))
	writePath(bw, l, st.Round)
	bw.WriteString("\"/>\n")
	if l.hasLogo && !l.logoIn.Empty() {
		uri, err := logoURI(st.Logo, l.logoIn.Size())
		if err != nil {
			return err
		}
		r := l.logoIn
		fmt.Fprintf(bw, `<image x="%d" y="%d" width="%d" height="%d" preserveAspectRatio="xMidYMid meet" href="%s"/>`+"\n",
			r.Min.X, r.Min.Y, r.Dx(), r.Dy(), uri)
	}
	if l.caption.Dy() > 0 {
		if err := rd.writeCaption(bw, l, st, caption); err != nil {
			return err
		}
	}
	bw.WriteString("</svg>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing qr svg: %w", err)
	}
	return nil
}

// writePath writes the path data of the dark modules in pixel units:
// horizontal runs of squares, or in round style one circle per module
// (two arcs) with square finder patterns.
func writePath(w *bufio.Writer, l *layout, round bool) {
	u := l.unit
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for y := range l.n {
		// One line of path data per module row keeps diffs readable.
		if y > 0 {
			w.WriteByte('\n')
		}
		for x := 0; x < l.n; x++ {
			if !l.dark(x, y) {
				continue
			}
			px, py := l.ox+x*u, l.oy+y*u
			if round && !l.finder(x, y) {
				r := dotRadius * float64(u)
				cx, cy := float64(px)+float64(u)/2, float64(py)+float64(u)/2
				fmt.Fprintf(w, "M%s %sa%s %s 0 1 0 %s 0a%s %s 0 1 0 -%s 0z",
					num(cx-r), num(cy), num(r), num(r), num(2*r), num(r), num(r), num(2*r))
				continue
			}
			// A run of square modules (finder modules only, in round
			// style) becomes one rectangle.
			run := 1
			for x+run < l.n && l.dark(x+run, y) && (!round || l.finder(x+run, y)) {
				run++
			}
			fmt.Fprintf(w, "M%d %dh%dv%dh-%dz", px, py, run*u, u, run*u)
			x += run - 1
		}
	}
}

// logoURI returns the logo as a data: URI PNG no bigger than needed for
// box (and at most maxLogoPixels on a side).
func logoURI(logo image.Image, box image.Point) (string, error) {
	size := box
	if m := max(size.X, size.Y); m > maxLogoPixels {
		size = image.Pt(size.X*maxLogoPixels/m, size.Y*maxLogoPixels/m)
	}
	src := logo
	if b := logo.Bounds(); b.Dx() > size.X || b.Dy() > size.Y {
		src = scaleLogoAlpha(logo, size)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		return "", fmt.Errorf("encoding qr logo: %w", err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// writeCaption writes the caption as a centred text element in the band.
func (rd *Renderer) writeCaption(w *bufio.Writer, l *layout, st Style, caption string) error {
	caption = text.OneLine(caption)
	if caption == "" {
		return nil
	}
	px := rd.captionFontSize(caption, l.caption.Dx(), l.caption.Dy())
	cy := float64(l.caption.Min.Y) + float64(l.caption.Dy())/2
	fmt.Fprintf(w, `<text x="%d" y="%s" font-family="%s" font-size="%s" fill="%s" text-anchor="middle" dominant-baseline="central">`,
		l.size/2, strconv.FormatFloat(cy, 'f', 1, 64), captionFamily, strconv.FormatFloat(px, 'f', 1, 64), hex(st.Foreground))
	if err := xml.EscapeText(w, []byte(caption)); err != nil {
		return fmt.Errorf("writing qr caption: %w", err)
	}
	w.WriteString("</text>\n")
	return nil
}
