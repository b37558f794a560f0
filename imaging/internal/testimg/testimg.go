package testimg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// Photo returns a w×h 4:2:0 picture that compresses like a phone photo:
// smooth light, hard-edged shapes, fine texture and sensor-like noise. At
// 4032×3024 and JPEG quality 90 it weighs about 4 MB. The same seed gives the
// same picture.
func Photo(w, h int, seed uint64) *image.YCbCr {
	m := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	fx := make([]float64, w)
	hx := make([]float64, w)
	for x := range fx {
		t := float64(x) / float64(w)
		fx[x] = math.Sin(2*math.Pi*1.7*t + 0.3)
		hx[x] = math.Sin(2*math.Pi*9*t) * math.Sin(2*math.Pi*2.3*t)
	}
	gy := make([]float64, h)
	for y := range gy {
		t := float64(y) / float64(h)
		gy[y] = math.Cos(2*math.Pi*1.1*t) + 0.4*math.Sin(2*math.Pi*13*t)
	}
	// Buildings: hard-edged dark shapes, one height per column band.
	band := max(w/14, 1)
	tops := make([]int, w/band+1)
	for i := range tops {
		tops[i] = h/3 + rng.IntN(h/2+1)
	}
	var tex [64 * 64]int8
	for i := range tex {
		tex[i] = int8(rng.IntN(25) - 12)
	}
	for y := range h {
		row := m.Y[y*m.YStride : y*m.YStride+w]
		g := gy[y]
		for x := range row {
			v := 120 + 45*fx[x]*g + 25*hx[x]
			if y > tops[x/band] {
				v -= 45
			}
			v += float64(tex[(y&63)<<6|x&63])
			n := rng.Uint32()
			v += float64(int(n&255)+int(n>>8&255)-255) / 20
			row[x] = clampByte(v)
		}
	}
	cw, ch := (w+1)/2, (h+1)/2
	for y := range ch {
		cb := m.Cb[y*m.CStride : y*m.CStride+cw]
		cr := m.Cr[y*m.CStride : y*m.CStride+cw]
		g := gy[min(2*y, h-1)]
		for x := range cb {
			f := fx[min(2*x, w-1)]
			n := rng.Uint32()
			cb[x] = clampByte(128 + 30*f - 15*g + float64(int(n&15)-8))
			cr[x] = clampByte(128 - 20*f*g + 18*hx[min(2*x, w-1)] + float64(int(n>>8&15)-8))
		}
	}
	return m
}

func clampByte(v float64) byte {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return byte(v + 0.5)
}

// Quadrant colours of the Quadrants picture, top left, top right, bottom
// left, bottom right.
var (
	Red   = color.NRGBA{220, 30, 30, 255}
	Green = color.NRGBA{30, 200, 40, 255}
	Blue  = color.NRGBA{30, 40, 220, 255}
	White = color.NRGBA{250, 250, 250, 255}
)

