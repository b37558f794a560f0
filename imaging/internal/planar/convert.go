package planar

import (
	"image"
	"image/color"
)

// FromImage returns m as planes, with transparency flattened onto white (a
// JPEG has no alpha). Opaque Y'CbCr and grey images whose bounds start at the
// origin are wrapped without copying, so the result then shares m's memory;
// everything else is converted to new 4:2:0 planes.
func FromImage(m image.Image) Image {
	b := m.Bounds()
	switch m := m.(type) {
	case *image.YCbCr:
		if sx, sy, ok := subsampling(m.SubsampleRatio); ok && b.Min == (image.Point{}) {
			w, h := b.Dx(), b.Dy()
			cw, ch := ceilDiv(w, sx), ceilDiv(h, sy)
			return Image{
				W: w, H: h, SubX: sx, SubY: sy,
				Y:  Plane{Pix: m.Y, Stride: m.YStride, W: w, H: h},
				Cb: Plane{Pix: m.Cb, Stride: m.CStride, W: cw, H: ch},
				Cr: Plane{Pix: m.Cr, Stride: m.CStride, W: cw, H: ch},
			}
		}
	case *image.Gray:
		if b.Min == (image.Point{}) {
			return Image{
				W: b.Dx(), H: b.Dy(), SubX: 1, SubY: 1, Gray: true,
				Y: Plane{Pix: m.Pix, Stride: m.Stride, W: b.Dx(), H: b.Dy()},
			}
		}
	}
	return fromRows(b.Dx(), b.Dy(), rowReader(m))
}

func subsampling(r image.YCbCrSubsampleRatio) (int, int, bool) {
	switch r {
	case image.YCbCrSubsampleRatio444:
		return 1, 1, true
	case image.YCbCrSubsampleRatio422:
		return 2, 1, true
	case image.YCbCrSubsampleRatio420:
		return 2, 2, true
	case image.YCbCrSubsampleRatio440:
		return 1, 2, true
	case image.YCbCrSubsampleRatio411:
		return 4, 1, true
	case image.YCbCrSubsampleRatio410:
		return 4, 2, true
	}
	return 0, 0, false
}

// rowFunc writes row y (counted from the top of the bounds) of an image into
// dst as 8-bit R, G, B triplets already flattened onto white.
type rowFunc func(y int, dst []byte)

// flatten composites a straight-alpha sample onto white.
func flatten(c, a uint32) byte {
	return byte((c*a + 255*(255-a) + 127) / 255)
}

func rowReader(m image.Image) rowFunc {
	b := m.Bounds()
	switch m := m.(type) {
	case *image.NRGBA:
		return func(y int, dst []byte) {
			src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < b.Dx(); x++ {
				p := src[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				a := uint32(p[3])
				if a == 255 {
					d[0], d[1], d[2] = p[0], p[1], p[2]
					continue
				}
				d[0], d[1], d[2] = flatten(uint32(p[0]), a), flatten(uint32(p[1]), a), flatten(uint32(p[2]), a)
			}
		}
	case *image.RGBA:
		return func(y int, dst []byte) {
			src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < b.Dx(); x++ {
				p := src[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				// Premultiplied: colour + white*(1-alpha).
				t := 255 - p[3]
				d[0], d[1], d[2] = p[0]+t, p[1]+t, p[2]+t
			}
		}
	case *image.Paletted:
		var lut [256][3]byte
		for i, c := range m.Palette {
			r, g, bb, a := c.RGBA()
			// Premultiplied 16-bit: add white for the missing coverage.
			t := 0xffff - a
			lut[i] = [3]byte{byte((r + t) >> 8), byte((g + t) >> 8), byte((bb + t) >> 8)}
		}
		for i := len(m.Palette); i < 256; i++ {
			lut[i] = [3]byte{255, 255, 255}
		}
		return func(y int, dst []byte) {
			src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < b.Dx(); x++ {
				c := lut[src[x]]
				copy(dst[3*x:3*x+3], c[:])
			}
		}
	}
	return func(y int, dst []byte) {
		for x := 0; x < b.Dx(); x++ {
			r, g, bb, a := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
			t := 0xffff - a
			dst[3*x], dst[3*x+1], dst[3*x+2] = byte((r+t)>>8), byte((g+t)>>8), byte((bb+t)>>8)
		}
	}
}

// fromRows converts an RGB image, read a row at a time, to full-resolution
// luma and 4:2:0 chroma averaged over each 2×2 block.
func fromRows(w, h int, read rowFunc) Image {
	m := NewImage(w, h, 2, 2, false)
	r0 := make([]byte, 3*w)
	r1 := make([]byte, 3*w)
	for cy := 0; cy < m.Cb.H; cy++ {
		y0 := 2 * cy
		read(y0, r0)
		second := y0+1 < h
		if second {
			read(y0+1, r1)
		} else {
			copy(r1, r0)
		}
		lumaRow(r0, m.Y.Row(y0))
		if second {
			lumaRow(r1, m.Y.Row(y0+1))
		}
		cb, cr := m.Cb.Row(cy), m.Cr.Row(cy)
		for cx := range cb {
			x0, x1 := 2*cx, min(2*cx+1, w-1)
			var r, g, b int32
			for _, x := range [2]int{x0, x1} {
				r += int32(r0[3*x]) + int32(r1[3*x])
				g += int32(r0[3*x+1]) + int32(r1[3*x+1])
				b += int32(r0[3*x+2]) + int32(r1[3*x+2])
			}
			_, cb[cx], cr[cx] = color.RGBToYCbCr(byte((r+2)>>2), byte((g+2)>>2), byte((b+2)>>2))
		}
	}
	return m
}

func lumaRow(rgb, out []byte) {
	for x := range out {
		p := rgb[3*x : 3*x+3 : 3*x+3]
		// JFIF luma, 16-bit fixed point as in image/color.
		y := (19595*int32(p[0]) + 38470*int32(p[1]) + 7471*int32(p[2]) + 1<<15) >> 16
		out[x] = byte(y)
	}
}
