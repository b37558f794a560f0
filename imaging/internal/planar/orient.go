package planar

// Orient returns m as it should be displayed when its EXIF Orientation tag is
// o: 1 is as stored, 2 mirrored left-right, 3 turned 180°, 4 mirrored
// top-bottom, 5 transposed (mirrored, then turned 90° counter-clockwise), 6
// turned 90° clockwise, 7 transversed (mirrored, then turned 90° clockwise), 8
// turned 90° counter-clockwise. Orientations 5 to 8 swap the width and height.
// Any other o is treated as 1 and returns m itself.
func Orient(m Image, o int) Image {
	if o < 2 || o > 8 {
		return m
	}
	out := Image{W: m.W, H: m.H, SubX: m.SubX, SubY: m.SubY, Gray: m.Gray}
	if o >= 5 {
		out.W, out.H = m.H, m.W
		out.SubX, out.SubY = m.SubY, m.SubX
	}
	out.Y = orientPlane(m.Y, o)
	if !m.Gray {
		out.Cb = orientPlane(m.Cb, o)
		out.Cr = orientPlane(m.Cr, o)
	}
	return out
}

// orientPlane walks the source so that displayed sample (x, y) is read from
// index origin + x*dx + y*dy.
func orientPlane(p Plane, o int) Plane {
	w, h, s := p.W, p.H, p.Stride
	last, right := (h-1)*s, w-1
	var origin, dx, dy int
	switch o {
	case 2:
		origin, dx, dy = right, -1, s
	case 3:
		origin, dx, dy = last+right, -1, -s
	case 4:
		origin, dx, dy = last, 1, -s
	case 5:
		origin, dx, dy = 0, s, 1
	case 6:
		origin, dx, dy = last, -s, 1
	case 7:
		origin, dx, dy = last+right, -s, -1
	case 8:
		origin, dx, dy = right, s, -1
	default:
		origin, dx, dy = 0, 1, s
	}
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	d := NewPlane(dw, dh)
	for y := range dh {
		i := origin + y*dy
		out := d.Row(y)
		for x := range out {
			out[x] = p.Pix[i]
			i += dx
		}
	}
	return d
}