// Quadrants returns a w×h picture whose quadrants are Red (top left), Green
// (top right), Blue (bottom left) and White (bottom right), so that any turn
// or mirror of it shows.
func Quadrants(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := Red
			switch {
			case x >= w/2 && y < h/2:
				c = Green
			case x < w/2 && y >= h/2:
				c = Blue
			case x >= w/2 && y >= h/2:
				c = White
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

// Stored returns the picture a camera would store with EXIF orientation o so
// that a viewer applying o shows m. o must be 1 to 8.
func Stored(m image.Image, o int) *image.NRGBA {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	sw, sh := w, h
	if o >= 5 {
		sw, sh = h, w
	}
	s := image.NewNRGBA(image.Rect(0, 0, sw, sh))
	for sy := range sh {
		for sx := range sw {
			// Where stored pixel (sx, sy) lands when displayed.
			var dx, dy int
			switch o {
			case 1:
				dx, dy = sx, sy
			case 2:
				dx, dy = sw-1-sx, sy
			case 3:
				dx, dy = sw-1-sx, sh-1-sy
			case 4:
				dx, dy = sx, sh-1-sy
			case 5:
				dx, dy = sy, sx
			case 6:
				dx, dy = sh-1-sy, sx
			case 7:
				dx, dy = sh-1-sy, sw-1-sx
			case 8:
				dx, dy = sy, sw-1-sx
			}
			s.Set(sx, sy, m.At(b.Min.X+dx, b.Min.Y+dy))
		}
	}
	return s
}

// EXIF returns the payload of a JPEG APP1 segment ("Exif\0\0" and a
// little-endian TIFF structure) with IFD0 holding Make, Model and Orientation
// o, and, when gps is true, a GPS IFD placing the photo in Rome.
func EXIF(o int, gps bool) []byte {
	type entry struct {
		tag, typ uint16
		count    uint32
		data     []byte // value bytes; inline when at most 4
	}
	le := binary.LittleEndian
	short := func(v uint16) []byte { return le.AppendUint16(nil, v) }
	long := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	rationals := func(vs ...uint32) []byte {
		var b []byte
		for i := 0; i < len(vs); i += 2 {
			b = le.AppendUint32(b, vs[i])
			b = le.AppendUint32(b, vs[i+1])
		}
		return b
	}
	ifd0 := []entry{
		{0x010f, 2, 7, []byte("Google\x00")},
		{0x0110, 2, 8, []byte("Pixel 7\x00")},
		{0x0112, 3, 1, short(uint16(o))},
	}
	var gpsIFD []entry
	if gps {
		ifd0 = append(ifd0, entry{0x8825, 4, 1, long(0)}) // patched below
		gpsIFD = []entry{
			{0x0000, 1, 4, []byte{2, 3, 0, 0}},
			{0x0001, 2, 2, []byte("N\x00")},
			{0x0002, 5, 3, rationals(41, 1, 53, 1, 2412, 100)},
			{0x0003, 2, 2, []byte("E\x00")},
			{0x0004, 5, 3, rationals(12, 1, 29, 1, 1968, 100)},
		}
	}
	ifdSize := func(es []entry) int {
		n := 2 + 12*len(es) + 4
		for _, e := range es {
			if len(e.data) > 4 {
				n += len(e.data)
			}
		}
		return n
	}
	gpsOff := 8 + ifdSize(ifd0)
	if gps {
		ifd0[len(ifd0)-1].data = long(uint32(gpsOff))
	}
	write := func(b []byte, es []entry, off int) []byte {
		b = le.AppendUint16(b, uint16(len(es)))
		data := off + 2 + 12*len(es) + 4
		var extra []byte
		for _, e := range es {
			b = le.AppendUint16(b, e.tag)
			b = le.AppendUint16(b, e.typ)
			b = le.AppendUint32(b, e.count)
			if len(e.data) <= 4 {
				var v [4]byte
				copy(v[:], e.data)
				b = append(b, v[:]...)
				continue
			}
			b = le.AppendUint32(b, uint32(data+len(extra)))
			extra = append(extra, e.data...)
		}
		b = le.AppendUint32(b, 0)
		return append(b, extra...)
	}
	tiff := []byte("II*\x00\x08\x00\x00\x00")
	tiff = write(tiff, ifd0, 8)
	if gps {
		tiff = write(tiff, gpsIFD, gpsOff)
	}
	return append([]byte("Exif\x00\x00"), tiff...)
}

// JPEG encodes m at quality q and, when app1 is not nil, inserts it as an
// APP1 segment right after the SOI marker.
func JPEG(m image.Image, q int, app1 []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("encoding jpeg: %w", err)
	}
	b := buf.Bytes()
	if app1 == nil {
		return b, nil
	}
	if len(app1)+2 > 0xffff {
		return nil, fmt.Errorf("APP1 payload of %d bytes is too long", len(app1))
	}
	out := make([]byte, 0, len(b)+len(app1)+4)
	out = append(out, b[:2]...)
	out = append(out, 0xff, 0xe1, byte((len(app1)+2)>>8), byte(len(app1)+2))
	out = append(out, app1...)
	return append(out, b[2:]...), nil
}
